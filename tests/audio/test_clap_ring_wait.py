"""The nineteenth pass: a close call of today's trees waits for its ring; the nested margin."""
from __future__ import annotations

import math

import numpy as np

from sensekit.evaluation.audio import clap_ring_wait as rw
from sensekit.evaluation.audio.clap_training import Bursts
from tests.audio.helpers import two_source_bursts


def test_only_close_calls_wait_and_take_the_ring_decision() -> None:
    t = np.array([-3.0, -0.5, 0.0, 0.5, 0.99, 1.0, 3.0]) + 2.0
    assert rw.waits(t, threshold=2.0, margin=1.0).tolist() == [False, True, True, True, True, False, False]
    ring = np.array([9.0, 9.0, -9.0, -9.0, 9.0, -9.0, -9.0])
    got = rw.wait_decision(t, ring, threshold=2.0, ring_threshold=0.0, margin=1.0)
    assert got.tolist() == [False, True, False, False, True, True, True]   # outside: today's decision
    assert (rw.wait_decision(t, ring, threshold=2.0, ring_threshold=0.0, margin=0.0) == (t >= 2.0)).all()
    assert (rw.wait_decision(t, ring, threshold=2.0, ring_threshold=0.0, margin=math.inf) == (ring >= 0)).all()


def _bursts() -> tuple[Bursts, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """``two_source_bursts``: the second score is the ring's trees''s. Source a: margin 1 fixes the false clap
    at trees 0.5 only and wins; source b: margin 3 finds the missed clap at trees -2.5."""
    return two_source_bursts()  # type: ignore[no-any-return]


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


def test_the_p50_after_a_share_waits() -> None:
    d = np.arange(100.0)                              # today's delays 0..99 ms: p50 49.5
    assert rw.p50_after_wait(d, 0.0) == 49.5
    # a fifth waits and comes out after every other: the median is today's 62.5th percentile
    assert rw.p50_after_wait(d, 0.2) == np.percentile(d, 62.5) == 61.875
    assert rw.p50_after_wait(d, 0.5) == math.inf      # the median clap itself waits
    try:
        rw.p50_after_wait(np.array([]), 0.1)
    except ValueError as e:
        assert "no decision delays" in str(e)
    else:
        raise AssertionError("an empty list of delays must be refused")


def test_latency_cap_is_the_largest_share_within_the_slack() -> None:
    d = np.array([40.0] * 60 + [45.0] * 40)           # p50 40 ms; the 60th clap on is 5 ms later
    # p50 <= 41 while 99 q <= 59.2 (q = 0.5 / (1 - f)): f <= 0.1638..., on the grid 0.163
    cap = rw.latency_cap(d, 1.0)
    assert cap == 0.163
    assert rw.p50_after_wait(d, cap) <= 41.0 < rw.p50_after_wait(d, cap + 0.001)
    assert rw.latency_cap(d, 0.0) == 0.161            # 99 q <= 59: f <= 0.1610...
    assert rw.latency_cap(d, 10.0) == 0.499           # a slack past every delay: all but the median


def test_latency_caps_never_read_the_source_they_are_for() -> None:
    d = {"a": np.full(50, 40.0), "b": np.array([40.0] * 60 + [45.0] * 40), "c": np.full(30, 40.0)}
    caps = rw.latency_caps(d, 1.0)
    assert caps["a"] == rw.latency_cap(np.concatenate([d["b"], d["c"]]), 1.0)
    moved = dict(d, a=np.full(50, 400.0))             # source a's own delays change...
    assert rw.latency_caps(moved, 1.0)["a"] == caps["a"]   # ...not its cap
    assert rw.latency_caps(moved, 1.0)["c"] != caps["c"]


def test_recorded_share_and_its_cap() -> None:
    b, trees, ring = _bursts()
    one = ({"b": trees["b"]}, {"b": ring["b"]})
    # on b's recording, margin 3 accepts 3 bursts of which the missed clap waited; inf: all 3 waited
    share = rw.recorded_share(b, *one, 0.0, [(0.0, 0.0), (3.0, 0.0), (math.inf, 0.0)])
    np.testing.assert_allclose(share, [0.0, 1 / 3, 1.0])
    # source a, margin inf: the ring accepts its two claps at 4 (both waited), rejects the rest
    np.testing.assert_allclose(rw.recorded_share(b, {"a": trees["a"]}, {"a": ring["a"]}, 0.0, [(math.inf, 0.0)]),
                               [1.0])
    assert rw.choose_wait(b, *one, 0.0, ring_thresholds=np.array([0.0]), max_recorded=0.2)[:2] == (0.0, 0.0)
    assert rw.choose_wait(b, *one, 0.0, ring_thresholds=np.array([0.0]), max_recorded=0.5)[:2] == (3.0, 0.0)
    grid = {"a": 0.0, "b": 0.0}
    # a's margin is chosen on b: a cap of 0.2 for a forbids b's margin 3; b's cap leaves a's 1
    got = rw.nested_waits(b, trees, ring, grid, ring_thresholds=grid, max_recorded={"a": 0.2, "b": 0.2})
    assert got == {"a": (0.0, 0.0), "b": (1.0, 0.0)}
