"""SIGTERM (``systemctl stop``) ends ``record`` and ``run`` cleanly and is reported as SIGTERM,
not as Ctrl-C (issue 21)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from tests.capture.clips import make_clip, record_until_signalled
from tests.stop_on_signal import signal_when_ready

RECORD_UNTIL_STOPPED = r"""
import sys
from sensekit.capture.recording import ReplaySource, record_source
summary = record_source(ReplaySource(sys.argv[1], realtime=True, loop=True), sys.argv[2], progress=False)
print(summary["stopped_by"], summary["frames"])
"""


def _env() -> dict[str, str]:
    return dict(os.environ, PYGAME_HIDE_SUPPORT_PROMPT="1", SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")


@pytest.mark.parametrize("sig, word", [(signal.SIGTERM, "SIGTERM"), (signal.SIGINT, "Ctrl-C")])
def test_record_says_which_signal_stopped_it(tmp_path: Path, sig: int, word: str) -> None:
    clip = make_clip(tmp_path / "clip.skrec")
    out = tmp_path / "live.skrec"
    code, stdout, stderr = record_until_signalled(RECORD_UNTIL_STOPPED, clip, out, sig, frames=5, env=_env())
    assert code == 0, stderr
    assert stdout.split()[0] == word


def test_run_stops_cleanly_on_sigterm(tmp_path: Path, recordings_dir: Path) -> None:
    if not (recordings_dir / "demo.skrec" / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")
    shot, events = tmp_path / "last.png", tmp_path / "ev.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "sensekit", "run", "edge_snow", "--source", "demo", "--loop",
                             "--headless", "--screenshot", str(shot), "--events", str(events)],
                            env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    out, err = signal_when_ready(proc, lambda: events.exists() and events.stat().st_size > 0, signal.SIGTERM,
                                 timeout_s=30)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert "stopped by SIGTERM" in out and f"screenshot: {shot}" in out, out
    assert cv2.imread(str(shot)) is not None
    lines = events.read_text().splitlines()
    assert lines and all(json.loads(line) for line in lines)          # closed whole, no torn line
