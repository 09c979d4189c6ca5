"""Body events from hand-made 33-point skeletons (no MediaPipe): arms up, lean, crouch, jump."""
from __future__ import annotations

import math

import numpy as np
import pytest

from sensekit.vision.body_events import BodyState, ZoneSteps, body_shape, feet_zones


def skeleton(*, lean_deg: float = 0.0, arms_up: bool = False, knee_deg: float = 180.0, lift: float = 0.0,
             torso: float = 100.0, at: tuple[float, float] = (320.0, 400.0)) -> np.ndarray:
    """A front-facing body: hips centred at ``at`` (raised by ``lift`` px), torso ``torso`` px long,
    tilted ``lean_deg`` (+ towards the image's right), knees bent to ``knee_deg``."""
    pts = np.zeros((33, 4))
    pts[:, 3] = 0.9
    hx, hy = at[0], at[1] - lift
    a = math.radians(lean_deg)
    up = np.array([math.sin(a), -math.cos(a)])         # from hips to shoulders, image y down
    side = np.array([math.cos(a), math.sin(a)])
    hip = np.array([hx, hy])
    shoulder = hip + torso * up
    pts[23, :2], pts[24, :2] = hip + 0.15 * torso * side, hip - 0.15 * torso * side   # left hip at +x
    pts[11, :2], pts[12, :2] = shoulder + 0.2 * torso * side, shoulder - 0.2 * torso * side
    pts[0, :2] = shoulder + 0.5 * torso * up
    for i, (s, e, w) in enumerate(((11, 13, 15), (12, 14, 16))):
        sign = 1 if i == 0 else -1
        if arms_up:
            pts[e, :2] = pts[s, :2] + 0.5 * torso * up + sign * 0.1 * torso * side
            pts[w, :2] = pts[e, :2] + 0.5 * torso * up
        else:
            pts[e, :2] = pts[s, :2] - 0.5 * torso * up
            pts[w, :2] = pts[e, :2] - 0.5 * torso * up
    bend = math.radians(180.0 - knee_deg)
    for h, k, an in ((23, 25, 27), (24, 26, 28)):
        pts[k, :2] = pts[h, :2] + np.array([0.0, 0.9 * torso])
        # the shin turns by the bend, towards the back (shown as image x)
        pts[an, :2] = pts[k, :2] + 0.9 * torso * np.array([math.sin(bend), math.cos(bend)])
    return pts


def run(frames: list[np.ndarray], dt: float = 1 / 32) -> list[tuple[int, dict]]:
    state = BodyState(hold_s=0.1)
    return [(i, ch) for i, pts in enumerate(frames) if (ch := state.update(body_shape(pts), i * dt))]


def test_shape_measures_in_torso_lengths():
    s = body_shape(skeleton(lean_deg=20.0, knee_deg=100.0))
    assert s.torso_px == pytest.approx(100.0)
    assert s.lean_deg == pytest.approx(20.0, abs=0.5)
    assert s.knee_deg == pytest.approx(100.0, abs=0.5)
    assert not s.arms_up and body_shape(skeleton(arms_up=True)).arms_up


def test_hidden_legs_vote_for_nothing():
    pts = skeleton(knee_deg=90.0)
    pts[25:29, 3] = 0.1
    s = body_shape(pts)
    assert math.isnan(s.knee_deg) and math.isnan(s.ankle_y)
    assert run([pts] * 20) == []


def test_bad_shape_is_named():
    with pytest.raises(ValueError, match=r"\(33, 4\) array, got shape \(21, 3\)"):
        body_shape(np.zeros((21, 3)))


def test_arms_up_needs_to_hold_and_comes_down():
    frames = [skeleton()] * 5 + [skeleton(arms_up=True)] + [skeleton()] * 5 + [skeleton(arms_up=True)] * 10 \
        + [skeleton()] * 10
    changes = run(frames)
    assert changes == [(15, {"arms_up": True}), (25, {"arms_up": False})]   # 0.1 s: 4 frames at 1/32 s


@pytest.mark.parametrize("angle, direction", [(20.0, "right"), (-20.0, "left")])
def test_lean_with_a_direction_and_hysteresis(angle, direction):
    frames = [skeleton()] * 5 + [skeleton(lean_deg=angle)] * 10 + [skeleton(lean_deg=angle / 2)] * 10 \
        + [skeleton(lean_deg=0.0)] * 10
    changes = run(frames)
    # 10 degrees is inside the band: the lean holds until the body is back under 8
    assert [c for _, c in changes] == [{"lean": direction}, {"lean": "none"}]
    assert changes[0][0] == 9 and changes[1][0] == 29


def test_crouch_and_stand():
    frames = [skeleton()] * 5 + [skeleton(knee_deg=100.0, lift=-40.0)] * 10 + [skeleton(knee_deg=135.0)] * 5 \
        + [skeleton()] * 10
    assert [c for _, c in run(frames)] == [{"crouch": True}, {"crouch": False}]


def test_a_jump_is_one_event_at_take_off_and_walking_is_none():
    rest = [skeleton()] * 30
    jump = [skeleton(lift=h) for h in (10.0, 30.0, 50.0, 60.0, 50.0, 30.0, 10.0, 0.0)]
    changes = run(rest + jump + rest + jump + rest)
    jumps = [(i, c["jump"]) for i, c in changes if "jump" in c]
    assert [i for i, _ in jumps] == [31, 69] and all(r > 0.25 for _, r in jumps)
    # a slow drift of the whole body (walking towards the camera) is not a jump
    drift = [skeleton(lift=0.5 * i) for i in range(120)]
    assert not any("jump" in c for _, c in run(drift))


def test_no_jump_before_a_resting_height_is_known():
    # the basketball clip: a player's first pose sat 13 px low, so the second frame "rose" 0.37
    # torso lengths and gave a jump 33 ms after she was first seen. One frame is no resting height.
    first_low = [skeleton(lift=-40.0)] + [skeleton()] * 30
    assert not any("jump" in c for _, c in run(first_low))
    # a real take-off once the body has been seen standing for the jump window still counts
    jump = [skeleton(lift=h) for h in (10.0, 30.0, 50.0, 60.0, 50.0, 30.0, 10.0, 0.0)]
    assert [i for i, c in run([skeleton()] * 13 + jump) if "jump" in c] == [14]


# --- step: feet into a zone ------------------------------------------------------

ZONES = {"mat": (400.0, 550.0, 100.0, 100.0), "door": (0.0, 0.0, 100.0, 700.0)}


def test_feet_zones_are_where_a_visible_ankle_stands():
    # hips at (450, 400), torso 100: the ankles are 180 px lower, 30 px either side of x 450
    assert feet_zones(skeleton(at=(450.0, 400.0)), ZONES) == {"mat"}
    assert feet_zones(skeleton(at=(250.0, 400.0)), ZONES) == frozenset()
    one_foot = skeleton(at=(395.0, 400.0))      # ankles at x 380 and 410: one on the mat
    assert feet_zones(one_foot, ZONES) == {"mat"}
    hidden = skeleton(at=(450.0, 400.0))
    hidden[[27, 28], 3] = 0.2
    assert feet_zones(hidden, ZONES) is None    # no visible ankle: nothing can be said
    hidden[27, 3] = 0.9
    assert feet_zones(hidden, ZONES) == {"mat"}


def test_a_step_holds_before_it_counts_and_hidden_feet_change_nothing():
    steps = ZoneSteps(hold_s=0.1)
    walk = [250.0] * 5 + [450.0] * 2 + [250.0] * 3 + [450.0] * 10 + [None] * 10 + [250.0] * 10
    changes = []
    for i, x in enumerate(walk):
        pts = skeleton(at=(x or 450.0, 400.0))
        if x is None:
            pts[[27, 28], 3] = 0.1                 # the legs out of the picture
        changes += [(i, ch) for ch in steps.update(feet_zones(pts, ZONES), i / 32)]
    # two frames on the mat (62 ms) is a flicker; from frame 10 it holds: in at 14, out at 34
    assert changes == [(14, ("mat", True)), (34, ("mat", False))]
    steps.update(frozenset({"mat", "door"}), 10.0)
    assert steps.update(frozenset({"mat", "door"}), 10.2) == [("door", True), ("mat", True)]
    assert steps.leave_all() == [("door", False), ("mat", False)] and steps.inside == frozenset()


def test_feet_cut_off_by_the_picture_count_at_its_edge():
    low = skeleton(at=(450.0, 500.0))           # ankles at y 680, below a 640-high picture
    assert feet_zones(low, {"front": (400.0, 600.0, 100.0, 40.0)}) == frozenset()
    assert feet_zones(low, {"front": (400.0, 600.0, 100.0, 40.0)}, frame_size=(640, 640)) == {"front"}
