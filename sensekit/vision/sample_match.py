"""Matching a frame against per-pixel colour samples: which pixels no past background colour explains.

The background model (``sensekit.vision.background``) keeps, for every pixel, a number of
past background colours. A pixel matches a sample when the sample is within the pixel's
match distance ``thr`` on every channel (the largest of |dB|, |dG|, |dR| is below it), and it
is background when at least ``min_matches`` samples match. The functions here decide that for
a band of rows, writing the 0/255 foreground into ``raw`` and each pixel's distance to its
nearest sample (which the model learns from) into ``nearest``:

- ``match_nearest``: ``min_matches`` 1 or 2, keeping the one or two smallest distances
  instead of a count (8 OpenCV calls a sample);
- ``match_count``: any ``min_matches``, counting the matches (9 calls a sample).

Both give the same foreground (``tests/vision/test_background.py`` checks it). Every array is
uint8 and of the band's shape; frame and samples are planar (B, G, R), so nothing is
de-interleaved per sample. Nothing is allocated: the work arrays come in ``MatchScratch``.
"""
# cv2's stubs reject a scalar second operand (cv2.add(img, 1, dst=...)), which OpenCV accepts:
# mypy: disable-error-code="call-overload"
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

import cv2
import numpy as np

__all__ = ["Planes", "MatchScratch", "sample_distances", "match_nearest", "match_count"]

#: one image's three colour planes (B, G, R), each HxW uint8
Planes = Sequence[np.ndarray]


@dataclass(frozen=True, slots=True)
class MatchScratch:
    """Work arrays of the band's shape (uint8), overwritten by each call."""
    dist: np.ndarray
    d1: np.ndarray
    d2: np.ndarray
    spare: np.ndarray


def sample_distances(frame: Planes, samples: Iterable[Planes], scratch: MatchScratch) -> Iterator[np.ndarray]:
    """Each sample's distance to ``frame`` (the largest channel difference), in turn, in
    ``scratch.dist`` (read it before asking for the next)."""
    dist, d1, d2 = scratch.dist, scratch.d1, scratch.d2
    xb, xg, xr = frame
    for sb, sg, sr in samples:
        cv2.absdiff(xb, sb, dst=dist)
        cv2.absdiff(xg, sg, dst=d1)
        cv2.absdiff(xr, sr, dst=d2)
        cv2.max(dist, d1, dst=dist)
        yield cv2.max(dist, d2, dst=dist)


def match_nearest(frame: Planes, samples: Sequence[Planes], thr: np.ndarray, raw: np.ndarray, *,
                  min_matches: int, nearest: np.ndarray, second: np.ndarray, scratch: MatchScratch) -> None:
    """``min_matches`` 1 or 2: a pixel is foreground (255 in ``raw``) when its
    ``min_matches``-th nearest sample is not within ``thr``; ``nearest`` gets the smallest
    distance, ``second`` (for 2) the second smallest.

    The loop for 2 runs 8 OpenCV calls a sample (the distance, then the two nearest), as lean
    as Python allows: the functions bound locally, the first two samples starting the two
    nearest directly."""
    if min_matches not in (1, 2):
        raise ValueError(f"match_nearest takes min_matches 1 or 2, got {min_matches} (use match_count)")
    first, tmp = nearest, scratch.spare
    dist, d1, d2 = scratch.dist, scratch.d1, scratch.d2
    xb, xg, xr = frame
    absdiff, cmax, cmin = cv2.absdiff, cv2.max, cv2.min
    if min_matches == 2:
        for k, (sb, sg, sr) in enumerate(samples):
            absdiff(xb, sb, dist)
            absdiff(xg, sg, d1)
            absdiff(xr, sr, d2)
            cmax(dist, d1, dist)
            if k == 0:                              # the nearest so far is the first sample
                cmax(dist, d2, first)
                continue
            cmax(dist, d2, dist)                    # the largest channel difference
            if k == 1:                              # the second nearest: the farther of two
                cmax(first, dist, second)
            else:
                cmax(first, dist, tmp)              # the second smallest so far
                cmin(second, tmp, second)
            cmin(first, dist, first)
        cv2.compare(second, thr, cv2.CMP_GE, dst=raw)
        return
    first[:] = 255
    for dist in sample_distances(frame, samples, scratch):
        cmin(first, dist, first)
    cv2.compare(first, thr, cv2.CMP_GE, dst=raw)


def match_count(frame: Planes, samples: Sequence[Planes], thr: np.ndarray, raw: np.ndarray, *,
                min_matches: int, nearest: np.ndarray, count: np.ndarray, scratch: MatchScratch) -> None:
    """Any ``min_matches``: count the samples within ``thr`` (in ``count``); a pixel with fewer
    is foreground (255 in ``raw``); ``nearest`` gets the smallest distance."""
    hit = scratch.spare
    count[:] = 0
    nearest[:] = 255
    for dist in sample_distances(frame, samples, scratch):
        cv2.min(nearest, dist, dst=nearest)
        # a match is dist < thr: thr - dist saturates to 0 otherwise, so min(., 1) counts it
        cv2.subtract(thr, dist, dst=hit)
        cv2.min(hit, 1, dst=hit)
        cv2.add(count, hit, dst=count)
    cv2.compare(count, min_matches, cv2.CMP_LT, dst=raw)
