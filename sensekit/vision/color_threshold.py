"""The threshold colour trackers' masks: exact colour (the book) and HSV tolerance.

    exact_mask(img, 0xRRGGBB, lut)                 -> HxW uint8 mask (255 = match)
    hsv_mask(img, target_hsv, tolerance, grey_below_s=40)
    largest_blob(mask, min_area_px)                -> MaskMatch (found, box, union box, cx, cy, area, conf)

``exact_mask`` keeps the pixels exactly equal to the colour as it looks after the palette
``lut`` (the book's ``getColorBoundsRect`` after blur and levels). ``hsv_mask`` keeps pixels
within ``(hue degrees, S, V)`` of ``target_hsv`` (hue in degrees 0..360); hue wraps around red
(175 and 5 are 10 apart), and a target less saturated than ``grey_below_s`` (or a hue
tolerance of 90 degrees or more) ignores hue. ``largest_blob`` takes the
largest 8-connected blob as the object and the union of all matches as the union box.
``ColorTracker`` uses these for its "exact" and "hsv" methods.

Cost: one or two OpenCV calls each (~0.3 ms exact, ~1 ms hsv at 320x240), no per-pixel
Python. No failure modes at run time (inputs are checked by the tracker).
"""
from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

from sensekit.vision.color_model import MaskMatch
from sensekit.vision.stages import box_from_rect, packed_rgb_to_bgr

__all__ = ["target_hsv", "exact_mask", "hsv_mask", "largest_blob"]


def target_hsv(bgr: Sequence[int]) -> tuple[float, float, float]:
    """A BGR colour as ``(hue degrees 0..360, S, V)``."""
    hsv = cv2.cvtColor(np.array([[list(bgr)]], np.uint8), cv2.COLOR_BGR2HSV)[0, 0]
    return (float(hsv[0]) * 2.0, float(hsv[1]), float(hsv[2]))


def exact_mask(img: np.ndarray, color: int, lut: np.ndarray | None) -> np.ndarray:
    """Pixels of ``img`` exactly equal to ``color`` (``0xRRGGBB``) as it looks after ``lut``."""
    bgr = packed_rgb_to_bgr(color)
    if lut is not None:                    # the target as it looks after the palette
        bgr = (int(lut[bgr[0]]), int(lut[bgr[1]]), int(lut[bgr[2]]))
    return cv2.inRange(img, bgr, bgr)


def hsv_mask(img: np.ndarray, target: tuple[float, float, float],
             tolerance: tuple[float, float, float], *, grey_below_s: float) -> np.ndarray:
    """Pixels of ``img`` within ``tolerance`` (hue degrees, S, V) of ``target``."""
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    hd, sd, vd = target
    ht, st, vt = tolerance
    s_lo, s_hi = max(0, int(sd - st)), min(255, int(sd + st))
    v_lo, v_hi = max(0, int(vd - vt)), min(255, int(vd + vt))
    if sd < grey_below_s or ht >= 90:          # grey target, or any hue allowed
        return cv2.inRange(hsv, (0, s_lo, v_lo), (180, s_hi, v_hi))
    h = hd / 2.0
    tol = ht / 2.0                                   # OpenCV hue units are 2 degrees
    lo, hi = h - tol, h + tol
    if lo < 0 or hi > 179:                           # wraps around red
        a = cv2.inRange(hsv, (int(np.ceil(lo % 180)), s_lo, v_lo), (179, s_hi, v_hi))
        b = cv2.inRange(hsv, (0, s_lo, v_lo), (int(hi % 180), s_hi, v_hi))
        return cv2.bitwise_or(a, b, dst=a)
    return cv2.inRange(hsv, (int(np.ceil(lo)), s_lo, v_lo), (int(hi), s_hi, v_hi))


def largest_blob(mask: np.ndarray, min_area_px: int) -> MaskMatch:
    """The largest 8-connected blob of ``mask`` (found when at least ``min_area_px``), the
    union box of every match, the blob's centroid, area and its share of all matches."""
    union = box_from_rect(cv2.boundingRect(mask))
    if union == (0, 0, 0, 0):
        return False, union, union, 0.0, 0.0, 0, 0.0
    _n, _labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    areas = stats[1:, cv2.CC_STAT_AREA]
    k = int(np.argmax(areas)) + 1
    area = int(stats[k, cv2.CC_STAT_AREA])
    if area < min_area_px:
        return False, (0, 0, 0, 0), union, 0.0, 0.0, 0, 0.0
    box = box_from_rect(stats[k, :4])
    conf = area / float(areas.sum())
    return True, box, union, float(cents[k, 0]), float(cents[k, 1]), area, conf
