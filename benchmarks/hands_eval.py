#!/usr/bin/env python3
"""The hand stage on the developer footage: detection vs bare MediaPipe, pinches, gestures, PCK.

Prints, for ../shared/data/video/hands (needs the hands extra):

- per clip, frames with a hand: the stage with each model vs bare MediaPipe calls with each
  model (its default is the full one), same frames;
- the pinch events (start, end frame) on v01 and v02 under four landmark sets: lite and full
  models, frames as they are and mirrored. The thresholds were chosen on v01 and only checked
  on v02; the four sets stand in for other hands and cameras (different landmark noise);
- the gesture on each still, and PCK@0.2 (0.2 x the larger side of the annotated box) on
  s07 and s09.

    .venv-hands/bin/python benchmarks/hands_eval.py [--models lite,full]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from _images import read_image
from _reference import SHARED_DATA

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.capture.base import VideoFrame
from sensekit.capture.media import read_video
from sensekit.events import Hand, Pinch
from sensekit.vision.hands import HandStage, load_mediapipe

DATA = SHARED_DATA / "video" / "hands"


def frames_of(prefix: str) -> list[VideoFrame]:
    """The developer clip ``prefix`` (v01, v02...) as frames, read by sensekit's own reader."""
    return read_video(next((DATA / "videos").glob(f"{prefix}_*.mp4")))


def detection(models: list[str]) -> None:
    mp_hands = load_mediapipe()
    print(f"frames with a hand: stage ({', '.join(models)}) | bare MediaPipe ({', '.join(models)})")
    for prefix in ("v01", "v02", "v04", "v06"):
        frames = frames_of(prefix)
        stage_counts, bare_counts = [], []
        for model in models:
            stage = HandStage(model=model)
            stage_counts.append(sum(any(e.name == "hand" for e in stage.process(f)) for f in frames))
            stage.close()
            with mp_hands.Hands(model_complexity=1 if model == "full" else 0, max_num_hands=2) as bare:
                bare_counts.append(sum(bool(bare.process(cv2.cvtColor(f.image, cv2.COLOR_BGR2RGB))
                                            .multi_hand_landmarks) for f in frames))
        print(f"  {prefix} ({len(frames)} frames): {' '.join(map(str, stage_counts))} | "
              f"{' '.join(map(str, bare_counts))}")


def pinches(models: list[str]) -> None:
    print("pinch events (start-end frame) under four landmark sets")
    for prefix in ("v01", "v02"):
        frames = frames_of(prefix)
        for model in models:
            for mirror in (False, True):
                stage = HandStage(model=model, mirror=mirror)
                events = [(f.index, e.pinching) for f in frames for e in stage.process(f) if isinstance(e, Pinch)]
                stage.close()
                spans = [f"{a}-{b}" for (a, _), (b, _) in zip(events[::2], events[1::2])]
                print(f"  {prefix} {model:<4} {'mirrored' if mirror else 'as is':<8} {', '.join(spans) or '-'}")


def stills(model: str) -> None:
    print(f"stills ({model} model)")
    for path in sorted((DATA / "stills").glob("*.jpg")):
        stage = HandStage(model=model)
        hands = [e for e in stage.process(VideoFrame(0, 0.0, read_image(path))) if isinstance(e, Hand)]
        stage.close()
        line = f"  {path.name}: {hands[0].gesture if hands else 'no hand'}"
        notes = list((DATA / "annotations").glob(f"{path.name[:3]}_*.json"))
        if hands and notes:
            ann = json.loads(notes[0].read_text())["annotations"][0]
            truth = np.array(ann["keypoints"], dtype=float).reshape(21, 3)[:, :2]
            err = np.linalg.norm(np.array(hands[0].landmarks)[:, :2] - truth, axis=1)
            line += f", PCK@0.2 {np.mean(err < 0.2 * max(ann['bbox'][2:])):.2f}, median error {np.median(err):.1f} px"
        print(line)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="lite,full")
    args = ap.parse_args()
    if not (DATA / "videos").is_dir():
        print(f"hand clips not found at {DATA}", file=sys.stderr)
        return 2
    models = args.models.split(",")
    detection(models)
    pinches(models)
    for model in models:
        stills(model)
    return 0


if __name__ == "__main__":
    sys.exit(main())
