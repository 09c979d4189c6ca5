#!/usr/bin/env python3
"""False losses on uncut clips (``--clips``; default the developer clips): runs in which ``color_lost`` fires while the
tracker's box still holds the object (IoU > 0.3 with the true box of that frame), and the
``color_lost`` of clicks the tracker never confirmed, counted apart (they tell the app to ask
for another click, whatever the box overlaps; listed with their IoU at the loss).

The runs of ``track_eval.py --scales 1 --held-out``: every clip, 3 start frames, the 5 clicks
(each given the 6 frames before it) and the true box, 100 frames each, the extent scored with
the weights fitted without the clip (a clip no weight was fitted on, e.g. a user's own, gets the
shipped weights: ``held_out.unseen_by_fit``). Printed per clip: runs, runs with a ``color_lost``, runs
with a false one (of runs confirmed before the loss), runs lost never confirmed, and the
frames on which the view-change cue fired (``tracker.cut_above``).

    .venv/bin/python benchmarks/false_losses.py [--clips DIR] [--only A,B] [--tracker KEY=VALUE]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
from _reference import SHARED_DATA

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.events import ColorLost
from sensekit.vision.color_tracker import ColorTracker
from sensekit.evaluation.vision.click_runs import click_runs, start_run
from sensekit.evaluation.vision.clip_check import clips_and_tracker
from sensekit.evaluation.vision.evaluate import REFUSED, add_clip_options, iou, load_clip
from sensekit.evaluation.vision.extent_experiment import ExperimentTracker
from sensekit.evaluation.vision.held_out import unseen_by_fit


def _box_now(t: ColorTracker) -> tuple[float, float, float, float]:
    """Where the model's box is (it stays at the last tracked position while missing)."""
    m = t.model
    return (m.cx - m.w / 2, m.cy - m.h / 2, m.w, m.h)


def _run(t: ColorTracker, frames: list[np.ndarray], truth: np.ndarray,
         start: int) -> tuple[bool, bool, int, float | None]:
    """(a color_lost of a confirmed run, a false one, frames the cue fired, the IoU at the
    color_lost of a run never confirmed before it or ``None``) over the frames after the start."""
    lost = false = False
    unconfirmed: float | None = None
    cues = 0
    for k, frame in enumerate(frames, start=1):
        box = _box_now(t)
        events = t.step(frame, k / 30)
        cues += int(t.view.share > t.cut_above) if hasattr(t, "view") else 0
        if any(isinstance(e, ColorLost) for e in events):
            overlap = iou(box, truth[start + k])
            if not t.ever_found:
                unconfirmed = overlap if unconfirmed is None else unconfirmed
                continue
            lost = True
            false |= overlap > 0.3
    return lost, false, cues, unconfirmed


def clip_row(folder: Path, name: str, settings: dict[str, Any],
             notes: list[str] | None = None) -> tuple[int, int, int, int, int]:
    clip = load_clip(folder, name)
    runs = lost = false = cues = never = 0
    exp = unseen_by_fit(name)
    for run in click_runs(clip):
        t = ExperimentTracker(**settings, extent_experiment=exp)
        start_run(t, run)
        a, b, c, u = _run(t, run.after, clip.truth, run.start)
        runs, lost, false, cues = runs + 1, lost + a, false + b, cues + c
        if u is not None:
            never += 1
            if notes is not None:
                notes.append(f"{name} start {run.start} {run.how}: never confirmed, color_lost with IoU {u:.2f}")
    return runs, lost, false, never, cues


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_clip_options(ap, SHARED_DATA / "video" / "tracking", frames=False)
    ap.add_argument("--tracker", action="append", default=[], metavar="KEY=VALUE")
    args = ap.parse_args(argv)
    if (checked := clips_and_tracker(args)) is None:
        return REFUSED
    names, settings = checked
    total = [0, 0, 0, 0, 0]
    notes: list[str] = []
    print("clip                        runs  confirmed, color_lost  false (IoU > 0.3)  never confirmed, "
          "color_lost  cue fired (frames)")
    for name in names:
        row = clip_row(args.clips, name, settings, notes)
        total = [a + b for a, b in zip(total, row)]
        print(f"{name:26s} {row[0]:5d} {row[1]:22d} {row[2]:18d} {row[3]:28d} {row[4]:19d}")
    print(f"{'all':26s} {total[0]:5d} {total[1]:22d} {total[2]:18d} {total[3]:28d} {total[4]:19d}")
    for line in notes:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
