"""Deterministic test frames: a textured, noisy background with things on it."""
from __future__ import annotations

import numpy as np
import cv2


def background(w: int = 160, h: int = 120, seed: int = 0) -> np.ndarray:
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    bg = np.dstack([90 + 40 * np.sin(xx / 9.0) * np.cos(yy / 13.0),
                    110 + 30 * np.sin((xx + yy) / 17.0),
                    70 + 20 * np.cos(xx / 23.0 - yy / 11.0)])
    return np.clip(bg, 0, 255).astype(np.uint8)


def noisy(img: np.ndarray, rng: np.random.Generator, sigma: float = 3.0) -> np.ndarray:
    f = img.astype(np.float32) + rng.normal(0.0, sigma, img.shape).astype(np.float32)
    return np.clip(f + 0.5, 0, 255).astype(np.uint8)


def ball_frames(n: int = 40, *, w: int = 160, h: int = 120, bgr=(30, 30, 220), r: int = 9,
                seed: int = 1, sigma: float = 3.0):
    """n frames of a ball on a circle; yields (frame, (cx, cy))."""
    rng = np.random.default_rng(seed)
    bg = background(w, h, seed)
    for k in range(n):
        a = 2 * np.pi * k / n
        cx, cy = w / 2 + 0.3 * w * np.cos(a), h / 2 + 0.25 * h * np.sin(a)
        f = bg.copy()
        cv2.circle(f, (int(round(cx)), int(round(cy))), r, bgr, -1)
        yield noisy(f, rng, sigma), (round(cx), round(cy))
