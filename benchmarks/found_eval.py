#!/usr/bin/env python3
"""``color_found`` on real clips: found on the object, or on a look-alike? Prints two tables.

Every clip in ``--clips`` (default ``../shared/data/video/tracking``), a centre click and the
true box on the first frame shown (no frames before it), through the scripts of
``sensekit.evaluation.vision.comeback``:

- **gone for good**: cut to each other clip (45 frames of it); a grey card over the object (to
  45 frames); each pan of ``track_eval.py --loss`` (``leave_plans``: 4 and 16 px/frame, every
  direction the clip allows) with the window then held still to 45 frames after the object is
  out; the still window it walks out of, held. Printed: runs, runs lost before the object went,
  runs lost after it went, **false founds** (``color_found`` while the object is not in view or
  on a box overlapping it by IoU < 0.1) in all and per run, runs with any, and the median
  frames from the loss to the first false found.
- **back**: cut away for 20 frames and back to the first clip's frames as they are by then;
  the card removed after 20 frames; each pan panned back along its path after 15 frames out,
  then following the object; the walk-out followed back. Printed: runs lost when it went,
  **re-found** (``color_found`` on a box overlapping it by IoU > 0.3) and the median (range) of
  frames from the object fully back in view to it; false founds before or after.

    .venv/bin/python benchmarks/found_eval.py [--clips DIR] [--only coke,tiger1] [--tracker KEY=VALUE]
                                              [--json out.json] [--verbose] [--tables-from out.json]

``--json`` writes every run (clip, arm, start, score) so two settings can be compared run by
run, and so constants can be chosen on four clips and reported on the fifth. ``--verbose``
prints each run on stderr. ~4-6 minutes for the five developer clips on a loaded machine.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from _reference import SHARED_DATA

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.evaluation.vision.comeback import Script, cover_script, cut_script, pan_script, run_script, walk_script
from sensekit.evaluation.vision.clip_check import clips_and_tracker
from sensekit.evaluation.vision.evaluate import REFUSED, add_clip_options, frames_of, load_clip
from sensekit.evaluation.vision.leave import DIRECTIONS, pan_plan, still_plan

SPEEDS_PX = (4.0, 16.0)        # as track_eval.py --loss
BACK_AFTER = 20                # frames cut away before cutting back


def scripts(name: str, truths: dict[str, np.ndarray], lengths: dict[str, int],
            size: tuple[int, int]) -> list[tuple[str, bool, Script]]:
    """(arm, back, script) for one clip."""
    truth = truths[name]
    out: list[tuple[str, bool, Script | None]] = []
    for other in (o for o in truths if o != name):
        out.append(("cut", False, cut_script(name, truth, other, lengths[other], size)))
        out.append(("cut", True, cut_script(name, truth, other, lengths[other], size, back_after=BACK_AFTER)))
    out.append(("cover", False, cover_script(name, truth, back=False)))
    out.append(("cover", True, cover_script(name, truth, back=True)))
    for v in SPEEDS_PX:
        for d in DIRECTIONS:
            plan = pan_plan(truth, size, direction=d, speed_px=v, start=min(30, len(truth) // 4))
            if plan is not None:
                out.append(("pan", False, pan_script(name, truth, plan, size, back=False)))
                out.append(("pan", True, pan_script(name, truth, plan, size, back=True)))
    plan = still_plan(truth, size)
    if plan is not None:
        out.append(("walk", False, walk_script(name, truth, plan, size, back=False)))
        out.append(("walk", True, walk_script(name, truth, plan, size, back=True)))
    return [(a, b, s) for a, b, s in out if s is not None]


def evaluate(folder: Path, names: list[str], settings: dict[str, Any], verbose: bool = False) -> list[dict[str, Any]]:
    """Every run of every clip as a dict (clip, arm, back, label, how, and ``RunScore``'s fields)."""
    from sensekit.evaluation.vision.extent_experiment import make_tracker

    clips = {n: load_clip(folder, n) for n in names}
    truths = {n: c.truth for n, c in clips.items()}
    all_frames: dict[str, list[np.ndarray]] = {}
    for n, c in clips.items():
        all_frames[n] = list(frames_of(c))
    lengths = {n: min(len(all_frames[n]), len(truths[n])) for n in names}
    truths = {n: t[:lengths[n]] for n, t in truths.items()}
    rows = []
    for name in names:
        t0 = time.perf_counter()
        first = all_frames[name][0]
        size = (first.shape[1], first.shape[0])
        for arm, back, script in scripts(name, truths, lengths, size):
            for how in ("click", "box"):
                r = run_script(make_tracker(settings), script, all_frames, size, how)
                row = {"clip": name, "arm": arm, "back": back, "label": script.label, "how": how,
                       "gone": script.gone, "back_at": script.back, **asdict(r)}
                rows.append(row)
                if verbose:
                    print(f"  {name} {script.label} {how}: gone {script.gone} back {script.back} lost before "
                          f"{r.lost_before} lost {r.lost} false {r.false_found} delay {r.delay} "
                          f"founds (frame, IoU) {r.founds}",
                          file=sys.stderr, flush=True)
        print(f"  {name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return rows


def _med(values: list[int]) -> str:
    return f"{np.median(values):+.0f} ({min(values):+d} to {max(values):+d})" if values else "-"


def tables(rows: list[dict[str, Any]]) -> str:
    """The two tables (see the module docstring), one line per arm and a total."""
    arms = ("cut", "cover", "pan", "walk")
    lines = ["gone for good   runs  lost before  lost after  false founds (per run)  runs with any  "
             "loss to first false, median   (false founds in runs lost before)"]
    for arm in (*arms, "all"):
        rs = [r for r in rows if not r["back"] and (arm == "all" or r["arm"] == arm)]
        kept = [r for r in rs if not r["lost_before"]]
        lost = [r for r in kept if r["lost"]]
        false = sum(len(r["false_found"]) for r in kept)
        anyf = sum(1 for r in kept if r["false_found"])
        first = [r["first_false"] for r in kept if r["first_false"] is not None]
        before = sum(len(r["false_found"]) for r in rs if r["lost_before"])
        lines.append(f"  {arm:12s} {len(rs):5d} {len(rs) - len(kept):11d} {len(lost):11d} "
                     f"{false:12d} ({false / max(1, len(kept)):.2f}) {anyf:13d}   {_med(first):>24s}   ({before})")
    lines.append("")
    lines.append("back            runs  lost before  lost when gone  re-found  delay from back, median (range)  "
                 "false founds")
    for arm in (*arms, "all"):
        rs = [r for r in rows if r["back"] and (arm == "all" or r["arm"] == arm)]
        kept = [r for r in rs if not r["lost_before"]]
        lost = [r for r in kept if r["lost"]]
        found = [r["delay"] for r in lost if r["delay"] is not None]
        false = sum(len(r["false_found"]) for r in kept)
        lines.append(f"  {arm:12s} {len(rs):5d} {len(rs) - len(kept):11d} {len(lost):15d} "
                     f"{len(found):5d} ({len(found) / max(1, len(lost)):.2f})  {_med(found):>24s}  {false:10d}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_clip_options(ap, SHARED_DATA / "video" / "tracking", frames=False)
    ap.add_argument("--tracker", action="append", default=[], metavar="KEY=VALUE",
                    help="a tracker setting, e.g. appearance_found=0.7 (repeatable)")
    ap.add_argument("--json", type=Path, help="write every run here")
    ap.add_argument("--verbose", action="store_true", help="each run on stderr")
    ap.add_argument("--tables-from", type=Path, metavar="JSON", help="print the tables of a --json file, run nothing")
    args = ap.parse_args(argv)
    if args.tables_from is not None:
        print(tables(json.loads(args.tables_from.read_text())))
        return 0
    if (checked := clips_and_tracker(args)) is None:
        return REFUSED
    names, settings = checked
    rows = evaluate(args.clips, names, settings, args.verbose)
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=0))
    print(tables(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
