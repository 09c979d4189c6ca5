"""Proposals around a click: nested regions holding it, at any object size."""
from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from sensekit.vision.proposals import click_proposals
from tests.vision.synth import background


def _scene(side_px: int, seed: int = 0) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """The green-grey test texture, 640x480, with a plain red square of ``side_px`` at (300, 220)."""
    frame = cv2.resize(background(160, 120, seed=seed), (640, 480))
    x0, y0 = 300 - side_px // 2, 220 - side_px // 2
    cv2.rectangle(frame, (x0, y0), (x0 + side_px - 1, y0 + side_px - 1), (40, 40, 210), -1)
    return frame, (x0, y0, side_px, side_px)


@pytest.mark.parametrize("side_px", [16, 40, 100, 240])
def test_some_proposal_is_the_square_whatever_its_size(side_px):
    frame, true = _scene(side_px)
    props = click_proposals(frame, 300, 220)
    assert props, "no proposal"
    for p in props:                                       # every one holds the click
        x, y, w, h = p.box
        assert x - 1 <= 300 <= x + w + 1 and y - 1 <= 220 <= y + h + 1, p.box
    best = min(props, key=lambda p: max(abs(p.box[2] / true[2] - 1), abs(p.box[3] / true[3] - 1)))
    assert abs(best.box[2] / true[2] - 1) <= 0.15 and abs(best.box[3] / true[3] - 1) <= 0.15, (best.box, true)
    mask = best.mask(frame.shape[:2])
    inside = mask[true[1]:true[1] + true[3], true[0]:true[0] + true[2]].mean()
    assert inside > 0.8 and mask.sum() < 1.4 * true[2] * true[3]


def test_each_window_gives_a_nested_chain():
    frame, _ = _scene(60)
    props = click_proposals(frame, 300, 220)
    for w in {p.window for p in props}:
        chain = sorted((p for p in props if p.window == w), key=lambda p: p.step)
        areas = [p.box[2] * p.box[3] for p in chain]
        assert areas == sorted(areas) and chain[0].step == 0 and chain[0].merged_at == 3.0
        assert all(0 < p.fill <= 1 for p in chain)


def test_each_step_holds_the_superpixels_of_the_one_before_and_the_last_holds_the_window():
    frame, _ = _scene(60)
    props = click_proposals(frame, 300, 220)
    for w in {p.window for p in props}:
        chain = sorted((p for p in props if p.window == w), key=lambda p: p.step)
        assert len(chain[0].members) == 1
        for a, b in itertools.pairwise(chain):
            assert set(a.members) < set(b.members) and len(set(b.members)) == len(b.members)
        assert set(chain[-1].members) == set(np.unique(chain[-1].win.labels).tolist())


def test_an_enlarged_windows_thin_region_keeps_its_box_in_the_mask():
    """A window of 72 frame px enlarged to 96 work px: a region one work pixel wide (column 3,
    between the work columns nearest-neighbour sampling reads for frame columns 2 and 3) is
    in the mask, whose bounds are the proposal's box (the box the cues scored) to a pixel."""
    from sensekit.vision.proposals import Proposal, Window

    f = 96 / 72
    labels = np.zeros((96, 96), np.int32)
    labels[10:40, 3] = 1
    win = Window(labels, (50, 60), (72, 72), f, 72.0)
    box = (50 + 3 / f, 60 + 10 / f, 1 / f, 30 / f)
    p = Proposal(box, 0, 0, 1, 3.0, 0.0, 1.0, (1,), win)
    mask = p.mask((240, 320))
    assert mask.any(), "the region was lost from its mask"
    x, y, w, h = cv2.boundingRect(mask.view(np.uint8))
    assert abs(x - box[0]) <= 1 and abs(y - box[1]) <= 1, ((x, y, w, h), box)
    assert abs(x + w - (box[0] + box[2])) <= 1 and abs(y + h - (box[1] + box[3])) <= 1, ((x, y, w, h), box)
    assert not mask[:, :50].any() and not mask[:60].any()       # nothing outside the window


def test_a_shrunk_windows_mask_is_its_regions_pixels():
    """A window of 192 frame px shrunk to 96 work px: each work pixel is 2x2 frame pixels."""
    from sensekit.vision.proposals import work_mask

    small = np.zeros((96, 96), bool)
    small[5:9, 20:30] = True
    big = work_mask(small, (192, 192))
    expected = np.zeros((192, 192), bool)
    expected[10:18, 40:60] = True
    assert np.array_equal(big, expected)
