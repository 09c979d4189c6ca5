"""HandStage: MediaPipe Hands behind the same runner, events and replays as every stage.

Per video frame it runs MediaPipe's hand pipeline (palm detection, then 21 landmarks per
hand, tracked from frame to frame) and emits, for each hand:

- ``hand``: id (stable while tracked), handedness, score, box, 21 landmarks in pixels, and
  the current gesture;
- ``gesture`` when the gesture changes (``hand_gestures.classify``, held ``gesture_hold_ms``);
- ``pinch`` when thumb and index tips meet or part (hysteresis, held ``pinch_hold_ms``);
- ``hand_lost`` when a hand has not been seen for ``lost_after_ms`` (a pinch still held
  ends first).

Settings are declared once, in the ``hands`` group (``HAND_SETTINGS``: name, default, range,
unit, meaning); the constructor takes them as keyword arguments and checks them there, and
``apply()`` changes them from the next frame (model, hand count and confidences rebuild the
MediaPipe graph). Defaults: up to 2
hands, the ``full`` models (MediaPipe's ``model_complexity=1``, its own default), detection and
tracking confidence 0.5 (MediaPipe's defaults too), One-Euro smoothing on.

Why ``full``: the lite palm detector misses hands the full one finds on unusual pictures (a
depth-masked clip: 26 % of frames with the lite models against 42 % for bare MediaPipe's
default, the full ones); the stage keeps every hand MediaPipe finds with the same model, so
with the same model as a bare call it finds a hand on at least as many frames
(``benchmarks/hands_eval.py`` prints both models on every developer clip). ``lite`` is
~1.6x faster (``--hand-model lite``) when the hands are large and plain.

Handedness: MediaPipe names the hand as if the image were a mirror (selfie) view. The stage
reports the person's hand: set ``input_mirrored=True`` when frames arrive mirrored (the apps
mirror their camera), or ``mirror=True`` to have the stage flip them; a direct camera image
(a webcam facing you, a head-mounted camera) needs neither. Both at once mirror once: frames that
arrive mirrored are never flipped back.

Finding more hands than a bare MediaPipe call: when a frame yields fewer hands than the
previous one (tracking lost) or none at all, the stage runs palm detection again on that
same frame, on a copy with a 15 % border (MediaPipe's palm detector misses a hand that fills
the frame or is cut by its edge), and when that finds nothing, once more with the other
model (the full one misses the thumbs-up of s03 that the lite one finds). It keeps
MediaPipe's own answer whenever there is one, so it never finds a hand on fewer frames than
the bare call with the same model; while no hand is in view the retry runs on at most one
frame in ``redetect_every_frames`` (10): +10-25 % while nobody is there. The full model
sometimes returns one hand twice (boxes overlapping by more than half, v01 frame 555): the
second copy is dropped rather than given a new id.

What it shows: ``layers(index)`` gives each hand of the last frame as points with the hand's
skeleton and a box labelled with its id and gesture (the ``hands`` overlay of the panel).

Cost (``benchmarks/hands.py``): MediaPipe itself, ~15-30 ms per frame on one core for the
lite models, ~1.6x that for the full ones, at any input size (it scales the picture to 192
and 224 pixels), plus ~0.3 ms
for the conversion, smoothing, gestures and events; retries cost one extra detection.
Needs the optional extra (``python -m pip install -e '.[hands]'``); without it the constructor
raises ``ConfigError`` with that line. Failure modes: hands smaller than ~40 pixels, strong
motion blur, gloves; two hands crossing may swap ids. MediaPipe on the CPU is deterministic
for the same frames in the same order, so a replay gives the same events every time.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal, Mapping

import cv2
import numpy as np

from sensekit.capture.base import Item
from sensekit.errors import ConfigError
from sensekit.events import Event, Gesture, Hand, HandLost, Pinch
from sensekit.settings import Setting, Tunable, setting
from sensekit.vision.hand_gestures import (FINGERS, THRESHOLDS, GestureState, HandShape, PinchState, can_pinch,
                                           classify, hand_shape)
from sensekit.vision.mediapipe_base import (INSTALL_HINT, NativeStderrFilter, RgbBuffer, filtered_native_stderr,
                                           frame_in, load_solution)
from sensekit.vision.shapes import BoxShape, Layer, PointsShape
from sensekit.vision.stages import mirror
from sensekit.vision.smoothing import OneEuroArray
from sensekit.vision.taught import TaughtGestures, hand_features
from sensekit.vision.tracked_ids import pair_greedily, seen_at, unseen_for

__all__ = ["HAND_SETTINGS", "HandStage", "TrackedHand", "HAND_EVENTS", "INSTALL_HINT", "load_mediapipe",
           "hands_available"]

HAND_EVENTS = frozenset({"hand", "gesture", "pinch", "hand_lost"})
PAD_FRACTION = 0.15          # border added for the retry, as a fraction of the larger side
TIP, THUMB_TIP = 8, 4        # index fingertip, thumb tip (MediaPipe's numbering)
PALM = [0, 5, 9, 13, 17]     # wrist and the four knuckles: the palm centre, for matching
DUPLICATE_IOU = 0.5          # two detections overlapping more are one hand
#: one detected hand: image points (21, 3) px, world points (21, 3) m, MediaPipe's label, its score
Found = tuple[np.ndarray, np.ndarray, str, float]


def _check_pinch(v: Mapping[str, Any]) -> None:
    if v["pinch_end_above"] <= v["pinch_start_below"]:
        raise ConfigError(f"`hands.pinch_end_above` ({v['pinch_end_above']:g}) must be greater than "
                          f"`hands.pinch_start_below` ({v['pinch_start_below']:g})")


#: a new graph's log lines are filtered until this many calls after its first hand ...
WARM_CALLS = 5
#: ... and in one window for at most this many calls without a hand
WARM_CALLS_MAX = 90

def hands_available() -> bool:
    """True if the hands extra (MediaPipe with its bundled hand models) is installed."""
    try:
        load_mediapipe()
    except ConfigError:
        return False
    return True


def load_mediapipe() -> Any:
    """``mediapipe.solutions.hands``, or ``ConfigError`` naming the fix."""
    return load_solution("hands", "hand models", "hand tracking needs")


@dataclass
class TrackedHand:
    """What the stage knows about one hand (apps may read ``HandStage.hands``)."""
    id: int
    handedness: str
    score: float
    landmarks: np.ndarray                 # (21, 3) pixels, smoothed when smoothing is on
    box: tuple[int, int, int, int]
    gesture: str
    pinching: bool
    last_t: float
    shape: HandShape | None = None
    smoother: OneEuroArray | None = None
    pinch: PinchState = field(default_factory=PinchState)
    gestures: GestureState = field(default_factory=GestureState)

    @property
    def tip(self) -> tuple[float, float]:
        """The index fingertip (x, y) in pixels."""
        return float(self.landmarks[TIP, 0]), float(self.landmarks[TIP, 1])

    @property
    def pinch_point(self) -> tuple[float, float]:
        """Midpoint of thumb tip and index tip (x, y) in pixels."""
        p = (self.landmarks[TIP, :2] + self.landmarks[THUMB_TIP, :2]) / 2
        return float(p[0]), float(p[1])


class HandStage(Tunable, section="hands",
                title="hand tracking (MediaPipe Hands; the hands extra)",
                rule=_check_pinch):
    """A runner stage: frames in, ``hand``/``gesture``/``pinch``/``hand_lost`` events out."""

    consumes: Literal["video"] = "video"
    emits = HAND_EVENTS
    max_hands = setting(2, "how many hands to follow at once", unit="hands", lo=1, hi=2, flag="--max-hands")
    model: Setting[Literal["lite", "full"]] = setting(
        "full", "MediaPipe model size: full (MediaPipe's default) or lite (faster)",
        choices=("lite", "full"), flag="--hand-model")
    min_detection_confidence = setting(0.5, "palm detector score to accept a new hand", lo=0.0, hi=1.0)
    min_tracking_confidence = setting(0.5, "landmark score below which tracking is lost and detection reruns",
                                      lo=0.0, hi=1.0)
    smoothing = setting(True, "One-Euro smoothing of the landmarks (off: raw MediaPipe points)",
                        flag="--hand-smoothing")
    smoothing_min_cutoff_hz = setting(1.5, "One-Euro cutoff of a still hand (lower: steadier)", unit="Hz",
                                      lo=0.01, hi=30.0)
    smoothing_beta = setting(2.0, "how fast the cutoff rises with speed (higher: less lag)",
                             unit="per hand size/s", lo=0.0, hi=100.0)
    pinch_start_below: Setting[float] = setting(
        THRESHOLDS["pinch_start_below"], "thumb-index distance that starts a pinch",
        unit="hand sizes", lo=0.01, hi=2.0)
    pinch_end_above: Setting[float] = setting(THRESHOLDS["pinch_end_above"], "thumb-index distance that ends it "
                                              "(> start: hysteresis)", unit="hand sizes", lo=0.01, hi=2.0)
    pinch_hold_ms = setting(100.0, "a pinch must start/end for this long", unit="ms", lo=0.0, hi=1000.0)
    gesture_hold_ms = setting(100.0, "a new gesture must hold this long", unit="ms", lo=0.0, hi=2000.0)
    lost_after_ms = setting(100.0, "unseen this long: hand_lost (id forgotten)", unit="ms", lo=0.0, hi=5000.0)
    redetect = setting(True, "retry detection on a padded copy when hands are missing")
    redetect_every_frames = setting(10, "with no hand in view, retry on one frame in N", unit="frames",
                                    lo=1, hi=1000)
    mirror = setting(False, "flip frames left-right first (coordinates are then mirrored)")
    input_mirrored = setting(False, "frames arrive mirrored already (the apps)")

    def __init__(self, *, taught: TaughtGestures | None = None, **settings: Any) -> None:
        """``taught``: a model from ``sensekit teach gesture``; its names replace the built-in
        gestures (``gesture`` events then carry its confidence)."""
        self.init_settings(settings)
        self.taught = taught
        self._mp_hands = load_mediapipe()
        self._warming: dict[int, list[int]] = {}   # graph -> [calls, calls since its first hand or -1] (_run)
        self._quiet = NativeStderrFilter()    # open while any graph warms up
        self._graph = self._make_graph(static=False)
        self._retry_graphs: list[Any] = []     # made on the first retry: this model, the other one
        self.hands: dict[int, TrackedHand] = {}
        self.runs = {"frames": 0, "retries": 0, "recovered": 0}
        self._next_id = 1
        self._empty_streak = 0
        self._last_t = -1.0                    # the previous frame's time
        self._last_index = -1                  # the last frame's index (``layers``)
        self._rgb = RgbBuffer()

    def use_taught(self, taught: TaughtGestures | None) -> None:
        """Name the gestures with this model from the next frame on (``None``: the built-in
        ones); each hand's current gesture starts again."""
        self.taught = taught
        for hand in self.hands.values():
            hand.gestures = GestureState(self.gesture_hold_ms / 1000.0)

    def settings_changed(self, changed: Mapping[str, Any]) -> None:
        """Model, hand count and confidences are MediaPipe's own: a new graph; the rest
        applies to hands seen from now on."""
        if changed.keys() & {"max_hands", "model", "min_detection_confidence", "min_tracking_confidence"}:
            self.close()
            self._graph = self._make_graph(static=False)

    # -- MediaPipe -------------------------------------------------------------------
    def _make_graph(self, *, static: bool, model: str | None = None) -> Any:
        s = self
        self._quiet.start()
        graph = self._mp_hands.Hands(static_image_mode=static, max_num_hands=s.max_hands,
                                        model_complexity=1 if (model or s.model) == "full" else 0,
                                        min_detection_confidence=s.min_detection_confidence,
                                        min_tracking_confidence=s.min_tracking_confidence)
        self._warming[id(graph)] = [0, -1]
        return graph

    def close(self) -> None:
        for graph in (self._graph, *self._retry_graphs):
            if graph is not None:
                graph.close()
        self._graph = None
        self._retry_graphs = []
        self._warming.clear()
        self._quiet.stop()

    def _run(self, graph: Any, rgb: np.ndarray) -> Any:
        """``graph.process``. A new graph logs from its own threads on its first frames and on its
        first hand: the stage's stderr window stays open from the graph's creation until
        ``WARM_CALLS`` calls after its first hand (at most ``WARM_CALLS_MAX`` calls without one;
        after that, until a hand comes, only each call is filtered)."""
        state = self._warming.get(id(graph))
        if state is None:
            return graph.process(rgb)
        if state[1] < 0 and state[0] >= WARM_CALLS_MAX:
            with filtered_native_stderr():
                result = graph.process(rgb)
        else:
            result = graph.process(rgb)
        state[0] += 1
        if state[1] >= 0:
            state[1] += 1
        elif result.multi_hand_landmarks:
            state[1] = 0
        if state[1] >= WARM_CALLS:
            del self._warming[id(graph)]
        if all(calls >= WARM_CALLS_MAX for calls, _ in self._warming.values()):
            self._quiet.stop()
        else:
            self._quiet.pass_on()
        return result

    def _detect(self, rgb: np.ndarray) -> list[Found]:
        return _parse(self._run(self._graph, rgb), rgb.shape[1], rgb.shape[0])

    def _retry(self, rgb: np.ndarray) -> list[Found]:
        """Palm detection again on this frame, with a border so a large hand fits; when that
        finds nothing, once more with the other model (each misses hands the other finds)."""
        if not self._retry_graphs:
            other = "lite" if self.model == "full" else "full"
            self._retry_graphs = [self._make_graph(static=True), self._make_graph(static=True, model=other)]
        h, w = rgb.shape[:2]
        pad = int(round(PAD_FRACTION * max(h, w)))
        padded = cv2.copyMakeBorder(rgb, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
        found: list[Found] = []
        for graph in self._retry_graphs:
            self.runs["retries"] += 1
            found = _parse(self._run(graph, padded), w + 2 * pad, h + 2 * pad)
            if found:
                break
        for image_points, _, _, _ in found:
            image_points[:, :2] -= pad
        return found

    # -- the stage -------------------------------------------------------------------
    def process(self, item: Item) -> list[Event]:
        rgb = frame_in(self, item)
        if rgb is None:
            return []
        s = self
        if s.mirror and not s.input_mirrored:      # mirrored once, whoever asks
            rgb = mirror(rgb)
        found = self._detect(rgb)
        self._empty_streak = 0 if found else self._empty_streak + 1
        if s.redetect and len(found) < s.max_hands:
            lost_one = len(found) < sum(1 for h in self.hands.values() if h.last_t >= self._last_t)
            if lost_one or (not found and (self._empty_streak - 1) % s.redetect_every_frames == 0):
                extra = self._retry(rgb)
                if len(extra) > len(found):
                    self.runs["recovered"] += 1
                    found = extra
        return self._update(found, item.t)

    def _update(self, found: list[Found], t: float) -> list[Event]:
        s = self
        events: list[Event] = []
        matches = _match(list(self.hands.values()), [f[0] for f in found])
        for k, (image_points, world_points, label, score) in enumerate(found):
            hand = matches.get(k)
            if hand is None and _duplicate(k, found, matches):
                continue
            if hand is None:
                hand = self._new_hand()
            events.extend(self._observe(hand, image_points, world_points, label, score, t))
        for hand in unseen_for(self.hands.values(), t, s.lost_after_ms):
            if hand.pinching:
                x, y = hand.pinch_point
                events.append(Pinch(t=t, id=hand.id, pinching=False, x=x, y=y))
            events.append(HandLost(t=t, id=hand.id))
            del self.hands[hand.id]
        self._last_t = t
        return events

    def offers(self) -> frozenset[str]:
        return frozenset({"hands"})

    def layers(self, index: int) -> list[Layer]:
        """The hands seen on frame ``index`` if it is the last one processed: landmarks and
        skeleton, box with id and gesture."""
        if index != self._last_index:
            return []
        return hand_layers(seen_at(self.hands.values(), self._last_t))

    def _new_hand(self) -> TrackedHand:
        s = self
        hand = TrackedHand(id=self._next_id, handedness="", score=0.0, landmarks=np.zeros((21, 3)),
                           box=(0, 0, 0, 0), gesture="none", pinching=False, last_t=-1.0,
                           pinch=PinchState(s.pinch_start_below, s.pinch_end_above, s.pinch_hold_ms / 1000.0),
                           gestures=GestureState(s.gesture_hold_ms / 1000.0))
        if s.smoothing:
            hand.smoother = OneEuroArray(min_cutoff_hz=s.smoothing_min_cutoff_hz, beta=s.smoothing_beta)
        self._next_id += 1
        self.hands[hand.id] = hand
        return hand

    def _observe(self, hand: TrackedHand, image_points: np.ndarray, world_points: np.ndarray,
                 label: str, score: float, t: float) -> Iterable[Event]:
        s = self
        shape = hand_shape(image_points, world_points)
        points = image_points
        if hand.smoother is not None:
            size = math.dist(image_points[9, :2].tolist(), image_points[0, :2].tolist())
            points = hand.smoother(image_points, t, speed_scale=1.0 / max(size, 1.0))
        flip = s.mirror or s.input_mirrored          # MediaPipe's label is right for mirrored views
        hand.handedness = label.lower() if flip else {"Left": "right", "Right": "left"}.get(label, label.lower())
        hand.score, hand.landmarks, hand.shape, hand.last_t = score, points, shape, t
        x0, y0 = np.floor(points[:, :2].min(axis=0))
        x1, y1 = np.ceil(points[:, :2].max(axis=0))
        hand.box = (int(x0), int(y0), int(x1 - x0), int(y1 - y0))
        out: list[Event] = []
        confidence = 1.0
        if self.taught is not None:
            name, confidence = self.taught.predict(hand_features(points))
        else:
            name = classify(shape)
        changed = hand.gestures.update(name, t)
        hand.gesture = hand.gestures.current or "none"
        out.append(Hand(t=t, id=hand.id, handedness=hand.handedness, score=score, gesture=hand.gesture,
                        box=hand.box, landmarks=tuple(map(tuple, points.tolist()))))
        if changed is not None:
            out.append(Gesture(t=t, id=hand.id, gesture=changed, confidence=confidence))
        ratio = shape.pinch if (hand.pinching or can_pinch(shape)) else np.inf
        flipped = hand.pinch.update(ratio, t)
        if flipped is not None:
            hand.pinching = flipped
            x, y = hand.pinch_point
            out.append(Pinch(t=t, id=hand.id, pinching=flipped, x=x, y=y))
        return out


#: the hand's skeleton: each finger from the wrist, and across the knuckles
HAND_LINKS: tuple[tuple[int, int], ...] = tuple(
    (a, b) for chain in ((0, *joints) for joints in FINGERS.values()) for a, b in itertools.pairwise(chain)
) + ((5, 9), (9, 13), (13, 17))


def hand_layers(hands: Iterable[TrackedHand]) -> list[Layer]:
    """``layers()`` of these hands (pixels of the frame the stage saw)."""
    out: list[Layer] = []
    for hand in hands:
        out.append(PointsShape("hands", hand.landmarks[:, :2], links=HAND_LINKS, id=hand.id))
        label = f"{hand.id} {hand.gesture}" if hand.gesture != "none" else str(hand.id)
        out.append(BoxShape("hands", hand.box, label=label, id=hand.id))
    return out


def _parse(result: Any, width: int, height: int) -> list[Found]:
    """MediaPipe's result -> [(image points px (21, 3), world points m (21, 3), label, score)]."""
    out = []
    scale = np.array([width, height, width], dtype=np.float64)
    for lms, world, handed in zip(result.multi_hand_landmarks or (), result.multi_hand_world_landmarks or (),
                                  result.multi_handedness or ()):
        image_points = np.array([(p.x, p.y, p.z) for p in lms.landmark], dtype=np.float64) * scale
        world_points = np.array([(p.x, p.y, p.z) for p in world.landmark], dtype=np.float64)
        best = handed.classification[0]
        out.append((image_points, world_points, best.label, float(best.score)))
    return out


def _box(points: np.ndarray) -> tuple[float, float, float, float]:
    x0, y0 = points[:, :2].min(axis=0)
    x1, y1 = points[:, :2].max(axis=0)
    return float(x0), float(y0), float(x1), float(y1)


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """Intersection over union of two (x0, y0, x1, y1) boxes."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - ix * iy
    return ix * iy / union if union > 0 else 0.0


def _duplicate(k: int, found: list[Found], matches: dict[int, TrackedHand]) -> bool:
    """Whether unmatched detection ``k`` is a second copy of a hand already in ``found`` (the full
    model sometimes returns one hand twice, boxes overlapping by more than half): it is when it
    overlaps a matched detection, or an earlier unmatched one, that much."""
    box = _box(found[k][0])
    return any(_overlap(box, _box(found[j][0])) > DUPLICATE_IOU for j in range(len(found))
               if j != k and (j in matches or j < k))


def _match(hands: list[TrackedHand], found: list[np.ndarray]) -> dict[int, TrackedHand]:
    """Pair detections with known hands by palm-centre distance in hand sizes (gate 1.5)."""
    if not hands or not found:
        return {}
    def centre_and_size(pts: np.ndarray) -> tuple[list[float], float]:
        palm = pts[PALM, :2]
        return (palm.sum(axis=0) / len(PALM)).tolist(), max(math.dist(palm[2].tolist(), palm[0].tolist()), 1.0)

    known = [(hand, *centre_and_size(hand.landmarks)) for hand in hands]
    pairs = []
    for k, pts in enumerate(found):
        centre, size = centre_and_size(pts)
        for hand, prev, prev_size in known:
            cost = math.dist(centre, prev) / max(size, prev_size)
            if cost < 1.5:
                pairs.append((cost, k, hand))
    return pair_greedily(pairs)


#: the stage's settings group, as ``HandStage.SETTINGS`` (``sensekit settings hands`` lists it)
HAND_SETTINGS = HandStage.SETTINGS
