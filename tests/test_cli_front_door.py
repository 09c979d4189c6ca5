"""The front door, second pass: where ``--help`` sends a wheel user, which stream a command's
closing lines go to, and ``sensekit`` with no command."""
from __future__ import annotations

from sensekit.installed import install_hint
import contextlib
import re
from pathlib import Path

import pytest

import sensekit.paths
from sensekit.cli import build_parser, command_names, main

DOC_MENTION = re.compile(r"docs/[\w.]+\.md")


def _every_help(capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    helps = {"sensekit": build_parser().format_help()}
    for name in command_names():
        command = name.replace("_", "-")
        with contextlib.suppress(SystemExit):
            main([command, "--help"])
        helps[command] = capsys.readouterr().out
    return helps


def test_help_in_a_wheel_install_never_sends_the_reader_to_a_missing_docs_file(tmp_path, monkeypatch, capsys):
    # a wheel installs sensekit/ without the repository's docs/ beside it
    monkeypatch.setattr(sensekit.paths, "REPO_DIR", tmp_path)
    helps = _every_help(capsys)
    named = {cmd: text for cmd, text in helps.items() if DOC_MENTION.search(text)}
    assert {"sensekit", "apps", "settings"} <= set(named), sorted(named)
    for cmd, text in named.items():
        flat = " ".join(text.split())
        for m in DOC_MENTION.finditer(flat):
            assert flat[m.end():].startswith(" in sensekit's sources (its repository, or the sdist"), (cmd, flat)


def test_help_in_a_checkout_names_the_docs_files_by_their_full_path(capsys):
    helps = _every_help(capsys)
    docs = Path(sensekit.paths.REPO_DIR) / "docs"
    for name in ("book.md", "tutorial.md"):
        assert (docs / name).is_file()
        naming = [text for text in helps.values() if name in " ".join(text.split())]
        assert naming and all(str(docs / name) in text for text in naming), name   # never cut at a hyphen


def test_the_sdist_carries_the_docs_that_help_names():
    manifest = (Path(sensekit.paths.REPO_DIR) / "MANIFEST.in").read_text(encoding="utf-8").split("\n")
    assert "graft docs" in manifest and "graft examples" in manifest


def test_sensekit_alone_is_a_mistake_one_line_status_2(capsys):
    assert main([]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, (out, err)
    assert err.startswith("sensekit: error: name a command") and "sensekit --help" in err
    assert main(["-q"]) == 2


def test_sensekit_help_still_exits_0(capsys):
    assert main(["--help"]) == 0
    assert "COMMAND" in capsys.readouterr().out


@pytest.mark.parametrize("argv, said", [
    (["record", "{tmp}/r.skrec", "--source", "demo", "--seconds", "0.5", "--no-progress"], "saved "),
    (["run", "clapper", "--headless", "--frames", "3", "--screenshot", "{tmp}/a.png"], "screenshot: "),
    (["plot", "demo", "--out", "{tmp}/p.png"], "wrote "),
    (["snapshot", "demo", "--frame", "3", "--out", "{tmp}/s.png"], "wrote "),
])
def test_the_closing_lines_of_a_command_that_writes_files_are_on_stdout(argv, said, tmp_path, capsys):
    # record said its 'saved' line on stderr while run said its closing lines on stdout
    assert main([a.format(tmp=tmp_path) for a in argv]) == 0
    out, err = capsys.readouterr()
    assert said in out and str(tmp_path) in out, out
    assert said not in err and str(tmp_path) not in err, err


@pytest.mark.parametrize("argv, said", [
    (["record", "r.skrec", "--source", "demo", "--seconds", "0.5", "--no-progress"], "saved "),
    (["plot", "demo", "--out", "p.png"], "wrote "),
    (["snapshot", "demo", "--frame", "3", "--out", "s.png"], "wrote "),
])
def test_a_file_given_by_a_relative_name_is_said_by_its_full_path(argv, said, tmp_path, monkeypatch, capsys):
    # run said 'screenshot: /full/path.png'; record, plot and snapshot said the name as typed
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 0
    out = capsys.readouterr().out
    name = argv[1] if argv[0] == "record" else argv[argv.index("--out") + 1]
    assert f"{said}{tmp_path / name}" in out, out


def test_the_hands_hint_names_the_install_that_keeps_the_main_venv_whole(capsys):
    """`pip install -e '.[hands]'` alone, in the README's venv, downgrades numpy to 1 and puts
    a Qt build of OpenCV over the headless one; docs/hands.md installs it in a venv of its own
    with two lines after it. The one-line error said only the first line."""
    import importlib.util

    if importlib.util.find_spec("mediapipe") is not None:
        pytest.skip("the hands extra is installed here")
    assert main(["events", "demo", "--hands"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and install_hint("hands") in err, err
    assert "best in a venv of its own, with the two lines after it in " in err
    assert str(Path(sensekit.paths.REPO_DIR) / "docs" / "hands.md") in err


def test_osc_listen_that_heard_nothing_says_so_at_the_end(capsys):
    """`sensekit osc-listen 9000 --seconds 5` with the sender pointed elsewhere ended printing
    nothing at all, the same as a listener that never ran."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["osc-listen", str(port), "--seconds", "0.05"]) == 0
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines()[-1] == (f"no OSC message arrived on 127.0.0.1:{port} in 0.05 s (is the sender "
                                    f"pointed at this address and port?)"), err
