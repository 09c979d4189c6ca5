"""The id keeping that the hand and pose stages share (``sensekit.vision.tracked_ids``)."""
from __future__ import annotations

from dataclasses import dataclass

from sensekit.vision.tracked_ids import pair_greedily, seen_at, unseen_for


@dataclass
class Thing:
    id: int
    last_t: float


def test_the_cheapest_pair_wins_and_each_side_is_used_once() -> None:
    a, b = Thing(1, 0.0), Thing(2, 0.0)
    # detection 0 is close to both; b is its best, but detection 1 is closer still to b
    pairs = pair_greedily([(0.3, 0, b), (0.4, 0, a), (0.9, 1, a), (0.1, 1, b)])
    assert pairs == {1: b, 0: a}


def test_equal_costs_keep_the_order_given() -> None:
    a, b = Thing(1, 0.0), Thing(2, 0.0)
    assert pair_greedily([(0.5, 0, b), (0.5, 0, a)]) == {0: b}
    assert pair_greedily([(0.5, 0, a), (0.5, 0, b)]) == {0: a}


def test_no_candidates_no_pairs() -> None:
    assert pair_greedily([]) == {}


def test_forgotten_only_once_unseen_for_long_enough() -> None:
    now, recent, old = Thing(1, 1.0), Thing(2, 0.95), Thing(3, 0.8)
    assert unseen_for([now, recent, old], 1.0, 100.0) == [old]
    assert unseen_for([now, recent, old], 1.0, 0.0) == [recent, old]     # seen at t is never lost
    assert seen_at([now, recent, old], 1.0) == [now]
