"""Object proposals around a click: the nested regions that contain it, at several window sizes.

``click_proposals(frame, x, y)`` cuts square windows centred on the click (``windows``: 0.15,
0.3, 0.6 and 1.2 of the frame's short side, clipped to the frame), shrinks or enlarges each to
``work_px`` (96) on its long side, splits it into superpixels (Felzenszwalb's graph
segmentation, ``skimage.segmentation.felzenszwalb``, scale 100) and merges neighbouring
regions greedily in the order of selective search's similarity (colour-histogram intersection
+ small size + filling the joint box; Uijlings et al. 2013). Each region that holds the click,
from its superpixel to the whole window, is a ``Proposal``: its box in frame pixels, the
similarity of the merge that made it and of the one that swallowed it next (a region that
only merges at a low similarity stands out from what is around it), and how much of its box
it fills. Every window sees the object at a different number of work pixels, so the
proposals span object sizes from a few pixels to the frame without a size being assumed;
``extent.py`` scores them.

Cost: about 15-20 ms of CPU per window at 96 px (9 of it the superpixels), 4 windows per click.
Failure modes: an object of under ~4 work pixels in the smallest window (under ~3 % of the
short side) is one superpixel with its surround; an object whose colours match its
surround's merges with it early, so no proposal holds just the object.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Sequence

import cv2
import numpy as np

__all__ = ["Proposal", "Window", "click_proposals", "WINDOWS", "SCALES"]

#: window sides, as fractions of the frame's short side
WINDOWS = (0.15, 0.3, 0.6, 1.2)
#: Felzenszwalb scales: each window is split at each (a larger scale, larger superpixels)
SCALES = (100.0,)

_BINS = 16                       # per Lab channel, for the merge similarity


@dataclass(frozen=True)
class Window:
    """One window's superpixels: ``labels`` (work-sized int array), its origin in the frame
    and its scale (frame px = origin + work px / ``scale``)."""
    labels: np.ndarray = field(repr=False)
    origin: tuple[int, int]
    size: tuple[int, int]          # the window's width, height in frame pixels
    scale: float
    side_px: float                 # the side asked for (before clipping)


@dataclass(frozen=True)
class Proposal:
    """A region holding the click: ``box`` (x, y, w, h, frame px); ``window`` the index into
    ``WINDOWS``; ``step`` its place in that window's chain (0: the click's superpixel) of
    ``steps``; ``merged_at`` the similarity of the merge that made it (3.0, the maximum, for
    the superpixel), ``next_merge`` that of the merge that swallowed it (0 for the last);
    ``fill`` the share of its box it covers; ``members`` its superpixels in ``win``."""
    box: tuple[float, float, float, float]
    window: int
    step: int
    steps: int
    merged_at: float
    next_merge: float
    fill: float
    members: tuple[int, ...] = field(repr=False)
    win: Window = field(repr=False)

    def mask(self, shape: tuple[int, int]) -> np.ndarray:
        """The region as a bool mask of a frame of ``shape`` (H, W)."""
        w = self.win
        small = np.isin(w.labels, np.asarray(self.members)).astype(np.uint8)
        big = cv2.resize(small, w.size, interpolation=cv2.INTER_NEAREST)
        out = np.zeros(shape, bool)
        x0, y0 = w.origin
        out[y0:y0 + big.shape[0], x0:x0 + big.shape[1]] = big > 0
        return out


def _window(frame: np.ndarray, x: float, y: float, side: float, work_px: int
            ) -> tuple[np.ndarray, tuple[int, int], tuple[int, int], float]:
    H, W = frame.shape[:2]
    x0, y0 = int(max(0.0, x - side / 2)), int(max(0.0, y - side / 2))
    x1, y1 = int(min(float(W), x + side / 2)), int(min(float(H), y + side / 2))
    x1, y1 = max(x1, x0 + 2), max(y1, y0 + 2)
    crop = frame[y0:y1, x0:x1]
    f = work_px / max(crop.shape[:2])
    size = (max(2, int(round(crop.shape[1] * f))), max(2, int(round(crop.shape[0] * f))))
    interp = cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR
    return cv2.resize(np.ascontiguousarray(crop), size, interpolation=interp), (x0, y0), (x1 - x0, y1 - y0), f


def _chain(img: np.ndarray, cx: int, cy: int, k: float, min_size: int
           ) -> tuple[np.ndarray, list[tuple[tuple[int, int, int, int], float, float, tuple[int, ...]]]]:
    """Superpixels of ``img`` and the merge chain of the one at ``(cx, cy)``: per step the box
    (x0, y0, x1, y1 inclusive, work px), the merge similarity, the fill and the members."""
    from skimage.segmentation import felzenszwalb   # here: scikit-image costs every command's start-up

    seg = np.asarray(felzenszwalb(img[..., ::-1], scale=k, sigma=0.8, min_size=min_size), np.int64)
    h, w = seg.shape
    n = int(seg.max()) + 1
    lab = np.asarray(cv2.cvtColor(img, cv2.COLOR_BGR2Lab), dtype=np.uint8)
    flat = seg.ravel()
    cap = 2 * n
    hist = np.zeros((cap, 3 * _BINS))
    for c in range(3):
        q = (lab[..., c].ravel() >> 4).astype(np.int64)
        hist[:n, c * _BINS:(c + 1) * _BINS] = np.bincount(flat * _BINS + q, minlength=n * _BINS).reshape(n, _BINS)
    size = np.zeros(cap)
    size[:n] = np.bincount(flat, minlength=n)
    hist[:n] /= np.maximum(size[:n, None], 1) * 3
    ys, xs = np.divmod(np.arange(h * w), w)
    box = np.zeros((cap, 4))
    order = np.argsort(flat, kind="stable")
    starts = np.searchsorted(flat[order], np.arange(n))      # every label 0..n-1 has pixels
    box[:n, 0] = np.minimum.reduceat(xs[order], starts)
    box[:n, 1] = np.minimum.reduceat(ys[order], starts)
    box[:n, 2] = np.maximum.reduceat(xs[order], starts)
    box[:n, 3] = np.maximum.reduceat(ys[order], starts)
    pairs = np.concatenate([np.stack([seg[:, :-1].ravel(), seg[:, 1:].ravel()], 1),
                            np.stack([seg[:-1].ravel(), seg[1:].ravel()], 1)])
    pairs = np.unique(np.sort(pairs[pairs[:, 0] != pairs[:, 1]], 1), axis=0)
    neighbours: dict[int, set[int]] = {i: set() for i in range(n)}
    for p, q_ in pairs.tolist():
        neighbours[p].add(q_)
        neighbours[q_].add(p)
    members: dict[int, tuple[int, ...]] = {i: (i,) for i in range(n)}
    total = float(h * w)

    # similarity: colour-histogram intersection + small size + filling the joint box
    P, Q = pairs[:, 0], pairs[:, 1]                  # the first similarities at once
    joint = ((np.maximum(box[P, 2], box[Q, 2]) - np.minimum(box[P, 0], box[Q, 0]) + 1)
             * (np.maximum(box[P, 3], box[Q, 3]) - np.minimum(box[P, 1], box[Q, 1]) + 1))
    first = (np.minimum(hist[P], hist[Q]).sum(1) + 1 - (size[P] + size[Q]) / total
             + 1 - (joint - size[P] - size[Q]) / total)
    heap = [(-float(v), p, q) for v, p, q in zip(first.tolist(), P.tolist(), Q.tolist())]
    heapq.heapify(heap)
    alive = set(range(n))

    def entry(r: int, s: float) -> tuple[tuple[int, int, int, int], float, float, tuple[int, ...]]:
        b = box[r]
        area = (b[2] - b[0] + 1) * (b[3] - b[1] + 1)
        return (int(b[0]), int(b[1]), int(b[2]), int(b[3])), s, float(size[r] / area), members[r]

    cur = int(seg[cy, cx])
    out = [entry(cur, 3.0)]
    nxt = n
    while heap:
        s, p, q = heapq.heappop(heap)
        if p not in alive or q not in alive:
            continue
        r = nxt
        nxt += 1
        size[r] = size[p] + size[q]
        hist[r] = (hist[p] * size[p] + hist[q] * size[q]) / size[r]
        box[r] = (min(box[p, 0], box[q, 0]), min(box[p, 1], box[q, 1]), max(box[p, 2], box[q, 2]),
                  max(box[p, 3], box[q, 3]))
        members[r] = members[p] + members[q]
        alive -= {p, q}
        around = (neighbours.pop(p) | neighbours.pop(q)) - {p, q}
        for z in around:
            neighbours[z] -= {p, q}
            neighbours[z].add(r)
        if around:                        # the new region's similarities at once (as ``first``)
            Z = np.fromiter(around, np.int64, len(around))
            jz = ((np.maximum(box[Z, 2], box[r, 2]) - np.minimum(box[Z, 0], box[r, 0]) + 1)
                  * (np.maximum(box[Z, 3], box[r, 3]) - np.minimum(box[Z, 1], box[r, 1]) + 1))
            sz = (np.minimum(hist[Z], hist[r]).sum(1) + 1 - (size[Z] + size[r]) / total
                  + 1 - (jz - size[Z] - size[r]) / total)
            for v, z in zip(sz.tolist(), Z.tolist()):
                heapq.heappush(heap, (-v, z, r))
        neighbours[r] = around
        alive.add(r)
        if cur in (p, q):
            cur = r
            out.append(entry(r, -s))
    return seg, out


def click_proposals(frame: np.ndarray, x: float, y: float, *, windows: Sequence[float] = WINDOWS,
                    work_px: int = 96, scales: Sequence[float] = SCALES, min_size_px: int = 10) -> list[Proposal]:
    """Every region holding the click ``(x, y)`` in each window, for each superpixel ``scales``
    (one chain per window and scale, numbered window-major: ``Proposal.window``); see the module
    docstring. ``frame`` BGR uint8, the click inside it (checked by the caller)."""
    H, W = frame.shape[:2]
    short = min(H, W)
    out: list[Proposal] = []
    i = 0
    for frac in windows:
        side = frac * short
        img, origin, size, f = _window(frame, x, y, side, work_px)
        h, w = img.shape[:2]
        cx, cy = min(w - 1, int((x - origin[0]) * f)), min(h - 1, int((y - origin[1]) * f))
        for k in scales:
            labels, chain = _chain(img, cx, cy, k, min_size_px)
            win = Window(labels, origin, size, f, side)
            for step, (b, s, fill, mem) in enumerate(chain):
                nxt = chain[step + 1][1] if step + 1 < len(chain) else 0.0
                box = (origin[0] + b[0] / f, origin[1] + b[1] / f, (b[2] - b[0] + 1) / f, (b[3] - b[1] + 1) / f)
                out.append(Proposal(box, i, step, len(chain), s, nxt, fill, mem, win))
            i += 1
    return out
