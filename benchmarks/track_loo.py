#!/usr/bin/env python3
"""A tracker setting chosen leaving one clip out, from ``track_eval.py --per-click`` runs.

Each candidate value of the setting is one run (``LABEL=JSON``); ``BASE`` is the run to compare
with (e.g. the shipped default, which may also be a candidate). For each clip, the value is
the one with the best mean success over the other clips' clicks at every scale in the runs
(ties: the first candidate given), so the clip never chooses its own value; the clip is then
scored at that value. Printed: each clip's choice, then per scale and clip the success of
``BASE`` and held out, the difference and its paired standard error (``track_compare.py``),
and the same over all the clips of a scale.

    .venv/bin/python benchmarks/track_loo.py BASE.json LABEL=A.json LABEL=B.json ...
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from track_compare import clicks, row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", type=Path, help="the run to compare with (track_eval.py --per-click)")
    ap.add_argument("candidates", nargs="+", metavar="LABEL=JSON", help="one run per candidate value")
    args = ap.parse_args(argv)
    try:
        base = json.loads(args.base.read_text())
        runs = {}
        for text in args.candidates:
            label, eq, path = text.partition("=")
            if not eq:
                raise ValueError(f"a candidate must be LABEL=JSON, got {text!r}")
            runs[label] = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        print(f"cannot read the runs: {e}", file=sys.stderr)
        return 2
    scales = [s for s in base if all(s in r for r in runs.values())]
    clips = [c for c in base[scales[0]] if all(c in r[s] for r in runs.values() for s in scales)]
    if len(clips) < 2:
        print("leaving one clip out needs at least 2 clips in every run", file=sys.stderr)
        return 2
    choice = {}
    for out in clips:
        rest = [c for c in clips if c != out]
        means = {label: float(np.mean(np.concatenate([clicks(r, s, c) for s in scales for c in rest])))
                 for label, r in runs.items()}
        choice[out] = max(means, key=lambda k: means[k])
        print(f"without {out}: " + ", ".join(f"{k} {v:.3f}" for k, v in means.items()) + f" -> {choice[out]}")
    print("\n| scale, clip | clicks | base | held out | difference | standard error |")
    print("| --- | --- | --- | --- | --- | --- |")
    for s in scales:
        a_all, b_all = [], []
        for c in clips:
            a, b = clicks(base, s, c), clicks(runs[choice[c]], s, c)
            a_all.append(a)
            b_all.append(b)
            print(row(f"x{s} {c} ({choice[c]})", a, b))
        print(row(f"x{s} all", np.concatenate(a_all), np.concatenate(b_all)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
