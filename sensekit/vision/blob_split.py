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

Cost: one pass over the region's pixels per try (~20 us for a 2000-pixel region); regions
narrower than ``aspect`` are not looked at. Failure modes: people one behind the other (the
top outline shows one head), a couple whose heads touch in the mask (no dip), a person
carrying something wide at head height, a wide object with two bumps on top.
"""
from __future__ import annotations

import numpy as np

__all__ = ["person_cuts"]

_MIDDLE = 0.25               # cuts are looked for between this share of the width and 1 - it
_MIN_HEIGHT_SHARE = 0.6      # each part is at least this share of the region's height
_MAX_DEPTH = 3               # at most 2**3 parts


def person_cuts(xs: np.ndarray, ys: np.ndarray, *, aspect: float, dip: float, min_area_px: int,
                _depth: int = 0) -> list[int]:
    """The columns (image x, ascending) at which the region of pixels ``xs``, ``ys`` (in row
    order, as ``cv2.findNonZero`` gives them) splits into side-by-side people: a part is the
    pixels left of the first cut, between two cuts, or from the last one on. [] when it does
    not split. See the module docstring."""
    if xs.size < 2 * min_area_px or _depth >= _MAX_DEPTH:
        return []
    x0, y0 = int(xs.min()), int(ys[0])
    w, h = int(xs.max()) - x0 + 1, int(ys[-1]) - y0 + 1
    if w < aspect * h or w < 4:
        return []
    cols, first = np.unique(xs - x0, return_index=True)     # first pixel of a column: its top
    prof = np.zeros(w, np.int32)
    prof[cols] = h - (ys[first] - y0)
    left = np.maximum.accumulate(prof)                       # highest point at or left of c
    right = np.maximum.accumulate(prof[::-1])[::-1]          # highest point at or right of c
    lo, hi = max(1, int(np.ceil(_MIDDLE * w))), min(w - 1, int((1 - _MIDDLE) * w))
    if hi < lo:
        return []
    c = np.arange(lo, hi + 1)
    dips = np.minimum(left[c - 1], right[c]) - prof[c]
    k = int(np.argmax(dips))
    if dips[k] < dip * h:
        return []
    run = int(np.argmin(dips[k:] == dips[k])) if not (dips[k:] == dips[k]).all() else dips.size - k
    k += (run - 1) // 2                                     # the middle of a flat valley
    cut = x0 + int(c[k])
    parts = []
    for sel in (xs < cut, xs >= cut):
        px, py = xs[sel], ys[sel]
        if px.size < min_area_px or int(py[-1]) - int(py[0]) + 1 < _MIN_HEIGHT_SHARE * h:
            return []
        parts.append((px, py))
    (lx, ly), (rx, ry) = parts
    return (person_cuts(lx, ly, aspect=aspect, dip=dip, min_area_px=min_area_px, _depth=_depth + 1) + [cut]
            + person_cuts(rx, ry, aspect=aspect, dip=dip, min_area_px=min_area_px, _depth=_depth + 1))
