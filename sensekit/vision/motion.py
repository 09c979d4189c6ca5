"""MotionDetector: where did something move (or: where is something that is not background).

Two methods, one result (``MotionResult``: a 0/255 mask, its bounding box, the moving
fraction ``amount`` in 0..1, and an amount per zone):

- ``"difference"`` - the book (``--preset book``): ``|frame - previous|`` on one channel (``channel=
  "red"`` as in the book, ``"max"`` of B, G, R by default, or ``"grey"``), pixels at or above
  the threshold move. Without ``threshold`` it uses the camera's noise instead of the book's
  fixed ``0x33``: ``noise_sigma`` when given (``sensekit calibrate`` measures it), else learned
  every ``noise_every_frames`` frames from the median difference of a subsampled frame (robust
  to a moving minority) and smoothed over time; the threshold is then ``noise_k`` standard
  deviations of the frame difference, at least ``min_threshold`` (the rule and its derivation:
  ``sensekit.vision.noise``). Answers "did it move": swaying leaves and rippling water move,
  so they are reported. ~0.1-0.2 ms at 320x240.
- ``"background"`` (default) - ``sensekit.vision.background.BackgroundModel`` (pass your own as
  ``background=`` to change its settings): a per-pixel sample-consensus model that learns
  swaying foliage, water and slow light changes, compensates the camera's exposure, and
  absorbs objects that stay still for ~5 s. Answers "is something there", so it can tell
  people apart (``sensekit.vision.blob_tracker``); ``threshold``, ``channel`` and the noise
  settings are the difference method's and do not apply. It learns the scene during its first
  ``background.learn_frames`` (4 s at 30 fps): what stands still then is background. About
  1.1-1.3x the wall time of OpenCV's MOG2 at 640x480 on a loaded 2-core machine and 1.4-1.5x
  in the quietest runs to be had, on both cores as MOG2 (``benchmarks/blob_eval.py --cost``).
  On the held-back half of CDnet ``highway`` it scores well above MOG2
  (``benchmarks/motion_eval.py``; table in the README).

Global lighting changes and auto-exposure: with a learned threshold, once more than
``exposure_fraction`` (2 %) of the frame changes, the previous frame is scaled by the
per-channel median gain between the frames (a camera's exposure step, a lamp, a cloud) before
differencing, when that gain is more than 2 % from 1; ``lighting_change=True`` then. With the
book's fixed threshold this check runs only when more than ``lighting_fraction`` of the frame
changed (the book's semantics otherwise, and no cost). If the frame still mostly "changes"
after compensation, nothing is reported for it. The background model does the same against
its own samples on every frame.

Zones: the ``left`` and ``right`` halves of the frame, unless a zone of that name replaces
one (``HALVES_NOTE``); ``zones_px={"name": (x, y, w, h)}`` adds rectangles in pixels, the
``zones`` setting rectangles in fractions 0..1 of the frame (what a venue profile stores, so it
survives a change of camera). A pixel zone outside the frame raises ``ConfigError`` naming it
(checked on the first frame when the size is not given).
Events from ``events``: ``motion`` while the amount is at least ``min_amount``, ``still`` once
after ``still_after_frames`` quiet frames.

Settings: the ``motion`` group declared in ``MotionDetector.SETTINGS`` (``sensekit settings
motion`` lists them with units, ranges and defaults: ``method="background"``, ``channel="max"``,
learned threshold with ``noise_k=5`` and ``min_threshold=8``, ``min_amount=0.002``,
``still_after_frames=5``, ``lighting_fraction=0.5``, ``exposure_fraction=0.02``); changes
through ``apply()`` take effect on the next frame. The background model's are in its module.

Failure modes: a camera that moves makes everything move; a moving object covering most
of the frame looks like a lighting change; a large bright object entering in one frame can
be mistaken for a small exposure change (the median gain stays near 1 while it covers less
than half of the frame, so in practice this needs a very large object); the background
method's own failure modes are in its module.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Iterator, Literal, Mapping, Sequence

import cv2
import numpy as np

from sensekit.arg_types import checked_except
from sensekit.errors import ConfigError
from sensekit.events import Box, Event, Motion, Still
from sensekit.settings import Setting, Tunable, setting
from sensekit.settings.declare import Zone, check_zone_name, parse_named_boxes
from sensekit.validate import check_frame
from sensekit.vision.background import BackgroundModel
from sensekit.vision.exposure import GAIN_TOLERANCE, SATURATED, apply_gain, exposure_gain, grid_for
from sensekit.vision.noise import median_difference, motion_threshold, sigma_from_median
from sensekit.vision.stages import box_from_rect

__all__ = ["MotionDetector", "MotionResult", "parse_zones", "check_zones", "fraction_zones_px", "HALVES_NOTE"]

#: what the help of every zone option says about the default halves (one wording, one place)
HALVES_NOTE = "the left and right halves are zones too; a zone named left or right replaces that half"

log = logging.getLogger(__name__)

Channel = Literal["max", "red", "green", "blue", "grey"]
_CHANNEL_INDEX = {"red": 2, "green": 1, "blue": 0}


@dataclass(slots=True)
class MotionResult:
    """One frame's answer. ``mask`` is the detector's reused buffer (difference method):
    it is valid until the next ``update``; copy it to keep it."""
    mask: np.ndarray                       # HxW uint8, 255 = moving / foreground
    box: Box = (0, 0, 0, 0)
    amount: float = 0.0
    zones: dict[str, float] = field(default_factory=dict)
    moving: bool = False
    lighting_change: bool = False
    threshold: float = 0.0                 # difference threshold used (difference method)


def parse_zones(text: str) -> dict[str, Box]:
    """``"name=x,y,w,h;name2=x,y,w,h"`` -> ``{name: (x, y, w, h)}`` (pixels)."""
    named = parse_named_boxes(text, int, bad=lambda part: f"zone must look like 'name=x,y,w,h', got {part!r}",
                              twice=lambda name: f"zone {name!r} is given twice in {text!r}")
    zones: dict[str, Box] = {check_zone_name(name, "--zones"): (v[0], v[1], v[2], v[3])
                             for name, v in named.items()}
    if not zones:
        raise ConfigError(f"no zones in {text!r} (expected 'name=x,y,w,h;...')")
    return zones


def check_zones(zones: Mapping[str, Sequence[int]], width: int, height: int) -> dict[str, Box]:
    """Validate zones against a frame size; messages name the zone and its box."""
    out: dict[str, Box] = {}
    for name, box in zones.items():
        check_zone_name(str(name), "the zones")
        try:
            x, y, w, h = (int(v) for v in box)
        except (TypeError, ValueError):
            raise ConfigError(f"zone {name!r} must be (x, y, w, h), got {box!r}") from None
        if w <= 0 or h <= 0:
            raise ConfigError(f"zone {name!r} {tuple(box)} must have a width and height over 0")
        if x < 0 or y < 0 or x + w > width or y + h > height:
            raise ConfigError(f"zone {name!r} {tuple(box)} is outside the {width}x{height} frame")
        out[name] = (x, y, w, h)
    return out


def fraction_zones_px(zones: Mapping[str, Sequence[float]], width: int, height: int) -> dict[str, Box]:
    """Zones in fractions 0..1 of the frame -> pixels of a ``width`` x ``height`` frame (>= 1x1)."""
    out: dict[str, Box] = {}
    for name, (x, y, w, h) in zones.items():
        px, py = int(round(x * width)), int(round(y * height))
        px, py = min(px, width - 1), min(py, height - 1)
        pw = max(1, min(width - px, int(round(w * width))))
        ph = max(1, min(height - py, int(round(h * height))))
        out[name] = (px, py, pw, ph)
    return out


class MotionDetector(Tunable, section="motion",
                     title="motion: frame difference (the book) or a background model"):
    """Stateful motion / foreground detector. See the module docstring.

    Settings (the ``motion`` group below) are keyword arguments; ``zones_px`` adds zones in
    pixels, ``frame_size`` checks them at once, ``background`` passes your own model.
    """

    method: Setting[Literal["difference", "background"]] = setting(
        "background", "background: is something there (a learned background model); "
        "difference: did it move (the book)",
        choices=("difference", "background"), flag="--motion-method")
    threshold: Setting[int | None] = setting(
        None, "pixel difference that counts as motion (the book: 0x33)", kind="int",
        unit="pixel levels", lo=1, hi=255, none="from the camera noise", flag="--motion-threshold")
    noise_sigma: Setting[float | None] = setting(
        None, "camera noise per pixel and channel; gives the threshold by the noise "
        "rule (sensekit.vision.noise)", kind="float", unit="pixel levels", lo=0, hi=100,
        none="learned while running")
    channel: Setting[Channel] = setting(
        "max", "channel of the difference: the largest of B, G, R, one of them "
        "(the book: red) or grey", choices=("max", "red", "green", "blue", "grey"))
    noise_k = setting(5.0, "threshold in standard deviations of the frame difference", unit="sigmas",
                      lo=0.5, hi=50)
    min_threshold = setting(8, "lowest threshold the noise rule gives", unit="pixel levels", lo=1, hi=255)
    noise_every_frames = setting(4, "re-estimate the noise every N frames while learning", unit="frames",
                                 lo=1, hi=10_000)
    min_amount = setting(0.002, "moving fraction of the frame that makes a motion event",
                         unit="fraction", lo=0, hi=1)
    still_after_frames = setting(5, "quiet frames before one still event", unit="frames", lo=1, hi=100_000)
    lighting_fraction = setting(0.5, "a change over this fraction of the frame is light, not motion",
                                unit="fraction", lo=0.05, hi=1)
    exposure_fraction = setting(0.02, "changed fraction that starts the exposure check (learned "
                                "threshold)", unit="fraction", lo=0, hi=1)
    zones: Setting[dict[str, Zone]] = setting(
        {}, f"extra zones, name = [x, y, w, h] in fractions of the frame ({HALVES_NOTE})",
        unit="fraction")

    @checked_except("background")   # its own check says "`background` must be a BackgroundModel"
    def __init__(self, *, zones_px: Mapping[str, Sequence[int]] | None = None,
                 frame_size: tuple[int, int] | None = None,
                 background: BackgroundModel | None = None, **settings: Any) -> None:
        self.init_settings(settings)
        if background is not None and not isinstance(background, BackgroundModel):
            raise ConfigError(f"`background` must be a BackgroundModel, got {type(background).__name__}")
        if background is not None and self.method != "background":
            raise ConfigError(f"`background` is for method='background', got method={self.method!r}")
        # kept while the difference method runs too, so its settings always have an owner and a
        # switch back finds them (its buffers are allocated on its first frame only)
        self.background: BackgroundModel = background or BackgroundModel(lighting_fraction=self.lighting_fraction)
        self.user_zones = dict(zones_px or {})
        #: every zone in pixels: the halves, ``zones_px`` and the ``zones`` setting's fractions
        self.zone_boxes: dict[str, Box] = {}
        self._size: tuple[int, int] | None = None
        if frame_size is not None:
            self._setup(*frame_size)
        # state
        self.frames = 0
        self._prev: np.ndarray | None = None
        self._noise_thr: float | None = None
        self._sigma: float | None = None
        self._quiet = 0
        self.moving = False
        self.last: MotionResult | None = None
        # reusable buffers (difference method)
        self._diff: np.ndarray | None = None
        self._mask: np.ndarray | None = None
        self._spare: np.ndarray | None = None
        self._derive()

    def _derive(self) -> None:
        """The threshold the settings fix: ``threshold``, else the noise rule on ``noise_sigma``,
        else ``None`` (learn it)."""
        if self.threshold is not None:
            self._fixed: float | None = float(self.threshold)
        elif self.noise_sigma is not None:
            self._fixed = motion_threshold(self.noise_sigma, noise_k=self.noise_k, min_threshold=self.min_threshold)
        else:
            self._fixed = None

    def settings_changed(self, changed: Mapping[str, Any]) -> None:
        if "method" in changed:
            self.reset()
        if "channel" in changed:
            self._prev = self._spare = None
        if changed.keys() & {"noise_k", "min_threshold"}:
            self._noise_thr = None
        if "zones" in changed and self._size is not None:
            self._setup(*self._size)
        self._derive()

    def learned(self) -> dict[str, Any]:
        """The camera noise learned so far (``noise_sigma``), when the detector learns it (the
        background model learns the same quantity by the same rule)."""
        sigma = self.background.noise_sigma if self.method == "background" else self._sigma
        if self._fixed is None and sigma is not None:
            return {"noise_sigma": round(sigma, 3)}
        return {}

    def tunables(self) -> Iterator[Tunable]:
        yield self
        yield self.background

    # -- setup ----------------------------------------------------------------------
    def _setup(self, width: int, height: int) -> None:
        zones: dict[str, Box] = {"left": (0, 0, width // 2, height),
                                 "right": (width // 2, 0, width - width // 2, height)}
        zones.update(fraction_zones_px(self.zones, width, height))
        # the pixel zones (`--zones`, an option) come after the setting (a profile): later wins
        for name in sorted(self.user_zones.keys() & self.zones.keys()):
            log.warning("zone %r of --zones replaces the one of `motion.zones`", name)
        zones.update(check_zones(self.user_zones, width, height))
        self.zone_boxes = zones
        self._size = (width, height)
        self._zone_slices = [(name, (slice(y, y + h), slice(x, x + w)), float(w * h))
                             for name, (x, y, w, h) in zones.items()]
        # When the default halves are kept they partition the frame: right = total - left.
        self._halves = not ({"left", "right"} & (self.user_zones.keys() | self.zones.keys()))
        self._npx = float(width * height)
        self._grid = grid_for(height, width)

    @property
    def threshold_in_use(self) -> float:
        """The difference threshold in use (fixed, learned, or ``min_threshold`` before learning)."""
        if self._fixed is not None:
            return self._fixed
        return self._noise_thr if self._noise_thr is not None else float(self.min_threshold)

    def reset(self) -> None:
        self._prev = None
        self._spare = None
        self.background.reset()
        self.frames = 0

    # -- per frame --------------------------------------------------------------------
    def update(self, frame: np.ndarray, *, owned: bool = False) -> MotionResult:
        """Detect in one frame (BGR uint8; blur it first for the book's behaviour).

        ``owned=True`` promises the caller will not modify ``frame`` before the next call,
        so the difference method keeps a reference instead of copying it (a pipeline that
        alternates two buffers saves one frame copy per frame).
        """
        if self._pending:
            self.apply_pending()
        if frame.__class__ is not np.ndarray or frame.dtype != np.uint8 or frame.ndim != 3:
            check_frame(frame)
        h, w = frame.shape[:2]
        if self._size != (w, h):
            check_frame(frame)
            if self._size is not None:
                self.reset()
            self._setup(w, h)
        self.frames += 1
        if self.method == "background":
            mask, lighting = self.background.update(frame)
            count = cv2.countNonZero(mask)
        else:
            mask, lighting, count = self._difference(frame, owned)
        return self._result(mask, lighting, count)

    def _result(self, mask: np.ndarray, lighting: bool, count: int) -> MotionResult:
        amount = count / self._npx
        if count:
            box = box_from_rect(cv2.boundingRect(mask))
            zones = {}
            left = 0
            for name, sl, area in self._zone_slices:
                if name == "right" and self._halves:
                    n = count - left
                else:
                    n = cv2.countNonZero(mask[sl])
                    if name == "left":
                        left = n
                zones[name] = n / area
        else:
            box = (0, 0, 0, 0)
            zones = dict.fromkeys(self.zone_boxes, 0.0)
        moving = amount >= self.min_amount and count > 0
        result = MotionResult(mask, box, amount, zones, moving, lighting, self.threshold_in_use)
        self.last = result
        return result

    def events(self, result: MotionResult, t: float) -> list[Event]:
        """``motion`` for a moving frame; ``still`` once after ``still_after_frames`` quiet ones."""
        if result.moving:
            self._quiet = 0
            self.moving = True
            return [Motion(t=t, box=result.box, amount=result.amount, zones=result.zones)]
        self._quiet += 1
        if self.moving and self._quiet >= self.still_after_frames:
            self.moving = False
            return [Still(t=t)]
        return []

    def step(self, frame: np.ndarray, t: float) -> list[Event]:
        return self.events(self.update(frame), t)

    # -- difference -------------------------------------------------------------------
    def _reduce(self, diff: np.ndarray) -> np.ndarray:
        c = self.channel
        if c == "red":
            return cv2.extractChannel(diff, 2)
        if c == "green":
            return cv2.extractChannel(diff, 1)
        if c == "blue":
            return cv2.extractChannel(diff, 0)
        if c == "grey":
            return cv2.cvtColor(diff, cv2.COLOR_BGR2GRAY)
        b, g, r = cv2.split(diff)
        cv2.max(b, g, dst=b)
        return cv2.max(b, r, dst=b)

    def _difference(self, frame: np.ndarray, owned: bool) -> tuple[np.ndarray, bool, int]:
        """Threshold ``|frame - previous|`` on the chosen channel.

        For a single channel (red, green, blue, grey) only that channel of each frame is kept
        and differenced: the same result as the book's difference-then-channel for red, green
        and blue, for a third of the work. ``"max"`` differences all three channels.
        """
        single = self.channel != "max"
        cur = self._reduce_frame(frame) if single else frame
        prev = self._prev
        if prev is None or prev.shape != cur.shape:
            self._prev = cur if (owned or single) else cur.copy()
            self._mask = np.zeros(frame.shape[:2], np.uint8)
            self._diff = np.empty_like(cur)
            return self._mask, False, 0
        assert self._diff is not None and self._mask is not None
        diff = cv2.absdiff(cur, prev, dst=self._diff)
        d1 = diff if single else self._reduce(diff)
        thr = self._fixed
        if thr is None:
            if self.frames % self.noise_every_frames == 0 or self._noise_thr is None:
                self._learn_noise(d1)
            thr = self.threshold_in_use
        mask = cv2.threshold(d1, thr - 1, 255, cv2.THRESH_BINARY, dst=self._mask)[1]
        lighting = False
        count = cv2.countNonZero(mask)
        # the book's fixed threshold only checks for a lamp switched on; a learned one also
        # follows the camera's auto-exposure (checked once a few percent of the frame changed)
        check = self.lighting_fraction if self.threshold is not None else self.exposure_fraction
        if count > check * self._npx:
            gain = exposure_gain(cur, prev, grid=self._grid)
            if count > self.lighting_fraction * self._npx or np.any(np.abs(gain - 1.0) > GAIN_TOLERANCE):
                diff = cv2.absdiff(cur, self._expected(prev, cur, gain), dst=self._diff)
                d1 = diff if single else self._reduce(diff)
                mask = cv2.threshold(d1, thr - 1, 255, cv2.THRESH_BINARY, dst=self._mask)[1]
                count = cv2.countNonZero(mask)
                if count > self.lighting_fraction * self._npx:
                    mask[:] = 0
                    count = 0
                lighting = True
        if single:
            self._spare, self._prev = prev, cur      # two channel buffers, alternating
        elif owned:
            self._prev = cur
        else:
            if prev is frame:
                prev = np.empty_like(frame)
            np.copyto(prev, frame)
            self._prev = prev
        return mask, lighting, count

    @staticmethod
    def _expected(prev: np.ndarray, cur: np.ndarray, gain: np.ndarray) -> np.ndarray:
        """``prev`` at the current exposure. Where ``prev`` was clipped at the top and the
        exposure fell, the scene was at least that bright: any brighter value is consistent."""
        adj = apply_gain(prev, gain)
        if np.any(gain < 1.0):
            clipped = prev >= SATURATED
            if clipped.any():
                np.copyto(adj, np.maximum(adj, cur), where=clipped)
        return adj

    def _reduce_frame(self, frame: np.ndarray) -> np.ndarray:
        """The chosen channel of ``frame`` into the spare buffer."""
        spare = self._spare
        if spare is None or spare.shape != frame.shape[:2]:
            spare = np.empty(frame.shape[:2], np.uint8)
        if self.channel == "grey":
            return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY, dst=spare)
        return cv2.extractChannel(frame, _CHANNEL_INDEX[self.channel], dst=spare)

    def _learn_noise(self, d1: np.ndarray) -> None:
        """One noise estimate (``sensekit.vision.noise``), smoothed over time."""
        sigma = sigma_from_median(median_difference(d1), self.channel)
        thr = motion_threshold(sigma, noise_k=self.noise_k, min_threshold=self.min_threshold)
        if self._noise_thr is None or self._sigma is None:
            self._noise_thr, self._sigma = thr, sigma
        elif thr <= 2.0 * self._noise_thr:                # a sudden jump is motion, not noise
            self._noise_thr = 0.9 * self._noise_thr + 0.1 * thr
            self._sigma = 0.9 * self._sigma + 0.1 * sigma
