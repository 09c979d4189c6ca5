"""PoseStage: MediaPipe Pose (the full model) for several people, with named body events.

Per video frame it emits, for each person in view:

- ``pose``: id (stable while the person stays in view), score (mean visibility), box, and
  the 33 landmarks as ``[x_px, y_px, z, visibility]`` in MediaPipe's order (z: its relative
  depth, scaled by the width of the picture the model saw, as the hand stage does);
- ``arms_up``, ``lean`` (left / right / none), ``crouch`` and ``jump`` when they change
  (``body_events``: geometry in torso lengths, each change held ``hold_ms``);
- ``step`` (id, zone, inside) when a visible ankle goes into one of the ``zones`` (the venue
  profile's ``[pose] zones``, fractions of the frame as ``[motion] zones``) or out of it;
- ``pose_lost`` when a person has not been seen for ``lost_after_ms`` (after a ``step`` out of
  each zone they stood in).

How several people are found with a one-person model: a MediaPipe graph in video mode runs on
the whole frame, exactly as a bare call does (it tracks its person from frame to frame, with
the person detector only when it loses them). Every ``search_every_frames`` frames (and on the
first frame, so a still image gets it) the stage searches for the others (``people.py``: the
frame with the found people painted out; once in ``window_every_frames`` frames also
overlapping windows, for people too small for the model's view of the whole frame); a person
found that way is followed on the next frames by one still-image call on a square crop around
where they were. With one person in view the extra cost is the searches, amortised.

Settings are declared once, in the ``pose`` group (``POSE_SETTINGS``). Defaults: up to 4
people, a search every 30 frames (1 s at 30 fps), in windows every 300 (10 s), confidences
0.5 (MediaPipe's), One-Euro smoothing on (the hand stage's filter, beta per torso length per second).

What it shows: ``layers(index)`` gives each person of the last frame as points with the body's
skeleton and a box labelled with its id (the ``pose`` overlay of the panel).

Cost (``benchmarks/pose_eval.py``): one person, MediaPipe itself (~25-40 ms per frame at
640x480 on one core) plus the amortised search; each further person costs one still-image
call per frame (~40-60 ms). Needs the optional extra (``python -m pip install -e '.[hands]'``; the
wheel of mediapipe 0.10.21 holds the full pose model; the lite and heavy ones would be
downloaded at run time, so they are not offered). Failure modes: people smaller than ~60
pixels, people hidden behind others (OCHuman), crowds larger than ``max_people``; two
people crossing may swap ids. Deterministic for the same frames in the same order.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal, Mapping

import numpy as np

from sensekit.capture.base import Item
from sensekit.events import ArmsUp, Crouch, Event, Jump, Lean, Pose, PoseLost, Step
from sensekit.settings import Setting, Tunable, setting
from sensekit.vision.body_events import BodyState, ZoneSteps, body_shape, feet_zones
from sensekit.vision.mediapipe_base import RgbBuffer, filtered_native_stderr, frame_in, load_solution
from sensekit.vision.people import (Box, box_iou, crop_box, landmark_box, paint_out, search_windows,
                                    torso_visible, upright)
from sensekit.vision.shapes import BoxShape, Layer, PointsShape
from sensekit.vision.smoothing import OneEuroArray
from sensekit.vision.tracked_ids import pair_greedily, seen_at, unseen_for

__all__ = ["POSE_SETTINGS", "POSE_EVENTS", "PoseStage", "TrackedPerson", "load_pose"]

POSE_EVENTS = frozenset({"pose", "pose_lost", "arms_up", "lean", "crouch", "jump", "step"})
CROP_MARGIN = 0.25           # a tracked person's crop: their box plus this much of it each side
SAME_PERSON_IOU = 0.3        # two results whose boxes overlap more are one person
MIN_PERSON_PX = 32           # a searched or cropped result smaller than this is not kept


def load_pose() -> Any:
    """``mediapipe.solutions.pose``, or ``ConfigError`` naming the install."""
    return load_solution("pose", "pose model", "body pose needs")


@dataclass
class TrackedPerson:
    """What the stage knows about one person (apps may read ``PoseStage.people``)."""
    id: int
    landmarks: np.ndarray                 # (33, 4) x px, y px, z, visibility; smoothed when on
    box: Box
    last_t: float
    smoother: OneEuroArray | None = None
    body: BodyState = field(default_factory=BodyState)
    steps: ZoneSteps = field(default_factory=ZoneSteps)


class PoseStage(Tunable, section="pose",
                title="body pose (MediaPipe Pose, full model; the hands extra)"):
    """A runner stage: frames in, ``pose`` and body events out."""

    consumes: Literal["video"] = "video"
    emits = POSE_EVENTS
    max_people = setting(4, "how many people to follow at once", unit="people", lo=1, hi=10,
                         flag="--max-people")
    search_every_frames = setting(30, "look for people beyond the tracked ones (the whole frame, the "
                                  "tracked people painted out) once in N frames", unit="frames", lo=1, hi=100000)
    window_every_frames = setting(300, "look for small people too (overlapping windows, ~18 detector runs) "
                                  "once in N frames", unit="frames", lo=1, hi=100000)
    min_detection_confidence = setting(0.5, "person detector score to accept a new person", lo=0.0, hi=1.0)
    min_tracking_confidence = setting(0.5, "landmark score below which tracking is lost", lo=0.0, hi=1.0)
    smoothing = setting(True, "One-Euro smoothing of the landmarks (off: raw MediaPipe points)",
                        flag="--pose-smoothing")
    smoothing_min_cutoff_hz = setting(1.5, "One-Euro cutoff of a still body (lower: steadier)", unit="Hz",
                                      lo=0.01, hi=30.0)
    smoothing_beta = setting(2.0, "how fast the cutoff rises with speed (higher: less lag)",
                             unit="per torso length/s", lo=0.0, hi=100.0)
    hold_ms = setting(100.0, "a body event (arms up, lean, crouch) must hold this long", unit="ms",
                      lo=0.0, hi=2000.0)
    lost_after_ms = setting(300.0, "unseen this long: pose_lost (id forgotten)", unit="ms", lo=0.0, hi=5000.0)
    zones: Setting[dict[str, tuple[float, float, float, float]]] = setting(
        {}, "zones to step into, name = [x, y, w, h] in fractions of the frame (a visible ankle inside: step)",
        unit="fraction")

    def __init__(self, **settings: Any) -> None:
        self.init_settings(settings)
        self._mp_pose = load_pose()
        self._graph = self._make_graph(static=False)
        self._still = self._make_graph(static=True)
        self.people: dict[int, TrackedPerson] = {}
        self.runs = {"frames": 0, "searches": 0, "crops": 0, "calls": 0}
        self._next_id = 1
        self._rgb = RgbBuffer()
        self._last_t = -1.0                    # the last frame's time (who ``layers`` shows)
        self._last_index = -1                  # and its index
        self._zones_px: dict[str, tuple[float, float, float, float]] = {}
        self._zones_for: tuple[int, int] | None = None     # the frame size the pixel zones were made for

    def settings_changed(self, changed: Mapping[str, Any]) -> None:
        if "zones" in changed:
            self._zones_for = None                  # made again in pixels on the next frame
        if changed.keys() & {"min_detection_confidence", "min_tracking_confidence"}:
            self.close()
            self._graph = self._make_graph(static=False)
            self._still = self._make_graph(static=True)

    # -- MediaPipe -------------------------------------------------------------------
    def _make_graph(self, *, static: bool) -> Any:
        with filtered_native_stderr():
            return self._mp_pose.Pose(static_image_mode=static, model_complexity=1, smooth_landmarks=True,
                                      enable_segmentation=False,
                                      min_detection_confidence=self.min_detection_confidence,
                                      min_tracking_confidence=self.min_tracking_confidence)

    def close(self) -> None:
        for graph in (self._graph, self._still):
            if graph is not None:
                graph.close()
        self._graph = self._still = None

    def _call(self, graph: Any, rgb: np.ndarray, box: Box | None = None) -> np.ndarray | None:
        """One MediaPipe call on the frame or on ``box`` of it: (33, 4) frame pixels, or None."""
        x, y = (0, 0) if box is None else box[:2]
        view = rgb if box is None else np.ascontiguousarray(rgb[y:y + box[3], x:x + box[2]])
        self.runs["calls"] += 1
        if self.runs["calls"] <= 3:
            with filtered_native_stderr():
                result = graph.process(view)
        else:
            result = graph.process(view)
        if result.pose_landmarks is None:
            return None
        h, w = view.shape[:2]
        pts = np.array([(p.x, p.y, p.z, p.visibility) for p in result.pose_landmarks.landmark], dtype=np.float64)
        pts[:, :3] *= (w, h, w)
        pts[:, 0] += x
        pts[:, 1] += y
        return pts

    # -- finding people ----------------------------------------------------------------
    def _find(self, rgb: np.ndarray, search: bool, windows: bool) -> list[np.ndarray]:
        """Everyone on this frame: the video graph's person, the tracked others on their crops,
        and, when ``search``, the rest of the frame (in windows too when ``windows``)."""
        found = _Found()
        found.keep(self._call(self._graph, rgb), checked=False)     # exactly what a bare call gives
        self._find_tracked(rgb, found)
        if (search or windows) and len(found.points) < self.max_people:
            self._search(rgb, found, windows)
        return found.points

    def _find_tracked(self, rgb: np.ndarray, found: _Found) -> None:
        """The tracked people not found yet, each looked for on a crop around its last box."""
        h, w = rgb.shape[:2]
        for person in sorted(self.people.values(), key=lambda p: p.id):
            if len(found.points) >= self.max_people:
                break
            if any(box_iou(person.box, b) > SAME_PERSON_IOU for b in found.boxes):
                continue
            crop = crop_box(person.box, w, h, margin=CROP_MARGIN)
            if crop[2] >= 16 and crop[3] >= 16:
                self.runs["crops"] += 1
                pts = self._call(self._still, _crop_view(rgb, crop, person.box, found.boxes))
                if pts is not None:
                    pts[:, 0] += crop[0]
                    pts[:, 1] += crop[1]
                found.keep(pts)

    def _search(self, rgb: np.ndarray, found: _Found, windows: bool) -> None:
        """The whole frame with the found people painted out, then (``windows``) its windows."""
        h, w = rgb.shape[:2]
        self.runs["searches"] += 1
        work = rgb.copy()
        paint_out(work, found.boxes)
        while len(found.points) < self.max_people:
            if not found.keep(self._call(self._still, work)):
                break
            paint_out(work, found.boxes[-1:])
        for window in search_windows(w, h) if windows else ():
            if len(found.points) >= self.max_people:
                break
            if found.keep(self._call(self._still, work, window)):
                paint_out(work, found.boxes[-1:])

    # -- the stage -------------------------------------------------------------------
    def process(self, item: Item) -> list[Event]:
        rgb = frame_in(self, item)
        if rgb is None:
            return []
        h, w = rgb.shape[:2]
        if self._zones_for != (w, h):
            self._zones_px = {name: (x * w, y * h, zw * w, zh * h) for name, (x, y, zw, zh) in self.zones.items()}
            self._zones_for = (w, h)
        n = self.runs["frames"] - 1                 # this frame's count from 0
        found = self._find(rgb, n % self.search_every_frames == 0, n % self.window_every_frames == 0)
        return self._update(found, item.t)

    def _update(self, found: list[np.ndarray], t: float) -> list[Event]:
        events: list[Event] = []
        matches = _match(list(self.people.values()), [landmark_box(p) for p in found])
        for k, pts in enumerate(found):
            person = matches.get(k) or self._new_person()
            events.extend(self._observe(person, pts, t))
        for person in unseen_for(self.people.values(), t, self.lost_after_ms):
            events.extend(Step(t=t, id=person.id, zone=z, inside=False) for z, _ in person.steps.leave_all())
            events.append(PoseLost(t=t, id=person.id))
            del self.people[person.id]
        self._last_t = t
        return events

    def offers(self) -> frozenset[str]:
        return frozenset({"pose"})

    def skeletons(self, index: int) -> list[tuple[int, np.ndarray]]:
        """``(id, landmarks (33, 4): x px, y px, z, visibility)`` of each person seen on frame
        ``index`` if it is the last one processed, for drawing (the panel's live view); the
        arrays are the stage's own."""
        if index != self._last_index:
            return []
        return [(p.id, p.landmarks) for p in seen_at(self.people.values(), self._last_t)]

    def layers(self, index: int) -> list[Layer]:
        """The people seen on frame ``index`` if it is the last one processed: landmarks and
        skeleton, box with id."""
        if index != self._last_index:
            return []
        return pose_layers(seen_at(self.people.values(), self._last_t))

    def _new_person(self) -> TrackedPerson:
        person = TrackedPerson(id=self._next_id, landmarks=np.zeros((33, 4)), box=(0, 0, 0, 0), last_t=-1.0,
                               body=BodyState(hold_s=self.hold_ms / 1000.0),
                               steps=ZoneSteps(hold_s=self.hold_ms / 1000.0))
        if self.smoothing:
            person.smoother = OneEuroArray(min_cutoff_hz=self.smoothing_min_cutoff_hz, beta=self.smoothing_beta)
        self._next_id += 1
        self.people[person.id] = person
        return person

    def _observe(self, person: TrackedPerson, pts: np.ndarray, t: float) -> list[Event]:
        points = pts
        if person.smoother is not None:
            torso = math.dist(((pts[11, :2] + pts[12, :2]) / 2).tolist(), ((pts[23, :2] + pts[24, :2]) / 2).tolist())
            points = pts.copy()
            points[:, :3] = person.smoother(pts[:, :3], t, speed_scale=1.0 / max(torso, 1.0))
        person.landmarks, person.box, person.last_t = points, landmark_box(points), t
        out: list[Event] = [Pose(t=t, id=person.id, score=float(points[:, 3].mean()), box=person.box,
                                 landmarks=tuple(map(tuple, points.tolist())))]
        shape = body_shape(points)
        for name, value in person.body.update(shape, t).items():
            if name == "arms_up":
                out.append(ArmsUp(t=t, id=person.id, up=bool(value)))
            elif name == "lean":
                angle = 0.0 if math.isnan(shape.lean_deg) else shape.lean_deg
                out.append(Lean(t=t, id=person.id, direction=str(value), angle_deg=angle))
            elif name == "crouch":
                out.append(Crouch(t=t, id=person.id, crouching=bool(value)))
            elif name == "jump" and isinstance(value, float):
                out.append(Jump(t=t, id=person.id, rise=value))
        if self._zones_px or person.steps.inside:
            for zone, inside in person.steps.update(feet_zones(points, self._zones_px, frame_size=self._zones_for), t):
                out.append(Step(t=t, id=person.id, zone=zone, inside=inside))
        return out


#: the body's skeleton (MediaPipe Pose numbering): shoulders, arms, torso, legs
POSE_LINKS: tuple[tuple[int, int], ...] = ((11, 12), (11, 13), (13, 15), (12, 14), (14, 16), (11, 23), (12, 24),
                                           (23, 24), (23, 25), (25, 27), (24, 26), (26, 28))



@dataclass
class _Found:
    """The people found so far on one frame: their landmarks and boxes."""
    points: list[np.ndarray] = field(default_factory=list)
    boxes: list[Box] = field(default_factory=list)

    def keep(self, pts: np.ndarray | None, *, checked: bool = True) -> bool:
        """Add a result unless it is someone already found or (``checked``) implausible."""
        if pts is None:
            return False
        box = landmark_box(pts)
        if box[2] <= 0 or box[3] <= 0 or any(box_iou(box, b) > SAME_PERSON_IOU for b in self.boxes):
            return False
        if checked and (max(box[2], box[3]) < MIN_PERSON_PX or not torso_visible(pts) or not upright(pts)):
            return False
        self.points.append(pts)
        self.boxes.append(box)
        return True


def _crop_view(rgb: np.ndarray, crop: Box, box: Box, found: list[Box]) -> np.ndarray:
    """A copy of ``crop`` of the frame with the ``found`` people painted out and ``box`` (the
    person looked for, its last box) kept."""
    x, y, cw, ch = crop
    view = rgb[y:y + ch, x:x + cw].copy()
    paint_out(view, [(bx - x, by - y, bw, bh) for bx, by, bw, bh in found])
    px, py, pw, ph = (box[0] - x, box[1] - y, box[2], box[3])
    px0, py0 = max(px, 0), max(py, 0)
    view[py0:max(py + ph, 0), px0:max(px + pw, 0)] = rgb[y + py0:y + max(py + ph, 0),
                                                         x + px0:x + max(px + pw, 0)]
    return view

def pose_layers(people: list[TrackedPerson]) -> list[Layer]:
    """``layers()`` of these people (pixels of the frame the stage saw)."""
    out: list[Layer] = []
    for person in people:
        out.append(PointsShape("pose", person.landmarks[:, :2], links=POSE_LINKS, id=person.id))
        out.append(BoxShape("pose", person.box, label=str(person.id), id=person.id))
    return out


def _match(people: list[TrackedPerson], boxes: list[Box]) -> dict[int, TrackedPerson]:
    """Pair this frame's boxes with known people by overlap (greedy, best first; IoU > 0.2)."""
    overlaps = ((box_iou(b, p.box), k, p) for k, b in enumerate(boxes) for p in people)
    return pair_greedily((-iou, k, p) for iou, k, p in overlaps if iou > 0.2)


#: the stage's settings group, as ``PoseStage.SETTINGS`` (``sensekit settings pose`` lists it)
POSE_SETTINGS = PoseStage.SETTINGS
