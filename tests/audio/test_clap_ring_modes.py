"""The twenty-ninth pass's ring modes: a knock's attack modes ring on; a room's decay after a clap is noise."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.evaluation.audio.clap_ring_modes import ring_available, ring_line_db, ring_peak_db
from tests.audio.helpers import clap_burst


def knock(rate: int, modes: tuple[float, ...], tau_s: float = 0.02, floor: float = 1e-3, seed: int = 0) -> np.ndarray:
    """A knuckle knock: a short broadband contact into a few decaying modes, over a noise floor."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(0.2 * rate)) / rate
    y = 0.4 * sum(np.sin(2 * np.pi * f * t) for f in modes) * np.exp(-t / tau_s)
    c = clap_burst(rate, seed=seed, length_ms=3.0, decay_ms=0.5)
    y[: len(c)] += c
    return np.asarray(y + floor * rng.standard_normal(len(t)), np.float32)


def reverberant_clap(rate: int, seed: int, t60_s: float = 0.4, gain: float = 0.3) -> np.ndarray:
    """A clap through a room: the burst convolved with an exponentially decaying noise response."""
    rng = np.random.default_rng(seed + 100)
    n = int(0.4 * rate)
    h = gain * rng.standard_normal(n) * np.exp(-6.9 * np.arange(n) / rate / t60_s)
    h[0] = 1.0
    y = np.convolve(clap_burst(rate, seed=seed).astype(np.float64), h)[: int(0.2 * rate)]
    return np.asarray(y + 1e-3 * rng.standard_normal(len(y)), np.float32)


def peak(x: np.ndarray, rate: int) -> int:
    return int(np.abs(x[: rate // 100]).argmax())


@pytest.mark.parametrize("rate", [16000, 44100, 48000])
def test_knocks_ring_in_lines_and_reverberant_claps_do_not(rate: int) -> None:
    knocks = [ring_line_db(knock(rate, (f, 2.7 * f), tau), 0, rate) for f in (400.0, 900.0, 1800.0)
              for tau in (0.02, 0.04)]
    rooms = [ring_line_db(x := reverberant_clap(rate, s, t60, g), peak(x, rate), rate)
             for s in range(10) for t60, g in ((0.4, 0.3), (0.8, 0.5))]
    assert min(knocks) > 20.0
    assert max(rooms) < 14.0
    assert float(np.median(rooms)) < 8.0


def test_a_clap_in_a_room_is_not_peakier_in_its_ring() -> None:
    rate = 48000
    # the backup: the ring's peakiness less the attack's; a pure-mode knock is as peaky in both
    rooms = [ring_peak_db(x := reverberant_clap(rate, s), peak(x, rate), rate) for s in range(10)]
    assert max(rooms) < 8.0
    assert min(rooms) > -8.0


def test_scale_invariant_zeros_outside_and_available() -> None:
    rate = 44100
    k = np.concatenate([np.zeros(500, np.float32), knock(rate, (900.0, 2430.0))])
    a = ring_line_db(k, 500, rate)
    assert ring_line_db(0.001 * k, 500, rate) == pytest.approx(a, abs=1e-3)   # float32 rounding
    # the ring reaches 80 ms after the peak: cut there, nothing changes; cut inside it, the ring is shorter
    n80 = 500 + round(0.08 * rate)
    assert ring_line_db(k[:n80], 500, rate) == pytest.approx(a, abs=1e-9)
    assert ring_available(n80, 500, rate) and not ring_available(n80 - 1, 500, rate)
    assert ring_line_db(k[: 500 + round(0.05 * rate)], 500, rate) != pytest.approx(a, abs=0.1)
    assert ring_line_db(np.zeros(100, np.float32), 50, rate) == 0.0
    assert ring_peak_db(np.zeros(100, np.float32), 50, rate) == 0.0


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="rate"):
        ring_line_db(np.zeros(100, np.float32), 0, 1000)
    with pytest.raises(ValueError, match="outside"):
        ring_line_db(np.zeros(100, np.float32), 100, 48000)
    with pytest.raises(ValueError, match="outside"):
        ring_peak_db(np.zeros(100, np.float32), -1, 48000)
