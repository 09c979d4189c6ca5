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
Settings: the ``tracker`` group (``sensekit settings tracker``); defaults: hue tolerance 12
degrees with saturation and value 80, ``min_area_px=20``, ``lost_after_frames=3``, One-Euro
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
from typing import Any, Literal, Sequence

import cv2
import numpy as np

from sensekit.errors import ConfigError
from sensekit.events import Box, ColorFound, ColorLost, ColorTracked, Event
from sensekit.settings import Tunable, group, setting
from sensekit.validate import check_frame
from sensekit.vision.segment import Segment, check_box, segment_box, segment_click
from sensekit.vision.smoothing import OneEuro2D
from sensekit.vision.stages import blur as blur_stage
from sensekit.vision.stages import box_from_rect, palette_lut, parse_color, rgb_to_bgr

__all__ = ["ColorTracker", "TrackResult", "parse_tolerance", "tolerance_settings"]

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


def tolerance_settings(value: str | float | Sequence[float]) -> dict[str, float]:
    """``"H"`` or ``"H,S,V"`` (a number or a triple too) -> the tracker settings it names:
    ``hue_tolerance`` (degrees 0..180), and with three numbers ``saturation_tolerance`` and
    ``value_tolerance`` (0..255). Checked against the table."""
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
    if len(nums) not in (1, 3):
        raise ConfigError(f"tolerance must be 'H' or 'H,S,V', got {value!r}")
    names = ColorTracker._TOLERANCE[:len(nums)]
    return ColorTracker.SETTINGS.check(dict(zip(names, nums, strict=True)))


def parse_tolerance(value: str | float | Sequence[float]) -> tuple[float, float, float]:
    """``"H"`` or ``"H,S,V"`` -> a triple; one number sets the hue and keeps the table's S and V."""
    full = {n: ColorTracker.SETTINGS[n].default for n in ColorTracker._TOLERANCE}
    full.update(tolerance_settings(value))
    h, s, v = (float(full[n]) for n in ColorTracker._TOLERANCE)
    return (h, s, v)


def _check_method(v: Any) -> None:
    if v["method"] == "model" and v["color"] is not None:
        raise ConfigError("`tracker.method` model learns the object from a click or a box, not from "
                          f"`tracker.color` ({v['color']}): set the colour to none, or the method to hsv or exact")


class ColorTracker(Tunable):
    """Stateful colour tracker. See the module docstring for the methods and their costs.

    ``color`` (``"#RRGGBB"``/int) starts an hsv/exact tracker; otherwise call ``pick(frame,
    x, y)`` or ``pick_box(frame, box)`` before ``update``. ``tolerance`` (``"H,S,V"`` or a
    triple) sets the three tolerance settings at once; every other keyword is a setting of
    the ``tracker`` group (``blur_px`` and ``levels`` pre-filter the frame for the hsv and exact
    methods: the book uses 10 and 4). ``method`` and ``color`` as settings are what to track
    by; what a click or box picked is state, not a setting.
    """

    SETTINGS = group(
        "tracker", "colour tracking: exact colour (the book), HSV tolerance, or a colour model",
        setting("method", None, "exact: the book's exact colour; hsv: within a tolerance; model: "
                "object/surround colour model", choices=("exact", "hsv", "model"),
                none="model for a click or box, hsv for a colour", flag="--track-method"),
        setting("color", None, "the colour to track (exact, hsv)", kind="color", none="pick one with a click"),
        setting("hue_tolerance", 12.0, "hue tolerance (hsv)", unit="deg", lo=0, hi=180, step=1.25, log_step=True),
        setting("saturation_tolerance", 80.0, "saturation tolerance (hsv)", unit="levels", lo=0, hi=255),
        setting("value_tolerance", 80.0, "value (brightness) tolerance (hsv)", unit="levels", lo=0, hi=255),
        setting("blur_px", 1, "the tracker's own box blur before exact/hsv matching (the book: 10)", unit="px",
                lo=1, hi=255),
        setting("levels", None, "the tracker's own palette levels before exact/hsv matching (the book: 4)",
                kind="int", lo=2, hi=256, none="no palette"),
        setting("min_area_px", 20, "smallest blob that counts as found (exact, hsv)", unit="px", lo=1, hi=1 << 30),
        setting("patch_px", 9, "side of the patch a click samples", unit="px", lo=1, hi=255),
        setting("lost_after_frames", 3, "frames without a match before color_lost", unit="frames", lo=1,
                hi=10_000),
        setting("smoothing", True, "One-Euro smoothing of the centre"),
        setting("min_cutoff_hz", 1.0, "One-Euro cutoff of a still target (lower: steadier)", unit="Hz",
                lo=0.001, hi=100),
        setting("beta", 0.05, "how fast the cutoff rises with speed (higher: less lag)", lo=0, hi=100),
        setting("grey_below_s", 40, "a target less saturated than this ignores hue (hsv)", unit="levels",
                lo=0, hi=255),
        setting("search", 2.0, "search window around the last position (model)", unit="box sizes", lo=0.25,
                hi=10),
        setting("motion_sigma", 1.5, "width of the motion prior (model)", unit="box sizes", lo=0.05, hi=100),
        setting("learn_rate", 0.02, "how fast the colour model follows the object (model)", lo=0, hi=1),
        setting("scale_rate", 0.2, "how fast the box follows size and aspect changes (model)", lo=0, hi=1),
        setting("surround", 0.6, "width of the surround ring (model)", unit="box sizes", lo=0.1, hi=5),
        setting("scene_weight", 1.0, "weight of the first frame outside the box in the surround (model)",
                lo=0, hi=100),
        setting("lost_below", 0.3, "model confidence below which the object is lost", lo=0, hi=1),
        setting("found_above", 0.45, "model confidence above which it is found again", lo=0, hi=1),
        rule=_check_method,
    )
    _TOLERANCE = ("hue_tolerance", "saturation_tolerance", "value_tolerance")
    # the plain settings as attributes (types only; the declaration above is the one place they live)
    blur_px: int
    levels: int | None
    min_area_px: int
    patch_px: int
    lost_after_frames: int
    smoothing: bool
    min_cutoff_hz: float
    beta: float
    grey_below_s: int
    search: float
    motion_sigma: float
    learn_rate: float
    scale_rate: float
    surround: float
    scene_weight: float
    lost_below: float
    found_above: float

    def __init__(self, color: int | str | None = None, *,
                 tolerance: str | float | Sequence[float] | None = None, **settings: Any) -> None:
        self.method: Method | None = None
        self.method_setting: Method | None = None
        self.color: int | None = None       # 0xRRGGBB target in use (exact / hsv)
        self.color_setting: str | None = None
        self._tolerance: tuple[float, float, float] = (0.0, 0.0, 0.0)
        self._hsv_target: tuple[float, float, float] | None = None
        self.smoother: OneEuro2D | None = None
        if tolerance is not None:
            settings.update(tolerance_settings(tolerance))
        if color is not None:
            settings["color"] = f"#{parse_color(color):06x}"
        self.init_settings(settings)
        self._make_smoother()
        self._hsv_tol: tuple[float, float, float] = self._tolerance
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

    # -- settings -------------------------------------------------------------
    def _store_setting(self, name: str, value: Any) -> None:
        if name in self._TOLERANCE:
            tol = list(self._tolerance)
            tol[self._TOLERANCE.index(name)] = float(value)
            self._tolerance = self._hsv_tol = (tol[0], tol[1], tol[2])
        elif name == "method":
            self.method_setting = value
            if value is not None:
                self.method = value
        elif name == "color":
            self.color_setting = value
            if value is not None:
                if self.method == "model":
                    self.method = None                 # a colour given: track it by colour
                self.set_color(value)
        elif name == "levels":
            self.levels = value
            self._lut = palette_lut(value) if value is not None else None
        else:
            setattr(self, name, value)

    def settings_changed(self, changed: Any) -> None:
        if changed.keys() & {"smoothing", "min_cutoff_hz", "beta"}:
            self._make_smoother()

    def _make_smoother(self) -> None:
        self.smoother = OneEuro2D(min_cutoff_hz=self.min_cutoff_hz, beta=self.beta) if self.smoothing else None

    def _read_setting(self, name: str) -> Any:
        if name in self._TOLERANCE:
            return self._tolerance[self._TOLERANCE.index(name)]
        if name == "method":
            return self.method_setting
        if name == "color":
            return self.color_setting
        return getattr(self, name)

    # -- choosing what to track ---------------------------------------------
    @property
    def tolerance(self) -> tuple[float, float, float]:
        """HSV tolerance (hue degrees, S, V). Setting it takes effect on the next frame."""
        return self._tolerance

    @tolerance.setter
    def tolerance(self, value: str | float | Sequence[float]) -> None:
        self.apply_now(**tolerance_settings(value))

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
        if self._pending:
            self.apply_pending()
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
            if self._lut is not None:                    # the target as it looks after the palette
                bgr = (int(self._lut[bgr[0]]), int(self._lut[bgr[1]]), int(self._lut[bgr[2]]))
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
