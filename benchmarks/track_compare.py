#!/usr/bin/env python3
"""Two runs of ``track_eval.py --per-click``, compared click by click: is a difference beyond the noise?

For each scale and clip: the mean success of the clicks in run A and in run B, the difference
B - A, and its standard error from the paired differences of the same clicks (the sample
standard deviation of the per-click differences over the square root of their number: 15 per
clip and scale, 5 clicks on 3 starts); then the same over all the clips of a scale (75 clicks).
A difference within about two standard errors is within the noise of these clicks.

    .venv/bin/python benchmarks/track_compare.py [--size] A.json B.json

``--size``: the same for the first boxes' size (1 when within 25 % of the true width and height).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np


def clicks(run: dict[str, Any], scale: str, clip: str, prefix: str = "click ") -> np.ndarray:
    """The success of every click of ``clip`` at ``scale``, in a fixed order (start, click);
    ``prefix`` "size ok:click ": whether each click's first box was the right size (1 or 0)."""
    return np.array([scores[k] for _start, scores in run[scale][clip] for k in sorted(scores)
                     if k.startswith(prefix)])


def row(label: str, a: np.ndarray, b: np.ndarray) -> str:
    d = b - a
    se = float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else float("nan")
    return f"| {label} | {len(d)} | {a.mean():.3f} | {b.mean():.3f} | {d.mean():+.3f} | {se:.3f} |"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", type=Path, help="run A (track_eval.py --per-click)")
    ap.add_argument("b", type=Path, help="run B")
    ap.add_argument("--size", action="store_true",
                    help="compare the share of first boxes of the right size, not the success")
    args = ap.parse_args(argv)
    try:
        runs = [json.loads(p.read_text()) for p in (args.a, args.b)]
    except (OSError, ValueError) as e:
        print(f"cannot read a --per-click file: {e}", file=sys.stderr)
        return 2
    a, b = runs
    prefix = "size ok:click " if args.size else "click "
    print("| scale, clip | clicks | A | B | B - A | standard error |")
    print("| --- | --- | --- | --- | --- | --- |")
    for scale in (s for s in a if s in b):
        clips = [c for c in a[scale] if c in b[scale]]
        for clip in clips:
            print(row(f"x{scale} {clip}", clicks(a, scale, clip, prefix), clicks(b, scale, clip, prefix)))
        print(row(f"x{scale} all", np.concatenate([clicks(a, scale, c, prefix) for c in clips]),
                  np.concatenate([clicks(b, scale, c, prefix) for c in clips])))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
