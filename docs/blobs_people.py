#!/usr/bin/env python3
"""Figures for docs/blobs.md: blobs with ids over the PETS 2009 people clip.

Runs the clip (``../shared/data/video/people/pets2009_vtest_part1.mp4``, 480x360, 10 fps,
400 frames) through ``VisionStage`` with the background model and a ``BlobTracker`` at their
defaults, exactly as ``sensekit events FILE --blobs`` does, and writes
``docs/blobs/people_montage.png`` (frames given by ``--frames``, outlines, boxes and ids drawn
by ``sensekit.vision.layers.compose`` from the stage's own ``layers()``, as the panel draws
them). Prints the blob count per frame, the ids and how long each one lived, and on how many
frames the couple walking side by side (frames 130-350) has two ids (``couple_ids``; the
test ``tests/vision/test_blob_split.py`` checks it).

    .venv/bin/python docs/blobs_people.py [--data ../shared/data] [--frames 150,200,250,300,350,399]
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Iterator

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.capture.base import VideoFrame  # noqa: E402
from sensekit.events import Blobs, Event  # noqa: E402
from sensekit.vision.layers import LayerGrabber, compose  # noqa: E402
from sensekit.vision.blob_tracker import BlobTracker  # noqa: E402
from sensekit.vision.motion import MotionDetector  # noqa: E402
from sensekit.vision.pipeline import VisionStage  # noqa: E402

CLIP = Path("video") / "people" / "pets2009_vtest_part1.mp4"
# the centre (x, y) of the couple walking side by side, read off the clip every 30 frames
COUPLE = {120: (366, 102), 150: (410, 87), 180: (436, 81), 210: (429, 82), 240: (415, 93),
          270: (395, 105), 300: (383, 124), 330: (401, 150), 360: (451, 180)}
COUPLE_FRAMES = range(130, 351)


def couple_ids(tracker: BlobTracker, index: int) -> int:
    """How many ids the tracker shows on the couple at frame ``index`` (in ``COUPLE_FRAMES``):
    the visible blobs whose centre is inside the couple's region (the parts split off one
    region, joined again; the region nearest the couple's path, within 25 px), 0 when none."""
    keys = sorted(COUPLE)
    a = max(k for k in keys if k <= index)
    b = min(k for k in keys if k > index)
    f = (index - a) / (b - a)
    kx, ky = (COUPLE[a][d] + f * (COUPLE[b][d] - COUPLE[a][d]) for d in (0, 1))
    boxes: dict[int, tuple[int, int, int, int]] = {}
    for r in tracker.regions:                    # the parts of one region share its label
        x, y, w, h = r.box
        if r.label in boxes:
            bx, by, bx1, by1 = boxes[r.label]
            boxes[r.label] = (min(x, bx), min(y, by), max(x + w, bx1), max(y + h, by1))
        else:
            boxes[r.label] = (x, y, x + w, y + h)
    if not boxes:
        return 0
    x0, y0, x1, y1 = min(boxes.values(), key=lambda q: np.hypot((q[0] + q[2]) / 2 - kx, (q[1] + q[3]) / 2 - ky))
    if np.hypot((x0 + x1) / 2 - kx, (y0 + y1) / 2 - ky) > 25:
        return 0
    return sum(1 for tr in tracker.visible if tr.region is not None
               and x0 <= tr.region.cx < x1 and y0 <= tr.region.cy < y1)


def run_clip(path: Path) -> Iterator[tuple[int, float, np.ndarray, VisionStage, list[Event]]]:
    """The clip through the background model and a ``BlobTracker`` at their defaults, as
    ``sensekit events FILE --blobs`` runs it: each frame's index, time, image and the stage
    after it, and the frame's events."""
    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        raise FileNotFoundError(f"cannot open {path}")
    fps = cap.get(cv2.CAP_PROP_FPS) or 10.0
    stage = VisionStage(motion=MotionDetector(method="background"), blobs=BlobTracker(), motion_events=False)
    i = 0
    while True:
        ok, image = cap.read()
        if not ok:
            return
        events = stage.process(VideoFrame(i, i / fps, image, None))
        yield i, i / fps, image, stage, events
        i += 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--frames", default="150,200,250,300,350,399")
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "blobs" / "people_montage.png")
    args = ap.parse_args(argv)
    wanted = [int(v) for v in args.frames.split(",")]
    if not (args.data / CLIP).is_file():
        print(f"cannot open {args.data / CLIP}", file=sys.stderr)
        return 2
    grabber = LayerGrabber()
    tiles, counts, first, last = [], [], {}, {}
    two = 0
    i = 0
    for i, _, image, stage, events in run_clip(args.data / CLIP):
        for e in events:
            if isinstance(e, Blobs):
                counts.append(e.count)
                for b in e.blobs:
                    first.setdefault(b.id, i)
                    last[b.id] = i
        assert stage.blobs is not None
        if i in COUPLE_FRAMES:
            two += couple_ids(stage.blobs, i) >= 2
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
          f"(max {max(lives)}); the couple has two ids on {two} of {len(COUPLE_FRAMES)} frames "
          f"{COUPLE_FRAMES.start}-{COUPLE_FRAMES.stop - 1}; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
