"""The microphone's timeline across a device that goes quiet: a gap is a gap in ``t``.

The paced ALSA fake microphone (``alsa_pacedmic``) stops delivering at period ``HANG_AT`` for
a few seconds with the pipe kept open (a read that blocks, as a USB or sound-server driver that
hangs), then goes on. The source is lost after ``stall_timeout_s`` (2 s) and its stream
aborted; the abort waits for the blocked read, and when the device goes on, the read returns
and PortAudio hands over the periods it had before it stops: those blocks used to carry the
sample clock from before the hang, so they were stamped 5 s early (right after the last block
before the hang, as if no time had passed) and a recording stored them there. Now a block that
arrives while the source is lost is stamped by the wall time, as a reopened stream is.

The assertions hold whatever the load: the loss is declared only after 2 s without a block
(monotonic time), so the first block carrying the hang's marker must start at least 2 s after
the block before it; before the fix it started exactly one block (512 samples) after it.
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
HANG_AT = 100
HANG_S = 5.0
STALL_S = 2.0

READER = """
import json, time
from sensekit.capture.microphone import MicrophoneSource
src = MicrophoneSource("sensekitmic0", sample_rate=48000, block_size=512, stall_timeout_s=2.0)
src.open()
t0 = time.monotonic()
blocks, events = [], []
restored = None
while time.monotonic() - t0 < 30 and (restored is None or time.monotonic() - restored < 1.0):
    b = src.read(timeout=0.1)
    if b is not None:
        blocks.append([b.index, b.t, int(round(float(b.samples.max()) * 32768))])
    for e in src.poll_status():
        events.append(type(e).__name__)
        if type(e).__name__ == "SourceRestored":
            restored = time.monotonic()
src.close()
print(json.dumps({"blocks": blocks, "events": events, "stats": src.stats()}), flush=True)
"""

def _read_across_a_hang(tmp_path, reader: str, hang_s: float) -> dict:
    """Runs ``reader`` in a child process against a paced microphone that delivers nothing for
    ``hang_s`` at period ``HANG_AT`` (the pipe kept open), and returns its JSON line."""
    release = threading.Event()

    def fill(mic: int, n: int) -> np.ndarray:
        if n == HANG_AT:
            release.wait(hang_s)                   # the pipe stays open, nothing comes
        return np.full(PERIOD, 1 + n, np.int16)    # each period marked by its number

    with PacedMics(tmp_path, 1, rate=RATE, period=PERIOD, fill=fill) as mics:
        try:
            r = subprocess.run([sys.executable, "-c", textwrap.dedent(reader)], env=mics.env,
                               capture_output=True, text=True, timeout=60, cwd=str(tmp_path))
        finally:
            release.set()
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_blocks_after_a_hang_are_stamped_after_it_not_before(tmp_path):
    out = _read_across_a_hang(tmp_path, READER, HANG_S)
    assert out["events"][:2] == ["SourceLost", "SourceRestored"], out["events"]
    blocks = out["blocks"]
    ts = [t for _i, t, _m in blocks]
    assert ts == sorted(ts), "block times went backwards"
    # the first block holding a period written after the hang, and the block before it
    k = next(i for i, (_idx, _t, marker) in enumerate(blocks) if marker >= 1 + HANG_AT)
    assert k > 0
    step = blocks[k][1] - blocks[k - 1][1]
    assert step >= STALL_S, (f"the block after the hang starts {step:.4f} s after the one before "
                             f"it; the device delivered nothing for {HANG_S:g} s")


SHORT_READER = READER.replace("stall_timeout_s=2.0", "stall_timeout_s=30.0").replace(
    "restored is None or time.monotonic() - restored < 1.0", "time.monotonic() - t0 < 9.0")


def test_a_silence_shorter_than_the_stall_timeout_is_a_gap_not_compressed_time(tmp_path):
    """A device that delivers nothing for 4 s and goes on by itself (no loss declared: the
    stall timeout is 30 s here) used to go on from where its sample clock stopped: every block
    after it was stamped 4 s early, for the rest of the run (against the camera, in a
    recording). Now a block that comes more than 0.5 s later than the one before it resyncs
    the clock to the wall time. The feeder's wait guarantees >= 4 s between the two reads; the
    2 s margin is load the previous block's delivery may take."""
    out = _read_across_a_hang(tmp_path, SHORT_READER, 4.0)
    assert out["events"] == [], out["events"]
    blocks = out["blocks"]
    ts = [t for _i, t, _m in blocks]
    assert ts == sorted(ts), "block times went backwards"
    k = next(i for i, (_idx, _t, marker) in enumerate(blocks) if marker >= 1 + HANG_AT)
    step = blocks[k][1] - blocks[k - 1][1]
    assert step >= 2.0, f"the block after a 4 s silence starts {step:.4f} s after the one before it"
    assert out["stats"]["clock_resyncs"] == 1
    assert out["blocks"][0][1] == 0.0           # the stream's start is not a resync
