#!/usr/bin/env python3
"""The first box with and without the holder cut (``sensekit.evaluation.vision.holder_cut``), click by click.

Every click case of ``extent_diagnose.py`` (each clip of ``--clips``, its 3 start frames with
the 6 frames before each, the 5 clicks of ``track_eval.py``; ``--scales`` views made in memory)
takes its first box from ``segment_click`` with the extent weights fitted without its clip
(``sensekit.evaluation.vision.held_out``; a clip no weight saw, such as ``make_track_gt.py``'s, gets the shipped
weights), then ``holder_cut.cut_holder`` on a measured box. ``--stills people,hands`` adds the
annotated pose and hand stills of ``extent_sources.py`` (no history). Printed per clip and
scale: clicks, cuts made, size ok (width and height within 25 %) and IoU > 0.5, without / with
the cut, and the cut's time (mean and max ms). No constant is chosen here: the rule is fixed.

    .venv/bin/python benchmarks/holder_eval.py --scales 0.5,1,2
    .venv/bin/python benchmarks/holder_eval.py --clips /tmp/unseen --scales 0.5,1,2 --stills people,hands
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from _reference import SHARED_DATA

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _first_box_hooks import holder_cut_in_tracker as use_in_tracker  # noqa: F401 (its name here)
from extent_diagnose import cases

from sensekit.evaluation.vision.clip_check import clips_to_run
from sensekit.evaluation.vision.evaluate import REFUSED, add_clip_options, iou, size_ok
from sensekit.evaluation.vision.held_out import unseen_by_fit
from sensekit.evaluation.vision.holder_cut import cut_holder
from sensekit.vision.segment import segment_click


def _row(frame: np.ndarray, history: list[np.ndarray], truth: np.ndarray, px: float, py: float,
         fold: str | None) -> tuple[bool, bool, bool, bool, bool, float]:
    seg = segment_click(frame, px, py, history=history, experiment=unseen_by_fit(fold))
    t0 = time.process_time()
    cut = cut_holder(frame, seg, px, py) if seg.method == "proposal" else seg
    ms = (time.process_time() - t0) * 1000
    return (cut is not seg, size_ok(seg.box, truth), size_ok(cut.box, truth),
            iou(seg.box, truth) > 0.5, iou(cut.box, truth) > 0.5, ms)


def print_table(rows: dict[tuple[str, float], list[tuple[bool, bool, bool, bool, bool, float]]],
                scales: list[float]) -> None:
    print(f"{'clip':26s} {'scale':>5s} {'clicks':>6s} {'cut':>4s}  {'size ok':>11s}  {'IoU>0.5':>11s}  cut ms")
    for factor in scales:
        keys = [k for k in rows if k[1] == factor]
        for key in keys + [("all", factor)]:
            r = rows[key] if key[0] != "all" else [v for k in keys for v in rows[k]]
            if not r:
                continue
            a = np.array([v[:5] for v in r], np.float64)
            ms = np.array([v[5] for v in r])
            print(f"{key[0]:26s} {factor:5g} {len(r):6d} {int(a[:, 0].sum()):4d}  "
                  f"{a[:, 1].mean():.2f} / {a[:, 2].mean():.2f}  {a[:, 3].mean():.2f} / {a[:, 4].mean():.2f}  "
                  f"{ms.mean():.1f} / {ms.max():.1f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_clip_options(ap, SHARED_DATA / "video" / "tracking", frames=False)
    ap.add_argument("--scales", default="1")
    ap.add_argument("--stills", default="", help="comma-separated still sources of extent_sources.py: people,hands")
    args = ap.parse_args(argv)
    if (names := clips_to_run(args.clips, args.only)) is None:
        return REFUSED
    scales = [float(v) for v in args.scales.split(",")]
    rows: dict[tuple[str, float], list[tuple[bool, bool, bool, bool, bool, float]]] = defaultdict(list)
    skipped = 0
    for factor in scales:
        for name, _s, _c, frame, history, truth, (px, py) in cases(args.clips, names, factor):
            if not (0 <= px < frame.shape[1] and 0 <= py < frame.shape[0]):
                skipped += 1                     # the view cut the object (a car at the frame's edge)
                continue
            rows[(name, factor)].append(_row(frame, history, truth, px, py, name))
    if args.stills:
        from extent_sources import cases as source_cases

        for source, factor, img, hist, box, pts in source_cases(SHARED_DATA, scales, tuple(args.stills.split(","))):
            for px, py in pts:
                rows[(source, factor)].append(_row(img, hist, box, px, py, None))
    if skipped:
        print(f"{skipped} clicks left out: outside their view's frame")
    print_table(rows, scales)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
