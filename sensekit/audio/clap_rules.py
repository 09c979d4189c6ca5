"""The clap detector's rules after the trees, as pure functions of the values.

- The room rule (``room_feature``/``room_limit``/``room_above``, learned by ``sensekit calibrate
  --claps``, ``clap_teach.py``): a burst whose feature lies beyond the limit is the room's sound.
- The recent-claps rule (``below_claps_db``): a burst far under the loudest clap of the last
  ``RECENT_CLAPS_S`` is not one of them.
"""
from __future__ import annotations

from collections import deque

from sensekit.audio.clap_features import FEATURES

__all__ = ["room_index", "room_side", "under_recent_claps"]


def room_side(v: float, limit: float, above: bool) -> bool:
    """Whether the feature value ``v`` lies on the room's side of the room rule."""
    return v > limit if above else v < limit


def room_index(feature: str) -> int:
    """The room rule's feature as its index in a judged burst's values (0: no rule)."""
    return FEATURES.index(feature) + 1 if feature != "none" else 0


def under_recent_claps(recent: deque[tuple[int, float]], p: int, peak_db: float, horizon: float,
                       below_db: float) -> bool:
    """Whether a burst peaking at sample ``p`` with ``peak_db`` is ``below_db`` under the loudest of
    the ``recent`` claps ``(peak, peak_db)`` within ``horizon`` samples before it. Claps older than
    the horizon are dropped from ``recent`` (it is the detector's own queue)."""
    while recent and p - recent[0][0] > horizon:
        recent.popleft()
    return bool(recent) and peak_db < max(db for _, db in recent) - below_db
