"""Motion-coherent proposals (sensekit/evaluation/vision/motion_proposals.py) on a synthetic scene: a
two-coloured object moving over a textured still background is one region; a still scene makes
none; the same input gives the same regions."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.evaluation.vision.motion_proposals import motion_proposals
from sensekit.vision.extent import ExtentExperiment, pool_proposals
from sensekit.vision.proposals import click_proposals
from tests.vision.moving_object import OBJ, moving_object_frames

MOTION = ExtentExperiment(proposals=motion_proposals)   # the regions in the pool (extent_experiment.py)


def _frames(moving: bool) -> list[np.ndarray]:
    """The history (6 frames) and the frame clicked (``moving_object.py``; the object's noise up to 20)."""
    return moving_object_frames(moving, object_noise=20)


def _moving_props(frames: list[np.ndarray], x: float, y: float) -> list[object]:
    props, flow = pool_proposals(frames[-1], x, y, frames[:-1], experiment=MOTION)
    assert flow is not None
    return props[len(click_proposals(frames[-1], x, y)):]


def _iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    ix = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return ix * iy / (a[2] * a[3] + b[2] * b[3] - ix * iy)


@pytest.mark.parametrize("click_y", [90.0, 140.0])     # on the red top, on the blue bottom
def test_a_moving_two_coloured_object_is_one_region(click_y: float) -> None:
    frames = _frames(moving=True)
    colour_only = click_proposals(frames[-1], 160.0, click_y)
    # colour alone never holds the whole object apart from the background
    assert max(_iou(p.box, OBJ) for p in colour_only) < 0.8
    made = _moving_props(frames, 160.0, click_y)
    assert made, "a moving object made no region"
    best = max(_iou(p.box, OBJ) for p in made)         # type: ignore[attr-defined]
    assert best > 0.75, f"the best motion region overlaps the object by {best:.2f}"


def test_a_still_scene_makes_none() -> None:
    frames = _frames(moving=False)
    assert _moving_props(frames, 160.0, 90.0) == []


def test_same_input_same_regions_and_flag_off_is_the_colour_pool() -> None:
    frames = _frames(moving=True)
    a = [p.box for p in _moving_props(frames, 160.0, 90.0)]  # type: ignore[attr-defined]
    b = [p.box for p in _moving_props(frames, 160.0, 90.0)]  # type: ignore[attr-defined]
    assert a == b
    off, _ = pool_proposals(frames[-1], 160.0, 90.0, frames[:-1])
    colour = click_proposals(frames[-1], 160.0, 90.0)
    assert [p.box for p in off] == [p.box for p in colour]
    # train_extent.py tells the regions from the colour chains by the chains' lengths: they
    # come after them, and none is a chain's first step
    on, _ = pool_proposals(frames[-1], 160.0, 90.0, frames[:-1], experiment=MOTION)
    assert len(on) > len(colour)
    assert sum(p.steps for p in on if p.step == 0) == len(colour)
    assert all(p.step >= 1 for p in on[len(colour):])
