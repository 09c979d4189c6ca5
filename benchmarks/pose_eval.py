#!/usr/bin/env python3
"""The pose stage on the developer stills and clips beside bare MediaPipe Pose (needs the extra).

Prints, for ../shared/data/video/pose:

- per still, each annotated person's PCK@0.2 (``sensekit.evaluation.vision.pose_scoring``) for the stage
  and for a bare MediaPipe Pose call (static image, full model) on the same image; then the
  people found (PCK >= 0.5) and the mean PCK over the people with at least 5 labelled points.
  ``tflitetest_image1`` (a computer render, keypoints from another model) is scored apart;
- cost on a one-person clip (ntu_drink_water, resized to 640x480, played forwards and back
  to ``--frames`` frames, 330 by default so one window search falls inside): the stage (video,
  default settings, events built) vs a bare video-mode call, alternated frame by frame, ms per
  frame and the ratio of the means (target <= 1.10), and where the stage's extra goes (frames
  with only the video graph, with a search, with the window search, with a crop call because the
  video graph lost its person); and the cost of a still (first frame: the search);
- people per frame on the clips (how many poses the stage reports).

    .venv-hands/bin/python benchmarks/pose_eval.py [--frames 330]
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

from _images import read_image
from _reference import SHARED_DATA

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.capture.base import VideoFrame
from sensekit.events import Pose
from sensekit.vision.pose import PoseStage, load_pose
from sensekit.evaluation.vision.pose_scoring import FOUND_PCK, score_people

DATA = SHARED_DATA / "video" / "pose"
APART = ("tflitetest_image1",)


def bare_points(graph: Any, rgb: np.ndarray) -> list[np.ndarray]:
    """The people bare MediaPipe finds in ``rgb`` (``graph``: its Pose, no type hints)."""
    result = graph.process(rgb)
    if result.pose_landmarks is None:
        return []
    h, w = rgb.shape[:2]
    return [np.array([(p.x * w, p.y * h) for p in result.pose_landmarks.landmark])]


def stills() -> None:
    mp_pose = load_pose()
    rows: dict[str, list[tuple[float, float]]] = {"dev": [], "apart": []}
    print("PCK@0.2 per annotated person (>= 5 points): stage | bare MediaPipe")
    for note in sorted((DATA / "annotations").glob("*.json")):
        ann = json.loads(note.read_text())
        image = read_image(DATA / "stills" / Path(ann["image"]).name)
        persons = [p for p in ann["persons"] if p["num_keypoints"] >= 5]
        stage = PoseStage()
        events = stage.process(VideoFrame(0, 0.0, image))
        stage.close()
        ours = [np.array(e.landmarks) for e in events if isinstance(e, Pose)]
        with mp_pose.Pose(static_image_mode=True, model_complexity=1) as bare:
            theirs = bare_points(bare, cv2.cvtColor(image, cv2.COLOR_BGR2RGB))
        s, b = score_people(ours, persons), score_people(theirs, persons)
        rows["apart" if note.stem in APART else "dev"].extend(zip(s, b))
        print(f"  {note.stem:<22} {len(ours)} poses: {' '.join(f'{x:.2f}' for x in s)} | "
              f"{' '.join(f'{x:.2f}' for x in b)}")
    for key, pairs in rows.items():
        if not pairs:
            continue
        arr = np.array(pairs)
        print(f"{key} ({len(arr)} people): found stage {np.mean(arr[:, 0] >= FOUND_PCK):.2f} "
              f"bare {np.mean(arr[:, 1] >= FOUND_PCK):.2f}; mean PCK stage {arr[:, 0].mean():.2f} "
              f"bare {arr[:, 1].mean():.2f}")


def clip_frames(name: str, n: int, size: tuple[int, int] | None) -> list[VideoFrame]:
    cap = cv2.VideoCapture(str(DATA / name))
    fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
    out: list[VideoFrame] = []
    while len(out) < n:
        ok, image = cap.read()
        if not ok:
            break
        if size is not None:
            image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        out.append(VideoFrame(len(out), len(out) / fps, image))
    cap.release()
    return out


def cost(n: int) -> None:
    clip = clip_frames("ntu_drink_water.mp4", 10_000, (640, 480))
    loop = clip + clip[-2:0:-1]                     # forwards and back: as long as needed, no jump
    frames = [VideoFrame(k, k / 30.0, loop[k % len(loop)].image) for k in range(n)]
    mp_pose = load_pose()
    bare = mp_pose.Pose(static_image_mode=False, model_complexity=1)
    stage = PoseStage()
    bare_ms, stage_ms, kinds = [], [], []
    gc.disable()
    for frame in frames:
        t0 = time.perf_counter()
        bare.process(cv2.cvtColor(frame.image, cv2.COLOR_BGR2RGB))
        t1 = time.perf_counter()
        crops = stage.runs["crops"]
        stage.process(frame)
        t2 = time.perf_counter()
        bare_ms.append((t1 - t0) * 1000)
        stage_ms.append((t2 - t1) * 1000)
        kinds.append("window search" if frame.index % stage.window_every_frames == 0 else
                     "search" if frame.index % stage.search_every_frames == 0 else
                     "crop call" if stage.runs["crops"] > crops else "video graph only")
    gc.enable()
    bare.close()
    stage.close()
    # the first frames build the graphs (and the stage's first frame is its search): apart
    b, s = bare_ms[5:], stage_ms[5:]
    print(f"one person, 640x480, {len(b)} frames after 5 warm-up: bare {statistics.mean(b):.1f} ms "
          f"(median {statistics.median(b):.1f}), stage {statistics.mean(s):.1f} ms "
          f"(median {statistics.median(s):.1f}); ratio {statistics.mean(s) / statistics.mean(b):.2f}; "
          f"searches {stage.runs['searches']}, crop calls {stage.runs['crops']}")
    print(f"first frame (a still: search): stage {stage_ms[0]:.0f} ms, bare {bare_ms[0]:.0f} ms")
    total = sum(b)
    for kind in ("video graph only", "search", "window search", "crop call"):
        rows = [(x, y) for x, y, k in zip(b, s, kinds[5:]) if k == kind]
        if rows:
            print(f"  {kind}: {len(rows)} frames, bare {statistics.mean(x for x, _ in rows):.1f} ms, stage "
                  f"{statistics.mean(y for _, y in rows):.1f} ms; the stage's extra over them "
                  f"{100 * sum(y - x for x, y in rows) / total:+.1f} % of the bare total")
    print(json.dumps({"bare_ms": round(statistics.mean(b), 2), "stage_ms": round(statistics.mean(s), 2),
                      "ratio": round(statistics.mean(s) / statistics.mean(b), 3),
                      "fps": round(1000 / statistics.mean(s), 1)}))


def people_per_frame(n: int) -> None:
    for name in ("ntu_drink_water.mp4", "ntu_two_person_hug.mp4", "basketball_two_players.mp4"):
        stage = PoseStage()
        counts = [sum(e.name == "pose" for e in stage.process(f)) for f in clip_frames(name, n, None)]
        ids = sorted(stage.people)
        stage.close()
        hist = {k: counts.count(k) for k in sorted(set(counts))}
        print(f"  {name}: poses per frame {hist}, ids at the end {ids}, ids used {stage._next_id - 1}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=330)
    args = ap.parse_args()
    if not (DATA / "annotations").is_dir():
        print(f"pose stills not found at {DATA}", file=sys.stderr)
        return 2
    stills()
    cost(args.frames)
    print("people per frame on the clips")
    people_per_frame(150)
    return 0


if __name__ == "__main__":
    sys.exit(main())
