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

Cost: about 8-9 ms of CPU per window at 96 px (5-6 of it the superpixels), 4 windows per click.
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

__all__ = ["Proposal", "Window", "click_proposals", "work_mask", "WINDOWS", "SCALES"]

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
        """The region as a bool mask of a frame of ``shape`` (H, W) (``work_mask``: its bounds
        are the proposal's ``box``, the box the cues scored, to within a pixel)."""
        w = self.win
        small = np.isin(w.labels, np.asarray(self.members))
        big = work_mask(small, w.size)
        out = np.zeros(shape, bool)
        x0, y0 = w.origin
        out[y0:y0 + big.shape[0], x0:x0 + big.shape[1]] = big
        return out


def work_mask(small: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """A window's bool mask in work pixels ``small`` as a mask of the window's ``size`` (w, h)
    in frame pixels: a frame pixel belongs when any work pixel over it does. A window enlarged
    to its work size has several work pixels per frame pixel; picking one of them (nearest
    neighbour) drops superpixels thinner than a frame pixel, so the mask (what is shipped and
    tracked) came out narrower than the region's box (what was scored)."""
    s = np.ascontiguousarray(small, dtype=np.uint8)
    if s.shape[1] > size[0] or s.shape[0] > size[1]:
        area = cv2.resize(s.astype(np.float32), size, interpolation=cv2.INTER_AREA)
        out: np.ndarray = area > 1e-6
        return out
    near: np.ndarray = cv2.resize(s, size, interpolation=cv2.INTER_NEAREST) > 0
    return near


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


def _regions(img: np.ndarray, k: float, min_size: int
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Felzenszwalb's superpixels of ``img`` and, per superpixel, its Lab histogram, size and
    box (x0, y0, x1, y1 inclusive; room for the merges: ``2 n`` rows), and the distinct
    neighbouring pairs (low, high), sorted."""
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
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    code = np.unique(np.minimum(pairs[:, 0], pairs[:, 1]) * n + np.maximum(pairs[:, 0], pairs[:, 1]))
    return seg, hist, size, box, np.stack(np.divmod(code, n), 1)


def _members(parent: dict[int, tuple[int, int]], r: int, n: int) -> tuple[int, ...]:
    """The superpixels (labels below ``n``) of region ``r``, in the order of the merges that
    made it (``parent``: each merged region's two parts)."""
    found, todo = [], [r]
    while todo:
        t = todo.pop()
        if t < n:
            found.append(t)
        else:
            todo.extend(reversed(parent[t]))
    return tuple(found)


def _chain(img: np.ndarray, cx: int, cy: int, k: float, min_size: int
           ) -> tuple[np.ndarray, list[tuple[tuple[int, int, int, int], float, float, tuple[int, ...]]]]:
    """Superpixels of ``img`` and the merge chain of the one at ``(cx, cy)``: per step the box
    (x0, y0, x1, y1 inclusive, work px), the merge similarity, the fill and the members."""
    seg, hist, size, box, pairs = _regions(img, k, min_size)
    h, w = seg.shape
    n = len(hist) // 2
    neighbours: dict[int, set[int]] = {i: set() for i in range(n)}
    for p, q_ in pairs.tolist():
        neighbours[p].add(q_)
        neighbours[q_].add(p)
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
    # the merge loop on Python floats (the sizes and boxes are whole numbers, and each
    # similarity is the same sequence of IEEE operations as ``first``): numpy only for the
    # histograms, whose sums must stay numpy's
    sz_: list[float] = size.tolist()
    bx: list[list[float]] = box.tolist()
    parent: dict[int, tuple[int, int]] = {}

    def entry(r: int, s: float) -> tuple[tuple[int, int, int, int], float, float, tuple[int, ...]]:
        b = bx[r]
        area = (b[2] - b[0] + 1) * (b[3] - b[1] + 1)
        return (int(b[0]), int(b[1]), int(b[2]), int(b[3])), s, float(sz_[r] / area), _members(parent, r, n)

    cur = int(seg[cy, cx])
    out = [entry(cur, 3.0)]
    nxt = n
    while heap:
        s, p, q = heapq.heappop(heap)
        if p not in alive or q not in alive:
            continue
        r = nxt
        nxt += 1
        sp, sq = sz_[p], sz_[q]
        sr = sz_[r] = sp + sq
        hist[r] = (hist[p] * sp + hist[q] * sq) / sr
        bp, bq = bx[p], bx[q]
        br = bx[r] = [min(bp[0], bq[0]), min(bp[1], bq[1]), max(bp[2], bq[2]), max(bp[3], bq[3])]
        parent[r] = (p, q)
        alive.discard(p)
        alive.discard(q)
        around = (neighbours.pop(p) | neighbours.pop(q)) - {p, q}
        for z in around:
            nz = neighbours[z]
            nz.discard(p)
            nz.discard(q)
            nz.add(r)
        if around:                        # the new region's similarities (as ``first``)
            Z = list(around)
            inter = np.minimum(hist[Z], hist[r]).sum(1).tolist()
            for z, v in zip(Z, inter):
                b = bx[z]
                jz = ((max(b[2], br[2]) - min(b[0], br[0]) + 1) * (max(b[3], br[3]) - min(b[1], br[1]) + 1))
                v = v + 1 - (sz_[z] + sr) / total + 1 - (jz - sz_[z] - sr) / total
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
