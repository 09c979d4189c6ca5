"""The click's pool: its size ladder and next guesses are pure functions of boxes and values."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.vision.click_pool import ClickPool, ladder_step, next_guess, same_size, size_ladder
from sensekit.vision.segment import Segment, segment_click_pool, shifted

# nested boxes around a click at (50, 50): a part, the object (two near-copies), the object
# with its holder, the scene
PART = (45, 45, 10, 12)
OBJECT = (40, 35, 24, 40)
OBJECT_TOO = (41, 36, 22, 38)        # the same size as OBJECT, overlapping it
HOLDER = (35, 30, 40, 70)
SCENE = (0, 0, 100, 100)
BOXES = np.array([HOLDER, PART, OBJECT_TOO, SCENE, OBJECT], np.float64)
VALUES = np.array([0.9, 0.3, 0.6, 0.1, 0.5])


def test_same_size_is_within_the_tolerance_both_ways():
    assert same_size((0, 0, 100, 100), (5, 5, 125, 80))
    assert not same_size((0, 0, 100, 100), (0, 0, 126, 100))
    assert not same_size((0, 0, 100, 100), (0, 0, 100, 79))       # 100/79 > 1.25
    assert same_size((0, 0, 10, 10), (0, 0, 12, 12), tolerance=0.2)
    assert not same_size((0, 0, 0, 10), (0, 0, 0, 10))            # empty boxes are no size


def test_the_ladder_orders_by_area_and_merges_one_size_into_its_best_member():
    rungs = size_ladder(BOXES, VALUES)
    assert [tuple(BOXES[i]) for i in rungs] == [PART, OBJECT_TOO, HOLDER, SCENE]   # OBJECT_TOO: 0.6 > 0.5
    assert size_ladder(BOXES, VALUES, tolerance=0.0) == [1, 2, 4, 0, 3]               # nothing merged
    assert size_ladder(np.zeros((0, 4)), np.zeros(0)) == []
    with pytest.raises(ValueError, match="3 boxes and 2 values"):
        size_ladder(BOXES[:3], VALUES[:2])


def test_the_same_size_apart_is_two_rungs():
    boxes = np.array([(0, 0, 10, 10), (80, 80, 10, 10)], np.float64)     # no overlap
    assert size_ladder(boxes, np.array([1.0, 0.5])) == [0, 1]


def test_a_step_goes_to_the_next_rung_of_another_size_and_stops_at_the_ends():
    rungs = BOXES[size_ladder(BOXES, VALUES)]
    assert ladder_step(rungs, OBJECT, +1) == 2                     # the holder, not OBJECT_TOO
    assert ladder_step(rungs, OBJECT, -1) == 0                     # the part
    assert ladder_step(rungs, PART, -1) is None
    assert ladder_step(rungs, SCENE, +1) is None
    assert ladder_step(rungs, (44, 44, 30, 30), +1) == 2           # a box not in the ladder (the colour region)
    with pytest.raises(ValueError, match="direction"):
        ladder_step(rungs, OBJECT, 2)


def test_the_next_guess_is_the_best_valued_size_not_shown():
    assert next_guess(BOXES, VALUES, [HOLDER]) == 2                # OBJECT_TOO (0.6)
    assert next_guess(BOXES, VALUES, [HOLDER, OBJECT_TOO]) == 1    # OBJECT is the same size: the part
    assert next_guess(BOXES, VALUES, [HOLDER, OBJECT, PART]) == 3
    assert next_guess(BOXES, VALUES, [tuple(b) for b in BOXES]) is None


def _segment(box: tuple[int, int, int, int], shape: tuple[int, int] = (100, 100)) -> Segment:
    mask = np.zeros(shape, bool)
    x, y, w, h = box
    mask[y:y + h, x:x + w] = True
    return Segment(box, mask, "proposal")


def test_shifted_moves_the_mask_and_box_and_cuts_what_leaves_the_frame():
    seg = shifted(_segment((10, 20, 30, 40)), 5, -3)
    assert seg.box == (15, 17, 30, 40) and seg.mask.sum() == 30 * 40
    cut = shifted(_segment((80, 10, 20, 10)), 10, 0)
    assert cut.box == (90, 10, 10, 10)
    gone = shifted(_segment((80, 10, 20, 10)), 500, 0)
    assert not gone.mask.any()


def _scene() -> np.ndarray:
    """A grey frame with a blue card holding a red patch (the patch is a part of the card)."""
    rng = np.random.default_rng(3)
    frame = np.full((240, 320, 3), 128, np.uint8)
    frame[60:180, 100:220] = (200, 60, 40)
    frame[100:140, 140:180] = (30, 30, 220)
    noise = rng.integers(-6, 7, frame.shape)
    return np.clip(frame.astype(int) + noise, 0, 255).astype(np.uint8)


def test_a_pool_from_a_real_segmentation_steps_and_guesses_without_repeating_a_size():
    frame = _scene()
    first, measured = segment_click_pool(frame, 160, 120)
    pool = ClickPool(frame, (160, 120), first, proposals=None if measured is None else measured[0],
                     values=None if measured is None else measured[1])
    sizes = [first.box]
    while (seg := pool.step(+1)) is not None:
        assert _area(seg.box) > _area(sizes[-1]) and not same_size(seg.box, sizes[-1])
        sizes.append(seg.box)
    assert len(sizes) >= 2
    assert any(abs(b[2] - 120) <= 12 and abs(b[3] - 120) <= 12 for b in sizes)   # the card is a rung
    fresh = ClickPool(frame, (160, 120), first)                    # measured at the first gesture
    shown = [first.box]
    while (seg := fresh.again()) is not None:
        assert not any(same_size(seg.box, s) for s in shown)
        shown.append(seg.box)
    assert len(shown) >= 2


def _area(box: tuple[int, int, int, int]) -> int:
    return box[2] * box[3]
