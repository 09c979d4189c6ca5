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
