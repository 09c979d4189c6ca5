"""Start-up: ``sensekit --help`` imports no command, and the lazy parser lists the same commands
with the same help as the full one (benchmarks/startup.py times it)."""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys

import pytest

from sensekit.cli import build_parser, command_names, command_summary
from sensekit.paths import recordings_dir


def _subcommands(parser):
    action = next(a for a in parser._subparsers._group_actions)
    return {c.dest: c.help for c in action._choices_actions}


def test_the_lazy_parser_lists_every_command_with_its_own_help():
    full = _subcommands(build_parser())
    assert _subcommands(build_parser(lazy=True)) == full
    assert {command_summary(m)[0] for m in command_names() if command_summary(m)} == set(full)
    assert "osc-listen" in full and all(full.values())


def test_a_lazily_built_command_parses_like_the_full_parser():
    argv = ["run", "clapper", "--headless", "--frames", "3", "--set", "clap.min_level=30"]
    lazy = vars(build_parser("run", lazy=True).parse_args(argv))
    full = vars(build_parser().parse_args(argv))
    assert {k: v for k, v in lazy.items() if k != "func"} == {k: v for k, v in full.items() if k != "func"}


def test_a_named_command_reads_no_other_commands_summary(monkeypatch):
    import sensekit.cli as cli

    def unread(module):
        raise AssertionError(f"read {module}'s source")

    monkeypatch.setattr(cli, "command_summary", unread)
    assert set(_subcommands(build_parser("events", lazy=True))) == {"events"}
    monkeypatch.undo()
    # a word that is no command (a helper module's name too) still lists every command
    for word in ("paths", "osc_listen", "nosuch"):
        assert set(_subcommands(build_parser(word, lazy=True))) == set(_subcommands(build_parser()))


def test_help_imports_neither_the_web_server_nor_scipy_nor_pygame():
    code = ("import sys, contextlib, io\nfrom sensekit.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()) as out:\n    code = main(['--help'])\n"
            "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'aiohttp', 'scipy', 'pygame', 'matplotlib'})\n"
            "print(code, 'snapshot' in out.getvalue(), heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["0", "True", "[]"], out


def test_an_app_without_blobs_starts_without_scipy_optimize(tmp_path):
    """scipy.optimize (most of a second to import) is paid by a BlobTracker, not by every app's start."""
    if not (recordings_dir() / "demo.skrec" / "meta.json").is_file():
        pytest.skip("bundled recording recordings/demo.skrec not generated (python -m sensekit.synth)")
    shot = str(tmp_path / "c.png")
    code = ("import sys\nfrom sensekit.cli import main\n"
            f"code = main(['-q', 'run', 'clapper', '--headless', '--frames', '3', '--screenshot', {shot!r}])\n"
            "before = 'scipy.optimize' in sys.modules\n"
            "from sensekit.vision.blob_tracker import BlobTracker\nBlobTracker()\n"
            "print(code, before, 'scipy.optimize' in sys.modules)")
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env,
                         timeout=120).stdout
    assert out.split()[-3:] == ["0", "False", "True"], out


def _every_parser():
    import argparse

    from sensekit.cli import build_parser

    todo = [build_parser()]
    while todo:
        parser = todo.pop()
        yield parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo.extend(action.choices.values())


def test_every_help_is_plain_text_and_names_its_positionals():
    """`osc-listen --help` printed its module docstring's reST (``sensekit osc-listen PORT``) and a
    bare PORT; `teach gesture --help` its ``...`` markup and a lower-case `source`."""
    import argparse

    seen = 0
    for parser in _every_parser():
        text = parser.format_help()
        assert "``" not in text, parser.prog
        for action in parser._positionals._group_actions:
            if action.help is None and not isinstance(action, argparse._SubParsersAction):
                raise AssertionError(f"{parser.prog}: positional {action.metavar or action.dest} has no help")
        seen += 1
    assert seen >= 16                   # sensekit, its 12 commands, teach's 3


def test_teach_help_names_everything_it_teaches():
    """`sensekit teach --help` said "gestures and sounds" above its three commands: gesture,
    sound and words (the command words)."""
    teach = next(p for p in _every_parser() if p.prog == "sensekit teach")
    assert "gestures, sounds and command words" in " ".join(teach.format_help().split())


def _startup_lines(argv: list[str], tmp_path, **env_changes: str) -> list[str]:
    """Every line ``sensekit`` prints (stdout and stderr) before the run's closing report."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER", "SDL_AUDIODRIVER")}
    env.update(PYGAME_HIDE_SUPPORT_PROMPT="1", SDL_AUDIODRIVER="dummy", **env_changes)
    proc = subprocess.run([sys.executable, "-m", "sensekit", *argv], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = (proc.stderr + proc.stdout).splitlines()
    report = re.compile(rf"{argv[1]}: \d+ (frames|audio blocks)|screenshot: | ")   # or an event line
    return [line for line in lines if line.strip() and not report.match(line)]


def test_every_start_up_notice_has_one_style(tmp_path):
    """The notices a run prints as it starts (no display, the bundled recording instead of a
    device, the words heard and how, the panel's address, OSC) read alike: lower case, unless
    the first word is an acronym ('OSC: ...'). 'No display found' and 'No display opens' were
    the capitalised ones."""
    if not (recordings_dir() / "demo.skrec" / "meta.json").is_file():
        pytest.skip("bundled recording recordings/demo.skrec not generated (python -m sensekit.synth)")
    pytest.importorskip("pocketsphinx")
    stale = ":986"
    if os.path.exists(f"/tmp/.X11-unix/X{stale[1:]}"):
        pytest.skip(f"an X server answers on {stale} here")
    notices = _startup_lines(["run", "sound_flier", "--frames", "3", "--panel", "127.0.0.1:0",
                              "--set", "voice.words=go,stop", "--osc", "127.0.0.1:9",
                              "--osc-control", "127.0.0.1:0"], tmp_path)
    notices += _startup_lines(["run", "clapper", "--frames", "3"], tmp_path, DISPLAY=stale)
    notices += _startup_lines(["events", "demo", "--panel", "127.0.0.1:0", "--max-items", "5", "--level"],
                              tmp_path)
    expected = {"no display found", "no display opens", "voice words", "panel", "OSC"}
    if importlib.util.find_spec("mediapipe") is None:       # the missing extra's notice, by app name
        notices += _startup_lines(["run", "pinch_toss", "--frames", "3"], tmp_path)
        expected.add("pinch_toss")
    kinds = {line.split(":")[0].split(" (")[0] for line in notices}
    assert expected <= kinds, notices
    assert any(line.startswith("no microphone found;") for line in notices), notices
    for line in notices:
        first = line.split()[0].rstrip(":")
        assert line[0].islower() or first.isupper(), f"start-up notice not in the house style: {line!r}"
