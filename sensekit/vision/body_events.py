"""Named body events from 33 pose landmarks: pure geometry, no model.

Input is one person's 33 points in MediaPipe Pose's order as an ``(33, 4)`` array of
``[x_px, y_px, z, visibility]`` (image y points down), as the ``pose`` event carries them.
Everything is measured in **torso lengths** (shoulder midpoint to hip midpoint), so a child
far from the camera and an adult close to it give the same answers.

- ``body_shape(points)`` measures a body once (``BodyShape``): torso length, the lean of the
  torso from vertical (degrees, + towards the image's right), the knee angles, how far the
  wrists are above the top of the head, the hip height;
- ``BodyState.update(shape, t)`` turns a stream of shapes into changes: ``arms_up`` (both
  wrists above the nose for ``hold_s``), ``lean`` (``left`` / ``right`` / ``none``, with
  hysteresis), ``crouch`` (both knees bent), ``jump`` (hips and ankles rise quickly above
  where they rested). Each change must hold ``hold_s`` (a one-frame flicker changes nothing),
  except a jump, which is one event at the take-off;
- ``feet_zones(points, zones)`` names the zones (pixel boxes) that hold a visible ankle, and
  ``ZoneSteps.update(inside, t)`` turns those sets into ``step`` changes (into a zone / out of
  it), each held ``hold_s`` too; feet out of sight change nothing (a person whose legs leave the
  picture is not taken out of the zone they stood in).

Thresholds (``BODY_THRESHOLDS``) are anatomical rather than fitted: a lean starts beyond 15
degrees and ends below 8; a crouch starts when both knees bend below 120 degrees and ends
above 145 (a standing knee is 165-180); a jump is the hips rising 0.25 torso lengths above
their resting height within 0.4 s, with the ankles leaving the floor (0.10 torso lengths),
once the body has been seen for those 0.4 s (its first frames are no resting height).
Points MediaPipe marks less than 0.5 visible do not vote: with the legs out of the picture
there is no crouch and no jump, only arms and lean.

Cost: ~20 us per person. Failure modes: a person seen from the side leans forward and
backward as "none"; a camera that moves (handheld) makes a jump out of a camera tilt.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

__all__ = ["BODY_THRESHOLDS", "BodyShape", "body_shape", "BodyState", "feet_zones", "ZoneSteps", "NOSE",
           "SHOULDERS", "HIPS", "ANKLES", "BODY_LINES"]

NOSE = 0
SHOULDERS = (11, 12)      # left, right (the person's)
WRISTS = (15, 16)
HIPS = (23, 24)
KNEES = (25, 26)
ANKLES = (27, 28)
#: the bones to draw a skeleton with: arms, shoulders, torso, hips, legs (MediaPipe Pose's numbering)
BODY_LINES = ((11, 13), (13, 15), (12, 14), (14, 16), (11, 12), (11, 23), (12, 24), (23, 24),
              (23, 25), (25, 27), (24, 26), (26, 28))

BODY_THRESHOLDS = {
    "visible": 0.5,            # landmarks below this visibility do not vote
    "lean_start_deg": 15.0,
    "lean_end_deg": 8.0,
    "crouch_start_deg": 120.0,
    "crouch_end_deg": 145.0,
    "jump_rise_torso": 0.25,   # hips above their resting height, torso lengths
    "jump_feet_torso": 0.10,   # ankles above theirs
    "jump_window_s": 0.4,
    "rest_follow_s": 1.0,      # resting heights follow a still body with this time constant
}


@dataclass(frozen=True)
class BodyShape:
    """One body's measurements (``nan`` where the points are not visible)."""
    torso_px: float
    lean_deg: float            # torso from vertical; + leans towards the image's right
    knee_deg: float            # the straighter of the two knee angles (180 = straight)
    arms_up: bool              # both wrists above the nose
    hip_y: float               # hip midpoint height, px (image y)
    ankle_y: float             # ankle midpoint height, px (nan: not visible)


def _mid(points: np.ndarray, pair: tuple[int, int]) -> np.ndarray:
    out: np.ndarray = (points[pair[0], :2] + points[pair[1], :2]) / 2.0
    return out


def _angle(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> float:
    """Angle at b, degrees."""
    u, v = a - b, c - b
    denom = float(np.linalg.norm(u) * np.linalg.norm(v))
    if denom <= 1e-9:
        return float("nan")
    return math.degrees(math.acos(max(-1.0, min(1.0, float(np.dot(u, v)) / denom))))


def body_shape(points: np.ndarray, *, visible: float = BODY_THRESHOLDS["visible"]) -> BodyShape:
    """Measure one body from its ``(33, 4)`` landmarks (``(33, >=2)`` also works: all visible)."""
    pts = np.asarray(points, dtype=np.float64)
    if pts.ndim != 2 or pts.shape[0] != 33 or pts.shape[1] < 2:
        raise ValueError(f"pose landmarks must be a (33, 4) array, got shape {pts.shape}")
    vis = pts[:, 3] if pts.shape[1] >= 4 else np.ones(33)
    seen = vis >= visible
    nan = float("nan")
    shoulder, hip = _mid(pts, SHOULDERS), _mid(pts, HIPS)
    torso = float(np.linalg.norm(shoulder - hip))
    trunk_seen = bool(seen[list(SHOULDERS + HIPS)].all()) and torso > 1.0
    lean = math.degrees(math.atan2(shoulder[0] - hip[0], hip[1] - shoulder[1])) if trunk_seen else nan
    knees = [_angle(pts[h, :2], pts[k, :2], pts[a, :2]) for h, k, a in zip(HIPS, KNEES, ANKLES)
             if seen[[h, k, a]].all()]
    knee = max(knees) if len(knees) == 2 else nan
    arms_up = bool(seen[list(WRISTS)].all() and seen[NOSE]
                   and pts[WRISTS[0], 1] < pts[NOSE, 1] and pts[WRISTS[1], 1] < pts[NOSE, 1])
    ankle_y = float(_mid(pts, ANKLES)[1]) if seen[list(ANKLES)].all() else nan
    return BodyShape(torso_px=torso if trunk_seen else nan, lean_deg=lean, knee_deg=knee, arms_up=arms_up,
                     hip_y=float(hip[1]) if trunk_seen else nan, ankle_y=ankle_y)


@dataclass
class _Held:
    """A value that changes only after a new value has been seen for ``hold_s``."""
    hold_s: float
    current: object = None
    _candidate: object = None
    _since: float = 0.0

    def update(self, value: object, t: float) -> bool:
        if value == self.current:
            self._candidate = None
            return False
        if value != self._candidate:
            self._candidate, self._since = value, t
        if t - self._since >= self.hold_s:
            self.current, self._candidate = value, None
            return True
        return False


@dataclass
class BodyState:
    """One person's named states over time; ``update`` returns what changed this frame."""
    hold_s: float = 0.1
    thresholds: dict[str, float] = field(default_factory=lambda: dict(BODY_THRESHOLDS))
    arms: _Held = field(init=False)
    lean: _Held = field(init=False)
    crouch: _Held = field(init=False)
    _rest_hip: float = float("nan")
    _rest_ankle: float = float("nan")
    _rest_since: float = 0.0           # when the resting heights were first measured
    _airborne: bool = False
    _t: float | None = None
    _history: list[tuple[float, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.arms = _Held(self.hold_s, False)
        self.lean = _Held(self.hold_s, "none")
        self.crouch = _Held(self.hold_s, False)

    def update(self, shape: BodyShape, t: float) -> dict[str, object]:
        """Feed one frame; returns ``{"arms_up": bool, "lean": str, "crouch": bool, "jump": float}``
        entries for what changed (``jump``: the rise in torso lengths at take-off)."""
        out: dict[str, object] = {}
        if self.arms.update(shape.arms_up, t):
            out["arms_up"] = shape.arms_up
        lean = self._lean(shape, t)
        if lean is not None:
            out["lean"] = lean
        crouching = self._crouch(shape, t)
        if crouching is not None:
            out["crouch"] = crouching
        rise = self._jump(shape, t)
        if rise is not None:
            out["jump"] = rise
        return out

    def _lean(self, shape: BodyShape, t: float) -> str | None:
        """The new lean ("left", "right", "none") once held, else ``None``."""
        if math.isnan(shape.lean_deg):
            return None
        th = self.thresholds
        lean = self.lean.current
        a = shape.lean_deg
        if lean == "none" and abs(a) > th["lean_start_deg"]:
            lean = "right" if a > 0 else "left"
        elif lean != "none" and (abs(a) < th["lean_end_deg"] or (a > 0) != (lean == "right")):
            lean = "none"
        return str(lean) if self.lean.update(lean, t) else None

    def _crouch(self, shape: BodyShape, t: float) -> bool | None:
        """The new crouch state once held, else ``None``."""
        if math.isnan(shape.knee_deg):
            return None
        th = self.thresholds
        crouching = bool(self.crouch.current)
        if not crouching and shape.knee_deg < th["crouch_start_deg"]:
            crouching = True
        elif crouching and shape.knee_deg > th["crouch_end_deg"]:
            crouching = False
        return crouching if self.crouch.update(crouching, t) else None

    def _jump(self, shape: BodyShape, t: float) -> float | None:
        th = self.thresholds
        dt = 0.0 if self._t is None else max(t - self._t, 0.0)
        self._t = t
        if math.isnan(shape.hip_y) or math.isnan(shape.ankle_y) or math.isnan(shape.torso_px):
            return None
        if math.isnan(self._rest_hip):
            self._rest_hip, self._rest_ankle = shape.hip_y, shape.ankle_y
            self._rest_since = t
        rise = (self._rest_hip - shape.hip_y) / shape.torso_px
        feet = (self._rest_ankle - shape.ankle_y) / shape.torso_px
        self._history = [(ts, r) for ts, r in self._history if t - ts <= th["jump_window_s"]]
        self._history.append((t, rise))
        fired: float | None = None
        # a resting height needs the body seen for the jump window: one frame is no rest (a
        # person's first pose, often the least accurate, would make the second frame a jump)
        rested = t - self._rest_since >= th["jump_window_s"]
        if not self._airborne and rested and rise > th["jump_rise_torso"] and feet > th["jump_feet_torso"] \
                and min(r for _, r in self._history) < th["jump_rise_torso"] / 2:
            self._airborne, fired = True, rise
        elif self._airborne and rise < th["jump_rise_torso"] / 2:
            self._airborne = False
        if not self._airborne:       # resting heights follow the body slowly (walking, camera drift)
            k = 1.0 - math.exp(-dt / th["rest_follow_s"]) if dt > 0 else 0.0
            self._rest_hip += k * (shape.hip_y - self._rest_hip)
            self._rest_ankle += k * (shape.ankle_y - self._rest_ankle)
        return fired


def feet_zones(points: np.ndarray, zones: Mapping[str, tuple[float, float, float, float]], *,
               frame_size: tuple[int, int] | None = None,
               visible: float = BODY_THRESHOLDS["visible"]) -> frozenset[str] | None:
    """The zones (``{name: (x, y, w, h)}``, pixels) that hold at least one of the person's
    ankles; ``None`` when neither ankle is visible (nothing can be said). With ``frame_size``
    (width, height) an ankle MediaPipe places just beyond the picture's edge counts at the
    edge, so a zone along the bottom of the picture holds feet cut off by it."""
    pts = np.asarray(points, dtype=np.float64)
    vis = pts[:, 3] if pts.shape[1] >= 4 else np.ones(len(pts))
    feet = [pts[a, :2] for a in ANKLES if vis[a] >= visible]
    if frame_size is not None:
        hi = np.array([frame_size[0] - 1, frame_size[1] - 1], np.float64)
        feet = [np.clip(f, 0.0, hi) for f in feet]
    if not feet:
        return None
    return frozenset(name for name, (x, y, w, h) in zones.items()
                     if any(x <= fx < x + w and y <= fy < y + h for fx, fy in feet))


@dataclass
class ZoneSteps:
    """Which zones one person stands in, held ``hold_s``; ``update`` returns the changes as
    ``[(zone, inside), ...]`` (zones left first, then zones entered, each sorted by name)."""
    hold_s: float = 0.1
    inside: frozenset[str] = frozenset()
    _candidate: frozenset[str] | None = None
    _since: float = 0.0

    def update(self, now: frozenset[str] | None, t: float) -> list[tuple[str, bool]]:
        if now is None or now == self.inside:
            if now is not None:
                self._candidate = None
            return []
        if now != self._candidate:
            self._candidate, self._since = now, t
        if t - self._since < self.hold_s:
            return []
        before, self.inside, self._candidate = self.inside, now, None
        return [(z, False) for z in sorted(before - now)] + [(z, True) for z in sorted(now - before)]

    def leave_all(self) -> list[tuple[str, bool]]:
        """The person is gone: out of every zone they stood in."""
        out = [(z, False) for z in sorted(self.inside)]
        self.inside, self._candidate = frozenset(), None
        return out
