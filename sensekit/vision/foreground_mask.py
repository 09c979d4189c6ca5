"""From a raw foreground to the mask reported: shadows taken out, specks removed, holes filled.

- ``clean_mask(mask)``: 5x5 median, 7x7 close, 3x3 open of a 0/255 mask; the median is taken
  as a 5x5 box mean (a quarter of ``cv2.medianBlur``'s cost, the same result). A row of the
  output depends on ``CLEAN_REACH`` rows of the input on each side, so a band of rows widened
  by that much is cleaned exactly as in the whole frame.
- ``drop_shadows(frame, background, raw)``: a foreground pixel 45-95 % as bright as the
  background, with its hue and saturation (the three channel ratios within 10 % of their mean),
  is background. It also removes the dark parts of cars, so the background model has it off by
  default.

Cost: ``clean_mask`` is five OpenCV passes; ``drop_shadows`` works on the foreground pixels
alone (float ratios). Failure modes: a thin object (under 3 px) is opened away; a dark object
of the background's chromaticity is taken for a shadow.
"""
# cv2's stubs reject a scalar second operand (cv2.compare(img, 127, ...)), which OpenCV accepts:
# mypy: disable-error-code="call-overload"
from __future__ import annotations

import cv2
import numpy as np

__all__ = ["clean_mask", "drop_shadows", "CLEAN_REACH"]

_K3 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
_K7 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))

#: rows of ``clean_mask``'s input that reach one output row, each side (median 2, close 3 + 3, open 1 + 1)
CLEAN_REACH = 2 + 3 + 3 + 1 + 1


def clean_mask(mask: np.ndarray) -> np.ndarray:
    """5x5 median, 7x7 close, 3x3 open of a 0/255 mask (specks out, holes in objects filled).

    The median of a 0/255 mask is 255 where 13 or more of the 25 pixels are: a 5x5 mean
    (rounded to 133 or more, against 122 or less for 12) with the median's replicated border;
    the same result as ``cv2.medianBlur(mask, 5)`` at a quarter of its cost.
    """
    out = cv2.blur(mask, (5, 5), borderType=cv2.BORDER_REPLICATE)
    cv2.compare(out, 127, cv2.CMP_GT, dst=out)
    out = cv2.morphologyEx(out, cv2.MORPH_CLOSE, _K7)
    return cv2.morphologyEx(out, cv2.MORPH_OPEN, _K3)


def drop_shadows(frame: np.ndarray, background: np.ndarray, raw: np.ndarray) -> None:
    """Clear, in the 0/255 ``raw`` mask (in place), the pixels of ``frame`` that are a shadow
    on ``background`` (both HxWx3 uint8): 45-95 % as bright, with the same chromaticity."""
    fg = raw > 0
    if not fg.any():
        return
    xs = frame[fg].astype(np.float32) + 1.0
    bs = background[fg].astype(np.float32) + 1.0
    ratio = xs / bs
    mean = ratio.mean(axis=1)
    spread = ratio.max(axis=1) - ratio.min(axis=1)
    shadow = (mean > 0.45) & (mean < 0.95) & (spread < 0.1 * mean + 0.02)
    idx = np.flatnonzero(fg)[shadow]
    raw.reshape(-1)[idx] = 0
