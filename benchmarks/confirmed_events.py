#!/usr/bin/env python3
"""The events of every run on the uncut developer clips, this tree's ``ColorTracker`` against
another version's ``color_tracker.py``: are the runs the tracker confirms unchanged?

The runs of ``false_losses.py`` (``click_runs``: every clip, 3 start frames, the 5 clicks with
the 6 frames before them and the true box, 100 frames, held out). Both trackers see the same frames; a run
is "confirmed" unless this tree's tracker sent ``color_lost`` before any frame matched the pick. Printed: per clip the
runs, the confirmed runs and how many of them have the very same events (names, times, boxes,
centres, confidences) in both versions; then every run that differs, with its first
difference.

    git show click8:sensekit/vision/color_tracker.py > /tmp/color_tracker_click8.py
    .venv/bin/python benchmarks/confirmed_events.py /tmp/color_tracker_click8.py
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from _reference import SHARED_DATA

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.vision.color_tracker import ColorTracker
from sensekit.evaluation.vision.click_runs import ClickRun, click_runs, start_run
from sensekit.errors import SourceError
from sensekit.evaluation.vision.clip_check import checked_clips
from sensekit.evaluation.vision.evaluate import load_clip, tracker_settings
from sensekit.evaluation.vision.held_out import unseen_by_fit
from sensekit.vision.extent import ExtentExperiment


def load_other(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("color_tracker_other", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def held_out_tracker(t: Any, experiment: ExtentExperiment | None) -> Any:
    """``t`` (this checkout's ``ColorTracker`` or the other version's) with its clicks' extent
    scored by ``experiment`` (the clip's held-out fold, ``unseen_by_fit``): the tracker's
    ``extent_experiment``, which it passes down the call (since branch ``house26``). An other
    version without it is refused by name: its clicks would be scored with the weights fitted on
    the clip, unlike this checkout's."""
    if experiment is not None and not hasattr(t, "extent_experiment"):
        raise SystemExit("confirmed_events: the other version's ColorTracker has no extent_experiment "
                         "(older than branch house26), so its clicks cannot be scored held out")
    t.extent_experiment = experiment
    return t


def _events(t: Any, run: ClickRun) -> tuple[list[str], bool]:
    # t: this checkout's ColorTracker or the other version's, loaded from a file (its own class)
    """The run's events, and whether a ``color_lost`` came before any match (never confirmed)."""
    start_run(t, run)
    out: list[str] = []
    unconfirmed = False
    for k, frame in enumerate(run.after, start=1):
        events = t.step(frame, k / 30)
        unconfirmed |= not t.ever_found and any(e.name == "color_lost" for e in events)
        out += [f"{k}: {e!r}" for e in events]
    return out, unconfirmed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("other", type=Path, help="the other version's sensekit/vision/color_tracker.py")
    ap.add_argument("--clips", type=Path, default=SHARED_DATA / "video" / "tracking")
    ap.add_argument("--tracker", action="append", default=[], metavar="KEY=VALUE")
    args = ap.parse_args(argv)
    try:
        names = checked_clips(args.clips)
    except SourceError as e:
        print(e, file=sys.stderr)
        return 2
    other = load_other(args.other)
    settings = tracker_settings(args.tracker)
    diffs: list[str] = []
    total = [0, 0, 0]
    print("clip                        runs  confirmed  confirmed, same events")
    for name in names:
        clip = load_clip(args.clips, name)
        row = [0, 0, 0]
        exp = unseen_by_fit(name)
        for run in click_runs(clip):
            a, never = _events(held_out_tracker(ColorTracker(**settings), exp), run)
            b, _ = _events(held_out_tracker(other.ColorTracker(**settings), exp), run)
            confirmed = not never
            row[0] += 1
            row[1] += int(confirmed)
            row[2] += int(confirmed and a == b)
            if a != b:
                first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                diffs.append(f"{name} start {run.start} {run.how} ({'confirmed' if confirmed else 'never confirmed'}): "
                             f"here {a[first] if first < len(a) else '-'} | other "
                             f"{b[first] if first < len(b) else '-'}")
        total = [x + y for x, y in zip(total, row)]
        print(f"{name:26s} {row[0]:5d} {row[1]:10d} {row[2]:23d}")
    print(f"{'all':26s} {total[0]:5d} {total[1]:10d} {total[2]:23d}")
    for line in diffs:
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
