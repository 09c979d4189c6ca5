"""``benchmarks/mask_choice_eval.py`` (a choice among SAM's masks and the shipped box, learnt
leave one clip out), the late re-seed's carried box and the encoder side's check, on made-up
masks and boxes (the model itself is not installed here)."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from _first_box_hooks import carried
from _point_prompt import check_side
from mask_choice_eval import NAMES, best_index, features, labels, leave_one_clip_out, table

TRUTH = (40.0, 30.0, 20.0, 20.0)          # click "centre" at (50, 40)


def _row(masks: list[tuple[Any, float, int, bool]], clip: str = "a", shipped=(30.0, 20.0, 60.0, 50.0)
         ) -> dict[str, Any]:
    return {"clip": clip, "scale": 1.0, "start": 0, "click": "centre", "truth": TRUTH, "frame": (100, 80),
            "shipped": shipped, "masks": masks, "cpu_s": 0.1}


def test_features_of_each_candidate():
    row = _row([((45.0, 35.0, 10.0, 10.0), 0.7, 100, True), (TRUTH, 0.9, 400, True),
                ((0.0, 0.0, 100.0, 80.0), 0.8, 8000, True)])
    f = features(row)
    assert f.shape == (4, len(NAMES))
    col = {n: f[:, i] for i, n in enumerate(NAMES)}
    assert list(col["pred iou"]) == pytest.approx([0.7, 0.9, 0.8, 0.0])
    assert list(col["rank"]) == [2.0, 0.0, 1.0, 3.0]
    assert list(col["shipped"]) == [0.0, 0.0, 0.0, 1.0]
    assert col["log area"][2] == pytest.approx(0.0)
    assert col["log area"][1] == pytest.approx(np.log(400 / 8000))
    assert col["size vs shipped"][3] == pytest.approx(0.0)
    assert col["size vs shipped"][1] == pytest.approx(abs(np.log(20 / 60)) + abs(np.log(20 / 50)))
    assert list(col["holds click"]) == [1.0, 1.0, 1.0, 1.0]
    assert list(col["edge"]) == [0.0, 0.0, 1.0, 0.0]
    # the truth's box lies inside the others: its IoU with mask 0 is 100/400, with the frame 400/8000
    assert col["agreement"][1] == pytest.approx(np.mean([100 / 400, 400 / 8000, 400 / 3000]))
    assert list(labels(row)) == [0.0, 1.0, 0.0, 0.0]


def test_an_empty_mask_is_never_a_candidate_and_best_falls_back_to_the_shipped_box():
    row = _row([(None, 0.95, 0, False), (TRUTH, 0.5, 400, True), ((0.0, 0.0, 100.0, 80.0), 0.6, 8000, True)])
    f = features(row)
    assert np.isnan(f[0]).all() and not np.isnan(f[1:]).any()
    assert labels(row)[0] == 0.0
    assert best_index(row) == 3
    assert best_index(_row([(TRUTH, 0.5, 400, True), (None, 0.1, 0, False), (None, 0.2, 0, False)])) == 0


def test_leave_one_clip_out_learns_what_the_other_clips_teach():
    """On every clip the right mask is the one agreeing with the shipped box's size, and SAM's
    score points at the whole frame: fitted on the other clips, each clip's choice is the right
    mask, where the highest predicted IoU is wrong."""
    rows = []
    for clip in "abcde":
        for k in range(4):
            tiny = (48.0 + k, 38.0, 4.0, 4.0)
            rows.append(_row([(tiny, 0.8, 16, True), ((40.0 + k, 30.0, 20.0, 20.0), 0.7, 400, True),
                              ((0.0, 0.0, 100.0, 80.0), 0.95, 8000, True)], clip=clip,
                             shipped=(35.0 + k, 25.0, 30.0, 31.0)))
    for kind in ("logistic", "tree"):
        chosen = leave_one_clip_out(rows, kind)
        assert chosen == [1] * len(rows), kind
    assert {best_index(r) for r in rows} == {2}
    text = table(rows, {"best": [best_index(r) for r in rows], "logistic": leave_one_clip_out(rows, "logistic")})
    assert "best            0.00 / 0.05" not in text           # the table's cells are per clip
    assert "1.00 / 1.00" in text and "a: mask 1 4" in text


def test_sams_box_is_carried_by_the_trackers_displacement_and_kept_in_the_frame():
    sam, first = (10.0, 10.0, 20.0, 30.0), (0.0, 0.0, 40.0, 40.0)      # first box's centre (20, 20)
    assert carried(sam, first, (5.0, -3.0, 40.0, 40.0), (100, 80)) == (15.0, 7.0, 20.0, 30.0)
    assert carried(sam, first, (10.0, 10.0, 60.0, 60.0), (100, 80)) == (30.0, 30.0, 20.0, 30.0)  # centre moved
    assert carried(sam, first, (90.0, 70.0, 40.0, 40.0), (100, 80)) == (80.0, 50.0, 20.0, 30.0)
    assert carried(sam, first, (-50.0, -50.0, 40.0, 40.0), (100, 80)) == (0.0, 0.0, 20.0, 30.0)
    assert carried((0.0, 0.0, 150.0, 30.0), first, first, (100, 80)) == (0.0, 0.0, 100.0, 30.0)


def test_the_encoder_side_must_be_a_multiple_of_64():
    assert check_side(512) == 512 and check_side(1024) == 1024
    for bad in (0, -64, 500, 1000):
        with pytest.raises(ValueError, match="multiple of 64"):
            check_side(bad)


class _FakeSam:
    """Stands in for ``_point_prompt.MobileSam``: its best mask is a fixed box of the frame."""

    def __init__(self, box: tuple[int, int, int, int]) -> None:
        self.box, self.calls = box, 0

    def masks(self, frame: np.ndarray, x: float, y: float, key: object = None) -> tuple[np.ndarray, np.ndarray]:
        self.calls += 1
        out = np.zeros((3, *frame.shape[:2]), bool)
        bx, by, bw, bh = self.box
        out[1, by:by + bh, bx:bx + bw] = True
        return out, np.array([0.2, 0.9, 0.5])


def _scene(dx: int) -> np.ndarray:
    frame = np.full((120, 160, 3), (60, 140, 60), np.uint8)
    frame[40:70, 50 + dx:90 + dx] = (30, 30, 200)                 # a red block moving right
    return frame


def test_the_late_hook_starts_from_the_shipped_box_and_re_seeds_after_the_delay():
    from _first_box_hooks import late_point_prompt_tracker

    from sensekit.evaluation.vision.extent_experiment import make_tracker

    sam = _FakeSam((52, 42, 30, 20))
    tracker = make_tracker({"tracker_class": late_point_prompt_tracker(sam, 3)})
    tracker.pick(_scene(0), 70.0, 55.0)
    assert sam.calls == 1
    first = tuple(float(v) for v in tracker.picked.box)
    assert first != (52.0, 42.0, 30.0, 20.0)                      # the shipped box, as live
    boxes = [tracker.update(_scene(2 * k), k / 30.0) for k in (1, 2, 3, 4)]
    assert all(tuple(b.box[2:]) != (30, 20) for b in boxes[:2])          # not yet SAM's
    r3 = boxes[2]
    assert r3.found and r3.box[2:] == (30, 20)                   # SAM's size, moved with the tracker
    assert tracker.picked.box is not None and boxes[3].found
    with pytest.raises(Exception, match="at least 1 frame"):
        late_point_prompt_tracker(sam, 0)


def test_the_benchmarks_refuse_bad_flags_in_one_line(tmp_path):
    import subprocess

    bench = Path(__file__).resolve().parents[2] / "benchmarks"
    proc = subprocess.run([sys.executable, str(bench / "mask_choice_eval.py"), "--cache", str(tmp_path / "no.pkl")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1 and "point_prompt_eval.py" in proc.stderr
    from track_eval import _use_salient

    from sensekit.errors import ConfigError

    with pytest.raises(ConfigError, match="needs --point-prompt"):
        _use_salient(None, 160, late=5)


def test_the_catch_up_hook_answers_as_shipped_then_as_a_tracker_started_from_sams_box():
    from _first_box_hooks import caught_up_point_prompt_tracker

    from sensekit.evaluation.vision.extent_experiment import make_tracker
    from sensekit.vision.color_tracker import ColorTracker as plain

    sam = _FakeSam((52, 42, 30, 20))
    hooked = make_tracker({"tracker_class": caught_up_point_prompt_tracker(sam, 2)})
    shipped, from_sam = plain(), plain()
    hooked.pick(_scene(0), 70.0, 55.0)
    shipped.pick(_scene(0), 70.0, 55.0)
    from_sam.pick_box(_scene(0), (52.0, 42.0, 30.0, 20.0))
    for k in (1, 2, 3, 4):
        got = hooked.update(_scene(2 * k), k / 30.0)
        want_shipped, want_sam = shipped.update(_scene(2 * k), k / 30.0), from_sam.update(_scene(2 * k), k / 30.0)
        assert got == (want_shipped if k < 2 else want_sam), k
    assert want_shipped.box != want_sam.box                    # the two answers differ on this scene
