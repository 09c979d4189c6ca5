"""The object leaving the view (sensekit.evaluation.vision.leave): plans on hand-made tracks, and
``color_lost`` when a real clip's object is panned out of view."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.evaluation.vision.evaluate import iou
from sensekit.evaluation.vision.leave import outside_share, pan_plan, still_plan, view, view_box
from sensekit.events import ColorFound, ColorLost
from sensekit.vision.color_tracker import ColorTracker
from tests.vision.clips import truth_and_frames


def test_outside_share_of_a_box():
    assert outside_share((10, 10, 10, 10), (0, 0, 100, 100)) == 0
    assert outside_share((95, 10, 10, 10), (0, 0, 100, 100)) == pytest.approx(0.5)
    assert outside_share((100, 10, 10, 10), (0, 0, 100, 100)) == 1


def test_a_pan_takes_a_still_object_out_and_marks_edge_half_out():
    truth = np.tile([60.0, 70.0, 20.0, 20.0], (200, 1))            # a still box in a 400x160 frame
    plan = pan_plan(truth, (400, 160), direction="right", speed_px=4, start=30)
    assert plan is not None and plan.turn == 30
    w = plan.windows
    assert (w[:30] == w[0]).all() and tuple(w[0]) == (0, 40, 200, 80)   # half the frame, kept inside it
    assert np.allclose(np.diff(w[30:, 0]), 4)                      # then moving right 4 px a frame
    # the window's left edge (4 k) passes the box's left (60) at k 16, its centre at 18, its right at 20
    assert (plan.edge, plan.half, plan.out) == (46, 48, 50)
    assert len(w) == plan.out + 16
    # the window cannot move left of the frame, so no pan to the left takes the box out
    assert pan_plan(truth, (400, 160), direction="left", speed_px=4) is None
    # nor can a window half the frame wide leave a centred box before the border stops it
    assert pan_plan(np.tile([190.0, 70.0, 20.0, 20.0], (200, 1)), (400, 160), direction="right",
                    speed_px=4) is None
    with pytest.raises(ValueError, match="direction must be one of"):
        pan_plan(truth, (400, 160), direction="sideways", speed_px=4)


def test_a_still_window_the_object_walks_out_of():
    x = np.concatenate([np.full(40, 20.0), 20.0 + 3 * np.arange(1, 81)])  # still, then walks right
    truth = np.stack([x, np.full(120, 60.0), np.full(120, 10.0), np.full(120, 10.0)], -1)
    plan = still_plan(truth, (200, 160))
    assert plan is not None
    assert (plan.windows == plan.windows[0]).all()
    assert outside_share(truth[plan.first + plan.edge - 1], plan.windows[0]) == 0
    assert outside_share(truth[plan.first + plan.out], plan.windows[0]) == 1
    assert still_plan(np.tile([20.0, 60.0, 10.0, 10.0], (120, 1)), (200, 160)) is None   # never leaves


def test_view_is_the_window_enlarged_and_boxes_follow():
    frame = np.zeros((160, 200, 3), np.uint8)
    frame[60:80, 100:120] = 255
    window = (50.0, 40.0, 100.0, 80.0)
    out = view(frame, window)
    assert out.shape == frame.shape
    b = view_box((100, 60, 20, 20), window, (200, 160))
    assert b == (100, 40, 40, 40)
    assert out[45:75, 105:135].min() == 255 and out[:30].max() == 0


@pytest.fixture(scope="module")
def clip(request):
    shared_data = request.getfixturevalue("shared_data")
    cache = {}

    def load(name, n):
        if name not in cache:
            cache[name] = truth_and_frames(shared_data, name, n)
        return cache[name]
    return load


def _run(truth, frames, plan, how, tracker):
    size = (frames[0].shape[1], frames[0].shape[0])
    box = view_box(truth[0], plan.windows[0], size)
    if how == "click":
        tracker.pick(view(frames[0], plan.windows[0]), box[0] + box[2] / 2, box[1] + box[3] / 2)
    else:
        tracker.pick_box(view(frames[0], plan.windows[0]), box)
    lost_at, lost, overlap = None, False, []
    for k in range(1, plan.out + 16):
        events = tracker.step(view(frames[k], plan.windows[k]), k / 30)
        if any(isinstance(e, ColorLost) for e in events):
            assert k >= plan.edge, f"color_lost at frame {k}, the object fully in view until {plan.edge}"
            lost = True
            lost_at = k if lost_at is None else lost_at
        if any(isinstance(e, ColorFound) for e in events):
            lost = False
        if k < plan.edge:
            r = tracker.last
            overlap.append(iou(r.box, view_box(truth[k], plan.windows[k], size)) if r.found else 0.0)
    return lost_at, lost, overlap


@pytest.mark.parametrize("name, direction, speed_px", [("tiger1", "down", 16), ("tiger1", "right", 4),
                                                      ("gusot_motorbike_arldemo", "right", 16)])
@pytest.mark.parametrize("how", ["click", "box"])
@pytest.mark.parametrize("lost_after_frames", [None, 40])
def test_color_lost_within_15_frames_when_the_camera_pans_away(clip, name, direction, speed_px, how,
                                                                lost_after_frames):
    """Real footage, no invented pixels: a window of half the frame follows the object and then
    pans away until the object is fully out of view. The tracker holds the object while it is
    in view (no ``color_lost``) and sends ``color_lost`` no later than 15 frames (0.5 s) after
    the object is fully out, and is still lost then. Measured on these runs (the tracker as on
    main, nothing changed for them): 0 to 2 frames after. With ``lost_after_frames=40``
    (misses needed before the loss) it comes too late, so the check can fail."""
    truth, frames = clip(name, 140)
    plan = pan_plan(truth, (frames[0].shape[1], frames[0].shape[0]), direction=direction, speed_px=speed_px,
                    start=min(30, len(truth) // 4))
    assert plan is not None and plan.out + 15 < len(frames)
    tracker = ColorTracker() if lost_after_frames is None else ColorTracker(lost_after_frames=lost_after_frames)
    lost_at, lost, overlap = _run(truth, frames, plan, how, tracker)
    assert np.median(overlap) > 0.3, "the tracker did not hold the object while it was in view"
    in_time = lost_at is not None and lost_at <= plan.out + 15 and lost
    assert in_time == (lost_after_frames is None), (lost_at, plan.out)


@pytest.mark.parametrize("how", ["click", "box"])
def test_color_lost_when_the_sprinter_runs_out_of_a_still_view(clip, how):
    """Real footage: a still window of half of bolt1's frame that the sprinter runs out of (at
    frame 134; half out at 118). ``color_lost`` comes while he leaves, from the frame his box
    touches the border (111) to 15 frames after he is out; measured: frame 124. (On main, three
    frames later the tracker found another runner in the same kit; no longer, see
    tests/vision/test_found.py and docs/tracking.md.)"""
    truth, frames = clip("vot_bolt1_rva", 150)
    plan = still_plan(truth, (frames[0].shape[1], frames[0].shape[0]))
    assert plan is not None and plan.first == 0 and plan.out + 15 < len(frames)
    lost_at, _lost, overlap = _run(truth, frames, plan, how, ColorTracker())
    assert np.median(overlap) > 0.3, "the tracker did not hold the sprinter while he was in view"
    assert lost_at is not None and plan.edge <= lost_at <= plan.out + 15, (lost_at, plan.edge, plan.out)
