"""ColorTracker: follow a coloured object and report tracked / lost / found events.

Three methods, one interface (``pick``/``pick_box``/``set_color``, then ``update`` per frame):

- ``"exact"`` - the book: optional blur and ``levels`` palette quantization, then the pixels
  exactly equal to the picked (quantized) colour. Cheap (~0.3 ms at 320x240); fails on real
  objects whose colour varies with light (measured 0.00 success on the OTB clips).
- ``"hsv"`` (default for a given colour) - pixels within an HSV tolerance of the colour;
  hue wraps around (red at 175 and 5 are 10 apart); a colour with saturation below
  ``grey_below_s`` ignores hue. Good for a single saturated object (a ball). ~1 ms at 320x240.
- ``"model"`` (default for a click or a box) - a colour-likelihood tracker: joint 16x16x16
  BGR histograms of the object box and of its surround give, per colour, the probability
  that a pixel belongs to the object (``H_obj / (H_obj + H_surround)``, 0.5 if unseen). At
  the start the surround also holds the whole first frame outside the box, weighted
  ``scene_weight`` times the ring's pixel count, so a colour that is rare near the object
  but covers a wall elsewhere does not count as the object's (without it the model jumped
  from a silver can to a grey wall it had never seen).
  Each frame it back-projects that table in a search window (``search`` box sizes around
  the last position), takes the box-sized window of highest mean probability weighted by a
  Gaussian motion prior (``motion_sigma`` box sizes), adapts the size and the aspect (of
  widths and heights 0.92..1.08 times the current ones, the pair whose inside is most likely
  and whose ring least, blended in at ``scale_rate``), and blends the histograms with
  ``learn_rate`` (only while tracking). Works on textured, multi-coloured objects.
  A click is first segmented (``segment.segment_click``: a region grown from the click in an
  object/surround colour model, GrabCut when that finds nothing) and a box is cut out by
  GrabCut (``segment.segment_box``); ``picked`` keeps that ``Segment`` (box and mask) so an
  app can draw what was taken, and the tracker starts from its box.
  ~3-8 ms per 640x480 frame (cost grows with the box size, not the frame size).

For every method the result has the largest connected blob (``box``; for ``"model"`` the
tracked window), the union box of all matching pixels (``union_box``, as
``getColorBoundsRect``), the centre smoothed by a One-Euro filter, the area and a confidence
in 0..1. After ``lost_after_frames`` frames without a match it emits ``color_lost`` (the model
then searches the whole frame); the next match emits ``color_found``.

Failure modes: a background of the same colour (hsv/exact pick the largest blob, which may be
the background); the model drifts when the object is fully hidden for long, or shares its
colours with the surround; a click on a multi-coloured object may pick only the part of one
colour (the logo of a can), which is then what is followed.
Defaults: ``tolerance=(12, 80, 80)``, ``min_area_px=20``, ``lost_after_frames=3``, One-Euro
``min_cutoff_hz=1``, ``beta=0.05``; model ``search=2``, ``motion_sigma=1.5``,
``learn_rate=0.02``, ``scale_rate=0.2``, ``surround=0.6``, ``scene_weight=1``,
``lost_below=0.3``, ``found_above=0.45``. Measured from clicks on the developer clips by
``benchmarks/track_eval.py`` (the README's table). ``scale_rate`` and the aspect candidates
were chosen on the coke clip and on synthetic balls coming closer, moving away and turning
over one half of the backgrounds (``tests/vision/ball_scenes.py``), and checked on tiger1 and the
other half. ``scene_weight`` is the plain 1 (the scene counts as much as the ring); 0 (the
ring only, as before) is steadier over many start frames of the clips but lost the can from
the first frame's clicks (``benchmarks/track_eval.py --scene-weight 0 --starts ...``).
Errors: a click outside the frame, a bad colour string or tolerance raise ``ConfigError``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

import cv2
import numpy as np

from sensekit.errors import ConfigError
from sensekit.events import Box, ColorFound, ColorLost, ColorTracked, Event
from sensekit.validate import check_frame, check_int_range, check_range
from sensekit.vision.segment import Segment, check_box, segment_box, segment_click
from sensekit.vision.smoothing import OneEuro2D
from sensekit.vision.stages import blur as blur_stage
from sensekit.vision.stages import box_from_rect, palette_lut, parse_color, rgb_to_bgr

__all__ = ["ColorTracker", "TrackResult", "parse_tolerance"]

Method = Literal["exact", "hsv", "model"]

#: the width and height factors the model tries each frame
_SIZE_STEPS = (0.92, 0.96, 1.0, 1.04, 1.08)


@dataclass(frozen=True)
class TrackResult:
    """One frame's answer. ``cx``/``cy`` are smoothed; ``raw_cx``/``raw_cy`` are not."""
    found: bool
    box: Box = (0, 0, 0, 0)
    union_box: Box = (0, 0, 0, 0)
    cx: float = 0.0
    cy: float = 0.0
    raw_cx: float = 0.0
    raw_cy: float = 0.0
    area_px: int = 0
    confidence: float = 0.0


def parse_tolerance(value: str | float | Sequence[float]) -> tuple[float, float, float]:
    """``"H"`` or ``"H,S,V"`` (hue in degrees 0..180, S and V in 0..255) -> a triple.

    One number sets the hue tolerance and keeps S and V at 80.
    """
    if isinstance(value, str):
        parts = [p for p in value.replace(" ", "").split(",") if p]
        try:
            nums = [float(p) for p in parts]
        except ValueError:
            raise ConfigError(f"tolerance must be 'H' or 'H,S,V', got {value!r}") from None
    elif isinstance(value, (int, float, np.number)):
        nums = [float(value)]
    else:
        nums = [float(v) for v in value]
    if len(nums) == 1:
        nums = [nums[0], 80.0, 80.0]
    if len(nums) != 3:
        raise ConfigError(f"tolerance must be 'H' or 'H,S,V', got {value!r}")
    h, s, v = nums
    check_range("tolerance hue (degrees)", h, 0, 180)
    check_range("tolerance saturation", s, 0, 255)
    check_range("tolerance value", v, 0, 255)
    return (h, s, v)


class ColorTracker:
    """Stateful colour tracker. See the module docstring for the methods and their costs.

    ``color`` (``"#RRGGBB"``/int) starts an hsv/exact tracker; otherwise call ``pick(frame,
    x, y)`` or ``pick_box(frame, box)`` before ``update``. ``blur_px`` (1 = off) and ``levels``
    pre-filter the frame for the hsv and exact methods (the book uses 10 and 4).
    """

    def __init__(self, color: int | str | None = None, *, method: Method | None = None,
                 tolerance: str | float | Sequence[float] = (12.0, 80.0, 80.0),
                 blur_px: int = 1, levels: int | None = None, min_area_px: int = 20,
                 patch_px: int = 9, lost_after_frames: int = 3, smoothing: bool = True,
                 min_cutoff_hz: float = 1.0, beta: float = 0.05,
                 grey_below_s: int = 40, search: float = 2.0, motion_sigma: float = 1.5,
                 learn_rate: float = 0.02, scale_rate: float = 0.2, surround: float = 0.6,
                 lost_below: float = 0.3, found_above: float = 0.45, scene_weight: float = 1.0) -> None:
        if method not in (None, "exact", "hsv", "model"):
            raise ConfigError(f"tracker method must be 'exact', 'hsv' or 'model', got {method!r}")
        self.method: Method | None = method
        self._tolerance = parse_tolerance(tolerance)
        self._hsv_tol: tuple[float, float, float] = self._tolerance
        if isinstance(blur_px, bool) or not isinstance(blur_px, (int, np.integer)) or blur_px < 1:
            raise ConfigError(f"`blur_px` must be a whole number of pixels >= 1, got {blur_px!r}")
        self.blur_px = check_int_range("blur_px", blur_px, 1, 255)
        self.levels = levels
        self._lut = palette_lut(levels) if levels is not None else None
        self.min_area_px = check_int_range("min_area_px", min_area_px, 1, 1 << 30)
        self.patch_px = check_int_range("patch_px", patch_px, 1, 255)
        self.lost_after_frames = check_int_range("lost_after_frames", lost_after_frames, 1, 10_000)
        self.grey_below_s = check_int_range("grey_below_s", grey_below_s, 0, 255)
        self.search = check_range("search", search, 0.25, 10)
        self.motion_sigma = check_range("motion_sigma", motion_sigma, 0.05, 100)
        self.learn_rate = check_range("learn_rate", learn_rate, 0, 1)
        self.scale_rate = check_range("scale_rate", scale_rate, 0, 1)
        self.surround = check_range("surround", surround, 0.1, 5)
        self.lost_below = check_range("lost_below", lost_below, 0, 1)
        self.found_above = check_range("found_above", found_above, 0, 1)
        self.scene_weight = check_range("scene_weight", scene_weight, 0, 100)
        self.smoother = OneEuro2D(min_cutoff_hz=min_cutoff_hz, beta=beta) if smoothing else None
        self.color: int | None = None       # 0xRRGGBB target (exact / hsv)
        self._hsv_target: tuple[float, float, float] | None = None
        # model state
        self._bins = 16
        self._ho: np.ndarray | None = None
        self._hs: np.ndarray | None = None
        self._prob_lut: np.ndarray | None = None
        self._cx = self._cy = self._w = self._h = 0.0
        # event state
        self.frames = 0
        self.misses = 0
        self.lost = False
        self.ever_found = False
        self.last: TrackResult | None = None
        self.last_mask: np.ndarray | None = None     # hsv/exact: frame-sized; model: search window
        self.last_mask_origin: tuple[int, int] = (0, 0)
        #: what the last model pick took (box and mask, for drawing); ``None`` before one
        self.picked: Segment | None = None
        if color is not None:
            self.set_color(color)

    # -- choosing what to track ---------------------------------------------
    @property
    def tolerance(self) -> tuple[float, float, float]:
        """HSV tolerance (hue degrees, S, V). Setting it takes effect on the next frame."""
        return self._tolerance

    @tolerance.setter
    def tolerance(self, value: str | float | Sequence[float]) -> None:
        self._tolerance = self._hsv_tol = parse_tolerance(value)

    @property
    def ready(self) -> bool:
        return self._ho is not None if self.method == "model" else self.color is not None

    def set_color(self, color: int | str) -> None:
        """Track this ``0xRRGGBB`` colour (hsv by default, or exact)."""
        self.color = parse_color(color)
        if self.method is None or self.method == "model":
            if self.method == "model":
                raise ConfigError("the 'model' method needs pick(frame, x, y) or pick_box(frame, box), not a colour")
            self.method = "hsv"
        self._hsv_target = self._to_hsv(rgb_to_bgr(self.color))
        self._hsv_tol = self.tolerance

    def pick(self, frame: np.ndarray, x: float, y: float) -> None:
        """Pick what to track by a click at pixel ``(x, y)`` of ``frame`` (BGR, as shown).

        Samples a ``patch_px`` square; hsv takes its median colour and widens the tolerance by
        the patch's spread; exact takes the clicked pixel of the pre-filtered frame; model
        segments the object under the click (``segment_click``, kept in ``picked``) and
        learns it from that box.
        """
        check_frame(frame)
        h, w = frame.shape[:2]
        if not (0 <= x < w and 0 <= y < h):
            raise ConfigError(f"click ({x}, {y}) is outside the {w}x{h} frame")
        xi, yi = int(x), int(y)
        if self.method is None:
            self.method = "model"
        r = self.patch_px // 2
        x0, y0, x1, y1 = max(0, xi - r), max(0, yi - r), min(w, xi + r + 1), min(h, yi + r + 1)
        if self.method == "exact":
            prepared = self.prepare(frame)
            self.color = int((int(prepared[yi, xi, 2]) << 16) | (int(prepared[yi, xi, 1]) << 8)
                             | int(prepared[yi, xi, 0]))
            return
        patch = self.prepare(frame)[y0:y1, x0:x1] if self.method == "hsv" else frame[y0:y1, x0:x1]
        hsv = cv2.cvtColor(np.ascontiguousarray(patch), cv2.COLOR_BGR2HSV).reshape(-1, 3).astype(np.float64)
        med = np.median(hsv, axis=0)
        hue_dev = np.abs(((hsv[:, 0] - med[0] + 90) % 180) - 90)   # hue units (2 degrees)
        spread = (2.0 * np.percentile(hue_dev, 90) * 2.0,
                  np.percentile(np.abs(hsv[:, 1] - med[1]), 90) * 2.0,
                  np.percentile(np.abs(hsv[:, 2] - med[2]), 90) * 2.0)
        bgr = cv2.cvtColor(np.uint8([[med]]), cv2.COLOR_HSV2BGR)[0, 0]
        target_rgb = (int(bgr[2]) << 16) | (int(bgr[1]) << 8) | int(bgr[0])
        if self.method == "hsv":
            self.color = target_rgb
            self._hsv_target = (float(med[0]) * 2.0, float(med[1]), float(med[2]))
            self._hsv_tol = tuple(max(a, min(b, lim)) for a, b, lim in
                                  zip(self.tolerance, spread, (45.0, 120.0, 120.0)))  # type: ignore[assignment]
            return
        # model: the object under the click, as a box and a mask
        self.color = target_rgb
        self.picked = segment_click(frame, x, y)
        self._start_model(frame, self.picked)

    def pick_box(self, frame: np.ndarray, box: Sequence[float]) -> None:
        """Learn the object from a box ``(x, y, w, h)`` of ``frame``.

        The model method learns object and surround histograms from the box, and keeps what
        GrabCut finds inside it in ``picked`` (``segment_box``); hsv and exact take the box's
        median colour.
        """
        x, y, w, h = check_box(frame, box)
        fh, fw = frame.shape[:2]
        if self.method is None:
            self.method = "model"
        if self.method != "model":
            # Centre patch of the box, as a click at its centre with a patch of half its size.
            keep = self.patch_px
            self.patch_px = max(1, int(min(w, h) // 2) | 1)
            try:
                self.pick(frame, min(fw - 1, x + w / 2), min(fh - 1, y + h / 2))
            finally:
                self.patch_px = keep
            return
        self.picked = segment_box(frame, (x, y, w, h))
        self._start_model(frame, self.picked)

    def _start_model(self, frame: np.ndarray, picked: Segment) -> None:
        """Learn from the picked box; the mask's pixels count twice in the object histogram
        (they surely are the object; the rest of the box may be background)."""
        x, y, w, h = (float(v) for v in picked.box)
        self._cx, self._cy, self._w, self._h = x + w / 2, y + h / 2, w, h
        idx = self._bin_index(frame)
        self._ho, self._hs = self._histograms(idx, 0, 0)
        x0, y0, x1, y1 = self._clip_rect(self._cx, self._cy, w, h, frame.shape[1], frame.shape[0])
        inside = picked.mask[y0:y1, x0:x1]
        self._ho += np.bincount(idx[y0:y1, x0:x1][inside], minlength=self._bins ** 3)
        if inside.any():                       # the object's typical colour, for swatches
            b, g, r = (int(v) for v in np.median(frame[y0:y1, x0:x1][inside], axis=0))
            self.color = (r << 16) | (g << 8) | b
        if self.scene_weight > 0:
            scene = np.bincount(idx.ravel(), minlength=self._bins ** 3).astype(np.float64)
            scene -= np.bincount(idx[y0:y1, x0:x1].ravel(), minlength=self._bins ** 3)
            self._hs += scene * (self.scene_weight * self._hs.sum() / max(1.0, scene.sum()))
        self._update_lut()
        self.lost = False
        self.misses = 0
        if self.smoother is not None:
            self.smoother.reset()

    # -- per frame --------------------------------------------------------------
    def prepare(self, frame: np.ndarray, *, dst: np.ndarray | None = None) -> np.ndarray:
        """The pre-filter the hsv/exact methods see: blur ``blur_px`` then ``levels``."""
        out = frame
        if self.blur_px > 1:
            out = blur_stage(out, size_px=self.blur_px, dst=dst)
        if self._lut is not None:
            out = cv2.LUT(out, self._lut, dst=dst)
        return out

    def update(self, frame: np.ndarray, t: float | None = None, *,
               prepared: np.ndarray | None = None) -> TrackResult:
        """Track in one frame. ``prepared`` may pass ``prepare(frame)`` computed elsewhere."""
        check_frame(frame)
        if not self.ready:
            raise ConfigError("ColorTracker has nothing to track: give a colour or call pick()/pick_box() first")
        self.frames += 1
        if t is None:
            t = self.frames / 30.0
        if self.method == "model":
            found, box, union, raw_cx, raw_cy, area, conf = self._update_model(frame)
        else:
            img = prepared if prepared is not None else self.prepare(frame)
            found, box, union, raw_cx, raw_cy, area, conf = self._update_mask(img)
        if found:
            self.misses = 0
            if self.smoother is not None:
                if self.lost:
                    self.smoother.reset()
                cx, cy = self.smoother(raw_cx, raw_cy, t)
            else:
                cx, cy = raw_cx, raw_cy
        else:
            self.misses += 1
            cx, cy = (self.last.cx, self.last.cy) if self.last is not None else (0.0, 0.0)
        result = TrackResult(found, box, union, float(cx), float(cy), float(raw_cx), float(raw_cy),
                             int(area), float(conf))
        self.last = result
        return result

    def events(self, result: TrackResult, t: float, frame_size: tuple[int, int]) -> list[Event]:
        """Turn one result into events: tracked every found frame, lost once, found again."""
        w, h = frame_size
        out: list[Event] = []
        if result.found:
            if self.lost:
                self.lost = False
                out.append(ColorFound(t=t, cx=result.cx, cy=result.cy))
            self.ever_found = True
            out.append(ColorTracked(t=t, box=result.box, union_box=result.union_box,
                                    cx=result.cx, cy=result.cy, nx=result.cx / w, ny=result.cy / h,
                                    area_px=result.area_px, confidence=result.confidence))
        elif self.ever_found and not self.lost and self.misses >= self.lost_after_frames:
            self.lost = True
            out.append(ColorLost(t=t))
        return out

    def step(self, frame: np.ndarray, t: float, *, prepared: np.ndarray | None = None) -> list[Event]:
        """``update`` then ``events``."""
        result = self.update(frame, t, prepared=prepared)
        return self.events(result, t, (frame.shape[1], frame.shape[0]))

    # -- hsv / exact ----------------------------------------------------------------
    @staticmethod
    def _to_hsv(bgr: Sequence[int]) -> tuple[float, float, float]:
        hsv = cv2.cvtColor(np.uint8([[list(bgr)]]), cv2.COLOR_BGR2HSV)[0, 0]
        return (float(hsv[0]) * 2.0, float(hsv[1]), float(hsv[2]))

    def _hsv_mask(self, img: np.ndarray) -> np.ndarray:
        assert self._hsv_target is not None
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
        hd, sd, vd = self._hsv_target
        ht, st, vt = self._hsv_tol
        s_lo, s_hi = max(0, int(sd - st)), min(255, int(sd + st))
        v_lo, v_hi = max(0, int(vd - vt)), min(255, int(vd + vt))
        if sd < self.grey_below_s or ht >= 90:          # grey target, or any hue allowed
            return cv2.inRange(hsv, (0, s_lo, v_lo), (180, s_hi, v_hi))
        h = hd / 2.0
        tol = ht / 2.0                                   # OpenCV hue units are 2 degrees
        lo, hi = h - tol, h + tol
        if lo < 0 or hi > 179:                           # wraps around red
            a = cv2.inRange(hsv, (int(np.ceil(lo % 180)), s_lo, v_lo), (179, s_hi, v_hi))
            b = cv2.inRange(hsv, (0, s_lo, v_lo), (int(hi % 180), s_hi, v_hi))
            return cv2.bitwise_or(a, b, dst=a)
        return cv2.inRange(hsv, (int(np.ceil(lo)), s_lo, v_lo), (int(hi), s_hi, v_hi))

    def _update_mask(self, img: np.ndarray) -> tuple[bool, Box, Box, float, float, int, float]:
        assert self.color is not None
        if self.method == "exact":
            bgr = rgb_to_bgr(self.color)
            mask = cv2.inRange(img, bgr, bgr)
        else:
            mask = self._hsv_mask(img)
        self.last_mask = mask
        union = box_from_rect(cv2.boundingRect(mask))
        if union == (0, 0, 0, 0):
            return False, union, union, 0.0, 0.0, 0, 0.0
        n, _labels, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
        areas = stats[1:, cv2.CC_STAT_AREA]
        k = int(np.argmax(areas)) + 1
        area = int(stats[k, cv2.CC_STAT_AREA])
        if area < self.min_area_px:
            return False, (0, 0, 0, 0), union, 0.0, 0.0, 0, 0.0
        box = box_from_rect(stats[k, :4])
        conf = area / float(areas.sum())
        return True, box, union, float(cents[k, 0]), float(cents[k, 1]), area, conf

    # -- model ----------------------------------------------------------------------
    def _bin_index(self, img: np.ndarray) -> np.ndarray:
        """Joint 16x16x16 BGR bin index (int32) of every pixel."""
        q = img >> 4
        idx = q[..., 0].astype(np.int32)
        idx <<= 4
        idx |= q[..., 1]
        idx <<= 4
        idx |= q[..., 2]
        return idx

    def _clip_rect(self, cx: float, cy: float, w: float, h: float,
                   fw: int, fh: int) -> tuple[int, int, int, int]:
        x0 = int(round(cx - w / 2))
        y0 = int(round(cy - h / 2))
        x1 = int(round(cx + w / 2))
        y1 = int(round(cy + h / 2))
        return max(0, x0), max(0, y0), min(fw, x1), min(fh, y1)

    def _histograms(self, idx: np.ndarray, ox: int, oy: int) -> tuple[np.ndarray, np.ndarray]:
        """Object and surround histograms; ``idx`` covers the frame from ``(ox, oy)``."""
        n = self._bins ** 3
        H, W = idx.shape
        fw, fh = W + ox, H + oy
        x0, y0, x1, y1 = self._clip_rect(self._cx, self._cy, self._w, self._h, fw, fh)
        m = self.surround * max(self._w, self._h)
        X0, Y0, X1, Y1 = self._clip_rect(self._cx, self._cy, self._w + 2 * m, self._h + 2 * m, fw, fh)
        X0, Y0 = max(X0, ox), max(Y0, oy)
        x0, y0 = max(x0, ox), max(y0, oy)
        obj = np.bincount(idx[y0 - oy:y1 - oy, x0 - ox:x1 - ox].ravel(), minlength=n).astype(np.float64)
        whole = np.bincount(idx[Y0 - oy:Y1 - oy, X0 - ox:X1 - ox].ravel(), minlength=n).astype(np.float64)
        return obj, np.maximum(whole - obj, 0.0)

    def _update_lut(self) -> None:
        assert self._ho is not None and self._hs is not None
        s = self._ho + self._hs
        self._prob_lut = np.where(s > 1e-9, self._ho / np.maximum(s, 1e-9), 0.5).astype(np.float32)

    def _update_model(self, frame: np.ndarray) -> tuple[bool, Box, Box, float, float, int, float]:
        assert self._prob_lut is not None
        fh, fw = frame.shape[:2]
        if self.lost or self.misses >= self.lost_after_frames:
            X0, Y0, X1, Y1 = 0, 0, fw, fh                          # search everywhere
            sigma = None
        else:
            sw = self._w * (1 + 2 * self.search)
            sh = self._h * (1 + 2 * self.search)
            X0, Y0, X1, Y1 = self._clip_rect(self._cx, self._cy, sw, sh, fw, fh)
            sigma = self.motion_sigma
        if X1 - X0 < 2 or Y1 - Y0 < 2:
            return False, (0, 0, 0, 0), (0, 0, 0, 0), 0.0, 0.0, 0, 0.0
        idx = self._bin_index(frame[Y0:Y1, X0:X1])
        prob = np.take(self._prob_lut, idx)
        bw = max(3, int(round(self._w)))
        bh = max(3, int(round(self._h)))
        mean = cv2.boxFilter(prob, -1, (bw, bh), normalize=True, borderType=cv2.BORDER_CONSTANT)
        if sigma is not None:
            gx = np.arange(X0, X1, dtype=np.float32) - np.float32(self._cx)
            gy = np.arange(Y0, Y1, dtype=np.float32) - np.float32(self._cy)
            wx = np.exp(-0.5 * (gx / np.float32(sigma * self._w)) ** 2)
            wy = np.exp(-0.5 * (gy / np.float32(sigma * self._h)) ** 2)
            score = mean * wy[:, None] * wx[None, :]
        else:
            score = mean
        iy, ix = np.unravel_index(int(np.argmax(score)), score.shape)
        conf = float(mean[iy, ix])
        ncx = X0 + ix + (0.5 if bw % 2 == 0 else 0.0)
        ncy = Y0 + iy + (0.5 if bh % 2 == 0 else 0.0)
        searching = sigma is None
        if conf < (self.found_above if searching or self.lost else self.lost_below):
            return False, (0, 0, 0, 0), (0, 0, 0, 0), 0.0, 0.0, 0, conf
        self._cx, self._cy = float(ncx), float(ncy)
        if self.scale_rate > 0:
            self._adapt_scale(prob, X0, Y0)
        x0, y0, x1, y1 = self._clip_rect(self._cx, self._cy, self._w, self._h, fw, fh)
        box = box_from_rect((x0, y0, x1 - x0, y1 - y0))
        likely = (prob >= 0.6).view(np.uint8)
        union = box_from_rect(cv2.boundingRect(likely))
        if union != (0, 0, 0, 0):
            union = (union[0] + X0, union[1] + Y0, union[2], union[3])
        area = int(np.count_nonzero(likely[y0 - Y0:y1 - Y0, x0 - X0:x1 - X0]))
        self.last_mask = likely
        self.last_mask_origin = (X0, Y0)
        if self.learn_rate > 0:
            ho, hs = self._histograms(idx, X0, Y0)     # the surround is clipped to the window
            a = self.learn_rate
            self._ho *= 1 - a
            self._ho += a * ho
            self._hs *= 1 - a
            self._hs += a * hs
            self._update_lut()
        return True, box, union, self._cx, self._cy, area, conf

    def _adapt_scale(self, prob: np.ndarray, X0: int, Y0: int) -> None:
        """Try widths and heights 0.92..1.08 times the current ones; keep the pair whose inside
        is most likely and whose ring (1.4 times the box) least, blended in at ``scale_rate``."""
        ii = cv2.integral(prob)
        H, W = prob.shape

        def mass(w: float, h: float) -> tuple[float, int]:
            x0 = int(np.clip(round(self._cx - w / 2 - X0), 0, W))
            x1 = int(np.clip(round(self._cx + w / 2 - X0), 0, W))
            y0 = int(np.clip(round(self._cy - h / 2 - Y0), 0, H))
            y1 = int(np.clip(round(self._cy + h / 2 - Y0), 0, H))
            return float(ii[y1, x1] - ii[y0, x1] - ii[y1, x0] + ii[y0, x0]), max(1, (x1 - x0) * (y1 - y0))

        best, best_a, best_b = -np.inf, 1.0, 1.0
        for a in _SIZE_STEPS:
            for b in _SIZE_STEPS:
                si, ai = mass(self._w * a, self._h * b)
                so, ao = mass(self._w * a * 1.4, self._h * b * 1.4)
                score = si / ai - (so - si) / max(1, ao - ai)
                if score > best:
                    best, best_a, best_b = score, a, b
        self._w = max(4.0, self._w * (1.0 + (best_a - 1.0) * self.scale_rate))
        self._h = max(4.0, self._h * (1.0 + (best_b - 1.0) * self.scale_rate))
