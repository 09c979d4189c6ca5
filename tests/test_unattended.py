"""A piece run unattended (docs/installations.md, "Running a piece unattended"): the exit codes
its systemd unit's ``Restart=`` lines rely on, on real processes; a source lost for good keeps the
run going with one line in its log; the documented unit passes ``systemd-analyze verify`` (when
systemd is installed) and its fields say what the page says."""
from __future__ import annotations

import configparser
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.capture.mjpeg_server import MjpegServer
from tests.markdown_commands import REPO, blocks

PAGE = REPO / "docs" / "installations.md"
UNIT_TITLE = "~/.config/systemd/user/sensekit-piece.service"

CRASHING_PIECE = '''
import pygame
from sensekit.app import App


class Crash(App):
    title, instructions, needs = "Crash", "a piece with a bug", frozenset({"audio"})

    def setup(self) -> None:
        self.steps = 0

    def update(self, dt: float) -> None:
        self.steps += 1
        if self.steps == 10:
            raise RuntimeError("a bug in the piece")

    def draw(self, screen: pygame.Surface) -> None:
        screen.fill((0, 0, 0))
'''


def _env() -> dict[str, str]:
    return dict(os.environ, PYGAME_HIDE_SUPPORT_PROMPT="1", SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")


def _sensekit(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sensekit", *args], env=_env(), cwd=cwd,
                          capture_output=True, text=True, timeout=120)


# (what, arguments, status, a word of stderr): the table of the page
EXIT_TABLE = [
    ("bad option", ["run", "clapper", "--source", "demo", "--headless", "--bogus"], 2, "--bogus"),
    ("bad profile", ["run", "clapper", "--source", "demo", "--headless", "--profile", "venue.toml"], 2,
     "venue.toml:2: unknown key `audio.gian`"),
    ("unknown app", ["run", "edge_snoww", "--source", "demo", "--headless"], 2, "no app named"),
    ("missing file", ["events", "take1.skrec"], 2, "take1.skrec"),
    ("missing media file", ["run", "edge_snow", "--source", "take1.mp4", "--headless"], 2,
     "no such file or recording: 'take1.mp4'"),
    ("missing camera file", ["run", "edge_snow", "--source", "camera:take1.mp4", "--headless"], 2,
     "no camera 'take1.mp4'"),
    ("no camera at start", ["run", "edge_snow", "--source", "camera:9", "--headless"], 75,
     "no camera at index 9"),
    ("no microphone at start", ["run", "clapper", "--source", "mic:97", "--headless"], 75, "microphone"),
    ("panel on the LAN without a token", ["run", "edge_snow", "--source", "demo", "--headless",
                                          "--panel", "0.0.0.0:8765"], 2, "token"),
    ("a crash", ["run", "crash.py", "--source", "demo", "--headless"], 1, "RuntimeError: a bug in the piece"),
    ("the source ended", ["events", "demo", "--max-items", "40"], 0, ""),
]


@pytest.mark.parametrize("what, args, status, said", EXIT_TABLE, ids=[row[0] for row in EXIT_TABLE])
def test_exit_codes_tell_the_unit_whether_to_restart(tmp_path: Path, recordings_dir: Path, what: str,
                                                     args: list[str], status: int, said: str) -> None:
    if not (recordings_dir / "demo.skrec" / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")
    (tmp_path / "venue.toml").write_text("[audio]\ngian = 3\n")
    (tmp_path / "crash.py").write_text(CRASHING_PIECE)
    env_token = os.environ.get("SENSEKIT_PANEL_TOKEN")
    if env_token and "--panel" in args:
        pytest.skip("SENSEKIT_PANEL_TOKEN is set here")
    if any(a.startswith("mic:") for a in args):
        from sensekit.capture.devices import import_sounddevice
        from sensekit.errors import SourceError
        try:
            import_sounddevice()
        except SourceError as exc:                    # no PortAudio: that is a missing install (2)
            pytest.skip(f"no microphone layer here: {exc}")
    proc = _sensekit(args, tmp_path)
    assert proc.returncode == status, (what, proc.stdout, proc.stderr)
    assert said in proc.stderr, proc.stderr
    if status in (2, 75):                             # a refusal is one line, never a traceback
        assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) <= 12, proc.stderr


def test_the_page_lists_every_status_of_the_table() -> None:
    rows = {int(m.group(1)) for m in re.finditer(r"^\| (\d+) \|", PAGE.read_text(), re.M)}
    assert rows == {0, 1, 2, 75, 130}
    assert {status for _, _, status, _ in EXIT_TABLE} | {130} == rows   # 130: tests/test_stop_hangup.py


def test_a_source_lost_for_good_keeps_the_run_going_with_one_line(tmp_path: Path) -> None:
    """The stream goes away and never comes back: the run does not exit (there is nothing for a
    unit to restart), its log says "lost" once while it retries, and SIGTERM still stops it."""
    with MjpegServer(size=(64, 48), fps=15) as server:
        err_file = tmp_path / "err.txt"
        with err_file.open("w") as err:
            proc = subprocess.Popen([sys.executable, "-m", "sensekit", "events", f"camera:{server.url}"],
                                    env=_env(), cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=err, text=True)
        try:
            time.sleep(3)                                  # it reads a few frames
            server.stop()                                  # for good
            deadline = time.monotonic() + 60
            while "lost" not in err_file.read_text() and time.monotonic() < deadline:
                assert proc.poll() is None, err_file.read_text()
                time.sleep(0.2)
            time.sleep(10)                                  # several reconnect attempts (0.25 s doubling to 4 s)
            assert proc.poll() is None, err_file.read_text()
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    lines = err_file.read_text().splitlines()
    assert lines == [f"camera:{server.url}: lost (stream stopped delivering frames); reconnecting",
                     "sensekit: interrupted"], lines                   # nothing else, OpenCV's included
    assert proc.returncode == 130


def _unit_text() -> str:
    found = [code for lang, title, code in blocks(PAGE.read_text()) if lang == "ini" and title == UNIT_TITLE]
    assert len(found) == 1, "the page shows the unit once, in an ini block titled with its path"
    return found[0]


def test_the_documented_unit_says_what_the_page_says() -> None:
    unit = configparser.ConfigParser(strict=True, interpolation=None)
    unit.optionxform = str                             # type: ignore[assignment,method-assign]
    unit.read_string(_unit_text())
    service = unit["Service"]
    assert service["Restart"] == "on-failure"
    assert service["RestartPreventExitStatus"] == "2" and service["SuccessExitStatus"] == "130"
    argv = shlex.split(service["ExecStart"])
    assert argv[0] == "%h/piece/.venv/bin/sensekit" and argv[1] == "run"
    from sensekit.cli import build_parser

    args = build_parser().parse_args(argv[1:])         # every option exists and parses
    assert args.app == "edge_snow" and str(args.profile) == "venue.toml"


def test_the_documented_unit_passes_systemd_analyze_verify(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (apt install systemd)")
    sensekit = Path(sys.executable).with_name("sensekit")
    if not sensekit.is_file():
        pytest.skip(f"no sensekit command beside {sys.executable}")
    text = _unit_text().replace("%h/piece/.venv/bin/sensekit", str(sensekit))
    unit = tmp_path / "sensekit-piece.service"
    unit.write_text(text)
    runtime = tmp_path / "runtime"                     # a user manager's runtime folder, for --user
    runtime.mkdir(mode=0o700)
    proc = subprocess.run([analyze, "--user", "verify", str(unit)], capture_output=True, text=True,
                          timeout=60, env=dict(os.environ, XDG_RUNTIME_DIR=str(runtime)))
    # verify only warns (status 0) on an unknown key or a bad value: its output must be empty too
    assert proc.returncode == 0 and proc.stderr.strip() == "" and proc.stdout.strip() == "", proc.stderr
