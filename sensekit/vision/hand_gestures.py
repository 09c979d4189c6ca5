"""Gestures and pinches from 21 hand landmarks: pure geometry, no model.

Input is one hand's 21 points in MediaPipe's order (wrist, then thumb, index, middle, ring
and pinky from base to tip) as an ``(21, 3)`` array of image landmarks in pixels (MediaPipe's
z scaled by the image width, as the ``hand`` event carries them), plus, where available,
MediaPipe's *world* landmarks (metres, 3-D, not foreshortened). Everything here is
**scale-invariant**: angles, or distances divided by the hand's own size, so a child's hand
far from the camera and an adult's close to it give the same answers.

- ``hand_size(points)``: wrist to middle-finger knuckle (landmarks 0-9), the unit for the
  distance thresholds (about 8-10 cm on an adult hand).
- ``finger_curls(points)``: for thumb, index, middle, ring and pinky, the sum of the bend
  angles at the finger's joints in degrees (0 = straight; a fist's fingers are 180-300).
- ``pinch_ratio(image_points, world_points)``: thumb tip to index tip in hand sizes.
- ``hand_shape(image_points, world_points)`` measures a hand once (``HandShape``);
  ``classify(shape)`` gives one of ``GESTURES`` or ``"none"`` (thumbs up/down read the
  thumb's direction in the image, y down); ``can_pinch(shape)`` says whether a near
  thumb-index distance is a pinch.
- ``PinchState`` / ``GestureState``: per-hand hysteresis and hold times, so a single noisy
  frame neither starts a pinch nor flips a gesture.

How the thresholds were chosen (all in ``THRESHOLDS``): the angle limits are anatomical
rather than fitted (a straight finger bends < 60 degrees in total over its three joints, a
curled one > 120; the band between is "neither", so a half-bent finger never decides a
gesture). The pinch distances are physical: touching fingertips are about two fingertip
widths apart centre to centre, 0.15-0.35 hand sizes; start below 0.35, end above 0.50. They
were set on v01 (an open hand whose thumb touches each finger in turn, then a fist) and only
checked on v02 (the labelled pinches); as a stand-in for other people's hands and cameras,
both clips were also run mirrored and with the full model, four different sets of landmarks
(``benchmarks/hands_eval.py``): all four give exactly the labelled pinches. What separates a
pinch from look-alikes is not a finer threshold but two rules: it must hold 100 ms (a hand
flipping edge-on lines the fingertips up for one or two frames) and the index tip must be
the fingertip nearest the thumb (the thumb touching the ring finger passes close to the
index tip; in a fist the thumb rests on the curled index).

Cost: ~30 us per hand (NumPy on 21 points). Failure modes: gestures need the fingers
visible; a hand seen edge-on (fingers pointing at the camera) leaves the bend angles to
MediaPipe's rough depth; the model's own errors on a hand holding an object or half out of
the frame pass straight through (s09, a hand gripping a tool, reads as a fist).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["GESTURES", "THRESHOLDS", "FINGERS", "HandShape", "hand_size", "finger_curls",
           "pinch_ratio", "thumb_direction", "hand_shape", "classify", "can_pinch", "PinchState",
           "GestureState"]

#: the gesture names ``classify`` returns (plus ``"none"``)
GESTURES = ("open_palm", "fist", "point", "thumbs_up", "thumbs_down", "victory", "ok")

#: landmark indices per finger, base to tip; the wrist (0) precedes each
FINGERS: dict[str, tuple[int, int, int, int]] = {
    "thumb": (1, 2, 3, 4), "index": (5, 6, 7, 8), "middle": (9, 10, 11, 12),
    "ring": (13, 14, 15, 16), "pinky": (17, 18, 19, 20),
}

#: every threshold, in scale-free units (degrees, or hand sizes = wrist-to-middle-knuckle)
THRESHOLDS: dict[str, float] = {
    "straight_below_deg": 60.0,      # a finger whose joints bend less than this in total is extended
    "curled_above_deg": 120.0,       # ... more than this is curled
    "thumb_straight_below_deg": 50.0,  # thumb: bend at its MCP and IP joints
    "thumb_out_above": 0.55,         # thumb tip this far from the index finger's middle joint = out
    "thumb_vertical_deg": 50.0,      # thumbs up/down: thumb within this of vertical
    "ok_touch_below": 0.35,          # "ok": thumb tip to index tip
    "pinch_start_below": 0.35,       # pinch starts when thumb tip to index tip < this
    "pinch_end_above": 0.50,         # ... and ends when it is > this (hysteresis)
}

_CHAINS = np.array([[0, *FINGERS[f]] for f in FINGERS])          # (5, 5): wrist + 4 joints


def hand_size(points: np.ndarray) -> float:
    """Wrist to middle-finger knuckle, in the points' units (never 0)."""
    p = np.asarray(points, dtype=np.float64)
    return max(math.dist(p[9].tolist(), p[0].tolist()), 1e-9)


def finger_curls(points: np.ndarray) -> np.ndarray:
    """Total bend in degrees for thumb, index, middle, ring, pinky (shape (5,)).

    Sum of the angles between consecutive bones wrist->base->...->tip. The thumb's first
    bone (wrist to CMC) bends a lot even when the thumb is straight, so for the thumb only
    the bends at MCP and IP count.
    """
    p = np.asarray(points, dtype=np.float64)[_CHAINS]             # (5, 5, 3)
    bones = np.diff(p, axis=1)                                    # (5, 4, 3)
    bones /= np.maximum(np.sqrt(np.square(bones).sum(axis=2, keepdims=True)), 1e-12)
    cos = np.clip(np.sum(bones[:, :-1] * bones[:, 1:], axis=2), -1.0, 1.0)   # (5, 3)
    bend = np.degrees(np.arccos(cos))
    curls = bend.sum(axis=1)
    curls[0] = bend[0, 1:].sum()                                  # thumb: MCP + IP only
    return curls


def _ratio(points: np.ndarray) -> float:
    return math.dist(points[4].tolist(), points[8].tolist()) / hand_size(points)


def pinch_ratio(image_points: np.ndarray, world_points: np.ndarray | None = None) -> float:
    """Thumb tip to index tip in hand sizes (0 = touching).

    The mean of two views of the same distance: in the image plane (x, y only: exact where
    the fingertips are, but fooled when one is in front of the other) and in MediaPipe's 3-D
    world landmarks (not foreshortened, but the model's depth guess is rough). Either alone
    misread one of the developer clips; their mean separates touching from near-touching on
    both. Without ``world_points`` it is the image ratio alone.
    """
    img = _ratio(np.asarray(image_points, dtype=np.float64)[:, :2])
    if world_points is None:
        return img
    return 0.5 * (img + _ratio(np.asarray(world_points, dtype=np.float64)))


def thumb_direction(image_points: np.ndarray) -> float:
    """Angle of the thumb (MCP to tip) from straight up, in degrees: 0 up, 180 down."""
    p = np.asarray(image_points, dtype=np.float64)
    dx, dy = p[4, 0] - p[2, 0], p[4, 1] - p[2, 1]
    return float(np.degrees(np.arctan2(abs(dx), -dy)))


@dataclass(frozen=True)
class HandShape:
    """What the classifiers read from one hand (all scale-free)."""
    curls: np.ndarray            # degrees, thumb..pinky
    thumb_out: bool              # thumb straight and away from the index finger
    pinch: float                 # ``pinch_ratio``, hand sizes
    thumb_angle: float           # ``thumb_direction``, degrees from up
    nearest_tip: int             # the fingertip (8, 12, 16 or 20) nearest the thumb tip


def hand_shape(image_points: np.ndarray, world_points: np.ndarray | None = None,
               thresholds: dict[str, float] = THRESHOLDS) -> HandShape:
    """Measure one hand. ``image_points``: 21 x (x, y, z) pixels (MediaPipe's z scaled by
    the image width, as the ``hand`` event carries them)."""
    p = np.asarray(image_points, dtype=np.float64)
    curls = finger_curls(p)
    away = math.dist(p[4].tolist(), p[6].tolist()) / hand_size(p)
    thumb_out = bool(curls[0] < thresholds["thumb_straight_below_deg"]
                     and away > thresholds["thumb_out_above"])
    tips = np.array([8, 12, 16, 20])
    gaps = np.sqrt(np.square(p[tips, :2] - p[4, :2]).sum(axis=1))
    if world_points is not None:
        w = np.asarray(world_points, dtype=np.float64)
        gaps = gaps / hand_size(p[:, :2]) + np.sqrt(np.square(w[tips] - w[4]).sum(axis=1)) / hand_size(w)
    return HandShape(curls, thumb_out, pinch_ratio(p, world_points), thumb_direction(p),
                     int(tips[np.argmin(gaps)]))


def classify(shape: HandShape, thresholds: dict[str, float] = THRESHOLDS) -> str:
    """The gesture of one measured hand: a name in ``GESTURES``, or ``"none"``."""
    th = thresholds
    fingers = shape.curls[1:]                                     # index, middle, ring, pinky
    straight = fingers < th["straight_below_deg"]
    curled = fingers > th["curled_above_deg"]
    if shape.pinch < th["ok_touch_below"] and straight[1:].all():
        return "ok"
    if straight.all() and shape.thumb_out:
        return "open_palm"
    if curled.all():
        if shape.thumb_out and shape.thumb_angle < th["thumb_vertical_deg"]:
            return "thumbs_up"
        if shape.thumb_out and shape.thumb_angle > 180.0 - th["thumb_vertical_deg"]:
            return "thumbs_down"
        return "fist"
    if straight[0] and curled[1:].all():
        return "point"
    if straight[:2].all() and curled[2:].all():
        return "victory"
    return "none"


def can_pinch(shape: HandShape, thresholds: dict[str, float] = THRESHOLDS) -> bool:
    """A thumb-index pinch needs the index finger not rolled into a fist (a fist's thumb rests
    on it) and the index tip to be the fingertip nearest the thumb (the thumb touching the
    ring finger passes close to the index tip too)."""
    return bool(shape.curls[1] < thresholds["curled_above_deg"] and shape.nearest_tip == 8)


@dataclass
class PinchState:
    """Pinch hysteresis for one hand: starts below ``start_below`` held for ``hold_s``,
    ends above ``end_above`` held for ``hold_s`` (ratios in hand sizes)."""

    start_below: float = THRESHOLDS["pinch_start_below"]
    end_above: float = THRESHOLDS["pinch_end_above"]
    hold_s: float = 0.1
    pinching: bool = False
    _since: float | None = None

    def update(self, ratio: float, t: float) -> bool | None:
        """Feed one frame; returns ``True``/``False`` when the pinch starts/ends, else ``None``."""
        crossing = ratio > self.end_above if self.pinching else ratio < self.start_below
        if not crossing:
            self._since = None
            return None
        if self._since is None:
            self._since = t
        if t - self._since < self.hold_s:
            return None
        self.pinching = not self.pinching
        self._since = None
        return self.pinching


@dataclass
class GestureState:
    """The current gesture of one hand: the first one is taken at once, a change only once
    the new gesture has been seen for ``hold_s`` (a one-frame flicker changes nothing)."""

    hold_s: float = 0.1
    current: str | None = None
    _candidate: str | None = None
    _since: float = 0.0

    def update(self, name: str, t: float) -> str | None:
        """Feed one frame's raw gesture; returns the new gesture when it changes, else ``None``."""
        if self.current is None:
            self.current = name
            return name
        if name == self.current:
            self._candidate = None
            return None
        if name != self._candidate:
            self._candidate, self._since = name, t
        if t - self._since >= self.hold_s:
            self.current, self._candidate = name, None
            return name
        return None
