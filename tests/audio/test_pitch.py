from __future__ import annotations

import itertools

import numpy as np
import pytest

from sensekit.audio.pitch import PitchTracker, yin
from sensekit.errors import ConfigError

from .helpers import noise_floor, tone


def track(x: np.ndarray, rate: int, block: int = 512, **kw):
    pt = PitchTracker(**kw)
    return [pt.process(x[i:i + block], i / rate, rate) for i in range(0, len(x) - block + 1, block)], pt


@pytest.mark.parametrize("rate", [8000, 16000, 44100, 48000])
@pytest.mark.parametrize("hz", [90.0, 196.0, 440.0, 800.0])
def test_hummed_notes(rate, hz):
    x = tone(1.2, rate, hz, 0.3, harmonics=(1.0, 0.5, 0.3))
    est, pt = track(x, rate)
    voiced = [e for e in est[-8:] if e.hz > 0]
    assert len(voiced) == 8 and pt.analyses >= 8
    assert np.median([e.hz for e in voiced]) == pytest.approx(hz, rel=0.015)
    assert min(e.confidence for e in voiced) > 0.8


def test_noise_and_silence_are_unvoiced():
    rate = 16000
    est, _ = track(np.random.default_rng(0).uniform(-0.3, 0.3, rate).astype(np.float32), rate)
    assert all(e.hz == 0.0 for e in est[-10:])
    est, pt = track(noise_floor(1.0, rate, -70), rate)         # below min_level: not analysed
    assert all(e.hz == 0.0 and e.confidence == 0.0 for e in est) and pt.analyses == 0


def test_glide_up_is_followed():
    rate = 16000
    t = np.arange(int(1.0 * rate)) / rate
    f = 150 + 150 * t                                          # 150 -> 300 Hz in 1 s
    x = (0.3 * np.sin(2 * np.pi * np.cumsum(f) / rate)).astype(np.float32)
    est, _ = track(x, rate)
    hz = [e.hz for e in est if e.hz > 0]
    assert hz[0] < 180 and hz[-1] > 270
    assert all(b >= a - 2 for a, b in itertools.pairwise(hz))         # monotone (within 2 Hz)


def test_yin_errors():
    with pytest.raises(ConfigError, match="too short"):
        yin(np.zeros(50), 8000, fmin=70)
    with pytest.raises(ConfigError, match="fmin < fmax"):
        yin(np.zeros(500), 8000, fmin=300, fmax=200)
    with pytest.raises(ConfigError, match="sample rate 96000 Hz is not supported"):
        PitchTracker().process(np.zeros(512, np.float32), 0, 96000)


def test_the_pitch_tracker_does_not_load_the_clap_detector():
    """pitch.py took ``check_rate`` from ``audio.clap`` (which re-exports it from ``audio.rates``): an
    arrow from the pitch tracker to the clap detector that a reader of the imports trips on, and
    ``import sensekit.audio.pitch`` loaded the clap detector and its trees."""
    import subprocess
    import sys

    code = "import sys, sensekit.audio.pitch; print(sorted(m for m in sys.modules if 'clap' in m))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]", out.stdout
