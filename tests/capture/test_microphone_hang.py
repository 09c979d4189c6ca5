"""A microphone whose driver hangs: a read that never returns (the paced ALSA fake microphone of
``alsa_pacedmic``, whose feeder stops writing with the pipe kept open: the ``file`` plugin's read
blocks, as a hung USB or sound-server driver does).

PortAudio's abort waits for that read, so stopping the stream waited as long as the device hung:
the watchdog was stuck in it and, at the end of the program, sounddevice's exit handler
(``Pa_Terminate``) too, so ``sensekit events mic`` never ended after Ctrl-C. Now a stream that
does not stop within ``STOP_TIMEOUT_S`` is left to the system with one warning, and the program
ends; when the device comes back it is reopened. Each reader runs in a fresh process (PortAudio
reads the ALSA configuration once) under a time limit, so a hang fails the test.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

from tests.capture.alsa_pacedmic import PacedMics, unavailable_reason

_reason = unavailable_reason()
pytestmark = pytest.mark.skipif(_reason is not None, reason=f"ALSA fake microphone: {_reason}")

RATE, PERIOD = 48000, 512
HANG_AT = 100                      # the period at which the device hangs (~1 s in)
LIMIT_S = 40                       # the reader's process must end within this

READER = """
import json, sys, time
from sensekit.capture.microphone import MicrophoneSource
after_lost, run_for = float(sys.argv[1]), float(sys.argv[2])
out = {"events": [], "blocks": 0}
src = MicrophoneSource("sensekitmic0", sample_rate=48000, block_size=512)
src.open()
t0 = time.monotonic()
lost_at = None
while time.monotonic() - t0 < run_for and (lost_at is None or time.monotonic() - lost_at < after_lost):
    out["blocks"] += src.read(timeout=0.1) is not None
    for e in src.poll_status():
        out["events"].append([type(e).__name__, round(time.monotonic() - t0, 2)])
        if type(e).__name__ == "SourceLost":
            lost_at = time.monotonic()
t = time.monotonic()
src.close()
out["close_s"] = time.monotonic() - t
print(json.dumps(out), flush=True)
"""


def _run(tmp_path, hang_s: float, *, after_lost: float, run_for: float) -> tuple[dict, str]:
    release = threading.Event()

    def fill(mic: int, n: int) -> np.ndarray:
        if n == HANG_AT:
            release.wait(hang_s)               # the pipe stays open, nothing comes
        return np.full(PERIOD, 1000, np.int16)

    with PacedMics(tmp_path, 1, rate=RATE, period=PERIOD, fill=fill) as mics:
        try:
            r = subprocess.run([sys.executable, "-c", textwrap.dedent(READER), str(after_lost), str(run_for)],
                               env=mics.env, capture_output=True, text=True, timeout=LIMIT_S, cwd=str(tmp_path))
        except subprocess.TimeoutExpired as exc:
            pytest.fail(f"the program did not end within {LIMIT_S} s (a hung microphone hung it); "
                        f"it printed {exc.stdout!r}")
        finally:
            release.set()
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1]), r.stderr


def test_a_microphone_that_hangs_is_lost_and_the_program_still_ends(tmp_path):
    out, err = _run(tmp_path, 600.0, after_lost=3.0, run_for=20.0)
    assert [name for name, _t in out["events"]] == ["SourceLost"]
    assert out["blocks"] >= HANG_AT - 5 and out["close_s"] < 3.0
    assert "the device did not stop within 2 s (its driver hangs); it is left to the system" in err


def test_a_microphone_that_hangs_for_a_while_comes_back(tmp_path):
    out, _err = _run(tmp_path, 5.0, after_lost=6.0, run_for=20.0)
    names = [name for name, _t in out["events"]]
    assert names[:2] == ["SourceLost", "SourceRestored"], out["events"]
    assert out["close_s"] < 3.0
