"""Blobs: the connected regions of a 0/255 motion mask, as boxes, centroids, areas and contours.

``find_blobs(mask, min_area_px=150, join_px=0)`` labels the 8-connected regions of the mask
(``cv2.connectedComponentsWithStats``), keeps those of at least ``min_area_px`` pixels and
returns them as ``Region`` values, largest first. ``join_px`` closes the mask with a
``join_px`` x ``join_px`` ellipse first, so a person whose legs and body come out as separate
pieces is one region (the region's area is still counted on the original mask). A region's
``contour`` (its outer outline, ``cv2.findContours``) is computed only when asked for.
``split_aspect`` > 0 (off by default here; the tracker's ``blobs.split_aspect`` is 0.65) cuts a
wide region with two heads on its top outline into side-by-side people
(``sensekit.vision.blob_split``); the parts keep the region's ``label``.

Cost: one labelling pass over the box around the foreground (not the whole frame), plus a
closing when ``join_px`` > 1; ~0.4 ms of CPU at 640x480 on CDnet highway (docs/blobs.md, Cost).
Failure modes: two people touching in the mask are one region unless the split finds their
heads (the tracker in ``sensekit.vision.blob_tracker`` keeps their ids through the merge); a
person split by a thin occluder (a lamp post) are two regions unless ``join_px`` bridges the gap.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import cv2
import numpy as np

from sensekit.errors import ConfigError
from sensekit.events import Box
from sensekit.vision.blob_split import SPLIT_DIP, region_cuts, wide_enough

__all__ = ["Region", "find_blobs", "split_region", "box_iou"]


@dataclass(slots=True)
class Region:
    """One connected region of a mask. ``labels``/``label`` point into the labelling it came
    from (valid until the next ``find_blobs`` with the same buffers)."""
    box: Box                       # x, y, w, h in pixels
    cx: float                      # centroid of the region's mask pixels
    cy: float
    area_px: int                   # mask pixels inside the region
    labels: np.ndarray = field(repr=False, default_factory=lambda: np.zeros((0, 0), np.int32))
    label: int = 0

    @property
    def contour(self) -> np.ndarray:
        """The region's outer outline, an (N, 1, 2) int32 array of x, y points (``findContours``)."""
        x, y, w, h = self.box
        if self.labels.size == 0:
            return np.zeros((0, 1, 2), np.int32)
        sub = (self.labels[y:y + h, x:x + w] == self.label).astype(np.uint8)
        contours, _ = cv2.findContours(sub, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE, offset=(x, y))
        if not contours:
            return np.zeros((0, 1, 2), np.int32)
        outline: np.ndarray = max(contours, key=cv2.contourArea).astype(np.int32)
        return outline


_KERNELS: dict[int, np.ndarray] = {}


def _kernel(size: int) -> np.ndarray:
    k = _KERNELS.get(size)
    if k is None:
        k = _KERNELS[size] = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    return k


#: the largest ``join_px`` closed with OpenCV's ellipse kernel; above it the closing goes by two
#: distance transforms, whose cost does not grow with the size (harden29: ``join_px`` 255, one
#: OSC packet or panel setting, cost 262 ms a frame at 640x480 and 743 ms at 1280x720, against
#: 1.2 and 3.4 ms off: the ellipse's cost grows with its area; the transforms cost 11-13 ms and
#: 32-36 ms there, about the ellipse's at this size)
EXACT_JOIN_PX = 45


def close_mask(mask: np.ndarray, size: int) -> np.ndarray:
    """``mask`` closed (dilated, then eroded) by a disk ``size`` pixels across: OpenCV's
    ``size`` x ``size`` ellipse up to ``EXACT_JOIN_PX``; above it, by Euclidean distance (the disk
    of radius ``(size - 1) / 2 + 0.3``, which differs from the ellipse in 0.2-1.2 % of its
    offsets, 36 of 3,081 at 63), at a cost that does not grow with ``size``. The frame's border
    erodes nothing, as OpenCV's closing."""
    if size <= EXACT_JOIN_PX:
        return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, _kernel(size))
    r = (size - 1) / 2 + 0.3
    to_fg = cv2.distanceTransform(np.where(mask > 0, 0, 255).astype(np.uint8), cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
    dilated = np.where(to_fg <= r, 255, 0).astype(np.uint8)
    to_bg = cv2.distanceTransform(dilated, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
    return np.where(to_bg > r, 255, 0).astype(np.uint8)


def find_blobs(mask: np.ndarray, *, min_area_px: int = 150, join_px: int = 0,
               split_aspect: float = 0.0, split_dip: float = SPLIT_DIP) -> list[Region]:
    """The regions of ``mask`` (HxW uint8, non-zero = foreground) of at least ``min_area_px``
    pixels, largest first. ``join_px`` > 1 closes the mask first; ``split_aspect`` > 0 splits
    side-by-side people (``sensekit.vision.blob_split``; see the module docstring)."""
    if not isinstance(mask, np.ndarray) or mask.dtype != np.uint8 or mask.ndim != 2:
        raise ConfigError(f"blob mask must be an HxW uint8 array, got "
                          f"{getattr(mask, 'dtype', type(mask).__name__)} with shape {getattr(mask, 'shape', None)}")
    if min_area_px < 1:
        raise ConfigError(f"`min_area_px` must be >= 1, got {min_area_px!r}")
    if split_aspect < 0 or not 0 <= split_dip <= 1:
        raise ConfigError(f"`split_aspect` must be >= 0 and `split_dip` 0..1, got {split_aspect!r}, {split_dip!r}")
    joined = close_mask(mask, join_px) if join_px > 1 else mask
    labelled = _label(joined, mask)
    if labelled is None:
        return []
    n, labels, lab, xs, ys = labelled
    area = np.bincount(lab, minlength=n)                     # pixels of each label in the mask
    present = np.flatnonzero(area[1:] >= min_area_px) + 1
    if present.size == 0:
        return []
    out = []
    for i in present.tolist():
        # the few kept labels' pixels, one comparison each: cheaper than sorting all of them
        sel = lab == i
        rx, ry = xs[sel], ys[sel]
        region = _region(rx, ry, labels, i)
        x, _, w, h = region.box
        if split_aspect <= 0 or not wide_enough(w, h, split_aspect) or rx.size < 2 * min_area_px:
            out.append(region)
            continue
        cuts = _cuts(labels, i, region.box, None if joined is mask else mask, split_aspect, split_dip, min_area_px)
        out += _parts(rx, ry, [x + c for c in cuts], labels, i) if cuts else [region]
    out.sort(key=lambda r: (-r.area_px, r.label))
    return out


def _label(joined: np.ndarray, mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """The labels of ``joined`` (8-connected; HxW int32) and, for each foreground pixel of
    ``mask`` in row order, its label, x and y; None when there is none."""
    # only the box around the foreground is labelled and scanned (a quarter of the frame on
    # CDnet highway), its corner on even pixels so OpenCV's 2x2 blocks, and with them the
    # numbering of the labels, are those of the whole frame
    bx, by, bw, bh = cv2.boundingRect(joined)
    if bw == 0:
        return None
    x0, y0 = bx - (bx & 1), by - (by & 1)
    x1, y1 = bx + bw, by + bh
    # labels only (OpenCV's WithStats variant costs ~1 ms at 640x480); the statistics come
    # from the foreground pixels, usually a few percent of the frame
    n, sub = cv2.connectedComponents(joined[y0:y1, x0:x1], connectivity=8, ltype=cv2.CV_32S)
    points = cv2.findNonZero(mask[y0:y1, x0:x1])  # x, y in row order; 4x faster than NumPy's
    if n <= 1 or points is None:
        return None
    labels = np.zeros(mask.shape, np.int32)
    labels[y0:y1, x0:x1] = sub
    points = points.reshape(-1, 2)
    lab = np.take(sub.ravel(), points[:, 1] * sub.shape[1] + points[:, 0])   # 2x faster than sub[ys, xs]
    return n, labels, lab, points[:, 0] + x0, points[:, 1] + y0


def _cuts(labels: np.ndarray, label: int, box: Box, mask: np.ndarray | None, aspect: float, dip: float,
          min_area_px: int) -> list[int]:
    """``blob_split.region_cuts`` of the region ``label`` (pixels also in ``mask`` when given):
    only the rows it asks for are made (most cars are ruled out on their top rows)."""
    x, y, w, h = box
    return region_cuts(lambda n: _inside(labels, label, (x, y, w, n), mask), h, w,
                       aspect=aspect, dip=dip, min_area_px=min_area_px)


def _inside(labels: np.ndarray, label: int, box: Box, mask: np.ndarray | None) -> np.ndarray:
    """The pixels of ``label`` (and of ``mask`` when given) in ``box``, boolean."""
    x, y, w, h = box
    inside: np.ndarray = labels[y:y + h, x:x + w] == label
    if mask is not None:
        inside &= mask[y:y + h, x:x + w] > 0
    return inside


def split_region(mask: np.ndarray, region: Region, *, aspect: float, dip: float, min_area_px: int) -> list[Region]:
    """``region`` (from ``find_blobs(mask, ...)``) split into side-by-side people with the
    given thresholds (``sensekit.vision.blob_split.person_cuts``), or ``[region]``."""
    x, y, _, _ = region.box
    cuts = _cuts(region.labels, region.label, region.box, mask, aspect, dip, min_area_px)
    if not cuts:
        return [region]
    # row order, as findNonZero gives them
    rows, cols = np.nonzero(_inside(region.labels, region.label, region.box, mask))
    rx, ry = cols.astype(np.int32) + x, rows.astype(np.int32) + y
    return _parts(rx, ry, [x + c for c in cuts], region.labels, region.label)


def _parts(rx: np.ndarray, ry: np.ndarray, cuts: list[int], labels: np.ndarray, label: int) -> list[Region]:
    """The regions of the pixels between consecutive ``cuts`` (columns)."""
    part = np.searchsorted(np.asarray(cuts), rx, side="right")
    return [_region(rx[part == p], ry[part == p], labels, label) for p in range(len(cuts) + 1)]


def _region(rx: np.ndarray, ry: np.ndarray, labels: np.ndarray, label: int) -> Region:
    """The region of the pixels ``rx``, ``ry`` (in row order) of ``label``."""
    x0, y0 = int(rx.min()), int(ry[0])          # sorted by position within a label: rows ascend
    w, h = int(rx.max()) - x0 + 1, int(ry[-1]) - y0 + 1
    n = int(rx.size)           # exact integer sums: the same floats as ``mean``, without its overhead
    return Region((x0, y0, w, h), int(rx.sum()) / n, int(ry.sum()) / n, n, labels, label)


def box_iou(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Intersection over union of two ``(x, y, w, h)`` boxes (0 when either is empty)."""
    ax, ay, aw, ah = (float(v) for v in a)
    bx, by, bw, bh = (float(v) for v in b)
    iw = min(ax + aw, bx + bw) - max(ax, bx)
    ih = min(ay + ah, by + bh) - max(ay, by)
    if iw <= 0 or ih <= 0:
        return 0.0
    inter = iw * ih
    return inter / (aw * ah + bw * bh - inter)
