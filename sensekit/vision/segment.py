"""What did the user pick? The object under a click, or inside a dragged box, as a box and a mask.

``segment_click(frame, x, y)`` grows a region from the click in an object/surround colour model:

1. the object model starts as a ``seed_px`` disc around the click, the surround model as the
   rest of a window around it (``window`` of the frame's short side); both are Lab histograms
   (8 lightness x 16 x 16 chroma bins) smoothed over neighbouring bins, more along lightness,
   so the shaded side of a ball belongs with its lit side;
2. every pixel of the window gets ``P(object | colour)`` (equal priors); the region is the
   connected part, containing the click, of ``P > t`` for the lowest ``t`` of 0.5..0.9 whose
   part neither touches the window's edge nor grows more than ``leak_growth`` times in area at
   once (a leak onto a background of similar colour), holes filled;
3. the object model is re-learnt from that region and the surround from a ring half the
   region's size around it, and 2-3 repeat until the box stops changing (at most 6 times).

4. the region is kept when it is **clean**: it grew beyond the seed, and its colour histogram
   overlaps its surround's by less than ``clean_overlap`` (0.2), as a plain ball's does
   (0.02-0.18 on the synthetic balls; 0.21 and up on the fragments and leaks of the real clips);
5. otherwise (a fragment of a textured object, or a leak into a background of similar colour)
   the object's extent is **measured** (``extent.measure_extent``): the nested regions that hold
   the click in windows of several sizes (selective-search merges of superpixels) are scored by
   colour separation from a surrounding ring, boundary edges, merge order, agreement between
   windows and, when the frames before the click are given (``history``, at least 6), how
   differently from its surround the region moved (``method="proposal"``). No object size is
   assumed anywhere: the fixed-size "prior box" of earlier versions is gone.

Held-out figures (weights fitted leaving each developer clip out, objects seen at 0.5, 1 and
2 times their size) are in ``docs/tracking.md``.

``segment_box(frame, box)`` runs GrabCut with the dragged rectangle (what is outside it is
background): the box stays what the user dragged, the mask is what GrabCut finds inside it
(the whole box if that is under 10 % of it), so a tracker learns the object's colours and
not the corners'.

On plain shaded balls pasted on frames of the developer videos (synthetic,
``tests/vision/test_segment.py``) the region alone gave 86-95 % within 20 %; real scenes are
harder, and synthetic figures are not evidence for them.
Cost: 10-60 ms per click at 640x480 on an idle core for a clean region, plus the measured
extent's when it is not (``benchmarks/track_eval.py`` prints both); meant for a pick, not per frame.
Failure modes: a ball whose dark side has the colour of what is behind it comes out smaller,
or, when the region grown from the click spreads into a patch of that colour in one step,
much larger (a green ball on green-grey); a region of the same colour touching the object is
cut off by the leak test or, if it is small, taken with it; on a multi-coloured object the click
gives the part of one colour (the logo of a can) or, through GrabCut, the object with what it holds.
Errors: a click outside the frame or a box not inside it raise ``ConfigError``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import cv2
import numpy as np

from sensekit.errors import ConfigError
from sensekit.validate import check_frame
from sensekit.vision.extent import ExtentExperiment, measure_pool
from sensekit.vision.proposals import Proposal

__all__ = ["Segment", "segment_click", "segment_click_pool", "segment_box", "check_box", "check_click", "part_at",
           "proposal_segment", "shifted"]

Box = tuple[int, int, int, int]

_THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9)
_N_BINS = 8 * 16 * 16
_OPEN = np.ones((3, 3), np.uint8)


@dataclass(frozen=True)
class Segment:
    """The picked object: ``box`` (x, y, w, h) and ``mask`` (HxW bool, frame-sized).

    ``method`` says what found it: ``"colour region"``, ``"proposal"`` (the measured extent),
    ``"grabcut"`` or ``"box"``."""
    box: Box
    mask: np.ndarray = field(repr=False)
    method: str = "colour region"

    def outline(self) -> list[np.ndarray]:
        """The mask's outer contours as ``(N, 2)`` int arrays of x, y (for drawing)."""
        contours, _ = cv2.findContours(self.mask.view(np.uint8), cv2.RETR_EXTERNAL,
                                       cv2.CHAIN_APPROX_SIMPLE)
        return [c.reshape(-1, 2) for c in contours]


def _lab_bins(img: np.ndarray) -> np.ndarray:
    lab = np.asarray(cv2.cvtColor(img, cv2.COLOR_BGR2Lab), dtype=np.uint8)
    idx = (lab[..., 0] >> 5).astype(np.int32)
    idx <<= 4
    idx |= lab[..., 1] >> 4
    idx <<= 4
    idx |= lab[..., 2] >> 4
    return idx


def _histogram(bins: np.ndarray) -> np.ndarray:
    from scipy import ndimage as ndi       # here, not at the top: SciPy costs every command's start-up

    h = np.bincount(bins.ravel(), minlength=_N_BINS).astype(np.float64)
    h = ndi.uniform_filter(h.reshape(8, 16, 16), size=(5, 3, 3), mode="constant").ravel()
    total = h.sum()
    out: np.ndarray = h / total if total > 0 else h
    return out


def part_at(mask: np.ndarray, x: int, y: int, reach_px: int = 3) -> np.ndarray | None:
    """The 8-connected part of ``mask`` containing ``(x, y)`` or the nearest within ``reach_px``
    (``None``: no part that near)."""
    _n, labels = cv2.connectedComponents(mask.view(np.uint8), connectivity=8)
    lab = labels[y, x]
    if lab == 0:
        y0, x0 = max(0, y - reach_px), max(0, x - reach_px)
        near = labels[y0:y + reach_px + 1, x0:x + reach_px + 1]
        ys, xs = np.nonzero(near)
        if len(ys) == 0:
            return None
        k = int(np.argmin((ys + y0 - y) ** 2 + (xs + x0 - x) ** 2))
        lab = near[ys[k], xs[k]]
    part: np.ndarray = labels == lab
    return part


def _bounds(mask: np.ndarray) -> Box:
    x, y, w, h = cv2.boundingRect(mask.view(np.uint8))
    return int(x), int(y), int(w), int(h)


def check_click(frame: np.ndarray, x: float, y: float) -> tuple[int, int]:
    """The click as whole pixels; ``ConfigError`` when it is outside the frame."""
    h, w = frame.shape[:2]
    if not (0 <= x < w and 0 <= y < h):
        raise ConfigError(f"click ({x:g}, {y:g}) is outside the {w}x{h} frame")
    return int(x), int(y)


def segment_click(frame: np.ndarray, x: float, y: float, *, history: Sequence[np.ndarray] = (),
                  seed_px: int = 3, window: float = 0.6, leak_growth: float = 4.0, iterations: int = 6,
                  clean_overlap: float = 0.2, experiment: ExtentExperiment | None = None) -> Segment:
    """The object under a click at pixel ``(x, y)``. ``history``: the frames before ``frame``
    (oldest first, same size; used when 6 or more); ``experiment``: the measured extent's
    (``extent.ExtentExperiment``; None: as shipped). See the module docstring."""
    return segment_click_pool(frame, x, y, history=history, seed_px=seed_px, window=window,
                              leak_growth=leak_growth, iterations=iterations, clean_overlap=clean_overlap,
                              experiment=experiment)[0]


Pool = tuple[list[Proposal], np.ndarray]


def segment_click_pool(frame: np.ndarray, x: float, y: float, *, history: Sequence[np.ndarray] = (),
                       seed_px: int = 3, window: float = 0.6, leak_growth: float = 4.0, iterations: int = 6,
                       clean_overlap: float = 0.2, experiment: ExtentExperiment | None = None
                       ) -> tuple[Segment, Pool | None]:
    """``segment_click``'s box and, when it measured the extent, the proposals and their
    consensus values (``extent.measure_pool``) for the click's other guesses (``click_pool``);
    ``None`` for a clean colour region (its pool is measured when first asked for)."""
    check_frame(frame)
    xi, yi = check_click(frame, x, y)
    H, W = frame.shape[:2]
    half = max(8, int(window * min(H, W) / 2))
    X0, Y0, X1, Y1 = max(0, xi - half), max(0, yi - half), min(W, xi + half + 1), min(H, yi + half + 1)
    bins = _lab_bins(np.ascontiguousarray(frame[Y0:Y1, X0:X1]))
    h, w = bins.shape
    cx, cy = xi - X0, yi - Y0
    yy, xx = np.ogrid[:h, :w]
    region = (xx - cx) ** 2 + (yy - cy) ** 2 <= seed_px * seed_px
    surround = ~region
    box = _bounds(region)
    seed_area = box[2] * box[3]
    for it in range(iterations):
        ho, hs = _histogram(bins[region]), _histogram(bins[surround])
        prob = (ho / np.maximum(ho + hs, 1e-12))[bins]
        found = None
        for t in _THRESHOLDS:
            part = part_at(cv2.morphologyEx((prob > t).view(np.uint8), cv2.MORPH_OPEN, _OPEN) > 0, cx, cy)
            if part is None:
                break
            b = _bounds(part)
            at_edge = ((b[0] == 0 and X0 > 0) or (b[1] == 0 and Y0 > 0)
                       or (b[0] + b[2] == w and X1 < W) or (b[1] + b[3] == h and Y1 < H))
            if at_edge or (it > 0 and b[2] * b[3] > leak_growth * box[2] * box[3]):
                continue
            found = part, b
            break
        if found is None:
            break
        part, b = found
        from scipy import ndimage as ndi

        region = ndi.binary_fill_holes(part)
        done = b == box
        box = b
        m = max(6, max(b[2], b[3]) // 2)
        surround = np.zeros_like(region)
        surround[max(0, b[1] - m):b[1] + b[3] + m, max(0, b[0] - m):b[0] + b[2] + m] = True
        surround[b[1]:b[1] + b[3], b[0]:b[0] + b[2]] = False
        if done:
            break
    grew = box[2] * box[3] > 2 * seed_area
    if grew:
        overlap = float(np.minimum(_histogram(bins[region]), _histogram(bins[surround])).sum())
        if overlap < clean_overlap:
            mask = np.zeros((H, W), bool)
            mask[Y0:Y1, X0:X1] = region
            return Segment((box[0] + X0, box[1] + Y0, box[2], box[3]), mask, "colour region"), None
    props, values = measure_pool(frame, x, y, history, experiment=experiment)
    return proposal_segment(props[int(np.argmax(values))], (H, W)), (props, values)


def proposal_segment(best: Proposal, shape: tuple[int, int]) -> Segment:
    """A measured extent's proposal as a ``Segment`` of a frame of ``shape`` (its box when the
    mask is empty)."""
    mask = best.mask(shape)
    if not mask.any():
        bx, by, bw, bh = (int(round(v)) for v in best.box)
        mask[by:by + bh, bx:bx + bw] = True
    return Segment(_bounds(mask), mask, "proposal")


def shifted(segment: Segment, dx: int, dy: int) -> Segment:
    """``segment`` moved by ``(dx, dy)`` px in a frame of the same size (what leaves it is cut)."""
    if dx == 0 and dy == 0:
        return segment
    H, W = segment.mask.shape
    dx, dy = max(-W, min(W, dx)), max(-H, min(H, dy))
    mask = np.zeros_like(segment.mask)
    mask[max(0, dy):H + min(0, dy), max(0, dx):W + min(0, dx)] = \
        segment.mask[max(0, -dy):H - max(0, dy), max(0, -dx):W - max(0, dx)]
    x, y, w, h = segment.box
    box = (max(0, x + dx), max(0, y + dy), w, h) if not mask.any() else _bounds(mask)
    return Segment(box, mask, segment.method)


def _grabcut(frame: np.ndarray, rect: Box, margin_px: int, iterations: int = 4
             ) -> tuple[np.ndarray, tuple[int, int]]:
    """GrabCut initialised with ``rect``, run on a crop ``margin_px`` larger; returns the
    crop's foreground mask and the crop's origin."""
    H, W = frame.shape[:2]
    x, y, w, h = rect
    X0, Y0 = max(0, x - margin_px), max(0, y - margin_px)
    X1, Y1 = min(W, x + w + margin_px), min(H, y + h + margin_px)
    crop = np.ascontiguousarray(frame[Y0:Y1, X0:X1])
    labels = np.zeros(crop.shape[:2], np.uint8)
    rx, ry = x - X0, y - Y0
    r = (rx, ry, max(1, min(w, crop.shape[1] - rx - 1)), max(1, min(h, crop.shape[0] - ry - 1)))
    bgd, fgd = np.zeros((1, 65)), np.zeros((1, 65))
    cv2.setRNGSeed(0)                     # GrabCut's GMM initialisation: same pick every run
    cv2.grabCut(crop, labels, r, bgd, fgd, iterations, cv2.GC_INIT_WITH_RECT)
    return (labels == cv2.GC_FGD) | (labels == cv2.GC_PR_FGD), (X0, Y0)


def check_box(frame: np.ndarray, box: Sequence[float]) -> tuple[float, float, float, float]:
    """``box`` as four floats, at least 2x2 and inside ``frame``; else ``ConfigError``."""
    check_frame(frame)
    H, W = frame.shape[:2]
    try:
        x, y, w, h = (float(v) for v in box)
    except (TypeError, ValueError):
        raise ConfigError(f"box must be (x, y, w, h), got {box!r}") from None
    if w < 2 or h < 2 or x < 0 or y < 0 or x + w > W + 1e-6 or y + h > H + 1e-6:
        raise ConfigError(f"box {tuple(box)} must be at least 2x2 and inside the {W}x{H} frame")
    return x, y, w, h


def segment_box(frame: np.ndarray, box: Sequence[float]) -> Segment:
    """The object inside a dragged box ``(x, y, w, h)`` (GrabCut; the box if it finds little)."""
    x, y, w, h = check_box(frame, box)
    H, W = frame.shape[:2]
    rect = (int(round(x)), int(round(y)), int(round(w)), int(round(h)))
    rect = (rect[0], rect[1], min(rect[2], W - rect[0]), min(rect[3], H - rect[1]))
    whole = np.zeros((H, W), bool)
    whole[rect[1]:rect[1] + rect[3], rect[0]:rect[0] + rect[2]] = True
    if min(rect[2], rect[3]) < 8:
        return Segment(rect, whole, "box")
    fg, (X0, Y0) = _grabcut(frame, rect, max(8, max(rect[2], rect[3]) // 2))
    mask = np.zeros((H, W), bool)
    mask[Y0:Y0 + fg.shape[0], X0:X0 + fg.shape[1]] = fg
    mask &= whole
    if mask.sum() < 0.1 * rect[2] * rect[3]:
        return Segment(rect, whole, "box")
    return Segment(rect, mask, "grabcut")
