"""The pure helpers of the multi-person pose search and the pose scoring (no MediaPipe)."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.vision.people import (box_iou, crop_box, landmark_box, paint_out, search_windows, torso_visible,
                                    upright)
from sensekit.evaluation.vision.pose_scoring import COCO_FROM_MEDIAPIPE, pck, score_people


def test_windows_cover_every_pixel_and_stay_inside():
    w, h = 640, 480
    seen = np.zeros((h, w), bool)
    windows = list(search_windows(w, h))
    for x, y, ww, hh in windows:
        assert x >= 0 and y >= 0 and x + ww <= w and y + hh <= h
        seen[y:y + hh, x:x + ww] = True
    assert seen.all()
    sides = sorted({max(ww, hh) for _, _, ww, hh in windows}, reverse=True)
    assert sides == [384, 256]                      # 0.6 and 0.4 of the larger side
    assert len(windows) == 18
    assert list(search_windows(40, 40)) == []      # too small to search


def test_crop_box_is_a_clipped_square_with_margin():
    assert crop_box((100, 100, 50, 100), 640, 480, margin=0.25) == (50, 75, 150, 150)
    assert crop_box((600, 440, 40, 40), 640, 480, margin=0.5) == (580, 420, 60, 60)
    assert crop_box((700, 10, 10, 10), 640, 480) == (0, 0, 0, 0)


def test_iou_and_paint_out():
    assert box_iou((0, 0, 10, 10), (0, 0, 10, 10)) == 1.0
    assert box_iou((0, 0, 10, 10), (5, 0, 10, 10)) == pytest.approx(50 / 150)
    assert box_iou((0, 0, 0, 0), (0, 0, 0, 0)) == 0.0
    img = np.zeros((20, 20, 3), np.uint8)
    paint_out(img, [(5, 5, 5, 5), (-3, -3, 5, 5)])
    assert (img[5:10, 5:10] == 128).all() and (img[0:2, 0:2] == 128).all()
    assert img.sum() == 128 * 3 * (25 + 4)


def test_landmark_box_uses_the_visible_points():
    pts = np.zeros((33, 4))
    pts[:, :2] = [[10 + i, 20 + 2 * i] for i in range(33)]
    pts[:, 3] = 0.9
    pts[32] = (500, 500, 0, 0.1)                    # hidden: not in the box
    assert landmark_box(pts) == (10, 20, 31, 62)
    assert torso_visible(pts)
    pts[23, 3] = 0.2
    assert not torso_visible(pts)


def test_upright_is_a_torso_nearer_vertical_than_horizontal():
    pts = np.zeros((33, 4))
    pts[[11, 12], :2] = [[90, 100], [110, 100]]      # shoulders
    pts[[23, 24], :2] = [[95, 160], [105, 160]]      # hips below: standing
    assert upright(pts)
    pts[[23, 24], :2] = [[150, 95], [150, 105]]      # hips beside: lying down
    assert not upright(pts)


def _person(points17: np.ndarray, box: tuple[float, float, float, float]) -> dict:
    kp = np.column_stack([points17, np.full(17, 2)]).ravel().tolist()
    return {"keypoints": kp, "bbox": list(box)}


def test_pck_and_one_to_one_matching():
    rng = np.random.default_rng(0)
    truth_a = rng.uniform(0, 100, (17, 2))
    truth_b = truth_a + 300
    pose_a = np.zeros((33, 2))
    pose_a[list(COCO_FROM_MEDIAPIPE)] = truth_a
    pose_a[list(COCO_FROM_MEDIAPIPE[:4])] += 25     # 4 of 17 points off by 35 px > 0.2 x 100
    a, b = _person(truth_a, (0, 0, 100, 80)), _person(truth_b, (300, 300, 100, 100))
    assert pck(pose_a, a["keypoints"], a["bbox"]) == pytest.approx(13 / 17)
    # one prediction scores for one person only, the other gets 0
    assert score_people([pose_a], [a, b]) == [pytest.approx(13 / 17), 0.0]
    pose_b = np.zeros((33, 2))
    pose_b[list(COCO_FROM_MEDIAPIPE)] = truth_b
    assert score_people([pose_b, pose_a], [a, b]) == [pytest.approx(13 / 17), 1.0]
    unlabelled = {"keypoints": [0.0] * 51, "bbox": [0, 0, 10, 10]}
    assert pck(pose_a, unlabelled["keypoints"], unlabelled["bbox"]) == 0.0
