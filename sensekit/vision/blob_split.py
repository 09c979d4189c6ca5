"""Side-by-side people in one blob: where to cut a region of a motion mask into people.

Two people walking side by side touch in the motion mask and come out as one region. Seen
from the side or from above at an angle, such a region is wider than one person and its top
outline has a head at each end with a dip between them. ``person_cuts(xs, ys, aspect=...,
dip=...)`` looks at a region's pixels and returns the columns where it splits into people:

1. the region is tried only when it is at least ``aspect`` times as wide as it is tall (one
   upright person is 0.3-0.6 on the PETS 2009 plaza);
2. its top profile (the height of the topmost pixel in each column) is searched, in the middle
   half of its width, for the column with the deepest dip below the lower of the highest
   points to its left and to its right (two heads, or a head and a shoulder);
3. the cut is kept when that dip is at least ``dip`` times the region's height and both parts
   are person-shaped: each at least ``min_area_px`` pixels and at least
   ``_MIN_HEIGHT_SHARE`` of the region's height (side by side, both are about as tall);
4. each part is tried again (a group of three).

A car seen from behind or above has a convex top outline (no dip): on CDnet highway the
deepest dip of a car's region is ~0.05 of its height, the couple on PETS 2009 0.05-0.27 (see
docs/blobs.md for the choice of the defaults, ``blobs.split_aspect`` and ``blobs.split_dip``).

Cost: regions narrower than ``aspect`` are not looked at; for the others, the top rows first
(``top_is_flat``: a car's roof covers the middle half of its width, about half the cars on
CDnet highway stop there), then one argmax per column of the region's box (~50 us for a car
at 640x480). On highway at 640x480 ``find_blobs`` takes ~0.17 ms of CPU more a frame with the
split than without (every car is wide enough to be looked at). ``region_cuts(rows_of, h, w, ...)``
is ``person_cuts`` with the region given as a function of how many of its top rows to make, so
a caller that builds the region from a labelling (``blobs.find_blobs``) builds only the top
rows of a region ruled out there.

Failure modes: people one behind the other (the top outline shows one head), a couple whose
heads touch in the mask (no dip), a person carrying something wide at head height, a wide
object with two bumps on top (the demo recording's ball and its trail, on one frame), ragged
masks (on OpenCV MOG2's mask it finds heads in the noise).
"""
from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

__all__ = ["person_cuts", "region_cuts", "top_is_flat", "wide_enough", "SPLIT_DIP"]

SPLIT_DIP = 0.08             # the default dip: ``blobs.split_dip`` and ``find_blobs`` (docs/blobs.md)

_MIDDLE = 0.25               # cuts are looked for between this share of the width and 1 - it
_MIN_HEIGHT_SHARE = 0.6      # each part is at least this share of the region's height
_MAX_DEPTH = 3               # at most 2**3 parts


def _middle(w: int) -> tuple[int, int]:
    """The first and last column a cut may be at."""
    return max(1, int(np.ceil(_MIDDLE * w))), min(w - 1, int((1 - _MIDDLE) * w))


def wide_enough(w: int, h: int, aspect: float) -> bool:
    """Whether a ``w`` x ``h`` region is wide enough to be tried as people side by side (step 1)."""
    return w >= aspect * h


def top_is_flat(top: np.ndarray) -> bool:
    """A quick test that rules a split out without the top profile: ``top`` is the region's
    top ``ceil(dip x height)`` rows (boolean, the width of its bounding box), and every column
    of the middle half has a pixel there, so no column's top is that far below the highest
    point. ``person_cuts`` returns [] for such a region; most cars are."""
    lo, hi = _middle(top.shape[1])
    return top.shape[0] > 0 and hi >= lo and bool(top[:, lo:hi + 1].any(axis=0).all())


def person_cuts(region: np.ndarray, *, aspect: float, dip: float, min_area_px: int,
                _depth: int = 0) -> list[int]:
    """The columns (counted from the left edge of ``region``, ascending) at which a region,
    given as a boolean HxW array cut to its bounding box, splits into side-by-side people: a
    part is the pixels left of the first cut, between two cuts, or from the last one on. []
    when it does not split. See the module docstring."""
    h, w = region.shape
    return region_cuts(lambda n: region[:n], h, w, aspect=aspect, dip=dip, min_area_px=min_area_px,
                       _depth=_depth)


def region_cuts(rows_of: Callable[[int], np.ndarray], h: int, w: int, *, aspect: float, dip: float,
                min_area_px: int, _depth: int = 0) -> list[int]:
    """``person_cuts`` of the HxW region whose top ``n`` rows are ``rows_of(n)`` (boolean, ``w``
    wide; ``rows_of(h)`` is all of it): the one place that decides whether a region is looked
    at, so ``rows_of(h)`` is made only for a region that is wide enough and not flat on top."""
    lo, hi = _middle(w)
    if not wide_enough(w, h, aspect) or w < 4 or hi < lo or _depth >= _MAX_DEPTH:
        return []
    if top_is_flat(rows_of(int(np.ceil(dip * h)))):
        return []
    region = rows_of(h)
    top = region.argmax(axis=0)                              # 0 also for an empty column
    prof = np.where(region[0] | (top > 0), h - top, 0)       # the height of each column's top
    left = np.maximum.accumulate(prof)                       # highest point at or left of c
    right = np.maximum.accumulate(prof[::-1])[::-1]          # highest point at or right of c
    dips = np.minimum(left[lo - 1:hi], right[lo:hi + 1]) - prof[lo:hi + 1]    # cut before lo..hi
    k = int(np.argmax(dips))
    if dips[k] < dip * h:
        return []
    flat = dips[k:] == dips[k]
    run = int(np.argmin(flat)) if not flat.all() else flat.size
    cut = lo + k + (run - 1) // 2                            # the middle of a flat valley
    counts = cv2.reduce(region.view(np.uint8), 0, cv2.REDUCE_SUM, dtype=cv2.CV_32S)[0]   # pixels a column
    out: list[int] = []
    for x0, part in ((0, region[:, :cut]), (cut, region[:, cut:])):
        rows = np.flatnonzero(part.any(axis=1))
        cols = np.flatnonzero(counts[x0:x0 + part.shape[1]])
        if int(counts[x0:x0 + part.shape[1]].sum()) < min_area_px or rows[-1] - rows[0] + 1 < _MIN_HEIGHT_SHARE * h:
            return []
        tight = part[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1]
        inner = person_cuts(tight, aspect=aspect, dip=dip, min_area_px=min_area_px, _depth=_depth + 1)
        out += ([cut] if x0 else []) + [x0 + int(cols[0]) + v for v in inner]
    return out
