"""A microphone whose default rate is above what the detectors take (a studio interface at
96 kHz) still gives claps: ``sensekit events mic --clap`` opens it at 48 kHz. Before, the
command was refused ("sample rate 96000 Hz is not supported by the clap detector") and no
option of the command line could choose another rate.

The microphone is ALSA's file plugin reading a FIFO at the real rate (``alsa_pacedmic``), a
plug device whose default rate is the one configured, fed a real clap clip resampled to 96 kHz.
"""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import soundfile as sf

from tests.capture.alsa_pacedmic import PacedMics, unavailable_reason

CLIP = "audio/clap_k_pairs8.wav"          # 44.1 kHz; its first 2.5 s hold five claps (0.34 .. 2.26 s)
RATE = 96000
PERIOD = 512

_reason = unavailable_reason()
pytestmark = pytest.mark.skipif(_reason is not None, reason=f"ALSA paced microphone: {_reason}")


def test_a_96_khz_microphone_is_opened_at_48_khz_and_hears_the_claps(shared_data, tmp_path):
    from scipy.signal import resample_poly

    x, rate = sf.read(str(shared_data / CLIP), dtype="float64", frames=int(2.5 * 44100))
    y = resample_poly(x, RATE // 300, rate // 300)                # 44.1 -> 96 kHz
    pcm = np.clip(np.round(y * 32768), -32768, 32767).astype(np.int16)
    lead = RATE // 4                                               # a quarter second of silence first
    stream = np.concatenate([np.zeros(lead, np.int16), pcm, np.zeros(RATE // 2, np.int16)])

    def fill(_mic: int, n: int) -> np.ndarray:
        chunk = stream[n * PERIOD:(n + 1) * PERIOD]
        return np.pad(chunk, (0, PERIOD - len(chunk)))

    mics = PacedMics(tmp_path, 1, rate=RATE, period=PERIOD, fill=fill).start()
    seconds = (len(stream) / RATE) + 0.5
    blocks = int(seconds * 48000 / 512)
    try:
        r = subprocess.run([sys.executable, "-m", "sensekit", "events", f"mic:{mics.names[0]}", "--clap",
                            "--jsonl", "--records", "--max-items", str(blocks)],
                           env=mics.env, capture_output=True, text=True, timeout=60)
    finally:
        mics.stop()
    assert r.returncode == 0, r.stderr[-2000:]
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    rates = {e["rate"] for e in lines if e["event"] == "audio_block"}
    claps = [e["t"] for e in lines if e["event"] == "clap"]
    assert rates == {48000}
    # On a loaded machine the feeder falls behind and the plugin repeats stale periods (a
    # clap may be heard twice, 85 ms apart), so the count is not exact: the clip has five.
    assert len(claps) >= 3, claps
