"""The twenty-fourth pass's evaluation of the detector as shipped (``benchmarks/clap_shipped_curve.py``)
and the route's folds (``benchmarks/clap_floor_route.py``): with the shipped expert and split, the fold
route gives exactly the shipped ``ClapDetector``'s claps, route and wait on or off; the split moves the
route; the floor rule sends only steady floors to the expert."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from clap_floor_route import EXPERT_N, steady_rise
from clap_shipped_curve import ShippedFold

from sensekit.audio.clap import ClapDetector
from sensekit.audio.clap_floor import RISE_SPLIT_DB, expert
from sensekit.audio.clap_loudness import clap_loudness
from sensekit.audio.clap_model import MODEL, THRESHOLD
from sensekit.audio.clap_wait import SHIPPED
from sensekit.evaluation.audio.clap_augment import synthetic_claps, with_noise

RATE = 48000


def claps_in_noise(kind: str, seed: int, snr_db: float) -> np.ndarray:
    """Synthetic claps in seeded noise; ``swelling``: white noise swelling and fading 20 dB three times a
    second (a floor that is not steady: the route must leave its bursts to the trees)."""
    x, onsets = synthetic_claps(RATE, np.random.default_rng(seed), seconds=8.0)
    rng = np.random.default_rng(seed + 100)
    if kind != "swelling":
        return with_noise(x, RATE, clap_loudness(x, RATE, onsets), snr_db, kind, rng)
    t = np.arange(len(x)) / RATE
    swell = 10.0 ** (-10.0 * (1.0 + np.sin(2.0 * np.pi * 3.0 * t)) / 20.0)
    n = rng.standard_normal(len(x)) * swell
    n *= clap_loudness(x, RATE, onsets) * 10.0 ** (-snr_db / 20.0) / np.sqrt(np.mean(n ** 2))
    return np.asarray(x + n, np.float32)


def stream(det: ClapDetector, x: np.ndarray) -> list[float]:
    return [c.t for k, i in enumerate(range(0, len(x), 512))
            for c in det.process(x[i:i + 512], i / RATE, RATE, index=k)]


@pytest.mark.parametrize("wait", [True, False])
def test_the_fold_route_with_the_shipped_expert_is_the_shipped_detector(wait: bool) -> None:
    routed = 0
    for kind, seed, snr in (("white", 1, 5.0), ("pink", 4, 0.0), ("pink", 2, 10.0), ("swelling", 1, 0.0),
                            ("swelling", 2, 5.0)):
        x = claps_in_noise(kind, seed, snr)
        shipped = stream(ClapDetector(close_call_wait=wait), x)
        fold = ShippedFold(model=MODEL, threshold=THRESHOLD, wait_model=SHIPPED, close_call_wait=wait,
                           fold_route=(expert(), RISE_SPLIT_DB))
        assert stream(fold, x) == shipped
        off = stream(ClapDetector(close_call_wait=wait, noise_route=False), x)
        routed += off != shipped
    assert routed >= 1            # the route decided something in these mixes


def test_a_split_of_zero_routes_nothing() -> None:
    x = claps_in_noise("white", 1, 5.0)
    off = stream(ClapDetector(noise_route=False, close_call_wait=False), x)
    fold = ShippedFold(model=MODEL, threshold=THRESHOLD, wait_model=SHIPPED, close_call_wait=False,
                       fold_route=(expert(), 0.0))
    assert stream(fold, x) == off
    assert stream(ClapDetector(close_call_wait=False), x) != off


def test_steady_rise_keeps_the_rise_only_over_a_steady_floor() -> None:
    X = np.zeros((4, EXPERT_N + 1))
    X[:, 0] = [10.0, 12.0, 14.0, 16.0]
    X[:, EXPERT_N] = [1.0, 2.0, np.nan, 1.99]
    assert steady_rise(X, 2.0).tolist() == [10.0, np.inf, np.inf, 16.0]
