"""Tracking clips made from labelled footage no extent weight saw (benchmarks/make_track_gt.py),
track_eval's views of an object that crosses the frame, and the holder cut tried on click17."""
from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import make_track_gt
import track_eval

from sensekit.evaluation.vision.evaluate import load_clip
from sensekit.evaluation.vision.holder_cut import cut_holder, skin_mask
from sensekit.vision.segment import Segment

SKIN = (120, 150, 200)          # BGR: YCrCb Cr ~158, Cb ~111, inside the skin range
GREY = (90, 90, 90)


def _truth(blobs: list[tuple[int, int, int, int]], shape: tuple[int, int] = (60, 80)) -> np.ndarray:
    t = np.zeros(shape, np.uint8)
    for x, y, w, h in blobs:
        t[y:y + h, x:x + w] = 255
    return t


def test_car_tracks_follow_one_car_and_end_at_a_merge_or_the_top_edge():
    """Car A drives down from y=10; car B from y=40 drives up into A's lane and merges with it
    on frame 3; car C starts at the top edge (a far car, where the queue merges) and never gets
    a track while it touches it."""
    frames = [_truth([(10, 10 + k, 12, 10), (10, 40 - 6 * k, 12, 8), (50, 0, 10, 5 + k)]) for k in range(5)]
    tracks = make_track_gt.car_tracks(frames)
    starts = {(first, boxes[0]) for first, boxes in tracks}
    assert (0, (10, 10, 12, 10)) in starts and (0, (10, 40, 12, 8)) in starts
    a = next(boxes for first, boxes in tracks if boxes[0] == (10, 10, 12, 10))
    assert a == [(10, 10 + k, 12, 10) for k in range(3)]        # ends when B runs into it on frame 3
    assert all(b[1] > 0 for _f, boxes in tracks for b in boxes)   # nothing at the top edge
    assert make_track_gt.car_boxes(_truth([(5, 5, 10, 10)])) == [(5, 5, 10, 10)]


def test_a_car_box_takes_the_unknown_band_around_it():
    t = _truth([(20, 20, 10, 8)])
    t[19, 18:32] = 170                                         # CDnet's 1-2 px "unknown" band
    t[40:45, 40:45] = 170                                      # an unknown patch with no car in it
    assert make_track_gt.car_boxes(t) == [(18, 19, 14, 9)]


def test_make_track_gt_writes_clips_track_eval_reads(shared_data, tmp_path):
    """On the CDnet highway clip: every clip written loads as track_eval loads it, one box per
    frame, and its first box is a car of that frame's truth."""
    from sensekit.evaluation.vision.motion_scoring import load_cdnet

    assert make_track_gt.main(["--out", str(tmp_path), "--data", str(shared_data), "--min-frames", "20"]) == 0
    names = sorted(p.stem for p in tmp_path.glob("*.mp4"))
    assert len(names) >= 3
    cdnet = load_cdnet(shared_data / "video" / "motion" / "cdnet_highway_a")
    for name in names:
        clip = load_clip(tmp_path, name)
        cap = cv2.VideoCapture(str(clip.video))
        n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
        cap.release()
        assert n == len(clip.truth) >= 20
        assert (clip.truth[:, 2:] >= make_track_gt.MIN_SIDE_PX).all()
    first = load_clip(tmp_path, names[0]).truth[0]
    assert any(tuple(first) == b for t in cdnet.truths for b in make_track_gt.car_boxes(t))


def test_a_rescaled_run_whose_clicks_leave_the_view_is_left_out_not_a_crash(tmp_path):
    """A square crossing a 160x120 frame by 2 px a frame: at x2 the view (80x60, centred on its
    mean position over the run) no longer holds the clicks of the starts on frames 6 and 20 (the
    square moves 108 and 78 px in their runs); those runs are left out, the last is written."""
    W, H, n = 160, 120, 60
    truth = [(4 + 2 * k, 50, 16, 16) for k in range(n)]
    writer = cv2.VideoWriter(str(tmp_path / "cross.mp4"), cv2.VideoWriter.fourcc(*"mp4v"), 30.0, (W, H))
    for x, y, w, h in truth:
        f = np.full((H, W, 3), 40, np.uint8)
        f[y:y + h, x:x + w] = (0, 0, 220)
        writer.write(f)
    writer.release()
    (tmp_path / "cross_gt.csv").write_text("frame,x,y,w,h\n" + "".join(
        f"{k},{x},{y},{w},{h}\n" for k, (x, y, w, h) in enumerate(truth)))
    out = tmp_path / "views"
    out.mkdir()
    runs = track_eval.rescaled_runs(tmp_path, "cross", 2.0, 3, 100, out)
    assert [r.name for r in runs] == ["cross_x2_s34"]        # starts 6 and 20 left out, 40 kept
    for r in runs:
        assert (r.truth[0, :2] >= 0).all() and r.truth[0, 0] + r.truth[0, 2] <= W


def _held(frame_h: int = 120, frame_w: int = 160) -> tuple[np.ndarray, Segment]:
    """A grey box (60..100, 40..80) held by a skin arm coming in from above, the first box
    the object with the arm in it."""
    f = np.full((frame_h, frame_w, 3), (30, 160, 30), np.uint8)
    f[40:80, 60:100] = GREY
    f[0:55, 74:86] = SKIN
    mask = np.zeros((frame_h, frame_w), bool)
    mask[40:80, 60:100] = True
    mask[25:40, 74:86] = True
    return f, Segment((60, 25, 40, 55), mask, "proposal")


def test_the_holder_cut_takes_the_arm_that_crosses_the_box_border_out():
    f, seg = _held()
    assert skin_mask(f)[10, 80] and not skin_mask(f)[60, 65]
    cut = cut_holder(f, seg, 65.0, 60.0)
    assert cut.box == (60, 40, 40, 40) and cut.method == "proposal"
    assert not cut.mask[30, 80] and cut.mask[60, 65]


def test_the_holder_cut_leaves_a_click_on_skin_and_skin_inside_the_box_alone():
    f, seg = _held()
    assert cut_holder(f, seg, 80.0, 30.0) is seg                   # the user clicked the arm
    g = np.full_like(f, (30, 160, 30))
    g[40:80, 60:100] = GREY
    g[45:55, 64:74] = SKIN                                          # a skin-coloured patch on the object
    inner = np.zeros(seg.mask.shape, bool)
    inner[40:80, 60:100] = True
    whole = Segment((60, 40, 40, 40), inner, "proposal")
    assert cut_holder(g, whole, 90.0, 70.0) is whole
