"""Recordings for the capture tests: a tiny clip, and a child process recording until a signal stops it."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from sensekit.capture.base import AudioBlock, VideoFrame
from sensekit.capture.recording import Recorder


def make_clip(path: Path, frames: int = 10, blocks: int = 12) -> Path:
    """A recording of ``frames`` 32x24 frames at 10 fps (frame i all ``i * 20``) and ``blocks``
    audio blocks of 400 samples at 8 kHz."""
    with Recorder(path, video=(32, 24, 10.0), audio=(8000, 1), notes="a tiny clip",
                  block_size=400, start_unix=0.0) as rec:
        items = [VideoFrame(i, i / 10, np.full((24, 32, 3), i * 20 % 256, np.uint8)) for i in range(frames)]
        items += [AudioBlock(k, k * 0.05, np.full(400, k / 100, np.float32), 8000) for k in range(blocks)]
        for item in sorted(items, key=lambda it: it.t):
            rec.write(item)
    return path


def record_until_signalled(script: str, clip: Path, out: Path, sig: int, *, frames: int,
                           env: dict[str, str]) -> tuple[int, str, str]:
    """Run ``python -c script clip out`` (a recording into ``out``), send it ``sig`` once its
    meta.json counts ``frames`` frames (or after 30 s), and return its exit code, stdout and
    stderr. The child must still be running while it is waited for."""
    proc = subprocess.Popen([sys.executable, "-c", script, str(clip), str(out)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if json.loads((out / "meta.json").read_text())["frames"] >= frames:
                    break
            except (OSError, ValueError, KeyError):
                pass
            assert proc.poll() is None, proc.communicate()[1]
            time.sleep(0.05)
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, stdout, stderr
