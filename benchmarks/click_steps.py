#!/usr/bin/env python3
"""How many gestures after a click give a right-sized box: grow / shrink (the wheel) or click again.

For each click case of ``extent_diagnose.py`` (every developer clip, its 3 start frames with the
6 frames before each, the 5 clicks of ``track_eval.py``; ``--scales`` views made in memory), the
first box is what ``segment_click`` takes with the extent weights fitted without the clip
(``sensekit.evaluation.vision.held_out``, as ``track_eval.py --held-out``), and the click's pool is kept as the
tracker keeps it (``click_pool.ClickPool``). A user sees the outline, so each gesture is
counted in the right direction:

- **wheel**: up to ``--cap`` (3) steps growing, or up to 3 shrinking, from the first box; the
  fewer steps that reach a right-sized box (width and height within 25 % of the truth);
- **again**: up to 3 more clicks on the same spot (``ClickPool.again``: each the best guess of
  a size not shown yet);
- **best**: the fewer of the two.

Printed per scale: per clip and over all clips, the share of clicks right-sized after 0, 1, 2
and 3 gestures of the best kind, and after 3 of each kind alone, and how many were out of
reach (no right-sized box within 3 of either). ``--tolerance`` tries other values of what the
ladder merges as one size (``click_pool.SAME_SIZE``; several: also the value each clip's fold
would choose on the other clips, and the held-out table at it).

    .venv/bin/python benchmarks/click_steps.py [--clips DIR] [--only coke,tiger1] [--scales 0.5,1,2]
                                               [--tolerance 0.25] [--cap 3]

Cost: one click's segmentation per case (~0.1 s), ~30 s per scale on a loaded 2-core machine.
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

from extent_diagnose import cases

from sensekit.evaluation.vision.clip_check import clips_to_run
from sensekit.evaluation.vision.evaluate import REFUSED, add_clip_options, size_ok
from sensekit.vision.click_pool import SAME_SIZE, ClickPool
from sensekit.evaluation.vision.held_out import unseen_by_fit
from sensekit.vision.extent import measure_pool
from sensekit.vision.segment import segment_click_pool

NEVER = 99


def gestures(pool_of: Any, truth: np.ndarray, cap: int) -> tuple[int, int, int]:
    """(wheel, again, best): the fewest gestures of each kind giving a right-sized box
    (0: the first box is; ``NEVER``: not within ``cap``). ``pool_of()`` makes a fresh pool."""
    first = pool_of().first
    if size_ok(first.box, truth):
        return 0, 0, 0
    wheel = NEVER
    for direction in (1, -1):
        pool = pool_of()
        for n in range(1, cap + 1):
            seg = pool.step(direction)
            if seg is None:
                break
            if size_ok(seg.box, truth):
                wheel = min(wheel, n)
                break
    again = NEVER
    pool = pool_of()
    for n in range(1, cap + 1):
        seg = pool.again()
        if seg is None:
            break
        if size_ok(seg.box, truth):
            again = n
            break
    return wheel, again, min(wheel, again)


def table(rows: list[tuple[str, int, int, int]], names: list[str], cap: int) -> None:
    head = "  ".join(f"<={k}" for k in range(cap + 1))
    print(f"{'clip':12s} {'clicks':>6s}  best: {head}   wheel <={cap}  again <={cap}  out of reach")
    for name in names + ["all"]:
        r = [v for v in rows if v[0] == name or name == "all"]
        if not r:
            continue
        n = len(r)
        best = "  ".join(f"{sum(v[3] <= k for v in r) / n:.2f}".rjust(len(f'<={k}')) for k in range(cap + 1))
        print(f"{name:12s} {n:6d}        {best}   {sum(v[1] <= cap for v in r) / n:9.2f}"
              f"  {sum(v[2] <= cap for v in r) / n:9.2f}  {sum(v[3] > cap for v in r):12d}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_clip_options(ap, SHARED_DATA / "video" / "tracking", frames=False)
    ap.add_argument("--scales", default="0.5,1,2")
    ap.add_argument("--tolerance", default=str(SAME_SIZE),
                    help="what the ladder merges as one size; several (comma-separated): each clip "
                         "held out at its fold's choice")
    ap.add_argument("--cap", type=int, default=3, help="the most gestures counted (default 3)")
    args = ap.parse_args(argv)
    if (names := clips_to_run(args.clips, args.only)) is None:
        return REFUSED
    tolerances = [float(v) for v in args.tolerance.split(",")]
    for factor in (float(v) for v in args.scales.split(",")):
        rows: dict[float, list[tuple[str, int, int, int]]] = {t: [] for t in tolerances}
        for name, _s, _c, frame, history, truth, (px, py) in cases(args.clips, names, factor):
            exp = unseen_by_fit(name)
            first, measured = segment_click_pool(frame, px, py, history=history, experiment=exp)
            if measured is None:              # a clean colour region: the pool at the first gesture
                measured = measure_pool(frame, px, py, history, experiment=exp)
            for t in tolerances:
                def pool_of(t: float = t) -> ClickPool:
                    return ClickPool(frame, (px, py), first, proposals=measured[0], values=measured[1],
                                     tolerance=t)
                rows[t].append((name, *gestures(pool_of, truth, args.cap)))
        n = len(rows[tolerances[0]])
        for t in tolerances:
            print(f"\nobjects seen x{factor:g}: {n} clicks, the ladder's same size {t:g}")
            table(rows[t], names, args.cap)
        if len(tolerances) > 1 and len(names) < 2:
            print(f"\nobjects seen x{factor:g}: no held-out choice of the tolerance (it needs 2 clips or more)")
        elif len(tolerances) > 1:
            print(f"\nobjects seen x{factor:g}, each clip at its fold's choice (held out)")
            table(held_out_choice(rows, names, args.cap), names, args.cap)
    return 0


def held_out_choice(rows: dict[float, list[tuple[str, int, int, int]]], names: list[str], cap: int
                    ) -> list[tuple[str, int, int, int]]:
    """Each clip's rows at the tolerance its fold chooses on the other clips (the most clicks
    right within one gesture, then within ``cap``)."""
    held = []
    for name in names:
        def others(t: float, name: str = name) -> tuple[int, int]:
            r = [v for v in rows[t] if v[0] != name]
            return sum(v[3] <= 1 for v in r), sum(v[3] <= cap for v in r)
        best = max(rows, key=others)
        print(f"  {name}: fold chooses {best:g}")
        held += [v for v in rows[best] if v[0] == name]
    return held


if __name__ == "__main__":
    raise SystemExit(main())
