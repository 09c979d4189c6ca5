"""The nineteenth pass: a close call of today's trees waits for its ring; the nested margin."""
from __future__ import annotations

import math

import numpy as np

from sensekit.evaluation.audio import clap_ring_wait as rw
from sensekit.evaluation.audio.clap_training import Bursts


def test_only_close_calls_wait_and_take_the_ring_decision() -> None:
    t = np.array([-3.0, -0.5, 0.0, 0.5, 0.99, 1.0, 3.0]) + 2.0
    assert rw.waits(t, threshold=2.0, margin=1.0).tolist() == [False, True, True, True, True, False, False]
    ring = np.array([9.0, 9.0, -9.0, -9.0, 9.0, -9.0, -9.0])
    got = rw.wait_decision(t, ring, threshold=2.0, ring_threshold=0.0, margin=1.0)
    assert got.tolist() == [False, True, False, False, True, True, True]   # outside: today's decision
    assert (rw.wait_decision(t, ring, threshold=2.0, ring_threshold=0.0, margin=0.0) == (t >= 2.0)).all()
    assert (rw.wait_decision(t, ring, threshold=2.0, ring_threshold=0.0, margin=math.inf) == (ring >= 0)).all()


def _bursts() -> tuple[Bursts, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Two sources, one clap clip each (3 claps). Source a: a false clap at trees 0.5 that the
    ring rejects (-6), and a clap at trees 1.5 the ring also rejects: margin 1 fixes the first
    only and wins. Source b: a missed clap at trees -2.5 that the ring finds (+8): margin 3 wins."""
    rows = []   # source, variant, clip, y, trees, ring
    for v in ("orig", "n_babble"):
        rows += [("a", v, "a.wav", 1, 4.0, 4.0), ("a", v, "a.wav", 1, 1.5, -6.0),
                 ("a", v, "a.wav", 1, 4.0, 4.0), ("a", v, "a.wav", 0, 0.5, -6.0)]
        rows += [("b", v, "b.wav", 1, 4.0, 4.0), ("b", v, "b.wav", 1, -2.5, 8.0),
                 ("b", v, "b.wav", 1, 4.0, 4.0), ("b", v, "b.wav", 0, -5.0, 9.0)]
    col = list(zip(*rows))
    b = Bursts(np.zeros((len(rows), 16)), np.array(col[3]), np.array(col[0]), np.array([""] * len(rows)),
               np.array(col[1]), np.array(col[2]), {"a.wav": 3, "b.wav": 3}, {"a.wav": "clap", "b.wav": "clap"})
    src = np.array(col[0])
    trees = {s: np.where(src == s, np.array(col[4], float), np.nan) for s in ("a", "b")}
    ring = {s: np.where(src == s, np.array(col[5], float), np.nan) for s in ("a", "b")}
    return b, trees, ring


def test_the_smallest_margin_of_the_best_and_its_ring_threshold() -> None:
    b, trees, ring = _bursts()
    grid = np.array([0.0])
    assert rw.choose_wait(b, {"a": trees["a"]}, {"a": ring["a"]}, 0.0, ring_thresholds=grid)[:2] == (1.0, 0.0)
    assert rw.choose_wait(b, {"b": trees["b"]}, {"b": ring["b"]}, 0.0, ring_thresholds=grid)[:2] == (3.0, 0.0)
    # the ring threshold is chosen with the margin: every one up to 8 keeps b's missed clap at
    # margin 3; the lowest of those ties (-2) is taken
    assert rw.choose_wait(b, {"b": trees["b"]}, {"b": ring["b"]}, 0.0)[:2] == (3.0, -2.0)


def test_delayed_share_and_its_cap() -> None:
    b, trees, ring = _bursts()
    one = ({"b": trees["b"]}, {"b": ring["b"]})
    share = rw.delayed_share(b, *one, 0.0, [(0.0, 0.0), (3.0, 0.0), (math.inf, 0.0)])
    np.testing.assert_allclose(share, [0.0, 1 / 3, 1.0])
    # margin 3 delays 1 of its 3 claps: a cap of 0.2 forbids it, the trees alone are left
    assert rw.choose_wait(b, *one, 0.0, ring_thresholds=np.array([0.0]), max_delayed=0.2)[:2] == (0.0, 0.0)
    assert rw.choose_wait(b, *one, 0.0, ring_thresholds=np.array([0.0]), max_delayed=0.5)[:2] == (3.0, 0.0)


def test_nested_waits_never_read_the_held_out_source() -> None:
    b, trees, ring = _bursts()
    grid = {"a": 0.0, "b": 0.0}
    assert rw.nested_waits(b, trees, ring, grid, ring_thresholds=grid) == {"a": (3.0, 0.0), "b": (1.0, 0.0)}
    moved = {s: v.copy() for s, v in ring.items()}
    moved["a"][b.source == "a"] = 50.0               # source a's own ring scores change...
    assert rw.nested_waits(b, trees, moved, grid, ring_thresholds=grid)["a"] == (3.0, 0.0)   # ...not its choice
