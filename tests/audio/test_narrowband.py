"""widen_band (sensekit.audio.narrowband): the empty top band of upsampled 8 kHz audio."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.audio.narrowband import widen_band


def band_power(x: np.ndarray, lo: float, hi: float) -> float:
    spec = np.abs(np.fft.rfft(x.astype(np.float64))) ** 2
    f = np.fft.rfftfreq(len(x), 1 / 16000)
    return float(spec[(f >= lo) & (f < hi)].sum())


def telephone_noise(seconds: float, seed: int) -> np.ndarray:
    """White noise band-limited to 4 kHz (what an 8 kHz source upsampled to 16 kHz holds)."""
    from scipy.signal import butter, sosfilt

    x = np.random.default_rng(seed).standard_normal(int(16000 * seconds)) * 2000.0
    y = sosfilt(butter(10, 3950, fs=16000, output="sos"), x)
    return np.clip(y, -32768, 32767).astype(np.int16)


def test_the_empty_band_gets_the_level_of_the_band_below_and_the_rest_is_kept():
    x = telephone_noise(0.5, seed=1)
    y = widen_band(x, band_hz=4000)
    assert y.dtype == np.int16 and y.shape == x.shape
    assert band_power(x, 4500, 8000) < 1e-2 * band_power(x, 3000, 3900)     # the input: 20 dB down
    # per Hz, the new 4.1-7.9 kHz band is ~6 dB under 3-3.9 kHz (random phases overlap-added)
    ratio = (band_power(y, 4100, 7900) / 3800) / (band_power(x, 3000, 3900) / 900)
    assert 10 * np.log10(ratio) == pytest.approx(-6.0, abs=2.0)
    below = band_power(y - x, 100, 3800) / band_power(x, 100, 3800)
    assert below < 1e-3                              # under 4 kHz nothing changed


def test_a_loud_top_band_gives_a_loud_fill_and_silence_stays_silent():
    quiet = (telephone_noise(0.5, seed=2) * 0.1).astype(np.int16)
    loud = telephone_noise(0.5, seed=2)
    gain = band_power(widen_band(loud, band_hz=4000), 4100, 7900) / band_power(
        widen_band(quiet, band_hz=4000), 4100, 7900)
    assert 10 * np.log10(gain) == pytest.approx(20.0, abs=1.0)
    assert not widen_band(np.zeros(8000, np.int16), band_hz=4000).any()


def test_deterministic_and_wideband_audio_is_left_alone():
    x = telephone_noise(0.3, seed=3)
    assert np.array_equal(widen_band(x, band_hz=4000), widen_band(x, band_hz=4000))
    assert widen_band(x, band_hz=8000) is x           # 16 kHz and more: the model's own band
    assert widen_band(x, band_hz=11025) is x
