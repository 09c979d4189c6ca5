"""The model's confidence bars relative to a box the user gave (``pick_share``, ``pick_contrast``):
an object whose colours the scene shares (a grey car on a grey road) scores low from its own box
and was refused on the next frames (``lost_below``) while it was in plain view. A click's
measured extent keeps the plain bars (a click the tracker never confirms is told)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from sensekit.vision.color_tracker import ColorTracker

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

H, W, BOX = 120, 160, (40, 40, 30, 24)


def _grey_scene(k: int, distinct: float = 0.2, seed: int = 3) -> np.ndarray:
    """Frame ``k``: a road of two greys; an object of the same greys with a share ``distinct`` of
    white and near-black pixels (a roof, windows), 1 px further right and down each frame."""
    rng = np.random.default_rng(seed)
    road = rng.choice(np.array([100, 130], np.uint8), size=(H, W))
    f = np.repeat(road[:, :, None], 3, axis=2)
    x, y, w, h = BOX
    obj = np.random.default_rng(seed + 1).choice(np.array([100, 130], np.uint8), size=(h, w))
    marks = np.random.default_rng(seed + 2).random((h, w)) < distinct
    obj[marks] = np.where(np.arange(obj.size).reshape(h, w)[marks] % 2 == 0, 235, 20)
    f[y + k:y + k + h, x + k:x + k + w] = obj[:, :, None]
    return f


def _run(**settings: float) -> tuple[ColorTracker, list[str], list[bool]]:
    t = ColorTracker(**settings)
    t.pick_box(_grey_scene(0), BOX)
    names: list[str] = []
    held: list[bool] = []
    for k in range(1, 20):
        names += [e.name for e in t.step(_grey_scene(k), k / 30)]
        r = t.last
        assert r is not None
        held.append(r.found and abs(r.box[0] - (BOX[0] + k)) <= 4 and abs(r.box[1] - (BOX[1] + k)) <= 4)
    return t, names, held


def test_a_box_that_scores_low_but_separates_lowers_the_lost_bar_to_a_share_of_its_score():
    t = ColorTracker()
    t.pick_box(_grey_scene(0), BOX)
    score, contrast = t.model.pick_score, t.model.pick_contrast
    assert score < t.lost_below / t.pick_share and contrast >= t.pick_contrast     # the case the rule is for
    lost, found = t.model.bars()
    assert abs(lost - t.pick_share * score) < 1e-12 and found == t.found_above   # found again: the plain bar
    off = ColorTracker(pick_share=0)
    off.pick_box(_grey_scene(0), BOX)
    assert off.model.bars() == (off.lost_below, off.found_above)
    mixed = ColorTracker(pick_contrast=contrast + 0.01)       # a pick that does not separate: the bars stay
    mixed.pick_box(_grey_scene(0), BOX)
    assert mixed.model.bars() == (mixed.lost_below, mixed.found_above)
    clicked = ColorTracker()                                  # a click's measured extent: the plain bars
    clicked.pick(_grey_scene(0), BOX[0] + BOX[2] / 2, BOX[1] + BOX[3] / 2)
    assert clicked.model.bars() == (clicked.lost_below, clicked.found_above)


def test_an_object_of_the_scenes_colours_is_held_not_lost_in_plain_view():
    _t, names, held = _run()
    assert "color_lost" not in names and all(held), (names, held)
    _, before, _ = _run(pick_share=0)                           # the absolute bar: lost at once
    assert "color_lost" in before[:4], before


def test_the_relative_bar_still_loses_an_object_that_is_gone():
    """The same scene, the object removed from frame 5 on: lost within lost_after_frames + 1."""
    t = ColorTracker()
    t.pick_box(_grey_scene(0), BOX)
    names = []
    for k in range(1, 12):
        f = _grey_scene(k) if k < 5 else _grey_scene(0, distinct=0.0, seed=3)
        if k >= 5:
            x, y, w, h = BOX
            f[y:y + h + k, x:x + w + k] = np.repeat(np.random.default_rng(9 + k).choice(
                np.array([100, 130], np.uint8), size=(h + k, w + k))[:, :, None], 3, axis=2)
        names.append([e.name for e in t.step(f, k / 30)])
    lost_at = next(k for k, n in enumerate(names, start=1) if "color_lost" in n)
    assert 5 <= lost_at <= 5 + t.lost_after_frames, names


def _car01(shared_data: Path) -> tuple[list[np.ndarray], list[tuple[int, int, int, int]]]:
    """The second car of ``make_track_gt`` (frames 250-299 of the CDnet highway clip)."""
    import make_track_gt
    from sensekit.evaluation.vision.motion_scoring import load_cdnet

    clip = load_cdnet(shared_data / "video" / "motion" / "cdnet_highway_a")
    runs = sorted(run for first, boxes in make_track_gt.car_tracks(clip.truths)
                  for run in make_track_gt._large(first, boxes) if len(run[1]) >= 20)
    first, boxes = runs[1]
    return clip.frames[first:first + len(boxes)], boxes


def _iou(a: tuple[int, ...], b: tuple[int, ...]) -> float:
    ix = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def test_a_grey_car_from_its_true_box_is_held_not_lost(shared_data):
    """Real footage no weight was fitted on: the silver car of the CDnet highway clip (car01 of
    make_track_gt), from its true box on the clip's frame 33. Its box scores 0.27 on its own frame
    (the road shares its greys; the ring 0.09): with the absolute bar (pick_share=0) every frame
    was refused and ``color_lost`` came on frame 35, the car in plain view; now it is held with
    IoU > 0.5 on every frame to the end of the clip (17 frames)."""
    frames, boxes = _car01(shared_data)
    for share, want in ((0.7, True), (0.0, False)):
        t = ColorTracker(pick_share=share)
        t.pick_box(frames[33], boxes[33])
        names, ious = [], []
        for k in range(34, len(frames)):
            names += [e.name for e in t.step(frames[k], k / 30)]
            r = t.last
            assert r is not None
            ious.append(_iou(r.box, boxes[k]) if r.found else 0.0)
        if want:
            assert "color_lost" not in names and min(ious) > 0.5, (names, ious)
        else:
            assert "color_lost" in names and max(ious) == 0.0, (names, ious)


def test_after_a_missed_frame_the_plain_lost_bar_applies():
    """The lowered bar holds only an object matched on the frame before (``ColorModel.missed``):
    after a miss, the plain ``lost_below`` applies until it is matched again, so a look-alike just
    above the lowered bar is not taken over in the frames before ``color_lost`` (bolt1's fast pan
    left: the next sprinter, 0.255 against a bar of 0.25). The cost, shown here: the grey object,
    gone for one frame, is refused when it is back (it scores under the plain bar)."""
    def gone(k: int) -> np.ndarray:
        f = _grey_scene(k)
        x, y, w, h = BOX
        f[y + k:y + k + h, x + k:x + k + w] = np.repeat(np.random.default_rng(20 + k).choice(
            np.array([100, 130], np.uint8), size=(h, w))[:, :, None], 3, axis=2)
        return f

    t = ColorTracker()
    t.pick_box(_grey_scene(0), BOX)
    seen = []
    for k, f in enumerate((_grey_scene(1), gone(2), _grey_scene(3)), start=1):
        t.step(f, k / 30)
        r = t.last
        assert r is not None
        seen.append(r.found)
    assert t.model.missed and t.model.bars() == (t.lost_below, t.found_above)
    assert seen == [True, False, False], seen
