"""The person boxes of benchmarks/_person_boxes.py (the click10 experiment, not shipped) on real pictures.

docs/tracking.md ("Person boxes under a click") rests on what these detectors give: a click on
a person's torso in a pose still gives that person's box within 25 % of the annotated width
and height (MediaPipe Pose's segmentation), and so does a click on the sprinter of bolt1 where
he is large enough (frame 233). Needs the hands extra (CI's ``.venv-hands``); skips without it.
"""
from __future__ import annotations

from sensekit.installed import install_hint
import json
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

pytestmark = pytest.mark.hands
pytest.importorskip("mediapipe", reason=f"needs the hands extra: {install_hint('hands')} "
                                        "(CI runs these in .venv-hands)")

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from _person_boxes import person_boxes  # noqa: E402

from sensekit.evaluation.vision.evaluate import frames_of, load_clip, size_ok  # noqa: E402


def _best(frame: np.ndarray, x: float, y: float) -> tuple[int, int, int, int]:
    found = person_boxes(frame, x, y)
    assert found, f"no person box under the click ({x:.0f}, {y:.0f})"
    return max(found, key=lambda p: p.score).box


def test_a_torso_click_on_a_pose_still_gives_the_persons_box(shared_data: Path) -> None:
    folder = shared_data / "video" / "pose"
    meta = json.loads((folder / "annotations" / "coco_000000000785.json").read_text())
    frame = cv2.imread(str(folder / meta["image"]))
    truth = np.array(meta["persons"][0]["bbox"], np.float64)
    box = _best(frame, truth[0] + truth[2] / 2, truth[1] + truth[3] / 2)
    assert size_ok(box, truth), f"person box {box} against the annotated {truth.round().tolist()}"


def test_a_click_on_the_large_sprinter_gives_his_box(shared_data: Path) -> None:
    clip = load_clip(shared_data / "video" / "tracking", "vot_bolt1_rva")
    frame = next(f for k, f in enumerate(frames_of(clip)) if k == 233)
    truth = clip.truth[233].astype(np.float64)
    box = _best(frame, truth[0] + truth[2] / 2, truth[1] + truth[3] / 2)
    assert size_ok(box, truth), f"person box {box} against the true {truth.round().tolist()}"
