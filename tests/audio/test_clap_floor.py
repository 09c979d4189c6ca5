"""``FloorRoute.steady``: the route's test, the same as ``floor_spread_db < FLOOR_SPLIT_DB``.

Hand-made floors for the edges (digital silence, a spread within the decision's margin of
the split, levels that overflow float32) and real clips, plain and under seeded white
noise, for the bulk: every position gives the same answer, and the cheap path decides
nearly all of them without the full statistic.
"""
from __future__ import annotations

import functools
from unittest import mock

import numpy as np
import pytest

from sensekit.audio import clap_floor
from sensekit.audio.clap_floor import FLOOR_EVERY_MS, FLOOR_FRAMES, FLOOR_SPLIT_DB, FloorRoute
from sensekit.audio.numpy_calls import einsum
from sensekit.evaluation.audio.evaluate import read_wav


def expected(route: FloorRoute, x: np.ndarray, p: int) -> bool:
    """What ``score`` tested before ``steady``: ``not floor_spread_db >= split`` (NaN: steady)."""
    return not route.floor_spread_db(x, p) >= FLOOR_SPLIT_DB


def frames_scaled(rate: int, gains: np.ndarray) -> tuple[np.ndarray, int]:
    """A +-1 square wave at half the rate (every frame's difference power the same) whose 25
    floor frames (12 ms apart) are scaled by ``gains``; and the peak's index."""
    route = FloorRoute(rate)
    n = route.pre + rate // 10
    p = route.pre
    x = np.where(np.arange(n) % 2 == 0, 0.1, -0.1)
    every = round(rate * FLOOR_EVERY_MS / 1000.0)
    a = p - route._floor_pre
    for i, g in enumerate(gains):
        x[a + i * every: a + (i + 1) * every] *= g
    return x.astype(np.float32), p


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")     # (the 1e19 floor)
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("rate", [16000, 44100, 48000])
def test_steady_on_hand_made_floors(rate):
    route = FloorRoute(rate)
    rng = np.random.default_rng(3)
    n = route.pre + rate // 10
    p = route.pre
    white = rng.standard_normal(n).astype(np.float32)
    swell = (white * (1.0 + 0.9 * np.sin(2 * np.pi * 3.0 * np.arange(n) / rate))).astype(np.float32)
    gated = white.copy()
    gated[p // 2: p // 2 + rate // 50] = 0.0                  # digital silence: reads 60 dB
    assert route.steady(white, p) and expected(route, white, p)
    assert not route.steady(swell, p) and not expected(route, swell, p)
    assert not route.steady(gated, p) and not expected(route, gated, p)
    for x in (1e19 * white, 1e-30 * white, 3e-23 * white):    # float32 overflow, underflow
        x = x.astype(np.float32)
        assert route.steady(x, p) == expected(route, x, p)


@pytest.mark.parametrize("rate", [16000, 48000])
def test_steady_at_the_split_itself(rate):
    """Floors whose spread is swept across 2 dB in steps of 0.0005 dB, through the band
    where ``steady`` hands the decision to ``floor_spread_db``."""
    route = FloorRoute(rate)
    answers, handed = set(), 0
    for step in range(-12, 13):
        gains = np.ones(FLOOR_FRAMES)
        gains[:3] = 0.8                                  # the three quietest: the 3rd is index 2
        gains[-3:] = 0.8 * 10.0 ** ((FLOOR_SPLIT_DB + 0.0005 * step) / 20.0)
        x, p = frames_scaled(rate, gains)
        with mock.patch.object(route, "floor_spread_db", wraps=route.floor_spread_db) as full:
            got = route.steady(x, p)
            handed += full.call_count
        assert got == expected(route, x, p)
        answers.add(got)
    assert answers == {True, False}
    assert 0 < handed < 25                               # near the split only


@pytest.mark.parametrize("name", ["laugh_room-small_0.wav", "clap_sparse_eldar-sample2.wav",
                                  "clap_k_steady13.wav"])
def test_steady_agrees_with_the_statistic_on_real_floors(shared_data, name):
    x0, rate = read_wav(shared_data / "audio" / name)
    route = FloorRoute(rate)
    agree = handed = 0
    answers = set()
    for i, white_dbfs in enumerate((None, -50.0, -30.0)):
        x = x0 if white_dbfs is None else (
            x0 + np.random.default_rng(i).standard_normal(x0.shape) * 10.0 ** (white_dbfs / 20.0))
        x = np.asarray(x, np.float32)
        with mock.patch.object(route, "floor_spread_db", wraps=route.floor_spread_db) as full:
            got = [route.steady(x, p) for p in range(route.pre, len(x) - rate // 20, rate // 50)]
            handed += full.call_count
        want = [expected(route, x, p) for p in range(route.pre, len(x) - rate // 20, rate // 50)]
        assert got == want
        agree += len(got)
        answers.update(got)
    assert answers == {True, False} or name == "laugh_room-small_0.wav"
    assert agree > 300 and handed < 0.02 * agree


def test_steady_without_vecdot_uses_einsum_and_agrees(monkeypatch):
    """NumPy < 2 (the ``hands`` extra pins it) has no ``vecdot``: ``einsum`` sums the rows."""
    monkeypatch.setattr(clap_floor, "_row_dots", functools.partial(einsum, "ij,ij->i"))
    route = FloorRoute(48000)
    rng = np.random.default_rng(11)
    n = route.pre + 4800
    x = rng.standard_normal(n).astype(np.float32)
    swell = (x * (1.0 + 0.9 * np.sin(2 * np.pi * 3.0 * np.arange(n) / 48000))).astype(np.float32)
    got = [route.steady(y, p) for y in (x, swell) for p in range(route.pre, n - 480, 480)]
    assert got == [expected(route, y, p) for y in (x, swell) for p in range(route.pre, n - 480, 480)]
    assert set(got) == {True, False}
