"""Every output option of every command, and random bad values for every option.

The output options are discovered from the parsers (``sensekit.cli.paths.output_options``),
so a command or option added later is tried too. A bad output path must give one line
on stderr and exit status 2 before any work, with no traceback, no output written and
no change to the input recording. Then hypothesis throws bad values at every option of
every command: whatever the value, no traceback and either success or one error line.
"""
from __future__ import annotations

import argparse
import hashlib
import math
import os
import signal
import socket
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sensekit.capture.base import AudioBlock, VideoFrame
from sensekit.capture.recording import Recorder
from sensekit.cli import build_parser, main
from sensekit.cli.paths import OutputPath, output_options

# The output options this test knows must exist (more may be discovered).
KNOWN_OUTPUTS = {("run", "--screenshot"), ("run", "--video"), ("run", "--events"),
                 ("plot", "--out"), ("snapshot", "--out"), ("calibrate", "--out"),
                 ("record", "out")}
OUTPUT_WORDS = ("write", "save", "output", "folder to create")


def _clip(path: Path) -> Path:
    """1 s of 64x48 video at 15 fps and 8 kHz audio, with a loud burst at 0.5 s."""
    rng = np.random.default_rng(7)
    items: list = [VideoFrame(i, i / 15, rng.integers(0, 255, (48, 64, 3), dtype=np.uint8))
                   for i in range(15)]
    for k in range(20):
        amp = 0.8 if k == 10 else 0.01
        items.append(AudioBlock(k, k * 0.05, (rng.standard_normal(400) * amp).astype(np.float32), 8000))
    with Recorder(path, video=(64, 48, 15.0), audio=(8000, 1), block_size=400, fsync=False,
                  start_unix=0.0) as rec:
        for item in sorted(items, key=lambda it: (it.t, isinstance(it, AudioBlock))):
            rec.write(item)
    return path


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir()) if p.is_file()}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def rec(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _clip(tmp_path_factory.mktemp("input") / "in.skrec")


def base_argv(command: str, rec: Path, out: Path) -> list[str]:
    """A quick, successful invocation of each command (``out`` is a folder for outputs)."""
    return {
        "apps": ["apps"],
        "calibrate": ["calibrate", str(rec), "--seconds", "0.3", "--out", str(out / "v.toml")],
        "devices": ["devices", "--max-camera-index", "0"],
        "events": ["events", str(rec), "--max-items", "20", "--clap", "--motion"],
        "inspect": ["inspect", str(rec)],
        "osc-listen": ["osc-listen", str(_free_port()), "--seconds", "0.05"],
        "plot": ["plot", str(rec), "--out", str(out / "level.png")],
        "record": ["record", str(out / "new.skrec"), "--source", f"replay:{rec}",
                   "--seconds", "0.2", "--no-progress"],
        "run": ["run", "edge_snow", "--source", f"replay:{rec}", "--headless", "--frames", "3",
                "--screenshot", str(out / "shot.png")],
        "snapshot": ["snapshot", str(rec), "--frame", "2", "--out", str(out / "stages.png")],
        "settings": ["settings", "motion"],
    }.get(command, [command])


def with_value(argv: list[str], action: argparse.Action, value: str) -> list[str]:
    """``argv`` with ``action``'s value set to ``value`` (replaced, or appended)."""
    argv = list(argv)
    if not action.option_strings:                 # every command has one positional, first
        argv[1] = value
        return argv
    for opt in action.option_strings:
        if opt in argv:
            argv[argv.index(opt) + 1] = value
            return argv
    return argv + [action.option_strings[-1], value]


_PARSER = build_parser()


def _parser_of(command: str) -> argparse.ArgumentParser:
    for action in _PARSER._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[command]
    raise KeyError(command)


def _commands() -> list[str]:
    for action in _PARSER._actions:
        if isinstance(action, argparse._SubParsersAction):
            return sorted(action.choices)
    return []


def _cli(capsys: pytest.CaptureFixture, argv: list[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# --- discovery ----------------------------------------------------------------------------

def test_output_options_are_discovered_from_the_parsers():
    found = {(cmd, a.option_strings[-1] if a.option_strings else a.dest)
             for cmd, a in output_options(_PARSER)}
    assert found >= KNOWN_OUTPUTS, KNOWN_OUTPUTS - found


def test_every_option_that_writes_a_file_is_declared_as_an_output():
    """An option whose help says it writes or saves something must use ``OutputPath``."""
    missing = []
    for command in _commands():
        for a in _parser_of(command)._actions:
            text = (a.help or "").lower()
            if a.nargs == 0 or a.dest == "help" or isinstance(a.type, OutputPath):
                continue
            if any(w in text for w in OUTPUT_WORDS) and "stderr" not in text:
                missing.append((command, a.option_strings or a.dest, a.help))
    assert not missing, f"options that write but skip the output-path check: {missing}"


# --- bad output paths --------------------------------------------------------------------

def _bad_paths(action: argparse.Action, tmp: Path, rec: Path) -> dict[str, str]:
    kind: OutputPath = action.type
    ext = kind.suffixes[0] if kind.suffixes else ".out"
    bad = {
        "unwritable /proc": f"/proc/sensekit-out{ext}",
        "unwritable /sys": f"/sys/sensekit-out{ext}",
        "missing parent": str(tmp / "no" / "such" / f"x{ext}"),
        "inside the input recording": str(rec / f"x{ext}"),
        "empty": "",
    }
    if kind.folder:
        bad["existing folder"] = str(rec)
    else:
        bad["a folder"] = str(tmp)
    if kind.suffixes:
        bad["wrong extension"] = str(tmp / "x.wrong")
        bad["no extension"] = str(tmp / "x")
    return bad


OUTPUT_CASES = [(cmd, a) for cmd, a in output_options(_PARSER)]


@pytest.mark.parametrize("command, action", OUTPUT_CASES,
                         ids=[f"{c}-{a.option_strings[-1] if a.option_strings else a.dest}"
                              for c, a in OUTPUT_CASES])
def test_bad_output_paths_are_one_line_before_any_work(command, action, rec, tmp_path, capsys):
    before = _digest(rec)
    out = tmp_path / "outputs"
    out.mkdir()
    # the base invocation works, so a failure below is the bad path's doing
    code, _, err = _cli(capsys, base_argv(command, rec, out))
    assert code == 0, err
    for f in out.iterdir():
        if f.is_dir():
            import shutil
            shutil.rmtree(f)
        else:
            f.unlink()
    name = action.option_strings[-1] if action.option_strings else action.metavar
    for case, path in _bad_paths(action, tmp_path, rec).items():
        listing = sorted(p.name for p in tmp_path.rglob("*"))
        code, stdout, err = _cli(capsys, with_value(base_argv(command, rec, out), action, path))
        lines = err.splitlines()
        assert code == 2, f"{case}: exit {code}\n{err}"
        assert "Traceback" not in err
        assert len(lines) == 1, f"{case}: {err}"
        assert lines[0].startswith(f"sensekit {command}: error: argument {name}"), f"{case}: {err}"
        if path:
            assert repr(path) in lines[0] or path in lines[0], f"{case}: the path is not named: {err}"
        assert stdout == "", f"{case}: work started: {stdout}"
        assert sorted(p.name for p in tmp_path.rglob("*")) == listing, f"{case}: wrote something"
        assert _digest(rec) == before, f"{case}: the input recording changed"


def test_an_output_that_is_the_input_file_is_refused(tmp_path, capsys):
    """`run --source file:clip.avi --video clip.avi` would overwrite the clip being read."""
    import cv2
    clip = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(clip), cv2.VideoWriter_fourcc(*"MJPG"), 15, (64, 48))
    for i in range(5):
        writer.write(np.full((48, 64, 3), i * 40, np.uint8))
    writer.release()
    data = clip.read_bytes()
    code, _stdout, err = _cli(capsys, ["run", "edge_snow", "--source", f"file:{clip}", "--headless",
                                      "--frames", "2", "--video", str(clip)])
    assert code == 2 and len(err.splitlines()) == 1 and "would overwrite the input" in err, err
    assert clip.read_bytes() == data


def test_record_needs_a_new_skrec_folder(tmp_path, rec, capsys):
    code, _, err = _cli(capsys, ["record", str(tmp_path / "take1"), "--source", f"replay:{rec}"])
    assert code == 2 and "must end in .skrec" in err and not (tmp_path / "take1").exists()


# --- empty and meaningless values --------------------------------------------------------

@pytest.mark.parametrize("argv, fragment", [
    (["events", "{rec}", "--track-color", ""], "--track-color: an empty value"),
    (["events", "{rec}", "--pattern", "0"], "`--pattern` must be 2..16, got 0"),
    (["events", "{rec}", "--zones", " "], "--zones: an empty value"),
    (["events", "{rec}", "--osc", ""], "--osc: an empty value"),
    (["events", "{rec}", "--profile", ""], "--profile: an empty value"),
    (["run", "edge_snow", "--source", ""], "--source: an empty value"),
    (["plot", "{rec}", "--width", "0"], "`--width` must be 2..100, got 0"),
    (["devices", "--max-camera-index", "100000"], "--max-camera-index"),
])
def test_empty_and_zero_values_are_rejected(argv, fragment, rec, capsys):
    code, _, err = _cli(capsys, [a.replace("{rec}", str(rec)) for a in argv])
    assert code == 2 and fragment in err and len(err.splitlines()) == 1, err


@pytest.mark.parametrize("argv, said", [
    (["events", "{rec}", "--clap", "--pattern-gap-ms", "300"],
     "--pattern-gap-ms goes with --pattern N (the gap between its claps)"),
    (["events", "{rec}", "--clap", "--gestures", "g.json"],
     "--gestures needs --hands (it names the gestures the hand stage knows)"),
    (["events", "{rec}", "--clap", "--osc-bundle"], "--osc-bundle needs --osc HOST:PORT (it wraps what --osc sends)"),
    (["run", "clapper", "--headless", "--frames", "3", "--source", "{rec}", "--osc-bundle"],
     "--osc-bundle needs --osc HOST:PORT (it wraps what --osc sends)"),
])
def test_an_option_without_the_one_it_goes_with_is_refused(argv, said, rec, capsys):
    # each was silently ignored (a --gestures file that does not exist included), where
    # --midi-virtual without --midi and --panel-token without --panel were refused
    code, out, err = _cli(capsys, [a.replace("{rec}", str(rec)) for a in argv])
    assert (code, out, err) == (2, "", f"sensekit: error: {said}\n")


def test_free_text_may_be_empty(tmp_path, rec, capsys):
    code, _, err = _cli(capsys, ["record", str(tmp_path / "n.skrec"), "--source", f"replay:{rec}",
                                 "--seconds", "0.1", "--no-progress", "--notes", ""])
    assert code == 0, err


# --- random bad values for every option ---------------------------------------------------

BAD_VALUES = ["", " ", "0", "-1", "-0", "nan", "inf", "-inf", "1e999", "99999999999999999999",
              "0x10", "1,2,3", ",", "#", "#zzzzzz", "=;", "a=1,2,3,4;;", "\t", "\x00", "é✓",
              "../../etc/passwd", "/proc/x", "camera:", "file:", "replay:", "mic:", "+",
              "-", "--", "1e-320", "3.5", "1:2", "[::1]:0", "x" * 300]
#: Options whose job is to take time or count work: a huge *valid* value is slow, not bad.
WORK_SIZE = {"--frames", "--max-items", "--seconds", "--count", "--frame"}
#: Examples per command (raise it to hunt: SENSEKIT_FUZZ_EXAMPLES=300 pytest tests/test_cli_outputs.py).
EXAMPLES = int(os.environ.get("SENSEKIT_FUZZ_EXAMPLES", "30"))
#: Options left out, with the reason.
SKIP = {("osc-listen", "--host"): "binding another address is valid and waits for --seconds"}


def _value_options(command: str) -> list[argparse.Action]:
    return [a for a in _parser_of(command)._actions
            if a.nargs != 0 and a.dest != "help" and not isinstance(a, argparse._SubParsersAction)
            and (command, a.option_strings[-1] if a.option_strings else a.dest) not in SKIP]


def _huge_number(text: str) -> bool:
    try:
        v = float(text)
    except ValueError:
        return False
    return math.isfinite(v) and abs(v) > 100


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


@pytest.mark.parametrize("command", [c for c in _commands() if _value_options(c)])
def test_bad_option_values_never_give_a_traceback(command, rec, tmp_path_factory, capsys):
    options = _value_options(command)
    before = _digest(rec)

    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=EXAMPLES <= 30,
              suppress_health_check=list(HealthCheck))
    @given(action=st.sampled_from(options),
           value=st.one_of(st.sampled_from(BAD_VALUES), st.text(max_size=12)))
    def check(action: argparse.Action, value: str) -> None:
        name = action.option_strings[-1] if action.option_strings else action.dest
        assume(not (name in WORK_SIZE and _huge_number(value)))
        out = tmp_path_factory.mktemp("o")
        argv = with_value(base_argv(command, rec, out), action, value)
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, 30.0)
        try:
            code, _, err = _cli(capsys, argv)
        except Hang:
            pytest.fail(f"{argv} ran for more than 30 s")
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        assert "Traceback" not in err, argv
        assert code in (0, 2), f"{argv}: exit {code}\n{err}"
        if code == 2:
            errors = [line for line in err.splitlines() if ": error: " in line]
            assert len(errors) == 1, f"{argv}:\n{err}"
        assert _digest(rec) == before, f"{argv} changed the input recording"

    check()


@pytest.mark.parametrize(("argv", "expected"), [
    (["events", "demo", "--clapp"],
     "sensekit events: error: unrecognized arguments: --clapp; did you mean --clap? (see `sensekit events --help`)"),
    (["inspect", "demo", "--quik"],
     "sensekit inspect: error: unrecognized arguments: --quik; did you mean --quick? (see `sensekit inspect --help`)"),
    (["run", "clapper", "--sorce", "demo"],
     "sensekit run: error: unrecognized arguments: --sorce demo; did you mean --source? "
     "(see `sensekit run --help`)"),
    (["events", "demo", "extra"],
     "sensekit events: error: unrecognized arguments: extra (see `sensekit events --help`)"),
    (["--clap"], "sensekit: error: unrecognized arguments: --clap (see `sensekit --help`)"),
    # sensekit's own options after the command (they were refused with no word on where they go)
    (["run", "clapper", "-q"], "sensekit run: error: unrecognized arguments: -q (-q goes before the command: "
     "sensekit -q run ...) (see `sensekit run --help`)"),
    (["events", "demo", "--clap", "-vv"], "sensekit events: error: unrecognized arguments: -vv (-vv goes before "
     "the command: sensekit -vv events ...) (see `sensekit events --help`)"),
])
def test_an_unknown_option_points_at_its_command_s_help(argv, expected, capsys):
    """A typo in a command's option: the error named `sensekit --help`, which does not list the
    command's options, and offered no spelling."""
    from sensekit.cli import main

    assert main(argv) == 2
    assert capsys.readouterr().err.strip() == expected


@pytest.mark.parametrize(("argv", "tail"), [
    (["evnts", "demo"], "; did you mean 'events'? (see `sensekit --help`)"),
    (["replay", "demo"], "; a recording replays with `sensekit events REC` or `sensekit run APP --source REC` "
                         "(see `sensekit --help`)"),
    (["play", "clapper"], "; an app plays with `sensekit run APP`; a recording with `sensekit events REC` "
                          "(see `sensekit --help`)"),
    (["teach", "gestur"], "; did you mean 'gesture'? (see `sensekit teach --help`)"),
    (["zzz"], "'teach') (see `sensekit --help`)"),
])
def test_an_unknown_command_names_the_closest_or_where_that_job_is(argv, tail, capsys):
    """'sensekit replay demo' (the docs speak of replays) or a typo listed the commands only."""
    from sensekit.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "invalid choice" in err and err.endswith(tail) and len(err.splitlines()) == 1, err
