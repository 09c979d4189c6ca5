"""Noise at a chosen SNR, the synthetic hard negatives, and the clap band (tiny signals)."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.audio.clap_augment import (
    NOISE_KINDS,
    SYNTHETIC_KINDS,
    clap_loudness,
    noise,
    rms_5ms_peak,
    synthetic_negatives,
    with_noise,
)
from sensekit.audio.clap_features import band_width, clap_band

RATE = 48000


def burst(rate: int = RATE, seconds: float = 1.0, at: float = 0.5, amp: float = 0.5) -> np.ndarray:
    x = np.zeros(round(seconds * rate), np.float32)
    i = round(at * rate)
    x[i: i + rate // 100] = amp * np.random.default_rng(0).uniform(-1, 1, rate // 100)
    return x


def test_loudest_5ms_rms_of_a_constant_and_of_claps():
    x = np.full(4800, 0.25, np.float32)
    assert rms_5ms_peak(x, RATE) == pytest.approx(0.25)
    two = burst() + burst(at=0.2, amp=0.1)
    quiet, loud = clap_loudness(two, RATE, [0.2]), clap_loudness(two, RATE, [0.5])
    assert loud / quiet == pytest.approx(5.0, rel=0.1)
    assert clap_loudness(two, RATE, [0.2, 0.5]) == pytest.approx((quiet + loud) / 2)


@pytest.mark.parametrize("kind", NOISE_KINDS)
def test_noise_kinds_have_unit_rms_and_are_seeded(kind):
    speech = [np.sin(np.arange(9000) * 0.07) * np.random.default_rng(1).uniform(0.5, 1, 9000)]
    a = noise(kind, 24000, RATE, np.random.default_rng(5), speech)
    b = noise(kind, 24000, RATE, np.random.default_rng(5), speech)
    assert np.sqrt(np.mean(a ** 2)) == pytest.approx(1.0, rel=1e-3)
    assert np.array_equal(a, b)


def band_power(x: np.ndarray, lo: float, hi: float) -> float:
    p = np.abs(np.fft.rfft(x)) ** 2
    f = np.fft.rfftfreq(len(x), 1 / RATE)
    return float(p[(f >= lo) & (f < hi)].sum())


def test_pink_is_flat_per_octave_and_brown_falls():
    rng = np.random.default_rng(3)
    pink, brown = noise("pink", 96000, RATE, rng), noise("brown", 96000, RATE, rng)
    ratio_pink = band_power(pink, 4000, 8000) / band_power(pink, 1000, 2000)
    ratio_brown = band_power(brown, 4000, 8000) / band_power(brown, 1000, 2000)
    assert 0.7 < ratio_pink < 1.4
    assert ratio_brown < 0.35


def test_with_noise_sets_the_snr_against_the_claps_loudness():
    x = burst()
    loud = clap_loudness(x, RATE, [0.5])
    y = with_noise(x, RATE, loud, 10.0, "white", np.random.default_rng(2))
    n = y.astype(np.float64) - x
    assert 20 * np.log10(loud / np.sqrt(np.mean(n ** 2))) == pytest.approx(10.0, abs=0.05)
    with pytest.raises(ValueError, match="babble"):
        noise("babble", 100, RATE, np.random.default_rng(0))
    with pytest.raises(ValueError, match="noise kind"):
        noise("fan", 100, RATE, np.random.default_rng(0))


@pytest.mark.parametrize("kind", SYNTHETIC_KINDS)
def test_synthetic_negatives_are_seeded_bursts(kind):
    a = synthetic_negatives(kind, RATE, np.random.default_rng(7), seconds=2.0)
    assert np.array_equal(a, synthetic_negatives(kind, RATE, np.random.default_rng(7), seconds=2.0))
    assert a.dtype == np.float32 and len(a) == 2 * RATE
    assert 0.02 < float(np.abs(a).max()) <= 1.0
    assert rms_5ms_peak(a, RATE) > 30 * np.sqrt(np.mean(a[:200] ** 2))


def test_clap_band_widths_and_values():
    assert [band_width(r) for r in (8000, 16000, 22050, 32000, 44100, 48000)] == [1, 2, 4, 4, 8, 8]
    x = np.random.default_rng(4).normal(size=300)
    assert np.array_equal(clap_band(x, 1), x[1:] - x[:-1])
    y = clap_band(x, 8)
    want = np.array([x[i + 8: i + 16].sum() - x[i: i + 8].sum() for i in range(len(x) - 15)])
    assert len(y) == len(want) and np.allclose(y, want)


def test_clap_band_does_not_depend_on_where_the_segment_starts():
    x = np.random.default_rng(5).normal(size=1000).astype(np.float32)
    whole = clap_band(x, 8)
    for start in (1, 7, 333):
        assert np.array_equal(clap_band(x[start:], 8), whole[start:])


def test_the_band_keeps_a_clap_over_white_noise_that_the_difference_loses():
    """A 2 kHz-centred burst 10 dB over white noise at 48 kHz rises >= 10 dB in the clap band,
    < 6 dB in the first difference (why the detector moved to the band)."""
    from scipy.signal import butter, sosfilt

    rng = np.random.default_rng(6)
    clap = sosfilt(butter(2, [600, 3500], "bp", fs=RATE, output="sos"), rng.normal(size=480))
    x = np.zeros(RATE // 5)
    x[4800: 5280] = clap * np.exp(-np.arange(480) / 120)
    loud = rms_5ms_peak(x, RATE)
    y = x + noise("white", len(x), RATE, rng) * loud / np.sqrt(10.0)

    def rise(d: np.ndarray) -> float:
        e = np.convolve(d ** 2, np.ones(48) / 48, "valid")
        return float(10 * np.log10(e[4700: 5400].max() / np.median(e[:4000])))

    assert rise(clap_band(y, 8)) >= 10.0
    assert rise(clap_band(y, 1)) < 6.0
