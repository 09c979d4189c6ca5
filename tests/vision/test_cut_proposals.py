"""GrabCut proposals around a click: a small two-coloured object is cut whole."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from sensekit.vision.cut_proposals import SIDES, cut_proposals
from sensekit.vision.evaluate import iou
from tests.vision.synth import background


def _two_colour_object(w: int, h: int) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """The test texture, 640x480, with a ``w`` x ``h`` object at (300, 220): a red top half and
    a blue bottom half (a can with a label: no one colour region is the object)."""
    frame = cv2.resize(background(160, 120, seed=3), (640, 480))
    x0, y0 = 300 - w // 2, 220 - h // 2
    frame[y0:y0 + h // 2, x0:x0 + w] = (40, 40, 210)
    frame[y0 + h // 2:y0 + h, x0:x0 + w] = (200, 60, 30)
    return frame, (x0, y0, w, h)


@pytest.mark.parametrize("size", [(20, 34), (40, 60), (90, 120)])
def test_some_cut_is_the_whole_two_coloured_object(size):
    frame, true = _two_colour_object(*size)
    props = cut_proposals(frame, 300, 212, first_window=4)
    assert [p.window for p in props] == list(range(4, 4 + len(props))) and len(props) >= len(SIDES) - 1
    assert all(p.kind == "cut" and p.step == 0 and 0 < p.fill <= 1 for p in props)
    best = max(props, key=lambda p: iou(p.box, true))
    assert iou(best.box, true) > 0.7, (best.box, true)
    mask = best.mask(frame.shape[:2])
    assert mask[212, 300] and mask[true[1] + true[3] - 2, 300]          # the click and the other half


def test_a_click_in_a_corner_gives_boxes_inside_the_frame():
    frame, _ = _two_colour_object(30, 40)
    for p in cut_proposals(frame, 2, 477):
        x, y, w, h = p.box
        assert x >= 0 and y >= 0 and x + w <= 640 + 1e-6 and y + h <= 480 + 1e-6 and w > 0 and h > 0


def test_the_same_click_gives_the_same_cuts_whatever_used_opencv_s_rng_before():
    frame, _ = _two_colour_object(40, 60)
    first = [p.box for p in cut_proposals(frame, 300, 212)]
    cv2.randu(np.zeros((50, 50), np.float32), 0, 1)             # moves OpenCV's global RNG
    cv2.setRNGSeed(12345)
    assert [p.box for p in cut_proposals(frame, 300, 212)] == first
