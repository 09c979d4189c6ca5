"""Every conversion the app layer needs, in one place.

Colours: sensekit images are NumPy ``HxWx3 uint8`` arrays in **BGR** order
(OpenCV's); pygame wants RGB tuples and surfaces. Coordinates: vision events
report pixels of the (already mirrored) camera image and 0..1 normalized
values; apps draw in window pixels inside a view rectangle.

- ``bgr_to_rgb`` / ``rgb_to_bgr``: channel swaps for arrays and 3-tuples.
- ``array_to_surface(image, size=None)``: BGR array -> pygame Surface (one copy;
  scaled with ``pygame.transform.scale`` when ``size`` differs). Cost: about
  0.2 ms for 320x240 -> 640x480.
- ``surface_to_array(surface)``: what a surface shows -> BGR array (for video
  files and tests).
- ``norm_to_px`` / ``px_to_norm``: 0..1 <-> pixels of a rectangle.
- ``camera_to_view`` / ``view_to_camera``: camera-image pixels <-> window pixels
  of the rectangle where the camera image is drawn.
- ``bgr_to_packed_rgb`` / ``packed_rgb_to_bgr``: a BGR tuple <-> the packed ``0xRRGGBB`` integers the
  vision stages take (re-exported from ``sensekit.vision.stages`` so apps import
  every conversion from here).
- ``mirror_x``: the x of a point after the horizontal mirror the apps apply to
  the camera image (camera coordinates -> what the player sees), so ground
  truth recorded in camera coordinates can be compared with the screen.

Nothing here keeps state; every function returns a new value.
"""
from __future__ import annotations

from typing import Sequence, overload

import numpy as np
import pygame

from sensekit.validate import check_frame
from sensekit.vision.stages import bgr_to_packed_rgb, packed_rgb_to_bgr

__all__ = ["bgr_to_rgb", "rgb_to_bgr", "bgr_to_packed_rgb", "packed_rgb_to_bgr", "array_to_surface",
           "surface_to_array", "norm_to_px", "px_to_norm", "camera_to_view", "view_to_camera",
           "mirror_x"]

Color = tuple[int, int, int]
RectLike = pygame.Rect | tuple[int, int, int, int] | Sequence[int]


@overload
def bgr_to_rgb(image_or_color: Sequence[int]) -> Color: ...
@overload
def bgr_to_rgb(image_or_color: np.ndarray) -> np.ndarray | Color: ...
def bgr_to_rgb(image_or_color: np.ndarray | Sequence[int]) -> np.ndarray | Color:
    """Swap B and R of an ``HxWx3`` array (new contiguous array) or of a 3-tuple."""
    if isinstance(image_or_color, np.ndarray) and image_or_color.ndim == 3:
        return np.ascontiguousarray(image_or_color[..., ::-1])
    b, g, r = (int(v) for v in image_or_color)
    return (r, g, b)


@overload
def rgb_to_bgr(image_or_color: Sequence[int]) -> Color: ...
@overload
def rgb_to_bgr(image_or_color: np.ndarray) -> np.ndarray | Color: ...
def rgb_to_bgr(image_or_color: np.ndarray | Sequence[int]) -> np.ndarray | Color:
    """Inverse of ``bgr_to_rgb`` (the same swap)."""
    return bgr_to_rgb(image_or_color)


def array_to_surface(image: np.ndarray, size: tuple[int, int] | None = None) -> pygame.Surface:
    """A BGR ``HxWx3 uint8`` array as a pygame Surface, optionally scaled to ``size``."""
    check_frame(image, "image")
    h, w = image.shape[:2]
    surface = pygame.image.frombuffer(np.ascontiguousarray(image).tobytes(), (w, h), "BGR")
    if size is not None and tuple(size) != (w, h):
        surface = pygame.transform.scale(surface, size)
    return surface


def surface_to_array(surface: pygame.Surface) -> np.ndarray:
    """What ``surface`` shows, as a new BGR ``HxWx3 uint8`` array."""
    rgb = pygame.surfarray.array3d(surface)          # (w, h, 3) RGB
    return np.ascontiguousarray(rgb.transpose(1, 0, 2)[..., ::-1])


def norm_to_px(nx: float, ny: float, rect: RectLike) -> tuple[float, float]:
    """0..1 coordinates -> pixels inside ``rect`` (x, y, w, h)."""
    x, y, w, h = _rect(rect)
    return x + nx * w, y + ny * h


def px_to_norm(px: float, py: float, rect: RectLike) -> tuple[float, float]:
    """Pixels -> 0..1 coordinates of ``rect``; values outside 0..1 mean outside."""
    x, y, w, h = _rect(rect)
    return (px - x) / w, (py - y) / h


def camera_to_view(cx: float, cy: float, frame_size: tuple[int, int],
                   view: RectLike) -> tuple[float, float]:
    """A camera-image pixel (``frame_size`` = (width, height)) -> window pixel in ``view``."""
    fw, fh = frame_size
    x, y, w, h = _rect(view)
    return x + cx * w / fw, y + cy * h / fh


def view_to_camera(px: float, py: float, frame_size: tuple[int, int],
                   view: RectLike) -> tuple[int, int] | None:
    """A window pixel -> the camera-image pixel under it, or ``None`` outside ``view``."""
    fw, fh = frame_size
    x, y, w, h = _rect(view)
    if not (x <= px < x + w and y <= py < y + h):
        return None
    return (min(fw - 1, int((px - x) * fw / w)), min(fh - 1, int((py - y) * fh / h)))


def mirror_x(x: float | np.ndarray, width: int) -> float | np.ndarray:
    """x after a horizontal mirror of an image ``width`` pixels wide (pixel centres)."""
    return (width - 1) - x


def _rect(rect: RectLike) -> tuple[float, float, float, float]:
    x, y, w, h = (rect.x, rect.y, rect.w, rect.h) if isinstance(rect, pygame.Rect) else rect
    return float(x), float(y), float(w), float(h)
