"""The paced fake microphone (alsa_pacedmic.py) behaves like a sound card, through PortAudio.

It is the substitute benchmarks/latency.py measures audio latency with, so check what
the benchmark relies on: blocks come at the real rate (not as fast as they are read),
the samples arrive bit-exact, and a block is handed over when its last sample is
written. Also checks ``MicrophoneSource.horizon()``, which ``CombinedSource`` relies on.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from tests.capture.alsa_pacedmic import PacedMics, unavailable_reason

RATE, PERIOD = 48000, 512
_reason = unavailable_reason()
pytestmark = pytest.mark.skipif(_reason is not None, reason=f"ALSA fake microphone: {_reason}")

READER = """
import json, sys, time
import numpy as np
from sensekit.capture.microphone import MicrophoneSource
out = {"blocks": [], "horizon_ok": True}
with MicrophoneSource("sensekitmic0", sample_rate=48000, block_size=512) as src:
    t0 = time.monotonic()
    while time.monotonic() - t0 < 1.5:
        b = src.read(timeout=1.0)
        assert b is not None, "no block within 1 s"
        s = np.rint(b.samples * 32768).astype(int)
        h = src.horizon()
        out["horizon_ok"] &= h is not None and h >= b.t + 512 / 48000 - 1e-9
        out["blocks"].append([b.t, b.captured_at, s[:3].tolist()])
print(json.dumps(out))
"""


def test_blocks_come_at_the_real_rate_bit_exact_when_their_last_sample_is_written(tmp_path):
    def fill(mic: int, n: int) -> np.ndarray:
        data = np.zeros(PERIOD, np.int16)
        data[:3] = (31000, n % 30000, -31000)         # the period number, bit-exact
        return data

    with PacedMics(tmp_path, 1, rate=RATE, period=PERIOD, fill=fill) as mics:
        r = subprocess.run([sys.executable, "-c", textwrap.dedent(READER)], env=mics.env,
                           capture_output=True, text=True, timeout=60, cwd=str(tmp_path))
        assert r.returncode == 0, r.stderr[-2000:]
        written = dict(mics.written[0])
    out = json.loads(r.stdout.strip().splitlines()[-1])
    blocks = out["blocks"]
    captured = np.array([b[1] for b in blocks])
    rate = (len(blocks) - 1) / (captured[-1] - captured[0])
    assert rate == pytest.approx(RATE / PERIOD, rel=0.05)     # paced: ~94 blocks/s, not thousands
    heads = [b[2] for b in blocks]
    assert all(h[0] == 31000 and h[2] == -31000 for h in heads)  # aligned and exact
    numbers = [h[1] for h in heads]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))   # none lost or repeated
    # handed over when written: captured_at is within a few ms after the feeder's write
    lag_ms = [(c - written[n]) * 1000 for n, c in zip(numbers, captured) if n in written]
    assert len(lag_ms) > 50 and np.median(lag_ms) < 3.0
    assert out["horizon_ok"]
