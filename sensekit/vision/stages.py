"""Stateless vision stages on BGR uint8 frames: the book's bitmap tools, done with OpenCV.

Every function takes the image first, options keyword-only, validates its input
(``ConfigError`` naming the bad value) and returns a new array. Functions that
run every frame also accept ``dst=`` (a preallocated output of the right shape
and dtype) so a pipeline can reuse its buffers; the returned array is then
``dst`` itself.

Stages and their Flash counterparts:

- ``mirror(frame)``: ``draw(video, new Matrix(-1, 0, 0, 1, w, 0))``. ~0.02 ms at 320x240.
- ``blur(frame, size_px=10)``: ``BlurFilter(x, y, 1)`` as a box blur; ``method="gaussian"``
  for a Gaussian of the same reach. Sizes < 1 raise. ~0.2 ms at 320x240 (box, 10x10).
- ``palette_lut(levels)`` / ``palette_map(frame, levels=4 | luts=...)``: ``makePaletteArrays``
  (``floor(v / (256 // levels)) * (256 // levels)``) and ``paletteMap`` with arbitrary tables,
  including Flash's packed ``0xRRGGBB`` tables that are summed across channels.
- ``threshold(src, op="<", value=..., color=..., mask=..., copy_source=...)``: Flash's
  ``threshold`` with all six operations on ``(pixel & mask) op (value & mask)``.
- ``color_bounds(frame, color, mask=0xFFFFFF, find=True)``: ``getColorBoundsRect``;
  ``(0, 0, 0, 0)`` when nothing matches.
- ``edges(frame, direction="horizontal")``: the book's ``ConvolutionFilter(1, 3, [0, 4, -4])``
  then a 3x3 box blur then "below 0x22 -> 0" (output HxWx3, like the book's bitmap);
  ``direction="any"``: Sobel gradient magnitude of the grey image, thresholded (output HxW).
- ``on_edge(edge_map, x, y)``: the snow test ``getPixel(x, y) != 0``; vectorized over arrays
  of points, points outside the map are "not on an edge".

Colours are ``0xRRGGBB`` integers (or ``"#RRGGBB"`` strings via ``parse_color``), as in Flash;
frames are BGR, so ``packed_rgb_to_bgr``/``bgr_to_packed_rgb`` (and ``_pack``/``_unpack`` for whole frames)
are the one place the order flips: every other module calls them.
Failure modes: none at run time beyond validation; all costs are one or two OpenCV calls,
no per-pixel Python.
"""
from __future__ import annotations

import re
from typing import Literal, Sequence

import cv2
import numpy as np

from sensekit.errors import ConfigError
from sensekit.events import Box
from sensekit.validate import check_frame

__all__ = [
    "EDGE_KERNEL", "EDGE_THRESHOLD", "OPS", "parse_color", "packed_rgb_to_bgr", "bgr_to_packed_rgb",
    "mirror", "blur", "palette_lut", "palette_map", "threshold", "color_bounds",
    "edges", "book_edge_filter", "on_edge", "empty_box", "box_from_rect",
]

#: The book's horizontal edge kernel: 1 wide, 3 tall; 4*I(y) - 4*I(y+1) (correlation).
EDGE_KERNEL = np.array([[0.0], [4.0], [-4.0]], np.float32)
#: The book's edge threshold: blurred edge values below 0x22 become 0.
EDGE_THRESHOLD = 0x22
#: Flash ``threshold`` operations.
OPS = ("<", "<=", "==", ">=", ">", "!=")

_HEX = re.compile(r"^(?:#|0x)?([0-9a-fA-F]{6})$")


# --- colours ----------------------------------------------------------------

def parse_color(value: str | int | Sequence[int]) -> int:
    """``"#RRGGBB"``, ``"0xRRGGBB"``, ``"RRGGBB"``, an int or an ``(r, g, b)`` tuple -> ``0xRRGGBB``.

    >>> hex(parse_color("#ff8000"))
    '0xff8000'
    """
    if isinstance(value, (bool, np.bool_)):
        raise ConfigError(f"colour must be '#RRGGBB', got {value!r}")
    if isinstance(value, (int, np.integer)):
        if not 0 <= int(value) <= 0xFFFFFF:
            raise ConfigError(f"colour must be 0x000000..0xFFFFFF, got {value!r}")
        return int(value)
    if isinstance(value, str):
        m = _HEX.match(value.strip())
        if not m:
            raise ConfigError(f"colour must look like '#RRGGBB', got {value!r}")
        return int(m.group(1), 16)
    try:
        r, g, b = (int(c) for c in value)
    except (TypeError, ValueError):
        raise ConfigError(f"colour must be '#RRGGBB' or (r, g, b), got {value!r}") from None
    if not all(0 <= c <= 255 for c in (r, g, b)):
        raise ConfigError(f"colour channels must be 0..255, got {value!r}")
    return bgr_to_packed_rgb((b, g, r))


def packed_rgb_to_bgr(color: int) -> tuple[int, int, int]:
    """``0xRRGGBB`` -> ``(b, g, r)``, the channel order of a frame."""
    return (color & 0xFF, (color >> 8) & 0xFF, (color >> 16) & 0xFF)


def bgr_to_packed_rgb(bgr: Sequence[int]) -> int:
    """``(b, g, r)`` -> ``0xRRGGBB``."""
    b, g, r = (int(c) for c in bgr)
    return (r << 16) | (g << 8) | b


def _pack(frame: np.ndarray) -> np.ndarray:
    """HxWx3 BGR uint8 -> HxW uint32 ``0xRRGGBB`` (for the general-mask paths)."""
    p = frame[..., 2].astype(np.uint32)
    p <<= 8
    p |= frame[..., 1]
    p <<= 8
    p |= frame[..., 0]
    return p


def _unpack(packed: np.ndarray, out: np.ndarray) -> np.ndarray:
    out[..., 0] = packed & 0xFF
    out[..., 1] = (packed >> 8) & 0xFF
    out[..., 2] = (packed >> 16) & 0xFF
    return out


def empty_box() -> Box:
    """The box of nothing found: ``(0, 0, 0, 0)``."""
    return (0, 0, 0, 0)


def box_from_rect(rect: Sequence[int] | np.ndarray) -> Box:
    """``(x, y, w, h)`` as plain ints; ``(0, 0, 0, 0)`` when empty."""
    x, y, w, h = rect
    if w <= 0 or h <= 0:
        return (0, 0, 0, 0)
    return (int(x), int(y), int(w), int(h))


def _check_dst(dst: np.ndarray | None, shape: tuple[int, ...], name: str = "dst") -> None:
    if dst is not None and (dst.shape != shape or dst.dtype != np.uint8):
        raise ConfigError(f"`{name}` must be a uint8 array of shape {shape}, got {dst.shape} {dst.dtype}")


# --- mirror and blur --------------------------------------------------------

def mirror(frame: np.ndarray, *, dst: np.ndarray | None = None) -> np.ndarray:
    """Flip left-right, so the user's movements read like a mirror."""
    check_frame(frame)
    _check_dst(dst, frame.shape)
    return cv2.flip(frame, 1, dst=dst)


def _blur_size(size_px: int | Sequence[int]) -> tuple[int, int]:
    if isinstance(size_px, (int, np.integer)) and not isinstance(size_px, bool):
        sx = sy = int(size_px)
    else:
        try:
            sx, sy = (int(v) for v in size_px)  # type: ignore[union-attr]
        except (TypeError, ValueError):
            raise ConfigError(f"blur size must be an integer or (x, y), got {size_px!r}") from None
    if sx < 1 or sy < 1:
        raise ConfigError(f"blur size must be >= 1 pixel, got {size_px!r}")
    return sx, sy


def blur(frame: np.ndarray, *, size_px: int | Sequence[int] = 10,
         method: Literal["box", "gaussian"] = "box", dst: np.ndarray | None = None) -> np.ndarray:
    """Box blur of ``size_px`` (like ``BlurFilter(x, y, 1)``) or a Gaussian of the same reach.

    ``size_px`` is one integer or ``(x, y)``. The Gaussian uses the next odd kernel size and
    OpenCV's automatic sigma. A size of 1 returns a copy.
    """
    check_frame(frame)
    sx, sy = _blur_size(size_px)
    _check_dst(dst, frame.shape)
    if method == "box":
        return cv2.blur(frame, (sx, sy), dst=dst)
    if method == "gaussian":
        return cv2.GaussianBlur(frame, (sx | 1, sy | 1), 0, dst=dst)
    raise ConfigError(f"blur method must be 'box' or 'gaussian', got {method!r}")


# --- palette ----------------------------------------------------------------

def palette_lut(levels: int, *, spread: bool = False) -> np.ndarray:
    """A 256-entry uint8 table that keeps ``levels`` values per channel.

    The book's ``makePaletteArrays``: ``div = 256 // levels``; ``v -> floor(v / div) * div``
    (so 4 levels give 0, 64, 128, 192). ``spread=True`` spreads the levels over 0..255
    instead (4 levels give 0, 85, 170, 255), as ``../shared/bench/vision_ref.py`` does.
    """
    if isinstance(levels, bool) or not isinstance(levels, (int, np.integer)) or not 2 <= levels <= 256:
        raise ConfigError(f"`levels` must be 2..256, got {levels!r}")
    v = np.arange(256)
    if spread:
        return ((v * levels >> 8) * 255 // (levels - 1)).astype(np.uint8)
    div = 256 // int(levels)
    return np.minimum(v // div * div, 255).astype(np.uint8)


def _levels_table(levels: int | Sequence[int]) -> np.ndarray:
    """The LUT of ``levels`` (one int, or ``(r, g, b)``) for ``cv2.LUT``."""
    if isinstance(levels, (int, np.integer)) and not isinstance(levels, bool):
        return palette_lut(int(levels))
    lv = tuple(levels)  # type: ignore[arg-type]
    if len(lv) != 3:
        raise ConfigError(f"`levels` must be one int or (r, g, b), got {levels!r}")
    r, g, b = (palette_lut(x) for x in lv)
    return np.dstack([b, g, r]).reshape(1, 256, 3)


def _checked_luts(luts: Sequence[np.ndarray | Sequence[int] | None] | None) -> list[np.ndarray | None]:
    """The (red, green, blue) tables as int64 arrays (``None`` kept), checked."""
    tables = list(luts)  # type: ignore[arg-type]
    if len(tables) != 3:
        raise ConfigError(f"`luts` must be (red, green, blue), got {len(tables)} tables")
    arrs: list[np.ndarray | None] = []
    for name, t in zip("rgb", tables):
        if t is None:
            arrs.append(None)
            continue
        a = np.asarray(t, dtype=np.int64)
        if a.shape != (256,):
            raise ConfigError(f"`luts` {name} table must have 256 entries, got shape {a.shape}")
        if a.min() < 0 or a.max() > 0xFFFFFFFF:
            raise ConfigError(f"`luts` {name} table values must be 0..0xFFFFFFFF, got {a.min()}..{a.max()}")
        arrs.append(a)
    return arrs


def palette_map(frame: np.ndarray, *, levels: int | Sequence[int] | None = None,
                luts: Sequence[np.ndarray | Sequence[int] | None] | None = None,
                packed: bool | None = None, dst: np.ndarray | None = None) -> np.ndarray:
    """Map every channel through a lookup table (Flash ``paletteMap``).

    Give either ``levels`` (one int, or ``(r, g, b)`` levels per channel, as
    ``makePaletteArrays``) or ``luts = (red, green, blue)``, each a 256-entry table or ``None``
    (identity). Tables of values 0..255 map a channel to itself. Tables holding packed
    ``0xRRGGBB`` values (any entry > 255, as Flash's arrays usually do, e.g. ``v << 16``) use
    Flash's rule: the output pixel is ``red[r] + green[g] + blue[b]`` (mod 2**24), so a channel
    may feed the others. ``None`` tables then contribute the channel in its own place.
    ``packed=True`` forces Flash's rule even for tables whose values are all <= 255 (a red
    table of ``0..255`` then writes red into blue); ``packed=False`` forces per-channel.
    """
    check_frame(frame)
    _check_dst(dst, frame.shape)
    if (levels is None) == (luts is None):
        raise ConfigError("palette_map needs exactly one of `levels` or `luts`")
    if levels is not None:
        return cv2.LUT(frame, _levels_table(levels), dst=dst)
    arrs = _checked_luts(luts)
    if packed is None:
        packed = any(a is not None and a.max() > 255 for a in arrs)
    if not packed:
        if any(a is not None and a.max() > 255 for a in arrs):
            raise ConfigError("`luts` values must be 0..255 per channel when packed=False")
        ident = np.arange(256, dtype=np.uint8)
        r, g, b = (ident if a is None else a.astype(np.uint8) for a in arrs)
        return cv2.LUT(frame, np.dstack([b, g, r]).reshape(1, 256, 3), dst=dst)
    shifts = (16, 8, 0)
    chan = (2, 1, 0)
    total = np.zeros(frame.shape[:2], np.uint32)
    for lut, s, c in zip(arrs, shifts, chan):
        table = (np.arange(256, dtype=np.uint32) << s) if lut is None else (lut & 0xFFFFFFFF).astype(np.uint32)
        total += np.take(table, frame[..., c])
    total &= 0xFFFFFF
    out = dst if dst is not None else np.empty_like(frame)
    return _unpack(total, out)


# --- threshold and colour bounds ----------------------------------------------

_CMP = {"<": np.less, "<=": np.less_equal, "==": np.equal,
        ">=": np.greater_equal, ">": np.greater, "!=": np.not_equal}


def _check_mask(mask: int, name: str = "mask") -> int:
    if isinstance(mask, bool) or not isinstance(mask, (int, np.integer)) or not 0 <= mask <= 0xFFFFFFFF:
        raise ConfigError(f"`{name}` must be an integer 0..0xFFFFFF, got {mask!r}")
    return int(mask) & 0xFFFFFF


def threshold_mask(src: np.ndarray, *, op: str, value: int, mask: int = 0xFFFFFF) -> np.ndarray:
    """HxW bool: where ``(pixel & mask) op (value & mask)``, pixels as ``0xRRGGBB``."""
    check_frame(src, "src")
    if op not in _CMP:
        raise ConfigError(f"threshold operation must be one of {', '.join(OPS)}, got {op!r}")
    m = _check_mask(mask)
    v = _check_mask(value, "value") & m
    # A mask of whole channels compares one channel directly (no packing).
    for shift, c in ((16, 2), (8, 1), (0, 0)):
        if m == 0xFF << shift:
            hit: np.ndarray = _CMP[op](src[..., c], v >> shift)
            return hit
    hit = _CMP[op](_pack(src) & np.uint32(m), np.uint32(v))
    return hit


def threshold(src: np.ndarray, *, op: str, value: int, color: int = 0x000000,
              mask: int = 0xFFFFFF, copy_source: bool = False,
              dest: np.ndarray | None = None, dst: np.ndarray | None = None) -> np.ndarray:
    """Flash ``BitmapData.threshold`` on ``0xRRGGBB`` pixels.

    Where ``(src_pixel & mask) op (value & mask)`` holds, the result is ``color``. Elsewhere it
    is the source pixel if ``copy_source``, else the pixel of ``dest`` (the bitmap drawn into;
    default: the source itself, as in the book, where source and destination are one bitmap).
    ``op`` is one of ``<``, ``<=``, ``==``, ``>=``, ``>``, ``!=``. Flash's alpha byte does not
    exist here: frames are opaque, so ``0xff000000`` in the book is ``0x000000``.
    """
    where = threshold_mask(src, op=op, value=value, mask=mask)
    col = parse_color(color)
    if dest is not None:
        check_frame(dest, "dest")
        if dest.shape != src.shape:
            raise ConfigError(f"`dest` must have the source's shape {src.shape}, got {dest.shape}")
    _check_dst(dst, src.shape)
    out = dst if dst is not None else np.empty_like(src)
    base = src if (copy_source or dest is None) else dest
    if out is not base:
        np.copyto(out, base)
    out[where] = packed_rgb_to_bgr(col)
    return out


def color_bounds(frame: np.ndarray, color: int | str, *, mask: int = 0xFFFFFF,
                 find: bool = True) -> Box:
    """Flash ``getColorBoundsRect``: the box ``(x, y, w, h)`` of all pixels whose
    ``pixel & mask`` equals ``color & mask`` (``find=True``) or differs from it (``find=False``).

    ``(0, 0, 0, 0)`` when no pixel qualifies. Masks made of whole channels (the usual
    ``0xFFFFFF``, ``0xFF0000``...) take the fast ``cv2.inRange`` path.
    """
    check_frame(frame)
    col = parse_color(color)
    m = _check_mask(mask)
    whole = all(((m >> s) & 0xFF) in (0, 0xFF) for s in (0, 8, 16))
    if whole:
        lo = []
        hi = []
        for s in (0, 8, 16):  # B, G, R
            if (m >> s) & 0xFF:
                c = (col >> s) & 0xFF
                lo.append(c)
                hi.append(c)
            else:
                lo.append(0)
                hi.append(255)
        hit = cv2.inRange(frame, tuple(lo), tuple(hi))
        if not find:
            cv2.bitwise_not(hit, dst=hit)
    else:
        eq = (_pack(frame) & np.uint32(m)) == np.uint32(col & m)
        hit = (eq if find else ~eq).view(np.uint8)
    return box_from_rect(cv2.boundingRect(hit))


# --- edges ------------------------------------------------------------------

def book_edge_filter(frame: np.ndarray, *, dst: np.ndarray | None = None) -> np.ndarray:
    """``ConvolutionFilter(1, 3, [0, 4, -4])``: ``saturate(4 * I(y) - 4 * I(y + 1))``, last row 0.

    Bit-identical to ``cv2.filter2D(frame, -1, EDGE_KERNEL, borderType=BORDER_REPLICATE)``
    but computed as a saturating row difference doubled twice (``min(255, 4 * max(0, d))``),
    about half the cost of the generic filter.
    """
    out = dst if dst is not None else np.empty_like(frame)
    if frame.shape[0] > 1:
        body = out[:-1]
        cv2.subtract(frame[:-1], frame[1:], dst=body)
        cv2.add(body, body, dst=body)
        cv2.add(body, body, dst=body)
    out[-1] = 0
    return out


def edges(frame: np.ndarray, *, direction: Literal["horizontal", "any"] = "horizontal",
          blur_px: int = 3, threshold_value: int = EDGE_THRESHOLD,
          dst: np.ndarray | None = None) -> np.ndarray:
    """Edge map; pixels below ``threshold_value`` are 0, so "on an edge" means non-zero.

    ``"horizontal"``: the book's ``[0, 4, -4]`` kernel (1 wide, 3 tall, replicate border,
    saturated to 0..255) per channel, a ``blur_px`` box blur, then values below the
    threshold -> 0. Returns HxWx3 uint8 (bit-identical to the reference chain).
    ``"any"``: Sobel 3x3 gradient magnitude ``|dx| + |dy|`` of the grey image, blurred and
    thresholded the same way. Returns HxW uint8.
    """
    check_frame(frame)
    _blur_size(blur_px)
    t = int(threshold_value)
    if not 0 <= t <= 256:
        raise ConfigError(f"`threshold_value` must be 0..256, got {threshold_value!r}")
    if direction == "horizontal":
        _check_dst(dst, frame.shape)
        e = book_edge_filter(frame, dst=dst)
    elif direction == "any":
        _check_dst(dst, frame.shape[:2])
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        gx = cv2.Sobel(grey, cv2.CV_16S, 1, 0, ksize=3)
        gy = cv2.Sobel(grey, cv2.CV_16S, 0, 1, ksize=3)
        e = cv2.addWeighted(cv2.convertScaleAbs(gx), 0.5, cv2.convertScaleAbs(gy), 0.5, 0, dst=dst)
    else:
        raise ConfigError(f"edge direction must be 'horizontal' or 'any', got {direction!r}")
    if blur_px > 1:
        cv2.blur(e, (blur_px, blur_px), dst=e)
    cv2.threshold(e, t - 1, 255, cv2.THRESH_TOZERO, dst=e)
    return e


def on_edge(edge_map: np.ndarray, x: float | np.ndarray, y: float | np.ndarray) -> bool | np.ndarray:
    """Is pixel ``(x, y)`` on an edge (non-zero in any channel)? Coordinates are truncated
    to whole pixels; points outside the map are not on an edge. Accepts arrays of points
    (e.g. every snowflake at once) and then returns a bool array.
    """
    if not isinstance(edge_map, np.ndarray) or edge_map.ndim not in (2, 3):
        raise ConfigError(f"`edge_map` must be an HxW or HxWxC array, got {getattr(edge_map, 'shape', edge_map)!r}")
    h, w = edge_map.shape[:2]
    xs = np.floor(np.asarray(x, dtype=np.float64)).astype(np.int64)
    ys = np.floor(np.asarray(y, dtype=np.float64)).astype(np.int64)
    inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
    xi = np.where(inside, xs, 0)
    yi = np.where(inside, ys, 0)
    v = edge_map[yi, xi]
    hit: np.ndarray = (v.reshape(*np.shape(v)[:np.ndim(xi)], -1) != 0).any(axis=-1) & inside
    if np.ndim(hit) == 0:
        return bool(hit)
    return hit
