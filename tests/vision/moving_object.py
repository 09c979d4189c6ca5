"""The synthetic scene of the motion-cue tests (``test_motion_edge.py``, ``test_motion_proposals.py``):
a two-coloured object (``OBJ`` in the last frame) moving ``STEP`` px a frame to the right over a
textured still background made of blocks of its own colours and grey (colour alone cannot tell the
object out). Seeded: the same call gives the same frames."""
from __future__ import annotations

import cv2
import numpy as np

from sensekit.vision.extent import HISTORY_FRAMES

OBJ = (130, 70, 60, 90)          # x, y, w, h in the last frame
STEP = 3                         # px per frame, to the right


def background(rng: np.random.Generator) -> np.ndarray:
    """240x320 blocks of 10 px in the object's two colours, grey and green, a little noise, blurred."""
    palette = np.array([(40, 40, 220), (200, 60, 20), (120, 120, 120), (60, 160, 60)], np.uint8)
    blocks = palette[rng.integers(0, len(palette), (240 // 10, 320 // 10))]
    big = np.repeat(np.repeat(blocks, 10, 0), 10, 1) + rng.integers(0, 20, (240, 320, 3)).astype(np.uint8)
    return np.asarray(cv2.GaussianBlur(big, (0, 0), 1.0), np.uint8)


def moving_object_frames(moving: bool, *, object_noise: int) -> list[np.ndarray]:
    """The history (6 frames) and the frame clicked, the object ``STEP`` px further each frame
    (``moving`` False: still); its two halves carry uniform noise up to ``object_noise`` levels."""
    rng = np.random.default_rng(7)
    bg = background(rng)
    top = np.full((45, 60, 3), (40, 40, 220), np.uint8) + rng.integers(0, object_noise, (45, 60, 3)).astype(np.uint8)
    bottom = np.full((45, 60, 3), (200, 60, 20), np.uint8) + rng.integers(0, object_noise, (45, 60, 3)).astype(np.uint8)
    obj = np.vstack([top, bottom])
    n = max(HISTORY_FRAMES) + 1
    out = []
    for k in range(n):
        dx = (k - (n - 1)) * STEP if moving else 0
        f = bg.copy()
        x, y, w, h = OBJ
        f[y:y + h, x + dx:x + dx + w] = obj
        out.append(f)
    return out
