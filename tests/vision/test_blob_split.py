"""Side-by-side people split out of one blob: person_cuts, find_blobs(split_aspect=...), the tracker."""
import importlib.util
from pathlib import Path

import cv2
import numpy as np
import pytest

from sensekit.errors import ConfigError
from sensekit.vision.blob_split import person_cuts, region_cuts
from sensekit.vision.blob_tracker import BlobTracker
from sensekit.vision.blobs import find_blobs

REPO = Path(__file__).resolve().parents[2]


def person(m: np.ndarray, x: int, y: int, *, w: int = 14, h: int = 44) -> None:
    """An upright silhouette: a head (disc) on a body, feet at y + h."""
    r = max(3, w // 3)
    cv2.circle(m, (x + w // 2, y + r), r, 255, -1)
    m[y + 2 * r - 1:y + h, x:x + w] = 255


def test_two_people_side_by_side_are_split_between_the_heads():
    m = np.zeros((100, 120), np.uint8)
    person(m, 40, 20)
    person(m, 54, 22)                           # touching: one region
    assert len(find_blobs(m, min_area_px=50)) == 1
    parts = find_blobs(m, min_area_px=50, split_aspect=0.5, split_dip=0.08)
    assert len(parts) == 2
    left, right = sorted(parts, key=lambda r: r.cx)
    assert left.box[0] == 40 and left.box[0] + left.box[2] <= 55
    assert right.box[0] >= 53 and right.box[0] + right.box[2] == 68
    assert left.area_px + right.area_px == int(np.count_nonzero(m))
    assert left.label == right.label                      # both parts of one region
    assert len(left.contour) >= 4 and left.contour[:, 0, 0].max() < right.contour[:, 0, 0].min() + 2


def test_a_group_of_three_is_three():
    m = np.zeros((100, 160), np.uint8)
    for k in range(3):
        person(m, 30 + 14 * k, 20 + (k % 2) * 3)
    parts = find_blobs(m, min_area_px=50, split_aspect=0.5, split_dip=0.08)
    assert len(parts) == 3
    for r, head_x in zip(sorted(parts, key=lambda r: r.cx), (37, 51, 65)):
        assert r.box[0] + 4 <= head_x < r.box[0] + r.box[2] - 4        # one head well inside each


@pytest.mark.parametrize("shape", ["car", "low bag", "no dip"])
def test_what_is_not_two_people_stays_whole(shape):
    m = np.zeros((100, 160), np.uint8)
    if shape == "car":                          # convex top outline, wide
        cv2.ellipse(m, (80, 50), (40, 22), 0, 0, 360, 255, -1)
    elif shape == "low bag":                    # a person beside something a third as tall
        person(m, 40, 20)
        m[50:64, 54:80] = 255
    else:                                       # two people whose heads merge: a flat top
        m[20:64, 40:68] = 255
    assert len(find_blobs(m, min_area_px=50, split_aspect=0.5, split_dip=0.08)) == 1


def test_split_off_by_default_and_bad_settings_are_one_line_errors():
    m = np.zeros((100, 120), np.uint8)
    person(m, 40, 20)
    person(m, 54, 22)
    assert len(find_blobs(m, min_area_px=50)) == 1            # find_blobs: off unless asked
    with pytest.raises(ConfigError, match="split_aspect"):
        find_blobs(m, split_aspect=-1)
    with pytest.raises(ConfigError, match="split_dip"):
        find_blobs(m, split_aspect=0.6, split_dip=2)
    ys, xs = np.nonzero(m)
    region = m[ys.min():ys.max() + 1, xs.min():xs.max() + 1] > 0
    (cut,) = person_cuts(region, aspect=0.5, dip=0.08, min_area_px=50)
    assert 52 <= xs.min() + cut <= 56                          # between the heads (47 and 61)
    assert person_cuts(region, aspect=0.8, dip=0.08, min_area_px=50) == []   # not wide enough
    assert person_cuts(region, aspect=0.5, dip=0.5, min_area_px=50) == []    # dip too shallow


def test_region_cuts_makes_the_whole_region_only_when_its_top_rows_do_not_rule_it_out():
    asked: list[int] = []

    def rows_of(region: np.ndarray):
        def rows(n: int) -> np.ndarray:
            asked.append(n)
            return region[:n]
        return rows

    car = np.zeros((60, 100), np.uint8)
    cv2.ellipse(car, (50, 30), (48, 20), 0, 0, 360, 255, -1)
    car_box = car[10:51] > 0                                   # 41 rows, its top rows cover the middle
    assert region_cuts(rows_of(car_box), *car_box.shape, aspect=0.5, dip=0.08, min_area_px=50) == []
    assert asked == [4]                                        # ceil(0.08 * 41): the top rows only
    m = np.zeros((100, 120), np.uint8)
    person(m, 40, 20)
    person(m, 54, 22)
    ys, xs = np.nonzero(m)
    couple = m[ys.min():ys.max() + 1, xs.min():xs.max() + 1] > 0
    asked.clear()
    cuts = region_cuts(rows_of(couple), *couple.shape, aspect=0.5, dip=0.08, min_area_px=50)
    assert cuts == person_cuts(couple, aspect=0.5, dip=0.08, min_area_px=50) and len(cuts) == 1
    assert asked == [4, couple.shape[0]]                       # the top rows, then the whole region
    asked.clear()
    assert region_cuts(rows_of(couple), *couple.shape, aspect=5.0, dip=0.08, min_area_px=50) == []
    assert asked == []                                         # too narrow: nothing made


def test_a_couple_entering_together_gets_two_ids_and_the_parts_are_not_fragments():
    masks = []
    for k in range(12):
        m = np.zeros((100, 200), np.uint8)
        person(m, 20 + 3 * k, 20, w=18)
        person(m, 38 + 3 * k, 22, w=18)
        masks.append(m)
    bt = BlobTracker(min_area_px=50, confirm_frames=3)
    for i, m in enumerate(masks):
        events = bt.update(m, i / 30)
    (blobs,) = [e for e in events if e.name == "blobs"]
    assert sorted(b.id for b in blobs.blobs) == [1, 2]
    off = BlobTracker(min_area_px=50, confirm_frames=3, split_aspect=0)
    for i, m in enumerate(masks):
        events = off.update(m, i / 30)
    (blobs,) = [e for e in events if e.name == "blobs"]
    assert [b.id for b in blobs.blobs] == [1]


def test_a_track_stays_unmatched_rather_than_pass_its_id_along():
    """A vanishes, a newcomer appears beside B: B keeps its region, A is not pushed onto it
    and B onto the newcomer (the square assignment's chain)."""
    def frame(*xs):
        m = np.zeros((100, 260), np.uint8)
        for x in xs:
            m[30:70, x:x + 16] = 255
        return m
    bt = BlobTracker(min_area_px=50, confirm_frames=2)
    for i in range(4):
        bt.update(frame(50, 100), i / 30)
    ids = {round(tr.cx): tr.id for tr in bt.visible}
    bt.update(frame(100, 150), 4 / 30)
    now = {round(tr.cx): tr.id for tr in bt.tracks if tr.region is not None}
    assert now[108] == ids[108]                 # B keeps its own region
    assert now.get(158, 0) == 0                 # the newcomer is tentative, not A or B


def _blobs_people():
    spec = importlib.util.spec_from_file_location("blobs_people", REPO / "docs" / "blobs_people.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_couple_on_the_pets_clip_has_two_ids_while_they_walk_together(shared_data):
    """The couple walking side by side on PETS 2009 touch in the mask the whole time; with the
    split they show two ids on most frames (docs/blobs.md: 207 of 221)."""
    bp = _blobs_people()
    clip = shared_data / bp.CLIP
    if not clip.is_file():
        pytest.skip(f"{clip} not found")
    two = 0
    for i, _, _, stage, _ in bp.run_clip(clip):
        if i in bp.COUPLE_FRAMES:
            two += bp.couple_ids(stage.blobs, i) >= 2
        if i >= bp.COUPLE_FRAMES.stop:
            break
    assert two >= 0.85 * len(bp.COUPLE_FRAMES), two


def test_find_blobs_splits_at_the_trackers_dip_unless_told_otherwise():
    import inspect

    assert inspect.signature(find_blobs).parameters["split_dip"].default == BlobTracker().split_dip
