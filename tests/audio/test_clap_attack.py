"""The twenty-sixth pass's attack shape: a clap's attack is broadband, a knock's rings in modes."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.evaluation.audio.clap_attack import attack_peak_db
from tests.audio.helpers import clap_burst


def knock(rate: int, modes: tuple[float, ...] = (900.0, 2300.0), tau_s: float = 0.02) -> np.ndarray:
    """A knuckle knock: a short contact into a few decaying modes."""
    t = np.arange(int(0.08 * rate)) / rate
    return (0.4 * sum(np.sin(2 * np.pi * f * t) for f in modes) * np.exp(-t / tau_s)).astype(np.float32)


@pytest.mark.parametrize("rate", [16000, 44100, 48000])
def test_claps_are_flat_and_knocks_peaky(rate: int) -> None:
    claps = [attack_peak_db(clap_burst(rate, seed=s), 0, rate) for s in range(10)]
    knocks = [attack_peak_db(knock(rate, (f, 2.7 * f)), 0, rate) for f in (400.0, 900.0, 1800.0)]
    assert max(claps) < 20.0
    assert min(knocks) > 30.0
    # a 5 ms window resolves the modes less sharply, but a knock is still far peakier than a clap
    assert max(attack_peak_db(clap_burst(rate, seed=s), 0, rate, 5.0) for s in range(10)) < 12.0
    assert min(attack_peak_db(knock(rate, (f, 2.7 * f)), 0, rate, 5.0) for f in (900.0, 1800.0)) > 20.0


def test_scale_invariant_and_zeros_outside() -> None:
    rate = 48000
    x = np.concatenate([np.zeros(1000, np.float32), clap_burst(rate, seed=3), np.zeros(2000, np.float32)])
    a = attack_peak_db(x, 1000, rate)
    assert attack_peak_db(0.01 * x, 1000, rate) == pytest.approx(a, abs=1e-6)   # float32 rounding
    # the window reaches 2 ms before the peak: the same burst at the clip's first sample
    assert attack_peak_db(x[1000:], 0, rate) == pytest.approx(a, abs=1e-9)
    assert attack_peak_db(np.zeros(100, np.float32), 50, rate) == 0.0


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="rate"):
        attack_peak_db(np.zeros(100, np.float32), 0, 1000)
    with pytest.raises(ValueError, match="outside"):
        attack_peak_db(np.zeros(100, np.float32), 100, 48000)
    with pytest.raises(ValueError, match="1 ms"):
        attack_peak_db(np.zeros(100, np.float32), 0, 48000, after_ms=0.5)
