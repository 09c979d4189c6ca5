#!/usr/bin/env python3
"""Tracking clips with ground truth from labelled footage no extent weight was fitted on.

``track_eval.py`` takes any folder of ``NAME.mp4`` + ``NAME_gt.csv`` (``frame,x,y,w,h``,
0-based). This writes such a folder (under ``/tmp`` or wherever ``--out`` says; the clips are
licensed for testing only and never go into the repo) from footage with **per-frame truth**:

- **highway** (``video/motion/cdnet_highway_a``, CDnet, 320x240, 300 frames): each car is a
  connected component of the per-pixel truth (label 255; the 1-2 px "unknown" band, label 170,
  that touches it is counted as the car's), followed from frame to frame by overlap: a car's
  box on the next frame is the one component overlapping it with IoU > ``LINK_IOU``, and the
  car's track ends when there is none, when that component touches another car's last box
  (two cars merged, e.g. one passing the other; a blob born of a merge or a split is no car's
  track) or when it touches the frame's top edge (far away, where the queue of cars merges into
  one blob). A car leaving by the bottom or a side keeps its track, the box the part in view
  (as VOT labels it), unless ``--cut-edge``. A run of a track of at least ``--min-frames``
  frames whose boxes are at least ``MIN_SIDE_PX`` on each side is one clip: its frames
  re-encoded as ``highway_carNN.mp4``
  (mp4v at quality 95, 30 fps, via OpenCV) and its boxes as ``highway_carNN_gt.csv``.

The other labelled footage in ``../shared/data`` has no per-frame truth (the pose and hand
clips and the PETS people clip say so in their READMEs; the pose and hand stills are single
frames), so it cannot be tracked against a truth.

    .venv/bin/python benchmarks/make_track_gt.py --out /tmp/unseen
    .venv/bin/python benchmarks/track_eval.py --clips /tmp/unseen --frames 100

Prints one line per clip written (frames, first and last box).
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import cv2
import numpy as np

from _reference import SHARED_DATA

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.evaluation.vision.evaluate import iou
from sensekit.evaluation.vision.motion_scoring import load_cdnet

LINK_IOU = 0.3
MIN_SIDE_PX = 10
Box = tuple[int, int, int, int]


def car_boxes(truth: np.ndarray) -> list[Box]:
    """The cars of one CDnet truth frame: components of label 255, each box grown over the
    label-170 pixels connected to it."""
    n, lab, stats, _c = cv2.connectedComponentsWithStats((truth >= 170).astype(np.uint8))
    core = truth == 255
    out = []
    for i in range(1, n):
        part = lab == i
        if not np.any(core & part):
            continue                                        # an "unknown" band with no car in it
        x, y, w, h = (int(v) for v in stats[i, :4])
        out.append((x, y, w, h))
    return out


def _touches_edge(box: Box, shape: tuple[int, ...], keep_edge: bool) -> bool:
    """Cut by the frame's top edge (always: far cars queue there and merge into one blob),
    or by any edge unless ``keep_edge``."""
    x, y, w, h = box
    return y <= 0 or (not keep_edge and (x <= 0 or x + w >= shape[1] or y + h >= shape[0]))


def car_tracks(truths: list[np.ndarray], keep_edge: bool = True) -> list[tuple[int, list[Box]]]:
    """Every car's track: (first frame, its boxes), as the module docstring says; with
    ``keep_edge`` a car cut by the frame's left, right or bottom edge goes on (its box is the
    part in view); one at the top edge never (there far cars queue and merge into one blob).

    A track goes on to the one component overlapping its last box with IoU > ``LINK_IOU`` when
    no other track's last box touches that component; otherwise it ends (two cars merged). A
    component no track goes on to starts a track, kept only when no track's last box touched
    it (a car coming into view, not a merge or a split of two)."""
    done: list[tuple[int, list[Box]]] = []
    live: list[tuple[int, list[Box], bool]] = []
    for k, truth in enumerate(truths):
        boxes = car_boxes(truth)
        touching = [[t for t, tr in enumerate(live) if iou(tr[1][-1], b) > 0] for b in boxes]
        keep: list[tuple[int, list[Box], bool]] = []
        taken = set()
        for t, (first, track, clean) in enumerate(live):
            js = [j for j, b in enumerate(boxes) if iou(track[-1], b) > LINK_IOU]
            if (len(js) == 1 and touching[js[0]] == [t] and js[0] not in taken
                    and not _touches_edge(boxes[js[0]], truth.shape, keep_edge)):
                track.append(boxes[js[0]])
                keep.append((first, track, clean))
                taken.add(js[0])
            elif clean:
                done.append((first, track))
        for j, b in enumerate(boxes):
            if j not in taken and not _touches_edge(b, truth.shape, keep_edge):
                keep.append((k, [b], not touching[j]))
        live = keep
    return sorted(done + [(first, track) for first, track, clean in live if clean])


def write_clip(out: Path, name: str, frames: list[np.ndarray], boxes: list[Box]) -> None:
    h, w = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(out / f"{name}.mp4"), cv2.VideoWriter.fourcc(*"mp4v"), 30.0, (w, h))
    writer.set(cv2.VIDEOWRITER_PROP_QUALITY, 95)
    for f in frames:
        writer.write(f)
    writer.release()
    with (out / f"{name}_gt.csv").open("w", newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(["frame", "x", "y", "w", "h"])
        for i, b in enumerate(boxes):
            wr.writerow([i, *b])


def _large(first: int, boxes: list[Box]) -> list[tuple[int, list[Box]]]:
    """The runs of a track whose boxes are at least ``MIN_SIDE_PX`` on each side."""
    runs: list[tuple[int, list[Box]]] = []
    for k, b in enumerate(boxes):
        if min(b[2], b[3]) < MIN_SIDE_PX:
            continue
        if runs and runs[-1][0] + len(runs[-1][1]) == first + k:
            runs[-1][1].append(b)
        else:
            runs.append((first + k, [b]))
    return runs


def highway(data: Path, out: Path, min_frames: int, keep_edge: bool) -> int:
    folder = data / "video" / "motion" / "cdnet_highway_a"
    if not folder.is_dir():
        sys.exit(f"CDnet highway not found at {folder} (use --data)")
    clip = load_cdnet(folder)
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    runs = [run for first, boxes in car_tracks(clip.truths, keep_edge) for run in _large(first, boxes)]
    for first, boxes in sorted(runs):
        if len(boxes) < min_frames:
            continue
        name = f"highway_car{n:02d}"
        write_clip(out, name, clip.frames[first:first + len(boxes)], boxes)
        print(f"{name}: frames {first}-{first + len(boxes) - 1} of the clip, box {boxes[0]} -> {boxes[-1]}")
        n += 1
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="folder to write NAME.mp4 + NAME_gt.csv into")
    ap.add_argument("--data", type=Path, default=SHARED_DATA, help="the shared data folder")
    ap.add_argument("--min-frames", type=int, default=20, help="shortest track kept (frames; default 20)")
    ap.add_argument("--cut-edge", action="store_true",
                    help="end a car's track at any edge of the frame (default: only at the top edge)")
    args = ap.parse_args(argv)
    if args.min_frames < 7:
        ap.error("--min-frames must be at least 7 (a click looks back on 6 frames)")
    n = highway(args.data, args.out, args.min_frames, not args.cut_edge)
    print(f"{n} clips in {args.out}")
    return 0 if n else 1


if __name__ == "__main__":
    sys.exit(main())
