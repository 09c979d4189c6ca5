"""Letting the frames after a click choose its box (``click_choice``): the candidates, the
followers, one choice and the re-seed."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from sensekit.vision import click_choice_model
from sensekit.vision.click_choice import FEATURES, ClickChoice
from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.extent import box_ious, measure_extent, ranked_extent
from tests.vision.synth import background


def _sliding(frames: int, side_px: int = 60, step_px: int = 3) -> tuple[list[np.ndarray], list[tuple[int, ...]]]:
    """A patch of the test texture (another seed: the same colours) sliding right over it."""
    bg = cv2.resize(background(160, 120, seed=1), (640, 480))
    patch = cv2.resize(background(160, 120, seed=9), (side_px, side_px), interpolation=cv2.INTER_AREA)
    out, boxes = [], []
    for k in range(frames):
        f = bg.copy()
        x0, y0 = 200 + step_px * k - side_px // 2, 240 - side_px // 2
        f[y0:y0 + side_px, x0:x0 + side_px] = patch
        out.append(f)
        boxes.append((x0, y0, side_px, side_px))
    return out, boxes


def test_the_ranked_candidates_start_with_the_measured_extent_and_are_distinct():
    frames, boxes = _sliding(7)
    x, y, w, h = boxes[6]
    ranked = ranked_extent(frames[6], x + w / 2, y + h / 2, frames[:6], k=4)
    assert ranked[0][0].box == measure_extent(frames[6], x + w / 2, y + h / 2, frames[:6]).box
    assert 2 <= len(ranked) <= 4
    values = [v for _p, v in ranked]
    assert values == sorted(values, reverse=True)
    ious = box_ious(np.array([p.box for p, _v in ranked]))
    assert (ious[~np.eye(len(ranked), dtype=bool)] < 0.7).all()


def _picked(k: int, after: int, frames: list[np.ndarray], box: tuple[int, ...]) -> ColorTracker:
    t = ColorTracker(choose_candidates=k, choose_after_frames=after)
    x, y, w, h = box
    t.pick(frames[6], x + w / 2, y + h / 2, history=frames[:6])
    return t


@pytest.mark.parametrize("column", ["motion_sep", "colour_sep", "value"])
def test_after_n_frames_the_tracker_takes_the_candidate_its_weights_choose(monkeypatch, column):
    """The choice comes once, after ``choose_after_frames``; with all the weight on one cue the
    candidate with the most of it is kept, and the tracker then follows that candidate's model."""
    weights = [1.0 if f == column else 0.0 for f in FEATURES]
    monkeypatch.setattr(click_choice_model, "ACTIVE", {"mean": [0.0] * len(FEATURES),
                                                       "std": [1.0] * len(FEATURES), "weights": weights})
    frames, boxes = _sliding(16)
    t = _picked(3, 6, frames, boxes[6])
    choice = t.choice
    assert isinstance(choice, ClickChoice) and t.refiner is None
    assert len(choice.candidates) == 3 and choice.candidates[0].box == t.picked.box
    for k in range(7, 12):
        t.update(frames[k], k / 30)
        assert t.choice is choice and choice.cues is None
    t.update(frames[12], 12 / 30)
    assert t.choice is None and choice.cues is not None and choice.cues.shape == (3, len(FEATURES))
    best = int(np.argmax(choice.cues[:, FEATURES.index(column)]))
    if best == 0:
        assert t.model is not choice.models[1] and t.model is not choice.models[2]
    else:
        assert t.model is choice.models[best]
        assert t.picked.box == tuple(int(round(v)) for v in choice.follow[best].box)
    t.update(frames[13], 13 / 30)            # and tracking goes on
    assert t.choice is None


def test_the_motion_cue_compares_the_last_frame_with_2_and_6_frames_before_it():
    frames, boxes = _sliding(16)
    t = _picked(2, 9, frames, boxes[6])
    choice = t.choice
    assert choice is not None
    for k in range(7, 16):
        t.update(frames[k], k / 30)
    assert choice.back.keys() == {2, 6}
    assert np.array_equal(choice.back[2], frames[6 + 9 - 2]) and np.array_equal(choice.back[6], frames[6 + 9 - 6])
    assert choice.cues is not None
    np.testing.assert_allclose(choice.cues, choice.features(frames[15], frames[9:15]))


def test_one_candidate_a_still_click_or_a_box_follow_nothing():
    frames, boxes = _sliding(8)
    assert _picked(1, 9, frames, boxes[6]).choice is None
    x, y, w, h = boxes[6]
    t = ColorTracker(choose_candidates=3)
    t.pick(frames[6], x + w / 2, y + h / 2)               # no frames before it: the second look instead
    assert t.choice is None and t.refiner is not None
    t = _picked(3, 9, frames, boxes[6])
    assert t.choice is not None
    t.pick_box(frames[6], boxes[6])
    assert t.choice is None
