"""Gesture and pinch rules on hand-made skeletons (no MediaPipe needed: runs in every install).

A skeleton is built from its parts: a palm with four knuckles, fingers either straight
(continuing the wrist-to-knuckle direction) or curled (each joint turning 80 degrees into
the palm), and a thumb pointing some way. The rules must hold at any size, any position
and any in-plane rotation that keeps "up" up, which is what makes them carry over to other
people's hands.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from sensekit.vision.hand_gestures import (GESTURES, GestureState, PinchState, can_pinch, classify,
                                           finger_curls, hand_shape, pinch_ratio)

KNUCKLES = {"index": (-30, -90), "middle": (-5, -95), "ring": (18, -90), "pinky": (38, -80)}
SEGMENTS = (35.0, 25.0, 20.0)


def _chain(start: np.ndarray, direction: np.ndarray, turn_deg: float) -> list[np.ndarray]:
    """Three bones from ``start``, each turning ``turn_deg`` further towards -z (into the palm)."""
    pts, p = [], start.copy()
    d = direction / np.linalg.norm(direction)
    for k, length in enumerate(SEGMENTS):
        a = math.radians(turn_deg * (k + 1))
        step = np.array([d[0] * math.cos(a), d[1] * math.cos(a), -math.sin(a)])
        p = p + length * step
        pts.append(p)
    return pts


def skeleton(fingers: str = "1111", thumb: str = "out", *, scale: float = 1.0, rotate_deg: float = 0.0,
             offset: tuple[float, float] = (300.0, 300.0), touch: bool = False) -> np.ndarray:
    """21 x (x, y, z) pixels. ``fingers``: index..pinky, 1 straight / 0 curled; ``thumb``:
    out (up and away from the index finger) or in (folded); the whole hand turned
    ``rotate_deg`` clockwise in the picture."""
    p = np.zeros((21, 3))
    for k, (name, (x, y)) in enumerate(KNUCKLES.items()):
        base = 5 + 4 * k
        mcp = np.array([x, y, 0.0])
        p[base] = mcp
        p[base + 1:base + 4] = _chain(mcp, mcp[:2], 0.0 if fingers[k] == "1" else 80.0)
    cmc, mcp = np.array([-25.0, -15.0, 0.0]), np.array([-50.0, -35.0, 0.0])
    direction = {"out": (-0.8, -0.6), "in": (0.9, -0.4)}[thumb]
    p[1], p[2] = cmc, mcp
    bend = 60.0 if thumb == "in" else 0.0
    p[3:5] = _chain(mcp, np.array(direction), bend)[:2]
    if touch:                                  # the index tip on the thumb tip
        p[8] = p[4] + np.array([4.0, 3.0, 0.0])
    a = math.radians(rotate_deg)
    turn = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    return (p @ turn.T) * scale + np.array([*offset, 0.0])


def gesture(points: np.ndarray) -> str:
    return classify(hand_shape(points))


THUMB_UP_DEG = math.degrees(math.atan2(0.8, 0.6))      # turns the "out" thumb to point straight up


@pytest.mark.parametrize("fingers, thumb, turn, expected", [
    ("1111", "out", 0, "open_palm"), ("0000", "in", 0, "fist"), ("0000", "in", 90, "fist"),
    ("0000", "out", THUMB_UP_DEG, "thumbs_up"), ("0000", "out", THUMB_UP_DEG + 20, "thumbs_up"),
    ("0000", "out", THUMB_UP_DEG + 180, "thumbs_down"), ("0000", "out", THUMB_UP_DEG + 90, "fist"),
    ("1000", "in", 0, "point"), ("1000", "in", -60, "point"), ("1100", "in", 0, "victory"),
    ("1010", "in", 0, "none"),
])
@pytest.mark.parametrize("scale", [0.4, 1.0, 3.0])
def test_gestures_at_any_size_and_turn(fingers, thumb, turn, expected, scale):
    assert gesture(skeleton(fingers, thumb, scale=scale, rotate_deg=turn)) == expected


def test_ok_is_thumb_on_index_with_three_fingers_up():
    assert gesture(skeleton("0111", "out", touch=True)) == "ok"
    assert gesture(skeleton("0111", "out", touch=False)) == "none"


def test_every_gesture_name_is_known():
    assert set(GESTURES) == {"open_palm", "fist", "point", "thumbs_up", "thumbs_down", "victory", "ok"}


def test_curls_straight_and_curled():
    curls = finger_curls(skeleton("1010", "out"))
    assert curls[1] < 5 and curls[3] < 5 and curls[2] > 200 and curls[4] > 200


def test_pinch_ratio_is_scale_free_and_mixes_world_points():
    a, b = skeleton(touch=True), skeleton(touch=True, scale=2.5, offset=(10, 900))
    assert pinch_ratio(a) == pytest.approx(pinch_ratio(b))
    assert pinch_ratio(a) < 0.1 < pinch_ratio(skeleton())
    world = skeleton() / 1000.0                 # metres, fingers apart
    assert pinch_ratio(a, world) == pytest.approx((pinch_ratio(a) + pinch_ratio(world)) / 2)


def test_a_fist_cannot_pinch():
    assert not can_pinch(hand_shape(skeleton("0000", "in")))
    assert can_pinch(hand_shape(skeleton("1111", "out")))


def test_pinch_hysteresis_and_hold():
    s = PinchState(start_below=0.25, end_above=0.4, hold_s=0.03)   # explicit: not the defaults
    assert s.update(0.1, 0.00) is None            # one frame is not enough
    assert s.update(0.5, 0.04) is None            # ... and a noisy frame resets the wait
    assert s.update(0.1, 0.08) is None
    assert s.update(0.1, 0.12) is True            # held 40 ms: the pinch starts
    assert s.update(0.3, 0.16) is None            # between the thresholds: still pinching
    assert s.update(0.45, 0.20) is None
    assert s.update(0.45, 0.24) is False and not s.pinching


def test_gesture_first_at_once_then_only_after_hold():
    g = GestureState(hold_s=0.1)
    assert g.update("fist", 0.0) == "fist"
    assert g.update("none", 0.033) is None        # a flicker changes nothing
    assert g.update("fist", 0.066) is None
    for t in (0.1, 0.133, 0.166):
        assert g.update("open_palm", t) is None
    assert g.update("open_palm", 0.2) == "open_palm" and g.current == "open_palm"
