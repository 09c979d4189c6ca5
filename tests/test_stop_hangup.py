"""SIGHUP (a closed terminal or ssh session) ends ``run``, ``events`` and ``record`` the way
SIGTERM does: the ``--video`` file finished (not left as ``.NAME.partial.mp4``), the events file
whole, the recording complete and replayable, OSC closed with its closing line, no traceback.
Before, SIGHUP's default action killed each of them on the spot (status 129). Under ``nohup``
(SIGHUP ignored on entry) it stays ignored. Real subprocesses, stopped once they have written."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from sensekit.capture.replay import ReplaySource
from sensekit.osc import free_udp_port
from tests.stop_on_signal import signal_when_ready

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="no SIGHUP on this platform")


def _env() -> dict[str, str]:
    return dict(os.environ, PYGAME_HIDE_SUPPORT_PROMPT="1", SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")


def _hangup_acts() -> None:
    """In the child before it runs: SIGHUP's default action, as in a terminal's session, whatever
    the test runner inherited (a CI job started under nohup ignores SIGHUP, and so would every
    child: then each test below would pass or fail by how the suite was started)."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def _signalled(args: list[str], cwd: Path, ready: Callable[[], bool], *sigs: int,
               ignore_hup: bool = False) -> tuple[int, str, str]:
    """Run ``sensekit ARGS``, send each of ``sigs`` in turn once ``ready()`` (or after 60 s),
    and return the exit status, stdout and stderr."""
    def setup() -> None:
        _hangup_acts()
        if ignore_hup:                            # what nohup does before it runs the command
            signal.signal(signal.SIGHUP, signal.SIG_IGN)

    proc = subprocess.Popen([sys.executable, "-m", "sensekit", *args], env=_env(), cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=setup)
    out, err = signal_when_ready(proc, ready, *sigs, gap_s=0.5, must_run=True)
    return proc.returncode, out, err


def _has_lines(path: Path) -> Callable[[], bool]:
    return lambda: path.exists() and path.stat().st_size > 0


@pytest.fixture
def demo(recordings_dir: Path) -> None:
    if not (recordings_dir / "demo.skrec" / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")


def test_run_on_sighup_finishes_the_video_events_and_osc(tmp_path: Path, demo: None) -> None:
    video, events = tmp_path / "piece.mp4", tmp_path / "ev.jsonl"
    code, out, err = _signalled(["run", "edge_snow", "--source", "demo", "--loop", "--headless",
                                 "--video", str(video), "--events", str(events),
                                 "--osc", f"127.0.0.1:{free_udp_port()}"],
                                tmp_path, _has_lines(events), signal.SIGHUP)
    assert code == 0, err
    assert "Traceback" not in err
    assert "edge_snow: stopped by SIGHUP" in out and f"video: {video}" in out, out
    assert "OSC at the end: osc_sent" in err                       # the sender closed, with its counts
    assert not list(tmp_path.glob(".*partial*")), list(tmp_path.iterdir())
    cap = cv2.VideoCapture(str(video))
    frames = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    ok, _ = cap.read()
    cap.release()
    assert ok and frames > 0
    lines = events.read_text().splitlines()
    assert lines and all(json.loads(line) for line in lines)        # closed whole, no torn line


def test_events_on_sighup_stops_as_on_sigterm(tmp_path: Path, demo: None) -> None:
    """Status 130 and "sensekit: interrupted", as SIGTERM and Ctrl-C (tests/audio/test_clap_stop.py),
    with --stats written and every JSON line whole."""
    out_file = tmp_path / "out.jsonl"
    with out_file.open("w") as sink:
        proc = subprocess.Popen([sys.executable, "-m", "sensekit", "events", "demo", "--loop", "--realtime",
                                 "--jsonl", "--stats", "--osc", f"127.0.0.1:{free_udp_port()}"],
                                env=_env(), cwd=tmp_path, stdout=sink, stderr=subprocess.PIPE, text=True,
                                preexec_fn=_hangup_acts)
        _, err = signal_when_ready(proc, _has_lines(out_file), signal.SIGHUP, must_run=True)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "sensekit: interrupted" in err
    assert "osc_sent=" in err                                           # --stats, the sender's counts
    lines = out_file.read_text().splitlines()
    assert lines and all(json.loads(line) for line in lines)


def _camera_clip(path: Path) -> Path:
    """A 20-frame MJPG .avi at 20 fps, which ``--camera PATH`` plays as a live camera (looping)."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 20.0, (64, 48))
    for i in range(20):
        writer.write(np.full((48, 64, 3), 10 * i, np.uint8))
    writer.release()
    return path


def _meta_frames(out: Path, n: int) -> Callable[[], bool]:
    def ready() -> bool:
        try:
            return bool(json.loads((out / "meta.json").read_text())["frames"] >= n)
        except (OSError, ValueError, KeyError):
            return False
    return ready


def test_record_on_sighup_leaves_a_complete_replayable_recording(tmp_path: Path) -> None:
    clip, out = _camera_clip(tmp_path / "cam.avi"), tmp_path / "take.skrec"
    code, stdout, err = _signalled(["record", str(out), "--camera", str(clip), "--no-progress"],
                                   tmp_path, _meta_frames(out, 5), signal.SIGHUP)
    assert code == 0, err
    assert "Traceback" not in err and stdout.startswith("stopped by SIGHUP; saved"), stdout
    meta = json.loads((out / "meta.json").read_text())
    assert meta["complete"] is True and meta["frames"] >= 5
    with ReplaySource(out) as src:
        assert sum(1 for _ in src) == meta["frames"]


def test_record_under_nohup_keeps_recording_through_sighup(tmp_path: Path) -> None:
    """SIGHUP ignored on entry stays ignored: the SIGTERM sent after it is what stops the take."""
    clip, out = _camera_clip(tmp_path / "cam.avi"), tmp_path / "take.skrec"
    code, stdout, err = _signalled(["record", str(out), "--camera", str(clip), "--no-progress"],
                                   tmp_path, _meta_frames(out, 5), signal.SIGHUP, signal.SIGTERM,
                                   ignore_hup=True)
    assert code == 0, err
    assert stdout.startswith("stopped by SIGTERM; saved"), stdout
    assert json.loads((out / "meta.json").read_text())["complete"] is True


def _terminal_closed(args: list[str], cwd: Path, ready: Callable[[], bool]) -> int:
    """Run ``sensekit ARGS`` on a terminal of its own (a pty, as over ssh), close the terminal once
    ``ready()`` (the kernel sends SIGHUP and writes to it fail with EIO from then on) and return
    the exit status."""
    import pty
    import select

    pid, fd = pty.fork()
    if pid == 0:                                          # the child: never returns
        try:
            _hangup_acts()
            os.chdir(cwd)
            os.execve(sys.executable, [sys.executable, "-m", "sensekit", *args], _env())
        finally:
            os._exit(127)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and not ready():
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    os.read(fd, 65536)                    # what it prints, read as a terminal would
                except OSError:
                    break
        time.sleep(0.5)
    finally:
        os.close(fd)
    while time.monotonic() < deadline + 60:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    raise AssertionError("still running 60 s after its terminal closed")


def test_run_whose_terminal_closes_finishes_its_video_and_exits_0(tmp_path: Path, demo: None) -> None:
    """The closing lines go to a terminal that is gone (EIO): before, that error, then the error
    line about it, ended the run with status 1 and a traceback; the files were already whole."""
    video, events = tmp_path / "piece.mp4", tmp_path / "ev.jsonl"
    code = _terminal_closed(["run", "edge_snow", "--source", "demo", "--loop", "--headless",
                             "--video", str(video), "--events", str(events)], tmp_path, _has_lines(events))
    assert code == 0
    assert not list(tmp_path.glob(".*partial*"))
    cap = cv2.VideoCapture(str(video))
    ok, _ = cap.read()
    cap.release()
    assert ok
    assert all(json.loads(line) for line in events.read_text().splitlines())


def test_record_whose_terminal_closes_saves_a_complete_recording_and_exits_0(tmp_path: Path) -> None:
    clip, out = _camera_clip(tmp_path / "cam.avi"), tmp_path / "take.skrec"
    code = _terminal_closed(["record", str(out), "--camera", str(clip)], tmp_path, _meta_frames(out, 5))
    assert code == 0
    assert json.loads((out / "meta.json").read_text())["complete"] is True
