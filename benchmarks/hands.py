#!/usr/bin/env python3
"""The whole hand stage vs a bare MediaPipe call, same frames, same process (needs the extra).

Frames: the first ``--frames`` frames of each clip in ../shared/data/video/hands/videos (one
hand close up, a hand flipping and pinching, a small two-handed signer, a first-person
pointing finger; about a fifth of the signer's frames have no hand), resized to each size.
For each clip both pipelines start fresh and see the frames in order (MediaPipe tracks from
frame to frame):

- bare: ``cv2.cvtColor(BGR->RGB)`` + ``mediapipe.solutions.hands.Hands.process`` (video mode,
  full models, 2 hands, the stage's defaults and MediaPipe's);
- stage: ``Runner.process`` on a ``HandStage`` with handlers on ``hand``, ``gesture``,
  ``pinch`` and ``hand_lost``, so landmarks are converted, smoothed, classified, and events
  built and dispatched; retries on frames where a hand went missing are included.

Timing alternates the two frame by frame so machine load hits both alike. Prints mean and
median ms per frame of each, the ratio of the means (the target is <= 1.15) and how many
frames each found a hand on, then one JSON line per size.

    .venv-hands/bin/python benchmarks/hands.py [--sizes 320x240,640x480] [--frames 150]
"""
from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from _reference import SHARED_DATA

import cv2

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.capture.base import Item, Source, VideoFrame
from sensekit.events import Dispatcher
from sensekit.runner import Runner
from sensekit.vision.hands import HAND_EVENTS, HandStage, load_mediapipe

DATA = SHARED_DATA / "video" / "hands"


class _NoSource(Source):
    kind = "benchmark"

    def read(self, timeout: float | None = None) -> Item | None:
        raise EOFError


def clips(n: int, size: tuple[int, int]) -> dict[str, list[VideoFrame]]:
    out = {}
    for path in sorted((DATA / "videos").glob("*.mp4")):
        cap = cv2.VideoCapture(str(path))
        fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
        frames: list[VideoFrame] = []
        while len(frames) < n:
            ok, image = cap.read()
            if not ok:
                break
            image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
            frames.append(VideoFrame(len(frames), len(frames) / fps, image))
        cap.release()
        out[path.name[:3]] = frames
    return out


def run(size: tuple[int, int], n: int) -> dict[str, Any]:
    mp_hands = load_mediapipe()
    bare_ms, stage_ms = [], []
    found_bare = found_stage = total = retries = 0
    for _name, frames in clips(n, size).items():
        bare = mp_hands.Hands(static_image_mode=False, max_num_hands=2, model_complexity=1,
                              min_detection_confidence=0.5, min_tracking_confidence=0.5)
        stage = HandStage()
        dispatcher = Dispatcher()
        seen: list[Any] = []
        for event in HAND_EVENTS:
            dispatcher.on(event, seen.append)
        runner = Runner(_NoSource(), [stage], dispatcher)
        gc.disable()
        for frame in frames:
            t0 = time.perf_counter()
            result = bare.process(cv2.cvtColor(frame.image, cv2.COLOR_BGR2RGB))
            t1 = time.perf_counter()
            events = runner.process(frame)
            t2 = time.perf_counter()
            bare_ms.append((t1 - t0) * 1000)
            stage_ms.append((t2 - t1) * 1000)
            found_bare += bool(result.multi_hand_landmarks)
            found_stage += any(e.name == "hand" for e in events)
            seen.clear()
        gc.enable()
        total += len(frames)
        retries += stage.runs["retries"]
        bare.close()
        stage.close()
    b, s = statistics.fmean(bare_ms), statistics.fmean(stage_ms)
    return {"size": f"{size[0]}x{size[1]}", "frames": total, "bare_ms_mean": round(b, 2),
            "stage_ms_mean": round(s, 2), "bare_ms_median": round(statistics.median(bare_ms), 2),
            "stage_ms_median": round(statistics.median(stage_ms), 2), "ratio": round(s / b, 3),
            "found_bare": found_bare, "found_stage": found_stage, "retries": retries}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="320x240,640x480")
    ap.add_argument("--frames", type=int, default=150, help="frames per clip (default 150)")
    args = ap.parse_args()
    if not (DATA / "videos").is_dir():
        print(f"hand clips not found at {DATA}", file=sys.stderr)
        return 2
    rows = []
    for text in args.sizes.split(","):
        w, h = (int(v) for v in text.split("x"))
        rows.append(run((w, h), args.frames))
    print(f"{'size':>9} {'frames':>6} {'bare ms':>15} {'stage ms':>15} {'ratio':>6} {'hand on frames':>18}")
    for r in rows:
        print(f"{r['size']:>9} {r['frames']:>6} {r['bare_ms_mean']:>7.2f} ({r['bare_ms_median']:5.2f}) "
              f"{r['stage_ms_mean']:>7.2f} ({r['stage_ms_median']:5.2f}) {r['ratio']:>6.3f} "
              f"{r['found_stage']:>7} vs {r['found_bare']:<7}")
    print("mean (median) ms per frame; ratio = stage mean / bare mean (target <= 1.15);"
          " hand on frames: stage vs bare")
    for r in rows:
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
