"""BandEnergy: the peak search's cumulative d**2, extended piece by piece, is the one-pass sum."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.audio.clap_energy import REBASE_S, BandEnergy
from sensekit.audio.clap_features import band_width, clap_band


def one_pass(buf: np.ndarray, a: int, stop: int, width: int) -> np.ndarray:
    """Cumulative d**2 over samples a .. stop - 1 in one go (c[0] = 0)."""
    d = clap_band(buf[a - (2 * width - 1): stop].astype(np.float64), width)
    return np.concatenate([[0.0], np.cumsum(d * d)])


@pytest.mark.parametrize("rate", [8000, 16000, 44100, 48000])
def test_extending_in_pieces_is_the_one_pass_sum_to_the_bit(rate):
    rng = np.random.default_rng(rate)
    buf = (rng.standard_normal(rate) * np.geomspace(1e-4, 0.5, rate)).astype(np.float32)
    width = band_width(rate)
    en = BandEnergy(rate, width)
    a = 100
    stops = np.sort(rng.integers(a + 1, a + rate // 4, 12))
    prev = a
    for stop in stops.tolist():
        en.extend(buf, 0, max(a, prev - 50), stop)       # each search starts a little earlier
        prev = stop
    assert en.c0 == a
    want = one_pass(buf, a, int(stops[-1]), width)
    assert np.array_equal(en.c[: len(want)], want)


def test_a_gap_restarts_the_sum_at_the_first_sample_needed():
    rate = 48000
    buf = np.random.default_rng(1).standard_normal(rate).astype(np.float32)
    en = BandEnergy(rate, band_width(rate))
    en.extend(buf, 0, 1000, 3000)
    en.extend(buf, 0, 5000, 6000)                        # nothing summed between 3000 and 5000
    assert en.c0 == 5000
    want = one_pass(buf, 5000, 6000, en.width)
    assert np.array_equal(en.c[: len(want)], want)


def test_the_stretch_restarts_once_it_is_older_than_rebase_s():
    rate = 16000
    buf = np.random.default_rng(2).standard_normal(2 * rate).astype(np.float32)
    en = BandEnergy(rate, band_width(rate))
    old = round(REBASE_S * rate)
    en.extend(buf, 0, 100, 200 + old)
    en.extend(buf, 0, 90 + old, 300 + old)               # still within the stretch's age
    assert en.c0 == 100
    en.extend(buf, 0, 101 + old, 400 + old)              # older than REBASE_S: restart
    assert en.c0 == 101 + old
    want = one_pass(buf, 101 + old, 400 + old, en.width)
    assert np.array_equal(en.c[: len(want)], want)


def test_buffer_offsets_and_a_grown_array():
    rate = 48000
    buf = np.random.default_rng(3).standard_normal(3 * rate).astype(np.float32)
    en = BandEnergy(rate, band_width(rate))
    b0 = -700                                            # buf[i - b0] is stream sample i
    en.extend(buf, b0, 0, 20000)                         # more than the initial array holds
    want = one_pass(buf, 0 - b0, 20000 - b0, en.width)
    assert len(en.c) >= len(want)
    assert np.array_equal(en.c[: len(want)], want)
    en.reset()
    en.extend(buf, b0, -200, 100)
    assert en.c0 == -200
