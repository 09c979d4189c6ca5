"""ColorTracker: follow a coloured object and report tracked / lost / found events.

Three methods, one interface (``pick``/``pick_box``/``set_color``, then ``update`` per frame):

- ``"exact"`` - the book: the picture's blur (``vision.blur_px``) and palette quantization
  (``vision.levels``; the table in ``palette``), then the pixels exactly equal to the picked
  (quantized) colour. Cheap (~0.3 ms at 320x240); fails on real objects whose colour varies
  with light (measured 0.00 success on the OTB clips).
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
  **Honest confidence**: the learnt model follows whatever it sits on, so every frame also
  compares the box's 8x8x8 colour histogram with the one taken at the pick (Bhattacharyya
  coefficient, ``ColorModel.appearance``); the confidence is the smaller of it and the mean
  probability, and a box below ``appearance_below`` (0.45) is a miss - after
  ``lost_after_frames`` misses ``color_lost``. While lost the whole frame is searched and the
  object is found again only above ``appearance_found`` (0.55) and at ``refind_ratio`` (0.7) of
  its typical similarity while tracked (the median of the last 60 tracked frames); an object
  lost with its box at the picture's edge is looked for only within ``refind_edge`` (1) box
  sizes of the edges it left by, until the view changes at once. Measured by
  ``benchmarks/found_eval.py`` and ``track_eval.py --loss`` (docs/tracking.md has the
  figures). The two thresholds were set on coke and tiger1 (the box's similarity on and off
  the object) and the coke-tiger1 return; another object of the same colours (a team-mate in
  the same shirt) is not told apart.
  **A changed view** (a cut, a camera swung away; ``view_change``: more than ``cut_above``,
  0.5, of a 32x24 thumbnail changed since the last frame) makes the box re-verify: searched in
  the whole frame at the found bars, and kept only within ``cut_margin`` (0.1) of the last
  tracked frame's similarity to the pick, else lost at once. Cut runs lost within 15 frames:
  24 of 28 (18 without it); tracking on the uncut clips unchanged (the cue never fires there).
  The other four were a click never confirmed, which now sends ``color_lost`` 3 frames after
  it, before the cut (24 of 24; see below and docs/tracking.md).
  A click is first segmented (``segment.segment_click``: a region grown from the click in an
  object/surround colour model when it is clean, else the extent measured from proposals
  around the click and, given the frames before it, their motion) and a box is cut out by
  GrabCut (``segment.segment_box``); ``picked`` keeps that ``Segment`` (box and mask) so an
  app can draw what was taken, and the tracker starts from its box. A measured click gets one
  second look (``click_refine``): ``refine_after_frames`` (9) frames later the extent is
  measured again at the tracked point with the frames since the click as history, and the
  model is re-seeded from it when its motion separation is above ``refine_gain`` (1) times the
  tracked box's; with ``refine_with_history`` off, only a click without frames before it (a
  camera's first frames, a still picture) gets it. With ``refine_looks`` above 1 (default 1),
  a look that re-seeded is followed by another ``refine_after_frames`` later, up to that many.
  ~3-8 ms per 640x480 frame (cost grows with the box size, not the frame size).

The tracker holds the settings, the pick and the events; the masks of the threshold methods
(exact, hsv) are in ``sensekit.vision.color_threshold``, the model in
``sensekit.vision.color_model`` and how the model method follows its object between frames
(a changed view, re-finding, a click's second look, another box of its pool) in
``sensekit.vision.model_follow``.

For every method the result has the largest connected blob (``box``; for ``"model"`` the
tracked window), the union box of all matching pixels (``union_box``, as
``getColorBoundsRect``), the centre smoothed by a One-Euro filter, the area and a confidence
in 0..1. After ``lost_after_frames`` frames without a match it emits ``color_lost`` (the model
then searches the whole frame); the next match emits ``color_found``. A click or a box that no
frame confirms (the model's box never as similar to the pick as ``appearance_below``) counts as
lost the same way: ``color_lost`` once after ``lost_after_frames`` frames, so an app can ask for
another click, and ``color_found`` if it is matched later. A colour given as a setting that is
not in view sends nothing until it is first seen.

Failure modes: a background of the same colour (hsv/exact pick the largest blob, which may be
the background); the model drifts when the object is fully hidden for long, or shares its
colours with the surround; a click on a multi-coloured object may pick only the part of one
colour (the logo of a can), which is then what is followed.
Settings: the ``tracker`` group (``sensekit settings tracker``); defaults: hue tolerance 12
degrees with saturation and value 80, ``min_area_px=20``, ``lost_after_frames=3``, One-Euro
``min_cutoff_hz=1``, ``beta=0.05``; model ``search=2``, ``motion_sigma=1.5``,
``learn_rate=0.02``, ``scale_rate=0.2``, ``surround=0.6``, ``scene_weight=1``,
``lost_below=0.3``, ``found_above=0.45``, ``refind_edge=1``, ``refind_ratio=0.7``,
``appearance_below=0.45``, ``appearance_found=0.55``. Measured from clicks on the developer clips by
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
from typing import Any, Mapping, Sequence

import cv2
import numpy as np

from sensekit.arg_types import checked
from sensekit.errors import ConfigError
from sensekit.events import Box, ColorFound, ColorLost, ColorTracked, Event
from sensekit.settings import Setting, Tunable, setting
from sensekit.validate import check_frame
from sensekit.vision.click_refine import ClickRefiner
from sensekit.vision.color_model import ColorModel, ModelSettings
from sensekit.vision.extent import HISTORY_FRAMES, ExtentExperiment
from sensekit.vision.color_threshold import exact_mask, hsv_mask, largest_blob, target_hsv
from sensekit.vision.click_pool import ClickPool
from sensekit.vision.model_follow import NO_EDGE, ModelFollow
from sensekit.vision.segment import Pool, Segment, check_box, segment_box, segment_click_pool
from sensekit.vision.smoothing import OneEuro2D
from sensekit.vision.stages import bgr_to_packed_rgb, packed_rgb_to_bgr, parse_color
from sensekit.vision.targets import DEFAULT_METHOD, Method, Target

__all__ = ["ColorTracker", "TrackResult", "parse_tolerance", "tolerance_settings"]




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


class ColorTracker(Tunable, ModelSettings, ModelFollow, section="tracker",
                   title="colour tracking: exact colour (the book), HSV tolerance, or a colour model",
                   rule=_check_method):
    """Stateful colour tracker. See the module docstring for the methods and their costs.

    ``color`` (``"#RRGGBB"``/int) starts an hsv/exact tracker; otherwise call ``pick(frame,
    x, y)`` or ``pick_box(frame, box)`` before ``update``. ``tolerance`` (``"H,S,V"`` or a
    triple) sets the three tolerance settings at once; every other keyword is a setting of
    the ``tracker`` group (the model method's settings are declared with the model,
    ``color_model.ModelSettings``). The tracker has no blur or palette of its own: the hsv and
    exact methods read the picture as ``VisionStage`` prepared it (``vision.blur_px``, then
    ``vision.levels``: the book uses 10 and 4); ``palette`` is the table that picture went
    through (``None``: none), so an exact colour is looked for as it looks after it. ``method`` and ``color``
    are the settings, what to track by; ``method_in_use`` and ``color_in_use`` (``0xRRGGBB``)
    are what a setting, a click or a box chose (state, not settings).
    """

    method: Setting[Method | None] = setting(
        None, "exact: the book's exact colour; hsv: within a tolerance; model: object/surround colour model",
        choices=("exact", "hsv", "model"), none="model for a click or box, hsv for a colour", flag="--track-method")
    color: Setting[str | None] = setting(
        None, "the colour to track (exact, hsv)", kind="color", none="pick one with a click")
    hue_tolerance = setting(12.0, "hue tolerance (hsv)", unit="deg", lo=0, hi=180, step=1.25, log_step=True)
    saturation_tolerance = setting(80.0, "saturation tolerance (hsv)", unit="levels", lo=0, hi=255)
    value_tolerance = setting(80.0, "value (brightness) tolerance (hsv)", unit="levels", lo=0, hi=255)
    min_area_px = setting(20, "smallest blob that counts as found (exact, hsv)", unit="px", lo=1, hi=1 << 30)
    patch_px = setting(9, "side of the patch a click samples", unit="px", lo=1, hi=255)
    lost_after_frames = setting(3, "frames without a match before color_lost", unit="frames", lo=1,
                                hi=10_000)
    smoothing = setting(True, "One-Euro smoothing of the centre")
    min_cutoff_hz = setting(1.0, "One-Euro cutoff of a still target (lower: steadier)", unit="Hz",
                            lo=0.001, hi=100)
    beta = setting(0.05, "how fast the cutoff rises with speed (higher: less lag)", lo=0, hi=100)
    refine_after_frames = setting(
        9, "frames after a measured click when its extent is measured again from the object's motion "
        "since (0: never; at least 6)", unit="frames", lo=0, hi=1000)
    refine_gain = setting(1.0, "how much better the motion must support the re-measured box than the "
                          "tracked one to re-seed the model from it", lo=0, hi=100)
    refine_looks = setting(1, "how many looks at most, one every refine_after_frames frames, each taken only "
                           "after a look that re-seeded", unit="looks", lo=1, hi=100)
    refine_with_history = setting(True, "a click with frames before it gets the second look too (off: only "
                                  "a click without them)")
    cut_above = setting(0.5, "share of the picture changed at once (32x24 thumbnail) above which the view "
                        "counts as changed and the box must match the pick as well as before (model; "
                        "1: never)", lo=0, hi=1)
    cut_margin = setting(0.1, "after a changed view, how far below the last tracked frame's similarity to "
                         "the pick the box may be and still be kept (model)", lo=0, hi=1)
    grey_below_s = setting(40, "a target less saturated than this ignores hue (hsv)", unit="levels",
                           lo=0, hi=255)
    _TOLERANCE = ("hue_tolerance", "saturation_tolerance", "value_tolerance")

    @checked
    def __init__(self, color: int | str | None = None, *,
                 tolerance: str | float | Sequence[float] | None = None, palette: np.ndarray | None = None,
                 **settings: Any) -> None:
        #: what a measured click's extent adds: None, the shipped extent (an evaluation's
        #: ``ExperimentTracker`` sets an ``extent.ExtentExperiment``)
        self.extent_experiment: ExtentExperiment | None = None
        self.method_in_use: Method | None = None
        self.color_in_use: int | None = None       # 0xRRGGBB target in use (exact / hsv)
        self._hsv_target: tuple[float, float, float] | None = None
        #: the tolerance in use: the settings', widened by a hsv pick to the patch's spread
        self._tolerance_in_use: tuple[float, float, float] = (0.0, 0.0, 0.0)
        #: the palette table (``stages.palette_lut``) the frames it reads went through, or ``None``
        self.palette = palette
        self.smoother: OneEuro2D | None = None
        if tolerance is not None:
            settings.update(tolerance_settings(tolerance))
        if color is not None:
            settings["color"] = f"#{parse_color(color):06x}"
        self.init_settings(settings)
        self.settings_changed(self.settings())
        self.model = ColorModel(self)       # the "model" method's histograms and box
        # event state
        self.frames = 0
        self.misses = 0
        self.lost = False
        self.ever_found = False
        #: a click or a box chose what to track and no frame has matched it since: a miss of
        #: ``lost_after_frames`` frames then sends ``color_lost`` as for an object lost later
        self.unconfirmed = False
        self.last: TrackResult | None = None
        self.last_mask: np.ndarray | None = None     # hsv/exact: frame-sized; model: search window
        self.last_mask_origin: tuple[int, int] = (0, 0)
        self.init_following()

    @classmethod
    def for_target(cls, target: Target, forced: str | None = None, **settings: Any) -> ColorTracker:
        """A new tracker with ``settings`` for ``target``, not yet picked: the method in use is
        ``target.method(...)`` of ``forced``, else of the ``method`` setting (the one rule); a
        colour target's colour is its ``color`` setting."""
        in_use = target.method(forced if forced is not None else settings.get("method"))
        tracker = cls(target.color, **settings)
        tracker.method_in_use = in_use
        return tracker

    # -- settings -------------------------------------------------------------
    def settings_changed(self, changed: Mapping[str, Any]) -> None:
        if "method" in changed and self.method is not None:
            was, self.method_in_use = self.method_in_use, self.method
            if self.method == "hsv" and was != "hsv" and self.color_in_use is not None:
                # tracking a click or a box by model or exact: hsv goes on from its colour
                self._hsv_target = target_hsv(packed_rgb_to_bgr(self.color_in_use))
                self._tolerance_in_use = self.tolerance
        if "color" in changed and self.color is not None:
            if self.method_in_use == "model":
                self.method_in_use = None              # a colour given: track it by colour
            self.set_color(self.color)
        if changed.keys() & set(self._TOLERANCE):
            self._tolerance_in_use = self.tolerance
        if changed.keys() & {"smoothing", "min_cutoff_hz", "beta"}:
            self._make_smoother()

    def _make_smoother(self) -> None:
        self.smoother = OneEuro2D(min_cutoff_hz=self.min_cutoff_hz, beta=self.beta) if self.smoothing else None

    # -- choosing what to track ---------------------------------------------
    @property
    def tolerance(self) -> tuple[float, float, float]:
        """HSV tolerance (hue degrees, S, V): the three settings. Setting it takes effect on the
        next frame."""
        return (self.hue_tolerance, self.saturation_tolerance, self.value_tolerance)

    @tolerance.setter
    def tolerance(self, value: str | float | Sequence[float]) -> None:
        self.apply_now(**tolerance_settings(value))

    @property
    def reads_prepared(self) -> bool:
        """Whether ``update`` (and a pick) wants the picture as ``VisionStage`` prepared it (blurred,
        then through ``palette``: hsv and exact) rather than the frame (the model method, or no
        method chosen yet)."""
        return self.method_in_use in ("hsv", "exact")

    @property
    def ready(self) -> bool:
        return self.model.ready if self.method_in_use == "model" else self.color_in_use is not None

    def set_color(self, color: int | str) -> None:
        """Track this ``0xRRGGBB`` colour (hsv by default, or exact)."""
        self.color_in_use = parse_color(color)
        if self.method_in_use is None or self.method_in_use == "model":
            if self.method_in_use == "model":
                raise ConfigError("the 'model' method needs pick(frame, x, y) or pick_box(frame, box), not a colour")
            self.method_in_use = DEFAULT_METHOD["color"]
        self._hsv_target = target_hsv(packed_rgb_to_bgr(self.color_in_use))
        self._tolerance_in_use = self.tolerance

    def pick(self, frame: np.ndarray, x: float, y: float, *, patch_px: int | None = None,
             history: Sequence[np.ndarray] = ()) -> None:
        """Pick what to track by a click at pixel ``(x, y)`` of ``frame`` (BGR, as shown);
        ``history``: the frames before it, oldest first (the model method measures the
        object's motion from them, see ``segment_click``).

        Samples a ``patch_px`` square (the setting, unless given); hsv takes its median colour
        and widens the tolerance by the patch's spread; exact takes the clicked pixel of the pre-filtered frame; model
        segments the object under the click (``segment_click``, kept in ``picked``) and
        learns it from that box.
        """
        check_frame(frame)
        h, w = frame.shape[:2]
        if not (0 <= x < w and 0 <= y < h):
            raise ConfigError(f"click ({x}, {y}) is outside the {w}x{h} frame")
        xi, yi = int(x), int(y)
        self.unconfirmed = True
        if self.method_in_use is None:
            self.method_in_use = DEFAULT_METHOD["click"]
        r = (self.patch_px if patch_px is None else patch_px) // 2
        x0, y0, x1, y1 = max(0, xi - r), max(0, yi - r), min(w, xi + r + 1), min(h, yi + r + 1)
        if self.method_in_use == "exact":
            self.color_in_use = bgr_to_packed_rgb(frame[yi, xi])
            return
        patch = frame[y0:y1, x0:x1]
        hsv = cv2.cvtColor(np.ascontiguousarray(patch), cv2.COLOR_BGR2HSV).reshape(-1, 3).astype(np.float64)
        med = np.median(hsv, axis=0)
        hue_dev = np.abs(((hsv[:, 0] - med[0] + 90) % 180) - 90)   # hue units (2 degrees)
        spread = (2.0 * np.percentile(hue_dev, 90) * 2.0,
                  np.percentile(np.abs(hsv[:, 1] - med[1]), 90) * 2.0,
                  np.percentile(np.abs(hsv[:, 2] - med[2]), 90) * 2.0)
        bgr = cv2.cvtColor(np.array([[med]], np.uint8), cv2.COLOR_HSV2BGR)[0, 0]
        target_rgb = bgr_to_packed_rgb(bgr)
        if self.method_in_use == "hsv":
            self.color_in_use = target_rgb
            self._hsv_target = (float(med[0]) * 2.0, float(med[1]), float(med[2]))
            h_tol, s_tol, v_tol = (float(max(a, min(b, lim))) for a, b, lim in
                                   zip(self.tolerance, spread, (45.0, 120.0, 120.0)))
            self._tolerance_in_use = (h_tol, s_tol, v_tol)
            return
        # model: the object under the click, as a box and a mask
        self.color_in_use = target_rgb
        self.picked, measured = self._click_pool(frame, x, y, history)
        self._start_model(frame, self.picked)
        self.pool = ClickPool(frame, (x, y), self.picked, history=history,
                              proposals=None if measured is None else measured[0],
                              values=None if measured is None else measured[1], experiment=self.extent_experiment)
        self._anchor = (self.model.cx - x, self.model.cy - y)
        moving = len([f for f in history if f.shape == frame.shape]) >= max(HISTORY_FRAMES)
        self.refiner = None
        self.looks = 0
        if (self.refine_after_frames > 0 and self.picked.method == "proposal"
                and (self.refine_with_history or not moving)):
            self.refiner = self._refiner(frame)

    def _refiner(self, frame: np.ndarray) -> ClickRefiner:
        """The second look at a measured click (``ClickRefiner``; each later look is made of the
        same class); an evaluation's subclass may record its decisions (``benchmarks/refine_looks.py``)."""
        return ClickRefiner(frame, self.refine_after_frames, self.refine_gain, self.extent_experiment)

    def _click_pool(self, frame: np.ndarray, x: float, y: float, history: Sequence[np.ndarray]
                    ) -> tuple[Segment, Pool | None]:
        """A measured click's first box and the pool it was measured from (``segment_click_pool``);
        an evaluation's ``ExperimentTracker`` may take its first box another way."""
        return segment_click_pool(frame, x, y, history=history, experiment=self.extent_experiment)

    def pick_box(self, frame: np.ndarray, box: Sequence[float]) -> None:
        """Learn the object from a box ``(x, y, w, h)`` of ``frame``.

        The model method learns object and surround histograms from the box, and keeps what
        GrabCut finds inside it in ``picked`` (``segment_box``); hsv and exact take the box's
        median colour.
        """
        x, y, w, h = check_box(frame, box)
        fh, fw = frame.shape[:2]
        self.unconfirmed = True
        if self.method_in_use is None:
            self.method_in_use = DEFAULT_METHOD["box"]
        if self.method_in_use != "model":
            # Centre patch of the box, as a click at its centre with a patch of half its size.
            self.pick(frame, min(fw - 1, x + w / 2), min(fh - 1, y + h / 2),
                      patch_px=max(1, int(min(w, h) // 2) | 1))
            return
        self.picked = segment_box(frame, (x, y, w, h))
        self._start_model(frame, self.picked)
        self.refiner = None
        self.pool = None

    # -- per frame --------------------------------------------------------------
    def update(self, frame: np.ndarray, t: float | None = None) -> TrackResult:
        """Track in one frame (for hsv/exact: as blurred and palette-mapped by the stage)."""
        if self._pending:
            self.apply_pending()
        check_frame(frame)
        if not self.ready:
            raise ConfigError("ColorTracker has nothing to track: give a colour or call pick()/pick_box() first")
        self.frames += 1
        if t is None:
            t = self.frames / 30.0
        if self.method_in_use == "model":
            match = self._update_model(frame)
        else:
            assert self.color_in_use is not None
            if self.method_in_use == "exact":
                mask = exact_mask(frame, self.color_in_use, self.palette)
            else:
                assert self._hsv_target is not None
                mask = hsv_mask(frame, self._hsv_target, self._tolerance_in_use, grey_below_s=self.grey_below_s)
            self.last_mask = mask
            match = largest_blob(mask, self.min_area_px)
        found, box, union, raw_cx, raw_cy, area, conf = match
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
            if self.misses == self.lost_after_frames and self.method_in_use == "model":
                self.lost_over_edge = NO_EDGE if self.view_changed else self._edges(frame)
        result = TrackResult(found, box, union, float(cx), float(cy), float(raw_cx), float(raw_cy),
                             int(area), float(conf))
        self.last = result
        return result

    def coverage(self, frame_px: int) -> float:
        """The share of a frame of ``frame_px`` pixels the last match covers: the matching pixels
        (exact, hsv) or the tracked box (model); 0 when nothing was found."""
        r = self.last
        if r is None or not r.found or frame_px <= 0:
            return 0.0
        if self.method_in_use != "model" and self.last_mask is not None:
            return cv2.countNonZero(self.last_mask) / frame_px
        return r.box[2] * r.box[3] / frame_px

    def region_mask(self, shape: tuple[int, ...]) -> np.ndarray | None:
        """The last match's colour mask in a frame of ``shape`` (HxW non-zero = on; the model
        method keeps only its search window, placed where it was); ``None`` before an update."""
        mask = self.last_mask
        if mask is None or mask.shape[:2] == shape[:2]:
            return mask
        x0, y0 = self.last_mask_origin
        full = np.zeros(shape[:2], np.uint8)
        h = max(0, min(mask.shape[0], shape[0] - y0))
        w = max(0, min(mask.shape[1], shape[1] - x0))
        full[y0:y0 + h, x0:x0 + w] = mask[:h, :w]
        return full

    def events(self, result: TrackResult, t: float, frame_size: tuple[int, int]) -> list[Event]:
        """Turn one result into events: tracked every found frame, lost once, found again."""
        w, h = frame_size
        out: list[Event] = []
        if result.found:
            if self.lost:
                self.lost = False
                out.append(ColorFound(t=t, cx=result.cx, cy=result.cy))
            self.ever_found = True
            self.unconfirmed = False
            out.append(ColorTracked(t=t, box=result.box, union_box=result.union_box,
                                    cx=result.cx, cy=result.cy, nx=result.cx / w, ny=result.cy / h,
                                    area_px=result.area_px, confidence=result.confidence))
        elif (self.ever_found or self.unconfirmed) and not self.lost and self.misses >= self.lost_after_frames:
            self.lost = True
            out.append(ColorLost(t=t))
        return out

    def step(self, frame: np.ndarray, t: float) -> list[Event]:
        """``update`` then ``events``."""
        result = self.update(frame, t)
        return self.events(result, t, (frame.shape[1], frame.shape[0]))
