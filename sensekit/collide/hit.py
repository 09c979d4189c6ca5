"""Pixel-perfect hit tests on ``pygame.mask`` (the chapter-1 ``BitmapData.hitTest``).

    to_mask(image, *, alpha_threshold=127)       RGBA array / bool array / Surface -> Mask
    hit_test(a, pos_a, b, pos_b, alpha_threshold=127)      -> bool
    overlap_area(a, pos_a, b, pos_b, *, alpha_threshold=127) -> int (pixels)
    hit_test_point(a, pos_a, point, *, alpha_threshold=127) -> bool
    bounding_box(a, pos_a) -> (x0, y0, x1, y1) | None;  boxes_overlap(box_a, box_b) -> bool

Positions are the pixel coordinates of each image's top-left corner, in one shared
space (``pos_b - pos_a`` is the offset pygame uses). A pixel is solid when its alpha
is **at least** ``alpha_threshold`` (default 127; 0 makes every pixel solid, so the
hit becomes a bounding-box test, as in the chapter). Fractional offsets are truncated
toward zero, as pygame does; pass integers for exact placement.

Cost: build masks once with ``to_mask`` and keep them. ``hit_test`` on two prepared
masks is one ``Mask.overlap`` call plus ~80 ns of Python (1.2-1.35x the raw call in
``benchmarks/collide.py``); pygame's bit-packed masks are 10-25x faster than a NumPy
``&`` of boolean crops. Passing an array or a Surface builds a mask on
every call (about 20-60 us for 100x100): fine for a one-off, wasteful per frame.

Failure modes: ``ConfigError`` (naming the value) for an array that is not
``HxWx4 uint8`` RGBA or ``HxW bool``, an ``alpha_threshold`` outside 0..255, a
non-finite position (except on ``hit_test``'s two-Mask fast path, which does not check
positions: a NaN/inf offset never hits there, as in pygame).
"""
from __future__ import annotations

import math
import os
from typing import Any, Sequence

import numpy as np

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
import pygame  # (masks need no display: no video driver is chosen here)

from sensekit.errors import ConfigError

Mask = pygame.mask.Mask
Box = tuple[int, int, int, int]

__all__ = ["to_mask", "hit_test", "overlap_area", "hit_test_point", "bounding_box",
           "boxes_overlap", "Mask"]


def _check_threshold(alpha_threshold: Any) -> int:
    if isinstance(alpha_threshold, bool) or not isinstance(alpha_threshold, (int, np.integer)) \
            or not 0 <= int(alpha_threshold) <= 255:
        raise ConfigError(f"`alpha_threshold` must be an integer 0..255, got {alpha_threshold!r}")
    return int(alpha_threshold)


def to_mask(image: Any, *, alpha_threshold: int = 127, name: str = "image") -> Mask:
    """A ``pygame.mask.Mask`` of the pixels whose alpha is >= ``alpha_threshold``.

    ``image`` is an ``HxWx4 uint8`` RGBA array (rows first, as NumPy and OpenCV hold
    images), an ``HxW bool`` array (already a mask), a ``pygame.Surface`` (per-pixel alpha
    or colour key), or a Mask (returned as is).
    """
    if isinstance(image, Mask):
        return image
    t = _check_threshold(alpha_threshold)
    if isinstance(image, pygame.Surface):
        if t == 0:
            return Mask(image.get_size(), fill=True)
        # pygame counts alpha > threshold as set; ours is alpha >= threshold
        return pygame.mask.from_surface(image, t - 1)
    if not isinstance(image, np.ndarray):
        raise ConfigError(f"`{name}` must be an RGBA uint8 array, a bool array, a pygame Surface "
                          f"or a Mask, got {type(image).__name__}")
    if image.ndim == 2 and image.dtype == np.bool_:
        return _mask_from_solid(image)
    if image.ndim == 3 and image.shape[2] == 4 and image.dtype == np.uint8:
        h, w = image.shape[:2]
        if t == 0:
            return Mask((w, h), fill=True)
        surf = pygame.image.frombuffer(np.ascontiguousarray(image).tobytes(), (w, h), "RGBA")
        # pygame counts alpha > threshold as set; ours is alpha >= threshold
        return pygame.mask.from_surface(surf, t - 1)
    raise ConfigError(f"`{name}` must be an HxWx4 uint8 RGBA array or an HxW bool array, "
                      f"got shape {image.shape} dtype {image.dtype}")


def _mask_from_solid(solid: np.ndarray) -> Mask:
    """Mask from an HxW bool array via an RGBA surface whose alpha is 255 where solid."""
    h, w = solid.shape
    rgba = np.zeros((h, w, 4), dtype=np.uint8)
    rgba[:, :, 3][solid] = 255
    surf = pygame.image.frombuffer(rgba.tobytes(), (w, h), "RGBA")
    return pygame.mask.from_surface(surf, 127)


def _offset(pos_a: Sequence[float], pos_b: Sequence[float]) -> tuple[Any, Any]:
    dx = pos_b[0] - pos_a[0]
    dy = pos_b[1] - pos_a[1]
    return dx, dy


def _check_pos(name: str, pos: Any) -> None:
    try:
        x, y = float(pos[0]), float(pos[1])
    except (TypeError, ValueError, IndexError):
        raise ConfigError(f"`{name}` must be an (x, y) pair of numbers, got {pos!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise ConfigError(f"`{name}` must be finite, got {pos!r}")


def hit_test(a: Any, pos_a: Sequence[float], b: Any, pos_b: Sequence[float],
             alpha_threshold: int = 127) -> bool:
    """True when any solid pixel of ``a`` at ``pos_a`` covers a solid pixel of ``b`` at
    ``pos_b``. ``a``/``b`` are Masks (fast path: ``alpha_threshold`` was applied when they
    were built) or anything ``to_mask`` takes (converted with ``alpha_threshold``).

    The fast path (two Masks) is one ``Mask.overlap`` call; only a miss pays for a
    two-comparison NaN check, so a NaN position falls through to the checked path and
    raises ``ConfigError`` naming the value instead of silently missing (an infinite
    offset on this path is simply a miss: the sprites are infinitely far apart).
    Other inputs go through ``to_mask`` and have their positions checked the same way.
    ``alpha_threshold`` is positional-or-keyword on purpose: CPython 3.11 cannot specialise
    calls to functions with keyword-only parameters, which costs ~10 % of this hot path."""
    try:
        ax, ay = pos_a
        bx, by = pos_b
        dx = bx - ax
        dy = by - ay
        if a.overlap(b, (dx, dy)) is not None:
            return True
        if dx == dx and dy == dy:          # a real miss (NaN never equals itself)
            return False
    except (AttributeError, TypeError, ValueError, OverflowError, IndexError):
        pass
    a = to_mask(a, alpha_threshold=alpha_threshold, name="a")
    b = to_mask(b, alpha_threshold=alpha_threshold, name="b")
    _check_pos("pos_a", pos_a)
    _check_pos("pos_b", pos_b)
    return a.overlap(b, _offset(pos_a, pos_b)) is not None


def overlap_area(a: Any, pos_a: Sequence[float], b: Any, pos_b: Sequence[float], *,
                 alpha_threshold: int = 127) -> int:
    """Number of pixels where both are solid (0 when apart)."""
    a = to_mask(a, alpha_threshold=alpha_threshold, name="a")
    b = to_mask(b, alpha_threshold=alpha_threshold, name="b")
    _check_pos("pos_a", pos_a)
    _check_pos("pos_b", pos_b)
    return int(a.overlap_area(b, _offset(pos_a, pos_b)))


def hit_test_point(a: Any, pos_a: Sequence[float], point: Sequence[float], *,
                   alpha_threshold: int = 127) -> bool:
    """True when ``point`` (same space as ``pos_a``) lies on a solid pixel of ``a``."""
    a = to_mask(a, alpha_threshold=alpha_threshold, name="a")
    _check_pos("pos_a", pos_a)
    _check_pos("point", point)
    x = math.floor(point[0] - pos_a[0])
    y = math.floor(point[1] - pos_a[1])
    w, h = a.get_size()
    return 0 <= x < w and 0 <= y < h and bool(a.get_at((x, y)))


def bounding_box(a: Any, pos_a: Sequence[float] = (0, 0), *, alpha_threshold: int = 127
                 ) -> Box | None:
    """The tight box ``(x0, y0, x1, y1)`` (x1, y1 exclusive) around the solid pixels of ``a``
    placed at ``pos_a``, or None when ``a`` has no solid pixel."""
    a = to_mask(a, alpha_threshold=alpha_threshold, name="a")
    _check_pos("pos_a", pos_a)
    rects = a.get_bounding_rects()
    if not rects:
        return None
    r = rects[0].unionall(rects[1:]) if len(rects) > 1 else rects[0]
    ox, oy = int(pos_a[0]), int(pos_a[1])
    return (r.left + ox, r.top + oy, r.right + ox, r.bottom + oy)


def boxes_overlap(box_a: Sequence[float], box_b: Sequence[float]) -> bool:
    """True when two ``(x0, y0, x1, y1)`` boxes (x1, y1 exclusive) share any area."""
    return (box_a[0] < box_b[2] and box_b[0] < box_a[2]
            and box_a[1] < box_b[3] and box_b[1] < box_a[3])
