#!/usr/bin/env python3
"""Figures for docs/blobs.md: blobs with ids over the PETS 2009 people clip.

Runs the clip (``../shared/data/video/people/pets2009_vtest_part1.mp4``, 480x360, 10 fps,
400 frames) through ``VisionStage`` with the background model and a ``BlobTracker`` at their
defaults, exactly as ``sensekit events FILE --blobs`` does, and writes
``docs/blobs/people_montage.png`` (frames given by ``--frames``, outlines, boxes and ids drawn
by ``sensekit.vision.layers.compose`` from the stage's own ``layers()``, as the panel draws
them). Prints the blob count per frame, the ids and how long each one lived.

    .venv/bin/python docs/blobs_people.py [--data ../shared/data] [--frames 150,200,250,300,350,399]
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.capture.base import VideoFrame  # noqa: E402
from sensekit.vision.layers import LayerGrabber, compose  # noqa: E402
from sensekit.vision.blob_tracker import BlobTracker  # noqa: E402
from sensekit.vision.motion import MotionDetector  # noqa: E402
from sensekit.vision.pipeline import VisionStage  # noqa: E402

CLIP = Path("video") / "people" / "pets2009_vtest_part1.mp4"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--frames", default="150,200,250,300,350,399")
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "blobs" / "people_montage.png")
    args = ap.parse_args(argv)
    wanted = [int(v) for v in args.frames.split(",")]
    cap = cv2.VideoCapture(str(args.data / CLIP))
    if not cap.isOpened():
        print(f"cannot open {args.data / CLIP}", file=sys.stderr)
        return 2
    fps = cap.get(cv2.CAP_PROP_FPS) or 10.0
    stage = VisionStage(motion=MotionDetector(method="background"), blobs=BlobTracker(), motion_events=False)
    assert stage.blobs is not None
    grabber = LayerGrabber()
    tiles, counts, first, last = [], [], {}, {}
    i = 0
    while True:
        ok, image = cap.read()
        if not ok:
            break
        t = i / fps
        for e in stage.process(VideoFrame(i, t, image, None)):
            if e.name == "blobs":
                counts.append(e.count)
                for b in e.blobs:
                    first.setdefault(b.id, i)
                    last[b.id] = i
        if i in wanted:
            out = compose(grabber.grab(image, [stage], index=i), {"blobs"})
            cv2.putText(out, f"frame {i}", (8, out.shape[0] - 10), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                        (255, 255, 255), 2, cv2.LINE_AA)
            tiles.append(out)
        i += 1
    if not tiles:
        print("none of --frames is in the clip", file=sys.stderr)
        return 2
    while len(tiles) % 2:
        tiles.append(np.zeros_like(tiles[0]))
    rows = [np.hstack(tiles[k:k + 2]) for k in range(0, len(tiles), 2)]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    montage = np.vstack(rows)
    cv2.imwrite(str(args.out), cv2.resize(montage, None, fx=0.75, fy=0.75, interpolation=cv2.INTER_AREA))
    lives = [last[k] - first[k] + 1 for k in first]
    after = counts[120:]
    print(f"{i} frames; blobs per frame after the 12 s warm-up: median {statistics.median(after):g}, "
          f"max {max(after)}; {len(first)} ids, lived median {statistics.median(lives):g} frames "
          f"(max {max(lives)}); wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
