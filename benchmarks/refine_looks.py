#!/usr/bin/env python3
"""What each look at a click decides (``tracker.refine_looks``), against the truth, on real clips.

Every clip in ``--clips`` (default ``../shared/data/video/tracking``), the 5 clicks of
``track_eval.py`` on its 3 start frames, each with the 6 frames before it, the extent scored
with the weights fitted without the clip (``sensekit.evaluation.vision.held_out``); the tracker runs with
``--looks`` looks (default 3). For each look (1st, 2nd, ...): how many were taken, how many
re-seeded, and of those the mean IoU with the true box of the tracked box and of the new box
on that frame, and the share where the new box is the better one. A look that re-seeds from a
worse box is what more looks must avoid.

    .venv/bin/python benchmarks/refine_looks.py [--clips DIR] [--only coke] [--looks 3]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from collections.abc import Sequence
from typing import Any

import numpy as np

from _reference import SHARED_DATA

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.vision import click_refine
from sensekit.vision.color_tracker import ColorTracker
from sensekit.evaluation.vision.clip_check import clips_to_run
from sensekit.evaluation.vision.evaluate import (REFUSED, add_clip_options, click_points, frames_of,
                                                history_before, iou, load_clip, start_frames)
from sensekit.evaluation.vision.extent_experiment import ExperimentTracker
from sensekit.evaluation.vision.held_out import unseen_by_fit
from sensekit.vision.segment import Segment


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_clip_options(ap, SHARED_DATA / "video" / "tracking")
    ap.add_argument("--looks", type=int, default=3, help="looks at most (tracker.refine_looks)")
    args = ap.parse_args(argv)
    if (names := clips_to_run(args.clips, args.only)) is None:
        return REFUSED
    #: per look: (IoU of the tracked box, IoU of the new box or None when not re-seeded)
    seen: list[list[tuple[float, float | None]]] = [[] for _ in range(args.looks)]
    state: dict[str, Any] = {}

    class Recording(click_refine.ClickRefiner):
        """A look that records the IoU of the tracked box and of its new box (nothing patched)."""

        def decide(self, frame: np.ndarray, point: tuple[float, float], box: Sequence[float]) -> Segment | None:
            out = super().decide(frame, point, box)
            k, truth = state["tracker"].looks, state["truth"][state["frame"]]
            seen[k].append((iou(box, truth), None if out is None else iou(out.box, truth)))
            return out

    class Looked(ExperimentTracker):
        def _refiner(self, frame: np.ndarray) -> click_refine.ClickRefiner:
            return Recording(frame, self.refine_after_frames, self.refine_gain, self.extent_experiment)

    after = ColorTracker().refine_after_frames
    for name in names:
        clip = load_clip(args.clips, name)
        frames = list(frames_of(clip))
        n = min(len(frames), len(clip.truth))
        starts = start_frames(n)
        exp = unseen_by_fit(name)
        for s in starts:
            for px, py in click_points(clip.truth[s]).values():
                t = Looked(refine_looks=args.looks, extent_experiment=exp)
                t.pick(frames[s], px, py, history=history_before(frames, s))
                state.update(tracker=t, truth=clip.truth)
                for j in range(s + 1, min(n, s + after * args.looks + 1)):
                    state["frame"] = j
                    t.update(frames[j], j / 30)
        print(f"  {name} done", file=sys.stderr, flush=True)
    print("look   taken   re-seeded   IoU tracked   IoU new   new better")
    for k, rows in enumerate(seen, start=1):
        re = [(a, b) for a, b in rows if b is not None]
        if not re:
            print(f"{k:4d} {len(rows):7d} {0:11d}")
            continue
        a, b = np.array(re).T
        print(f"{k:4d} {len(rows):7d} {len(re):11d} {a.mean():13.2f} {b.mean():9.2f} {np.mean(b > a):12.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
