#!/usr/bin/env python3
"""Why a cut is not lost within 15 frames, and the view-change cue that catches it.

Default: every cut run of ``track_eval.py --loss`` (check on; a centre click or the true box on
frame 0, cut to each other clip after 29 frames) that is not lost within 15 frames, frame by
frame from 2 before the cut: found or not, the box, its IoU with the other clip's object (what
it sits on), the appearance score (similarity to the pick) and the confidence.

``--cue``: the view-change share (``sensekit.vision.view_change``) between consecutive frames of
each whole clip (max, 99th percentile) and at each cut; the threshold each clip would get left
out (midway between the other clips' highest within-clip share and lowest cut share), whether
that held-out threshold separates the left-out clip; and the cue's cost in us per 640x480
frame beside one ``ColorTracker`` update (model method) on the same frames, same process.

``--jump``: the other side of a cut, the object still in view: after 29 frames the clip jumps
30 frames ahead in itself (a jump cut; the object has moved); per clip and start (a centre
click, the true box), whether ``color_lost`` came within 15 frames of the jump, and whether
the tracker then held the object 15 frames after it (found, IoU > 0.3 with the truth).

    .venv/bin/python benchmarks/loss_misses.py [--clips DIR] [--tracker KEY=VALUE] [--all] [--cue] [--jump]
"""
from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path
from typing import Any

from _reference import SHARED_DATA

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _track_loss import _first

from sensekit.events import ColorLost
from sensekit.vision.color_tracker import ColorTracker
from sensekit.errors import SourceError
from sensekit.evaluation.vision.clip_check import checked_clips
from sensekit.evaluation.vision.evaluate import frames_of, iou, load_clip, tracker_settings
from sensekit.vision.view_change import ViewChange, thumbnail, view_change

#: a frame of a cut run: (frames after the cut, found, box, IoU with the other clip's object, appearance, confidence)
Row = tuple[int, bool, tuple[int, int, int, int], float, float, float]


def _resize(frames: list[np.ndarray], size: tuple[int, int]) -> list[np.ndarray]:
    import cv2

    return [cv2.resize(f, size) for f in frames]


def cut_run(folder: Path, name: str, how: str, other: str, settings: dict[str, Any],
            first: dict[str, list[np.ndarray]]) -> tuple[bool, int | None, list[Row]]:
    """(lost before the cut, frames after it until color_lost or None, rows from 2 before)."""
    truth = load_clip(folder, name).truth
    other_truth = load_clip(folder, other).truth
    size = (first[name][0].shape[1], first[name][0].shape[0])
    sx, sy = size[0] / first[other][0].shape[1], size[1] / first[other][0].shape[0]
    t = ColorTracker(**settings)
    x, y, w, h = truth[0]
    if how == "click":
        t.pick(first[name][0], x + w / 2, y + h / 2)
    else:
        t.pick_box(first[name][0], truth[0])
    rows: list[Row] = []
    before, at = False, None
    for k, frame in enumerate(first[name][1:30] + _resize(first[other][:20], size), start=1):
        lost = any(isinstance(e, ColorLost) for e in t.step(frame, k / 30))
        before |= lost and k < 30
        if lost and k >= 30 and at is None:
            at = k - 30
        if k >= 28:
            r = t.last
            assert r is not None
            ob = truth[k] if k < 30 else other_truth[k - 30] * np.array([sx, sy, sx, sy])
            rows.append((k - 30, r.found, r.box, iou(r.box, ob) if r.found else 0.0, t.model.appearance,
                         r.confidence))
    return before, at, rows


def misses(folder: Path, names: list[str], settings: dict[str, Any], every: bool) -> None:
    first = {n: _first(folder, n, 60) for n in names}
    for name in names:
        for how in ("click", "box"):
            for other in (o for o in names if o != name):
                before, at, rows = cut_run(folder, name, how, other, settings, first)
                if before or not (every or at is None or at > 15):
                    continue
                print(f"{name} ({how}) -> {other}: lost {'never' if at is None else f'at +{at}'}")
                for d, found, box, ov, app, conf in rows[:12]:
                    print(f"   {d:+3d} {'found' if found else 'miss ':5s} box={box} IoU(other's object)={ov:.2f}"
                          f" appearance={app:.2f} conf={conf:.2f}")


def cue_table(folder: Path, names: list[str]) -> None:
    within: dict[str, list[float]] = {}
    cuts: dict[str, list[float]] = {}
    frames = {n: list(frames_of(load_clip(folder, n))) for n in names}
    for n in names:
        th = [thumbnail(f) for f in frames[n]]
        within[n] = [view_change(a, b) for a, b in itertools.pairwise(th)]
        size = (frames[n][0].shape[1], frames[n][0].shape[0])
        cuts[n] = [view_change(th[29], thumbnail(_resize([frames[o][0]], size)[0])) for o in names if o != n]
    print("clip                        within: max   p99    cuts: min   max    left-out threshold  separates")
    for n in names:
        hi = max(max(within[o]) for o in names if o != n)
        lo = min(min(cuts[o]) for o in names if o != n)
        thr = (hi + lo) / 2
        ok = max(within[n]) <= thr < min(cuts[n])
        print(f"{n:26s} {max(within[n]):12.3f} {np.percentile(within[n], 99):5.3f} {min(cuts[n]):11.2f}"
              f" {max(cuts[n]):5.2f} {thr:19.2f}  {'yes' if ok else 'no'}")
    cost(frames["coke"][:60] if "coke" in frames else frames[names[0]][:60])


def cost(frames: list[np.ndarray]) -> None:
    """The cue's cost per 640x480 frame beside a model tracker's update, alternated, same frames."""
    frames = _resize(frames, (640, 480))
    t = ColorTracker(cut_above=1.0)
    t.pick_box(frames[0], (280, 200, 80, 80))
    cue_s, track_s = [], []
    v = ViewChange()
    for _ in range(5):
        for b in frames[1:]:
            t0 = time.perf_counter()
            v.update(b)                            # what the tracker adds per frame
            t1 = time.perf_counter()
            t.update(b)
            t2 = time.perf_counter()
            cue_s.append(t1 - t0)
            track_s.append(t2 - t1)
    c, u = float(np.median(cue_s)) * 1e6, float(np.median(track_s)) * 1e6
    print(f"cue: {c:.0f} us per 640x480 frame; ColorTracker.update (model, 80x80 box): {u:.0f} us "
          f"({100 * c / u:.1f} %)")


def jump_table(folder: Path, names: list[str], settings: dict[str, Any]) -> None:
    print("clip                        start   cue at the jump   lost within 15   holds it 15 frames after (IoU > 0.3)")
    lost_n = held_n = runs = 0
    for name in names:
        clip = load_clip(folder, name)
        frames = _first(folder, name, 75)
        if len(frames) < 75:
            continue
        for how in ("click", "box"):
            t = ColorTracker(**settings)
            x, y, w, h = clip.truth[0]
            if how == "click":
                t.pick(frames[0], x + w / 2, y + h / 2)
            else:
                t.pick_box(frames[0], clip.truth[0])
            seq = list(range(1, 30)) + list(range(60, 75))
            lost_at, share = None, 0.0
            for n, k in enumerate(seq, start=1):
                if any(isinstance(e, ColorLost) for e in t.step(frames[k], n / 30)) and k >= 60 and lost_at is None:
                    lost_at = k - 60
                share = t.view.share if k == 60 else share
            r = t.last
            held = r is not None and r.found and iou(r.box, clip.truth[74]) > 0.3
            runs, lost_n, held_n = runs + 1, lost_n + (lost_at is not None), held_n + held
            print(f"{name:26s} {how:6s} {share:15.2f} {'at +' + str(lost_at) if lost_at is not None else 'no':>16s}"
                  f"   {'yes' if held else 'no'}")
    print(f"{'all':26s} {runs:6d} {'':15s} {lost_n:16d}   {held_n}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=Path, default=SHARED_DATA / "video" / "tracking")
    ap.add_argument("--tracker", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--all", action="store_true", help="every run not lost before the cut, not only the misses")
    ap.add_argument("--cue", action="store_true", help="the view-change cue's shares and cost")
    ap.add_argument("--jump", action="store_true", help="jump cuts within a clip: the object stays in view")
    args = ap.parse_args(argv)
    try:
        names = checked_clips(args.clips)
    except SourceError as e:
        print(e, file=sys.stderr)
        return 2
    lengths = {n: len(load_clip(args.clips, n).truth) for n in names}
    for n in (n for n in names if lengths[n] < 30):
        print(f"  {n}: {lengths[n]} frames, a cut after frame 29 needs 30; left out", file=sys.stderr)
    names = [n for n in names if lengths[n] >= 30]
    if len(names) < 2:
        print(f"{args.clips}: the cuts need at least 2 clips of 30 frames or more (a cut goes from one to "
              "another)", file=sys.stderr)
        return 2
    if args.cue:
        cue_table(args.clips, names)
    elif args.jump:
        jump_table(args.clips, names, tracker_settings(args.tracker))
    else:
        misses(args.clips, names, tracker_settings(args.tracker), args.all)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
