"""Keeping ids on what a stage follows from frame to frame (the hands of ``hands.py``, the
people of ``pose.py``): pairing a frame's detections with the tracked ones, and which tracked
ones were seen last frame or have been unseen long enough to be forgotten."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, TypeVar

__all__ = ["Tracked", "pair_greedily", "seen_at", "unseen_for"]


class Tracked(Protocol):
    """Anything followed under an id, with the time it was last seen (seconds)."""
    id: int
    last_t: float


T = TypeVar("T", bound=Tracked)


def pair_greedily(candidates: Iterable[tuple[float, int, T]]) -> dict[int, T]:
    """Detection index -> the tracked one it continues, from ``(cost, detection index, tracked)``
    candidates already within the gate: lowest cost first (equal costs in the order given),
    each detection and each tracked one used once."""
    out: dict[int, T] = {}
    used: set[int] = set()
    for _, k, tracked in sorted(candidates, key=lambda c: c[0]):
        if k not in out and tracked.id not in used:
            out[k] = tracked
            used.add(tracked.id)
    return out


def seen_at(tracked: Iterable[T], t: float) -> list[T]:
    """The ones seen on the frame at time ``t``."""
    return [x for x in tracked if x.last_t == t]


def unseen_for(tracked: Iterable[T], t: float, lost_after_ms: float) -> list[T]:
    """The ones not seen at ``t`` and not for ``lost_after_ms`` before it: to forget now."""
    return [x for x in tracked if x.last_t < t and (t - x.last_t) * 1000.0 >= lost_after_ms]
