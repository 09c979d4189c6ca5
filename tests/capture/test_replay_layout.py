"""A replay gives the same events to the bit wherever its arrays lie in memory.

``sensekit events`` is built here as the command builds it and fed the replay's items; the
second and third replays, in the same process, get every frame and block copied into a fresh
array at a random offset, with arrays of random sizes allocated and held between items, so
every array a stage makes lies elsewhere. ``cv2.magnitude`` moved in its last bits with the
layout (OpenCV 4.11 and 5.0), and the click tracker's extent cues with it: a replay could pick
another box than the recording did. The click tracker runs in both cases here: on the bundled
recording (a click on the ball, with every other event the demo drives) and on a real clip (a
click on the first frame's true box).
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from layout_determinism import RunCase, run_once


def _replay(argv: list[str], seed: int | None) -> list[Any]:
    """``sensekit events ARGV``'s events to the bit, the items laid out elsewhere when ``seed`` is given."""
    return run_once(RunCase("test", argv), None if seed is None else np.random.default_rng(seed))


def test_the_demo_replays_to_the_bit_with_its_arrays_elsewhere(recordings_dir: Path) -> None:
    argv = [str(recordings_dir / "demo.skrec"), "--track-color", "160,99", "--motion", "--blobs", "--edges",
            "--clap", "--pattern", "2", "--pitch", "--level", "--activity", "--records"]
    first = _replay(argv, None)
    names = [event[0] for event in first]
    assert names.count("FrameSeen") == 300 and "ColorTracked" in names and "Clap" in names, sorted(set(names))
    for seed in (0, 1):
        again = _replay(argv, seed)
        assert len(again) == len(first)
        assert again == first, next(f"line {i}: {a} != {b}" for i, (a, b) in enumerate(zip(first, again)) if a != b)


def test_the_click_tracker_on_a_real_clip_is_the_same_with_its_arrays_elsewhere(shared_data: Path) -> None:
    clip = shared_data / "video" / "tracking" / "coke.mp4"
    first_row = (shared_data / "video" / "tracking" / "coke_gt.csv").read_text().splitlines()[1].split(",")
    argv = [str(clip), "--track-color", f"{float(first_row[5]):.0f},{float(first_row[6]):.0f}"]
    first = _replay([*argv, "--max-items", "40"], None)
    assert sum(event[0] == "ColorTracked" for event in first) >= 15
    for seed in (0, 1):
        assert _replay([*argv, "--max-items", "40"], seed) == first
