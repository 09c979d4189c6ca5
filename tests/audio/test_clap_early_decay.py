"""The thirtieth pass's early decay: a contact's low thud outlasts its click; a clap's decay keeps its spectrum."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.evaluation.audio.clap_early_decay import early_available, low_rise_db
from tests.audio.helpers import clap_burst


def contact(rate: int, thud_hz: float, tau_s: float = 0.03, seed: int = 0) -> np.ndarray:
    """A key or a knock: a 4 ms broadband click into a weaker low body mode (a thud), over a noise floor."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(0.1 * rate)) / rate
    y = 0.05 * np.sin(2 * np.pi * thud_hz * t) * np.exp(-t / tau_s)
    c = clap_burst(rate, seed=seed, peak=0.8, length_ms=4.0, decay_ms=1.5)
    y[: len(c)] += c
    return np.asarray(y + 1e-4 * rng.standard_normal(len(t)), np.float32)


def room_clap(rate: int, seed: int, t60_s: float = 0.4) -> np.ndarray:
    """A broadband clap through a room (an exponentially decaying white-noise response)."""
    rng = np.random.default_rng(seed + 100)
    n = int(0.2 * rate)
    h = 0.3 * rng.standard_normal(n) * np.exp(-6.9 * np.arange(n) / rate / t60_s)
    h[0] = 1.0
    y = np.convolve(clap_burst(rate, seed=seed).astype(np.float64), h)[:n]
    return np.asarray(y + 1e-4 * rng.standard_normal(n), np.float32)


@pytest.mark.parametrize("rate", [16000, 44100, 48000])
def test_contacts_rise_in_the_low_band_and_claps_do_not(rate: int) -> None:
    contacts = [low_rise_db(contact(rate, f, tau, s), 0, rate) for f in (120.0, 250.0, 400.0)
                for tau in (0.02, 0.05) for s in range(2)]
    claps = [low_rise_db(x := room_clap(rate, s, t60), int(np.abs(x[: rate // 100]).argmax()), rate)
             for s in range(10) for t60 in (0.2, 0.4, 0.8)]
    assert min(contacts) > 10.0
    assert float(np.median(np.abs(claps))) < 3.0
    assert max(claps) < 12.0          # a room's comb can lift the low band (16 kHz: up to ~10.5 dB)


def test_scale_invariant_zeros_and_available() -> None:
    rate = 44100
    k = np.concatenate([np.zeros(300, np.float32), contact(rate, 200.0)])
    a = low_rise_db(k, 300, rate)
    assert low_rise_db(0.001 * k, 300, rate) == pytest.approx(a, abs=1e-3)   # float32 rounding
    n30 = 300 + round(0.03 * rate)
    assert low_rise_db(k[:n30], 300, rate) == pytest.approx(a, abs=1e-9)      # nothing after 30 ms is read
    assert early_available(n30, 300, rate) and not early_available(n30 - 1, 300, rate)
    hiss = k.copy()
    i, m = 300 + round(0.015 * rate), round(0.01 * rate)
    hiss[i:i + m] += 0.05 * np.random.default_rng(3).standard_normal(m).astype(np.float32)
    assert low_rise_db(hiss, 300, rate) < a - 3.0                              # broadband 15-25 ms after
    assert low_rise_db(np.zeros(100, np.float32), 50, rate) == 0.0


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="rate"):
        low_rise_db(np.zeros(100, np.float32), 0, 1000)
    with pytest.raises(ValueError, match="outside"):
        low_rise_db(np.zeros(100, np.float32), 100, 48000)
    with pytest.raises(ValueError, match="outside"):
        low_rise_db(np.zeros(100, np.float32), -1, 48000)
