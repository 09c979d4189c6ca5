"""More proposals around a click, for small objects: GrabCut seeded by the click at several sizes.

``cut_proposals(frame, x, y)`` takes, for each side in ``SIDES`` (0.06, 0.12, 0.24 and 0.48 of
the frame's short side), a square rectangle of that side centred on the click and a window twice
as large around it, shrunk or enlarged to ``work_px`` (48) on its long side. GrabCut
(``cv2.grabCut``, ``iterations`` 2) separates the window's colours into object and background:
outside the rectangle is sure background, a disc of 1/8 of the rectangle's side at the click
sure object, the rest of the rectangle undecided. The connected object region holding the
click is a ``proposals.Proposal`` (its own ``Window``, one step, ``kind`` "cut"), scored by the
same cues as the superpixel regions (``extent.py``). A superpixel chain splits a small
multi-coloured object (the can's logo, its silver side, the lid) before it merges it with its
surround; a cut of about the object's size takes the parts that differ from the rectangle's
outside together.

GrabCut's colour models start from k-means seeded by OpenCV's global RNG, so each cut first
sets it (``cv2.setRNGSeed(0)``): the same click gives the same cut whatever ran before.

Cost: about 2 ms of CPU per side at 48 px (4 sides per click). Failure modes: a rectangle
smaller than the object cuts it at the rectangle's border; an object whose colours are the
surround's has no cut of its own; the region is what GrabCut's colour models separate, not
what moves.
"""
from __future__ import annotations

from typing import Sequence

import cv2
import numpy as np

from sensekit.vision.proposals import Proposal, Window

__all__ = ["cut_proposals", "SIDES"]

#: rectangle sides, as fractions of the frame's short side (the window is twice as large)
SIDES = (0.06, 0.12, 0.24, 0.48)


def _cut(img: np.ndarray, cx: int, cy: int, iterations: int) -> np.ndarray:
    """GrabCut of ``img`` (the window) with its central half as the rectangle and a disc at
    ``(cx, cy)`` as sure object; the connected object region holding the click (uint8 0/1)."""
    h, w = img.shape[:2]
    mask = np.full((h, w), cv2.GC_BGD, np.uint8)
    mask[h // 4:h - h // 4, w // 4:w - w // 4] = cv2.GC_PR_FGD
    cv2.circle(mask, (cx, cy), max(1, min(h, w) // 16), cv2.GC_FGD, -1)
    bgd, fgd = np.zeros((1, 65)), np.zeros((1, 65))
    cv2.setRNGSeed(0)                 # GrabCut's colour models start from k-means on OpenCV's RNG
    cv2.grabCut(img, mask, (0, 0, 0, 0), bgd, fgd, iterations, cv2.GC_INIT_WITH_MASK)
    fg = ((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD)).astype(np.uint8)
    _, labels = cv2.connectedComponents(fg, connectivity=8)
    out: np.ndarray = (labels == labels[cy, cx]).astype(np.uint8) & fg
    return out


def cut_proposals(frame: np.ndarray, x: float, y: float, *, sides: Sequence[float] = SIDES, work_px: int = 48,
                  iterations: int = 2, first_window: int = 0) -> list[Proposal]:
    """One GrabCut region per side (see the module docstring); ``Proposal.window`` numbered
    from ``first_window`` (after the superpixel windows). ``frame`` BGR uint8, the click inside it."""
    H, W = frame.shape[:2]
    short = min(H, W)
    out: list[Proposal] = []
    for j, frac in enumerate(sides):
        side = 2 * frac * short
        x0, y0 = int(max(0.0, x - side / 2)), int(max(0.0, y - side / 2))
        x1, y1 = int(min(float(W), x + side / 2)), int(min(float(H), y + side / 2))
        x1, y1 = max(x1, x0 + 4), max(y1, y0 + 4)
        crop = np.ascontiguousarray(frame[y0:y1, x0:x1])
        f = work_px / max(crop.shape[:2])
        size = (max(4, int(round(crop.shape[1] * f))), max(4, int(round(crop.shape[0] * f))))
        img = cv2.resize(crop, size, interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR)
        cx, cy = min(size[0] - 1, int((x - x0) * f)), min(size[1] - 1, int((y - y0) * f))
        region = _cut(img, cx, cy, iterations)
        ys, xs = np.nonzero(region)
        if not len(xs):
            continue
        bx0, by0, bx1, by1 = int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())
        fill = float(len(xs) / ((bx1 - bx0 + 1) * (by1 - by0 + 1)))
        box = (x0 + bx0 / f, y0 + by0 / f, (bx1 - bx0 + 1) / f, (by1 - by0 + 1) / f)
        win = Window(region.astype(np.int64), (x0, y0), (x1 - x0, y1 - y0), f, side)
        out.append(Proposal(box, first_window + j, 0, 1, 0.0, 0.0, fill, (1,), win, kind="cut"))
    return out
