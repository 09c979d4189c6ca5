"""clap_hpss: a burst's percussive share and rise by median filtering (synthetic signals only)."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.evaluation.audio.clap_hpss import AFTER_MS, NAMES, percussive_rise_db, percussive_share


def _harmonic(f0: float, n: int, rate: int) -> np.ndarray:
    t = np.arange(n) / rate
    out: np.ndarray = sum(0.3 / h * np.sin(2 * np.pi * f0 * h * t) for h in range(1, 12))
    return out


def _clap_and_voiced(rate: int) -> tuple[np.ndarray, np.ndarray, int]:
    """A steady voice; the same with a decaying noise burst at ``p``, and with a second voice starting there."""
    rng = np.random.default_rng(3)
    n, p = rate, rate // 2
    steady = _harmonic(180.0, n, rate)
    clap = steady.copy()
    m = int(0.05 * rate)
    clap[p:p + m] += 2.0 * rng.standard_normal(m) * np.exp(-np.arange(m) / (0.004 * rate))
    voiced = steady.copy()
    voiced[p:] += 2.0 * _harmonic(260.0, n, rate)[p:] * np.minimum(1.0, np.arange(n - p) / (0.005 * rate))
    return clap, voiced, p


@pytest.mark.parametrize("rate", [16000, 44100, 48000])
def test_a_clap_over_a_voice_is_more_percussive_than_a_voiced_onset(rate: int) -> None:
    clap, voiced, p = _clap_and_voiced(rate)
    c = percussive_share(clap, p, rate, before_ms=20.0)
    v = percussive_share(voiced, p, rate, before_ms=20.0)
    assert c.shape == (len(NAMES),)
    assert c[0] > v[0] + 0.1
    assert c[2] > v[2] + 0.15                      # 1-3 kHz
    assert np.all((c >= 0.0) & (c <= 1.0)) and np.all((v >= 0.0) & (v <= 1.0))
    pr, mr = percussive_rise_db(clap, p, rate)
    assert pr > mr + 2.0                           # the voice is held back, the burst is not


@pytest.mark.parametrize("rate", [16000, 44100, 48000])
def test_a_held_tone_over_a_floor_is_harmonic(rate: int) -> None:
    """The frequency median holds a line back: a 1.5 kHz tone held over a faint noise floor has next to no
    percussive share (without the median, every bin's mask would be a half)."""
    rng = np.random.default_rng(5)
    x = 0.01 * rng.standard_normal(rate) + 0.5 * np.sin(2 * np.pi * 1500.0 * np.arange(rate) / rate)
    for before in (20.0, 64.0):
        v = percussive_share(x, rate // 2, rate, before_ms=before)
        assert v[0] < 0.05 and v[2] < 0.05


def test_only_samples_up_to_after_ms_are_used() -> None:
    rate = 16000
    clap, _, p = _clap_and_voiced(rate)
    late = clap.copy()
    cut = p + int(AFTER_MS * 1e-3 * rate) + 1
    late[cut:] = np.random.default_rng(0).standard_normal(len(late) - cut) * 10.0
    for causal in (False, True):
        assert np.array_equal(percussive_share(clap, p, rate, causal=causal),
                              percussive_share(late, p, rate, causal=causal))
        assert percussive_rise_db(clap, p, rate, causal=causal) == percussive_rise_db(late, p, rate, causal=causal)


def test_scale_invariant_and_zeros_outside() -> None:
    rate = 16000
    clap, _, p = _clap_and_voiced(rate)
    np.testing.assert_allclose(percussive_share(clap * 1000.0, p, rate), percussive_share(clap, p, rate), atol=1e-9)
    np.testing.assert_allclose(percussive_rise_db(clap * 1000.0, p, rate), percussive_rise_db(clap, p, rate),
                               atol=1e-6)
    start = clap[p - 100:]                        # the peak 100 samples in: the rest counts as zeros
    padded = np.concatenate([np.zeros(5000), start])
    np.testing.assert_allclose(percussive_share(start, 100, rate), percussive_share(padded, 5100, rate), atol=1e-12)


def test_the_whole_share_is_a_power_weighted_mean_of_the_bands() -> None:
    rate = 16000
    clap, _, p = _clap_and_voiced(rate)
    v = percussive_share(clap, p, rate)
    assert np.isfinite(v).all()
    assert min(v[1:]) <= v[0] <= max(v[1:])          # the whole band's share is a mean of the bands'


def test_errors() -> None:
    x = np.zeros(16000)
    with pytest.raises(ValueError, match="rate"):
        percussive_share(x, 100, 4000)
    with pytest.raises(ValueError, match="outside"):
        percussive_share(x, 16000, 16000)
    with pytest.raises(ValueError, match="before"):
        percussive_share(x, 8000, 16000, before_ms=8.0)
    with pytest.raises(ValueError, match="after"):
        percussive_rise_db(x, 8000, 16000, after_ms=10.0)
