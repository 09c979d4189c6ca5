#!/usr/bin/env python3
"""Would a person box help the click's first box? MediaPipe Pose's person under the click, held out.

Cases: every click of ``extent_diagnose.py`` (the developer clips, 3 starts, 5 clicks, at
``--scales``) with its first box as ``segment_click`` takes it (the clip's held-out weights),
and the annotated people of the pose stills (``extent_sources.people``: COCO / OCHuman /
TF-Lite, the clicks on the person mask, at x0.5 and x1; the shipped weights, which never saw
them). For each, ``_person_boxes.person_boxes`` (the ``hands`` extra) gives the person regions
holding the click.

``--detector hog`` takes OpenCV's HOG people detector instead (``_person_boxes.hog_boxes``; OpenCV
4.x only, as in the hands venv: OpenCV 5, the default install's, has no HOG), its thresholds
on the SVM's margin.

The rule measured: **the person box with the highest score replaces the first box when that
score is above s**. s (of ``THRESHOLDS``; 1.01 = never) is chosen for each clip on the other
four (the most first boxes of the right size, within 25 % of the true width and height, over
their clicks at every scale; a tie goes to the higher s), and the clip is scored at it; the
stills are scored at the s chosen on all five clips. Printed: right size before / after per
clip and scale, how often the rule fires (on the can, the tiger and the motorbike that is a
person box for something that is not a person), the pool's recall with the person boxes
added (``pool sized``: some proposal or person box right-sized), and the stills.

Needs the ``hands`` extra (run it with the hands venv's python). ``--cache`` keeps the boxes.

    .venv-hands/bin/python benchmarks/person_box_eval.py [--scales 1,0.5,2] [--cache /tmp/pb.pkl]

Cost: ~3-4 min on a loaded 2-core machine (3 MediaPipe calls and a click per case).
"""
from __future__ import annotations

import argparse
import pickle
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from _reference import SHARED_DATA

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from extent_diagnose import cases
from extent_sources import people

from sensekit.evaluation.vision.evaluate import clip_names, size_ok
from sensekit.evaluation.vision.held_out import unseen_by_fit
from _person_boxes import available, hog_boxes, person_boxes
from sensekit.vision.proposals import click_proposals
from sensekit.vision.segment import segment_click

NEVER = float("inf")
#: thresholds tried on each detector's score (``NEVER``: the rule never fires)
THRESHOLDS = {"pose": (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, NEVER),
              "hog": (-0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, NEVER)}
_tried: tuple[float, ...] = THRESHOLDS["pose"]


def _row(group: str, factor: float, frame: np.ndarray, history: list[np.ndarray], truth: np.ndarray,
         click: tuple[float, float]) -> dict[str, Any]:
    px, py = click
    first = segment_click(frame, px, py, history=history, experiment=unseen_by_fit(group)).box
    t0 = time.process_time()
    persons = [(p.score, p.box) for p in person_boxes(frame, px, py)]
    t1 = time.process_time()
    hog = [(p.score, p.box) for p in hog_boxes(frame, px, py)]
    t2 = time.process_time()
    pool = any(size_ok(p.box, truth) for p in click_proposals(frame, px, py))
    return {"group": group, "scale": factor, "truth": tuple(float(v) for v in truth),
            "size": frame.shape[:2], "first": first,
            "persons": persons, "hog": hog, "pool_sized": pool,
            "ms": {"pose": 1000 * (t1 - t0), "hog": 1000 * (t2 - t1)}}


def collect(clips: Path, scales: list[float]) -> list[dict[str, Any]]:
    rows = []
    names = clip_names(clips)
    for factor in scales:
        for name, _s, _c, frame, history, truth, click in cases(clips, names, factor):
            rows.append(_row(name, factor, frame, list(history), truth, click))
        print(f"  x{factor:g}: {len(rows)} cases", file=sys.stderr, flush=True)
    for _src, factor, frame, _h, truth, clicks in people(SHARED_DATA, [0.5, 1.0]):
        for click in clicks:
            rows.append(_row("people", factor, frame, [], truth, click))
    print(f"  + people: {len(rows)} cases", file=sys.stderr, flush=True)
    return rows


def box_after(row: dict[str, Any], s: float) -> tuple[float, ...]:
    """The first box under the rule at threshold ``s``."""
    best = max(row["persons"], default=None, key=lambda p: p[0])
    return tuple(best[1]) if best is not None and best[0] > s else tuple(row["first"])


def right_share(rows: list[dict[str, Any]], s: float) -> float:
    return float(np.mean([size_ok(box_after(r, s), r["truth"]) for r in rows])) if rows else float("nan")


def choose(rows: list[dict[str, Any]]) -> float:
    """The threshold with the most right-sized first boxes on ``rows`` (ties: the higher)."""
    got = [(right_share(rows, s), s) for s in _tried]
    return max(got)[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=Path, default=SHARED_DATA / "video" / "tracking")
    ap.add_argument("--scales", default="1,0.5,2")
    ap.add_argument("--detector", choices=sorted(THRESHOLDS), default="pose",
                    help="whose person boxes the rule takes: MediaPipe Pose's segmentation (default) or OpenCV's HOG")
    ap.add_argument("--cache", type=Path, default=None, help="keep the boxes in this pickle (reused when it exists)")
    args = ap.parse_args(argv)
    if not available():
        print("person_box_eval needs the hands extra (MediaPipe Pose): run it with .venv-hands/bin/python",
              file=sys.stderr)
        return 2
    if args.cache is not None and args.cache.is_file():
        rows = pickle.loads(args.cache.read_bytes())
    else:
        rows = collect(args.clips, [float(v) for v in args.scales.split(",")])
        if args.cache is not None:
            args.cache.write_bytes(pickle.dumps(rows))
    global _tried
    _tried = THRESHOLDS[args.detector]
    if args.detector == "hog":
        rows = [dict(r, persons=r["hog"]) for r in rows]
    names = clip_names(args.clips)
    track = [r for r in rows if r["group"] != "people"]
    chosen = {n: choose([r for r in track if r["group"] != n]) for n in names}
    print("s chosen without each clip: " + ", ".join(f"{n} {s:g}" for n, s in chosen.items()))
    print(f"\n{'scale':6s} {'clip':24s} {'right before':>12s} {'after':>6s} {'fires':>6s} {'pool sized':>10s}"
          f" {'+ person':>8s}")
    for factor in sorted({r["scale"] for r in track}):
        before, after = [], []
        for n in names:
            g = [r for r in track if r["group"] == n and r["scale"] == factor]
            s = chosen[n]
            b, a = right_share(g, NEVER), right_share(g, s)
            fires = np.mean([box_after(r, s) != tuple(r["first"]) for r in g])
            pool = np.mean([r["pool_sized"] for r in g])
            pool2 = np.mean([r["pool_sized"] or any(size_ok(p[1], r["truth"]) for p in r["persons"]) for r in g])
            before.append(b)
            after.append(a)
            print(f"x{factor:<5g} {n:24s} {b:12.2f} {a:6.2f} {fires:6.2f} {pool:10.2f} {pool2:8.2f}")
        print(f"x{factor:<5g} {'mean':24s} {np.mean(before):12.2f} {np.mean(after):6.2f}")
    s_all = choose(track)
    print(f"\npeople (pose stills), s = {s_all:g} (chosen on the five clips):")
    for factor in (0.5, 1.0):
        g = [r for r in rows if r["group"] == "people" and r["scale"] == factor]
        some = np.mean([any(size_ok(p[1], r["truth"]) for p in r["persons"]) for r in g])
        print(f"  x{factor:g}: right size {right_share(g, NEVER):.2f} before, {right_share(g, s_all):.2f} after "
              f"({len(g)} clicks; some person box right-sized: {some:.2f})")
    ms = [r["ms"][args.detector] for r in rows if r["group"] != "people" and r["scale"] == 1]
    print(f"\nCPU per click of the person boxes ({args.detector}), the clips at x1: mean {np.mean(ms):.0f} ms, "
          f"max {np.max(ms):.0f} ms (the clips' own frames; process CPU time, the detector's threads included)")
    print("\nright size over every threshold (the five clips at all scales / the stills):")
    people_rows = [r for r in rows if r["group"] == "people"]
    print("  " + ", ".join(f"s {s:g}: {right_share(track, s):.2f} / {right_share(people_rows, s):.2f}"
                           for s in _tried))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
