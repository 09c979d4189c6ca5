"""VisionStage: the vision sub-stages as one runner stage that shares work between them.

Per frame it computes, only when a running sub-stage needs them, the shared intermediates
into reused buffers: ``mirrored`` (if ``mirror``, unless ``input_mirrored``: the frames come
mirrored already, as in an app), ``blurred`` (box blur ``blur_px``) and
``quantized`` (palette ``levels``). Sub-stages and what they read:

==========  =========================================  ====================================
sub-stage   emits                                      input
==========  =========================================  ====================================
track       color_tracked, color_lost, color_found      quantized (hsv/exact), mirrored (model)
bounds      color_bounds (book ``getColorBoundsRect``)  quantized
motion      motion, still                               blurred
blobs       blobs, blob_enter/leave, zone_enter/leave   the motion mask (motion runs too)
edges       edges (map in ``edge_map``)                 mirrored
==========  =========================================  ====================================

Laziness: the runner skips the whole stage when nobody listens to any of its events, and
tells it who listens (``listen(wanted)``, see ``sensekit/runner.py``), so the stage also skips
each sub-stage nobody listens to: a pipeline whose app only listens to ``motion`` never
computes edges or palette maps. Until the runner calls ``listen`` every sub-stage runs.
``blobs`` (a ``BlobTracker``) runs on the motion detector's mask; with ``motion_events=False``
the detector runs for the blobs only and its ``motion``/``still`` events are not emitted.
``always_run={"edges"}`` keeps a sub-stage running for apps that read its state directly
(``edge_map``, ``motion_result``, ``track_result``). ``runs`` counts what actually ran.

Settings: the stage's ``vision`` group (mirror, blur, palette, edges) and those of its tracker
and motion detector (``tunables()``); a change through ``apply`` takes effect at the next frame
(one integer comparison per frame when nothing changed). Defaults: no mirror, blur 1 (off), no
palette, edges horizontal with a 3x3 blur and threshold 0x22. Cost: the
sum of the sub-stages' OpenCV calls plus ~10-30 us of Python per frame; the benchmark in
``benchmarks/vision.py`` compares it with the raw OpenCV chain (ratio <= 1.10).
What to track goes through one door, ``track(Target)`` (a click, a box or a colour; from an
app, the CLI, ``--pick`` or the panel): stored, and applied by the run's thread to the next
frame; ``pick_at`` (a click) or ``pick_box`` (x, y, w, h) of the constructor are the same for
the first frame. After a click, ``Target.grow()`` / ``Target.shrink()`` and a click on the same
spot (``AGAIN_SHARE``) restart the tracker on another box of that click's pool
(``click_pool``, no new segmentation); ``gesture`` says what the last one did.
What it shows (``sensekit.vision.shapes``): ``offers()`` names the overlays it fills, ``layers(index)``
returns what the sub-stages that ran on that frame made (its buffers, typed: built by
``sensekit.vision.stage_layers``), ``recipe()`` how to
compute the rest; the panel and the app overlays draw only from those.
Failure modes: a ``pick_at`` click or a ``pick_box`` outside the first frame raises ``ConfigError``.
"""
from __future__ import annotations

import logging
from collections import Counter, deque
from collections.abc import Set as AbstractSet
from typing import Any, Iterable, Iterator, Literal, Mapping

import cv2
import numpy as np

from sensekit.arg_types import checked
from sensekit.capture.base import Item, VideoFrame
from sensekit.errors import ConfigError
from sensekit.events import ColorBounds, Edges, Event
from sensekit.settings import Setting, Tunable, setting
from sensekit.settings.live import catch_up
from sensekit.validate import check_frame
from sensekit.vision.blob_tracker import BlobTracker
from sensekit.vision.click_pool import ClickPool
from sensekit.vision.color_tracker import ColorTracker, TrackResult
from sensekit.vision.extent import HISTORY_FRAMES
from sensekit.vision.motion import MotionDetector, MotionResult
from sensekit.vision.segment import Segment
from sensekit.vision.shapes import Layer, Recipe
from sensekit.vision.targets import Target
from sensekit.vision.stage_layers import blob_layers as blob_layers  # where it was before house25
from sensekit.vision.stage_layers import frame_layers, zone_layers
from sensekit.vision.stages import (EDGE_THRESHOLD, bgr_to_packed_rgb, blur, book_edge_filter, box_from_rect, mirror,
                                    palette_lut, parse_color, packed_rgb_to_bgr)

__all__ = ["VisionStage", "SUBSTAGE_EMITS", "COVERS_MOST", "AGAIN_SHARE"]

log = logging.getLogger(__name__)

#: a tracked match covering more than this share of the frame gets a warning
COVERS_MOST = 0.5
#: a click within this share of the frame's short side of the last click's point (as it moved
#: since) is a click again: that click's next guess (``click_pool``), not a new segmentation
AGAIN_SHARE = 0.03

SUBSTAGE_EMITS: dict[str, frozenset[str]] = {
    "track": frozenset({"color_tracked", "color_lost", "color_found"}),
    "bounds": frozenset({"color_bounds"}),
    "motion": frozenset({"motion", "still"}),
    "blobs": BlobTracker.emits,
    "edges": frozenset({"edges"}),
}


class VisionStage(Tunable, section="vision",
                  title="the vision stage: shared frame preparation and the edge sub-stage"):
    """A runner stage running the enabled vision sub-stages on shared, reused buffers.

    The shared preparation and the edge sub-stage are the ``vision`` settings group; a
    keyword left at ``None`` takes the table's default.
    """

    consumes: Literal["video"] = "video"
    mirror = setting(False, "flip frames left-right first (coordinates are then mirrored)",
                     flag="--mirror")
    blur_px = setting(1, "box blur before colour tracking, bounds and motion (the book: 10; 1: off)",
                      unit="px", lo=1, hi=255, flag="--blur")
    levels: Setting[int | None] = setting(
        None, "palette levels per channel before colour tracking and bounds (the book: 4)",
        kind="int", lo=2, hi=256, none="no palette", flag="--levels")
    palette_spread = setting(False, "spread the levels over 0..255 (4: 0, 85, 170, 255) instead of the "
                             "book's 0, 64, 128, 192")
    edge_direction: Setting[Literal["horizontal", "any"]] = setting(
        "horizontal", "horizontal: the book's [0, 4, -4] kernel; any: Sobel magnitude",
        choices=("horizontal", "any"), flag="--edge-direction")
    edge_blur_px = setting(3, "box blur of the edge map (the book: Flash's BlurFilter() default, 4)",
                           unit="px", lo=1, hi=255)
    edge_threshold: Setting[int] = setting(EDGE_THRESHOLD, "edge values below this become 0 (the book: 0x22)",
                                           unit="pixel levels", lo=0, hi=256, step=8)


    @checked
    def __init__(self, *, mirror: bool | None = None, input_mirrored: bool = False,
                 blur_px: int | None = None, levels: int | None = None, palette_spread: bool | None = None,
                 tracker: ColorTracker | None = None, pick_at: tuple[float, float] | None = None,
                 pick_box: tuple[float, float, float, float] | None = None,
                 bounds_color: int | str | None = None,
                 motion: MotionDetector | None = None, blobs: BlobTracker | None = None,
                 motion_events: bool = True,
                 edges: bool = False, edge_direction: Literal["horizontal", "any"] | None = None,
                 edge_blur_px: int | None = None, edge_threshold: int | None = None,
                 always_run: Iterable[str] = ()) -> None:
        given = {"mirror": mirror, "blur_px": blur_px, "levels": levels,
                 "palette_spread": palette_spread, "edge_direction": edge_direction,
                 "edge_blur_px": edge_blur_px, "edge_threshold": edge_threshold}
        self.init_settings({k: v for k, v in given.items() if v is not None})
        self._input_mirrored = input_mirrored
        self._shape: tuple[int, ...] | None = None
        self._bounds_color = None if bounds_color is None else parse_color(bounds_color)
        self._derive()
        self.tracker = tracker
        self._target: tuple[Target, str | None] | None = None    # asked for, applied at the next frame
        self._pick: Target | None = None                           # a click or box the tracker has to pick
        #: another box of the last click (grow, shrink, click again) the tracker starts on
        self._pool_pick: tuple[ClickPool, Segment, tuple[float, float]] | None = None
        #: what the last grow, shrink or click again did (for the app's HUD and the panel)
        self.gesture = ""
        #: the last frames as the tracker sees them (oldest first), kept while a click may come
        #: for the model method: a click measures the object's motion from them (``segment_click``)
        self.history: deque[np.ndarray] = deque(maxlen=max(HISTORY_FRAMES))
        #: the last target applied (its click colour ``bgr`` kept; a grow, shrink or click again
        #: keeps the click's), ``None`` before one
        self.target: Target | None = None
        self._coverage_warning: str | None = None
        if (pick_at is not None or pick_box is not None) and tracker is None:
            raise ConfigError("`pick_at` and `pick_box` need a tracker")
        if pick_at is not None:
            self.track(Target.click(*pick_at))
        if pick_box is not None:
            self.track(Target.region(pick_box))
        self.motion = motion
        if blobs is not None and motion is None:
            raise ConfigError("`blobs` needs a motion detector (its mask)")
        self.blobs = blobs
        wanted = {"track": tracker is not None, "bounds": self._bounds_color is not None,
                  "motion": motion is not None and (motion_events or blobs is None),
                  "blobs": blobs is not None, "edges": edges}
        self.enabled: tuple[str, ...] = tuple(name for name, on in wanted.items() if on)
        always = set(always_run)
        unknown = always - set(SUBSTAGE_EMITS)
        if unknown:
            raise ConfigError(f"unknown sub-stage(s) {sorted(unknown)} in always_run; known: {sorted(SUBSTAGE_EMITS)}")
        self.always = frozenset(always)
        self.always_run = bool(self.always & set(self.enabled))
        self._active: tuple[str, ...] = self.enabled    # the sub-stages to run (``listen``)
        self.emits: frozenset[str] = frozenset().union(*(SUBSTAGE_EMITS[s] for s in self.enabled))
        self.runs: Counter[str] = Counter()
        self._runs_before: dict[str, int] = {}     # ``runs`` as the last frame began (``layers``)
        self._last_index = -1                        # the last frame's index (``layers``)
        # results apps may read
        self.frame: np.ndarray | None = None
        self.edge_map: np.ndarray | None = None
        #: the palette-mapped frame (``levels``), when a sub-stage needed it on this frame
        self.quantized: np.ndarray | None = None
        self.track_result: TrackResult | None = None
        self.motion_result: MotionResult | None = None
        self.bounds: tuple[int, int, int, int] = (0, 0, 0, 0)
        self._seen_generation = -1
        # buffers
        self._m: np.ndarray | None = None
        self._b: np.ndarray | None = None
        self._b_other: np.ndarray | None = None
        self._q: np.ndarray | None = None
        self._e: np.ndarray | None = None
        self._hit: np.ndarray | None = None

    # -- settings -----------------------------------------------------------------------
    def _derive(self) -> None:
        """The palette table and the bounds colour as it looks after the palette."""
        self._lut = palette_lut(self.levels, spread=self.palette_spread) if self.levels is not None else None
        self.bounds_rgb: int | None = None
        self._bounds_bgr: tuple[int, int, int] | None = None
        if self._bounds_color is not None:
            rgb = self._bounds_color
            if self._lut is not None:   # look for the colour as it looks after quantization
                rgb = bgr_to_packed_rgb([self._lut[c] for c in packed_rgb_to_bgr(rgb)])
            self.bounds_rgb = rgb
            self._bounds_bgr = packed_rgb_to_bgr(rgb)

    def settings_changed(self, changed: Mapping[str, Any]) -> None:
        self._derive()
        if "edge_direction" in changed:
            self._shape = None                  # the edge buffer changes shape

    def tunables(self) -> Iterator[Tunable]:
        yield self
        for part in (self.tracker, self.motion, self.blobs):
            if isinstance(part, Tunable):
                yield from part.tunables()

    # -- helpers ----------------------------------------------------------------------
    def track(self, target: Target, *, method: str | None = None) -> None:
        """Track ``target`` (a click, a box or a colour) from the next frame on: the one door
        for what to track. Thread-safe: it only stores the request; the run's thread applies it
        to the next frame this stage processes (the same frame the pick reads, mirrored as
        shown). The stage's tracker is replaced by a new one that keeps the run's tracker
        settings, ``tracker.method`` with them; ``method`` forces one for this target, else that
        setting decides by the one rule, ``Target.method``. ``ConfigError`` if the stage has no tracker or the
        target cannot be tracked by that method (a colour by the model, a box by a colour)."""
        if self.tracker is None:
            raise ConfigError("this vision stage tracks nothing (build it with a tracker)")
        target.method(method if method is not None else self.tracker.method)
        self._target = (target, method)

    def warnings(self) -> list[str]:
        """What the user should know about what is tracked now (for the panel's status and the
        app's HUD): a tracked colour that covers most of the frame."""
        return [self._coverage_warning] if self._coverage_warning else []

    def _check_coverage(self, tracker: ColorTracker, frame_px: int) -> None:
        share = tracker.coverage(frame_px)
        if share > COVERS_MOST:
            if self._coverage_warning is None:
                color = f"#{tracker.color_in_use:06x}" if tracker.color_in_use is not None else "the picked object"
                log.warning("the tracked colour %s covers %.0f %% of the frame: pick again on the object "
                            "or narrow the tolerance", color, 100 * share)
            self._coverage_warning = (f"the tracked colour covers {100 * share:.0f} % of the frame: "
                                      "pick again on the object or narrow the tolerance")
        elif share < 0.8 * COVERS_MOST:
            self._coverage_warning = None

    @property
    def pending_target(self) -> Target | None:
        """The target asked for and not yet applied."""
        pending = self._target
        return None if pending is None else pending[0]

    def _apply_target(self) -> None:
        pending, self._target = self._target, None
        if pending is None or self.tracker is None:
            return
        target, method = pending
        old = self.tracker
        keep = {k: v for k, v in old.settings().items() if k != "color"}
        if target.kind == "resize" or self._again(old, target):
            self._from_pool(old, target, keep)
            return
        self.tracker = ColorTracker.for_target(target, method, **keep)
        self._pick = None if target.kind == "color" else target
        self.target = target

    def _again(self, old: ColorTracker, target: Target) -> bool:
        """Whether a click lands on the last click's spot (within ``AGAIN_SHARE`` of the
        frame's short side of where that click's point is now)."""
        point, frame = old.click_point(), self.frame
        if target.kind != "click" or target.point is None or point is None or frame is None:
            return False
        reach = max(4.0, AGAIN_SHARE * min(frame.shape[:2]))
        return bool(np.hypot(target.point[0] - point[0], target.point[1] - point[1]) <= reach)

    def _from_pool(self, old: ColorTracker, target: Target, keep: dict[str, Any]) -> None:
        """A grow, a shrink or a click again: the last click's next box (``click_pool``, no new
        segmentation), tracked by a new tracker with the run's settings from this frame;
        nothing changes when there is no such box (``gesture`` says why)."""
        pool, point = old.pool, old.click_point()
        if pool is None or point is None:
            self.gesture = "no click to grow or shrink: click the object first"
            return
        if target.kind == "resize":
            segment = pool.step(target.step, None if old.picked is None else old.picked.box)
            what = "larger" if target.step > 0 else "smaller"
        else:
            segment, what = pool.again(), "other"
        if segment is None:
            self.gesture = f"no {what} box around the click"
            return
        self.gesture = f"{what} box {segment.box[2]}x{segment.box[3]} px"
        # the pool's box is tracked by the colour model, the user's ``tracker.method`` setting kept
        self.tracker = ColorTracker.for_target(Target.region(segment.box), "model", **keep)
        self._pool_pick = (pool, segment, (point[0] - pool.point[0], point[1] - pool.point[1]))
        self._pick = None                 # ``target`` stays the click's (its colour kept)

    @property
    def _tracker_reads(self) -> Literal["q", "m"]:
        """What the tracker reads: ``q`` the shared blurred and palette-mapped picture (hsv/exact;
        ``vision.blur_px`` then ``vision.levels``: one home each), ``m`` the frame (the model
        method).

        A property, so an app may swap ``tracker`` between frames.
        """
        t = self.tracker
        return "q" if t is not None and t.reads_prepared else "m"

    def input_is_mirrored(self) -> None:
        """The frames arrive mirrored (an app's host): ``mirror`` asks for what they are already
        and flips nothing (``runner.MirrorsInput``)."""
        self._input_mirrored = True

    def listen(self, wanted: AbstractSet[str]) -> None:
        """Run only the sub-stages whose events are in ``wanted``, plus ``always_run`` ones
        (called by the runner whenever the handlers change)."""
        self._active = tuple(s for s in self.enabled
                             if s in self.always or SUBSTAGE_EMITS[s] & wanted)

    def _alloc(self, image: np.ndarray) -> None:
        shape = image.shape
        self._shape = shape
        self._m = np.empty(shape, np.uint8)
        self._b = np.empty(shape, np.uint8)
        self._b_other = np.empty(shape, np.uint8)   # the motion detector keeps the previous one
        self._q = np.empty(shape, np.uint8)
        self._e = np.empty(shape if self.edge_direction == "horizontal" else shape[:2], np.uint8)
        self._e_rows = self._e.reshape(shape[0], -1)      # same buffer, 2-D, for countNonZero
        self._hit = np.empty(shape[:2], np.uint8)

    # -- the stage ------------------------------------------------------------------------
    def process(self, item: Item) -> list[Event]:
        if not isinstance(item, VideoFrame):
            return []
        self._runs_before, self._last_index = dict(self.runs), item.index
        self._seen_generation = catch_up(self._seen_generation, self.tunables)  # a setting changed?
        image = item.image
        if getattr(image, "shape", ()) != self._shape:       # (a None image fails the check)
            check_frame(image, "frame image")
            self._alloc(image)
        active = self._active
        if not active:
            return []
        t = item.t
        m, b, q = self._prepare(image, active)
        events: list[Event] = []
        if "track" in active and self.tracker is not None and (self.tracker.ready or self._pick is not None
                                                               or self._pool_pick is not None):
            self._run_track(self.tracker, {"m": m, "q": q}, t, events)   # (one waiting for a pick is skipped)
        if "track" in active and self.tracker is not None and self.tracker.method_in_use in (None, "model"):
            self.history.append(m.copy())                  # the frames a later click looks back on
        if "bounds" in active:
            self._run_bounds(q, t, events)
        if "motion" in active or "blobs" in active:
            self._run_motion(b, active, t, events)
        if "edges" in active:
            e = self._edges(m)
            self.edge_map = e
            count = cv2.countNonZero(self._e_rows)
            events.append(Edges(t=t, nonzero=count, fraction=count / e.size))
            self.runs["edges"] += 1
        return events

    def _prepare(self, image: np.ndarray, active: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The shared intermediates, computed once and only if needed: the mirrored frame ``m``,
        the blurred ``b``, the palette-mapped ``q``."""
        runs = self.runs
        m = image
        if self.mirror and not self._input_mirrored:
            m = mirror(image, dst=self._m)
            runs["mirror"] += 1
        self.frame = m
        if self._target is not None and "track" in active:
            self._apply_target()
        reads = self._tracker_reads if "track" in active else "m"
        run_motion = "motion" in active or "blobs" in active
        b = m
        if (run_motion or "bounds" in active or reads != "m") and self.blur_px > 1:
            if run_motion:           # alternate buffers: the detector keeps last frame's by reference
                self._b, self._b_other = self._b_other, self._b
            b = blur(m, size_px=self.blur_px, dst=self._b)
            runs["blur"] += 1
        q = b
        if self._lut is not None and ("bounds" in active or reads == "q"):
            q = self.quantized = cv2.LUT(b, self._lut, dst=self._q)
            runs["palette"] += 1
        return m, b, q

    def _run_track(self, tracker: ColorTracker, pictures: dict[str, np.ndarray], t: float,
                   events: list[Event]) -> None:
        """Pick (a click or box waiting), then track on the picture ``_tracker_reads`` names."""
        m = pictures["m"]
        pick, self._pick = self._pick, None
        again, self._pool_pick = self._pool_pick, None
        tracker.palette = self._lut                 # what the picture it reads went through
        if again is not None:
            tracker.restart_on(again[0], again[1], m, again[2])
        elif pick is not None and pick.point is not None:
            seen = pictures[self._tracker_reads]
            tracker.pick(seen, *pick.point, history=[h for h in self.history if h.shape == seen.shape])
        elif pick is not None and pick.box is not None:
            tracker.pick_box(pictures[self._tracker_reads], pick.box)
        reads = self._tracker_reads              # picking may have chosen the method
        result = tracker.update(pictures[reads], t)
        self.track_result = result
        self._check_coverage(tracker, m.shape[0] * m.shape[1])
        events.extend(tracker.events(result, t, (m.shape[1], m.shape[0])))
        self.runs["track"] += 1

    def _run_bounds(self, q: np.ndarray, t: float, events: list[Event]) -> None:
        bgr = self._bounds_bgr
        assert bgr is not None
        hit = cv2.inRange(q, bgr, bgr, dst=self._hit)
        self.bounds = box_from_rect(cv2.boundingRect(hit))
        events.append(ColorBounds(t=t, box=self.bounds, color=self.bounds_rgb or 0))
        self.runs["bounds"] += 1

    def _run_motion(self, b: np.ndarray, active: tuple[str, ...], t: float, events: list[Event]) -> None:
        """The motion detector on the blurred frame, then the blob tracker on its mask."""
        motion = self.motion
        assert motion is not None
        result_m = motion.update(b, owned=b is self._b)
        self.motion_result = result_m
        if "motion" in active:
            events.extend(motion.events(result_m, t))
        self.runs["motion"] += 1
        if "blobs" in active and self.blobs is not None:
            self.blobs.zones = motion.zone_boxes
            events.extend(self.blobs.update(result_m.mask, t))
            self.runs["blobs"] += 1

    # -- what it shows (sensekit.vision.layers; the layers themselves: stage_layers.py) -------
    def offers(self) -> frozenset[str]:
        """The overlays this stage fills: its raster results, the tracked ``region`` and
        ``box`` (with a tracker), the motion ``zones``, the ``blobs``."""
        names = {"mask": self.motion is not None, "edges": "edges" in self.enabled,
                 "palette": self.levels is not None, "region": self.tracker is not None,
                 "box": self.tracker is not None, "zones": self.motion is not None,
                 "blobs": self.blobs is not None}
        return frozenset(k for k, on in names.items() if on)

    def recipe(self) -> Recipe:
        """How to compute the palette and edge overlays by this stage's settings."""
        return Recipe(levels=self.levels, palette_spread=self.palette_spread, edge_direction=self.edge_direction,
                      edge_blur_px=self.edge_blur_px, edge_threshold=self.edge_threshold)

    def layers(self, index: int) -> list[Layer]:
        """What the sub-stages that ran on frame ``index`` made of it, if it is the last frame
        this stage processed (the stage's buffers, valid until the next frame): the picture they
        saw, the motion mask, the edge map, the palette frame, the tracked region and box, each
        blob's outline and box; and the motion zones, whatever the frame."""
        out = zone_layers(self.motion) if self.motion is not None else []
        if index != self._last_index:
            return out
        ran = {k for k, v in self.runs.items() if v > self._runs_before.get(k, 0)}
        if self.frame is None or not ran:
            return out
        return out + frame_layers(ran, self.frame, edge_map=self.edge_map, quantized=self.quantized,
                                  motion_result=self.motion_result, tracker=self.tracker,
                                  track_result=self.track_result, blobs=self.blobs)

    def _edges(self, m: np.ndarray) -> np.ndarray:
        e = self._e
        assert e is not None
        if self.edge_direction == "horizontal":
            book_edge_filter(m, dst=e)
        else:
            grey = cv2.cvtColor(m, cv2.COLOR_BGR2GRAY)
            gx = cv2.convertScaleAbs(cv2.Sobel(grey, cv2.CV_16S, 1, 0, ksize=3))
            gy = cv2.convertScaleAbs(cv2.Sobel(grey, cv2.CV_16S, 0, 1, ksize=3))
            cv2.addWeighted(gx, 0.5, gy, 0.5, 0, dst=e)
        if self.edge_blur_px > 1:
            cv2.blur(e, (self.edge_blur_px, self.edge_blur_px), dst=e)
        cv2.threshold(e, self.edge_threshold - 1, 255, cv2.THRESH_TOZERO, dst=e)
        return e

