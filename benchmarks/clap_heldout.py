#!/usr/bin/env python3
"""Where the clap model fails held out: per-burst scores of the single leave-one-source-out
folds, per source and threshold, and the features of the false claps.

For each source the trees are trained without it (``clap_training.train(leave_out=[s])``)
and every burst of the training set is scored, with the air gate and without it (the same
trees, the gate's tree dropped); the scores are cached (``--cache``, a pickle) so
thresholds can be explored instantly. Printed, on each source's original clips (burst
level: every burst scoring >= the threshold counts, as before the detector's 75 ms merge):

1. per threshold, with and without the gate: per-clap F1 (tp/fp/fn) on each source's clap
   clips, the false claps on its negative clips (count, clips hit), and false claps per
   hour of negative audio;
2. at ``--threshold`` (with the gate) (default the shipped one): quantiles of every feature over all clap
   bursts (augmented copies included) next to the median of each source's held-out false
   claps: which physical measurement tells them apart.

Cost: ~1-2 min to collect the bursts, then ~20 s per fit (11 fits) on a busy 2-core machine;
a second run with the same cache prints at once.

Usage: .venv/bin/python benchmarks/clap_heldout.py [--data ../shared/data]
       [--cache /tmp/clap_heldout.pkl] [--threshold 1.25] [--thresholds 0,0.5,1,...]
"""
from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

from _reference import SHARED_DATA, data_refused
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]


def _row(b: Any, orig: np.ndarray, neg_clips: set[str], hours: float,
         by_source: dict[str, np.ndarray], thr: float) -> str:
    """One threshold's held-out figures for every source (see the module docstring)."""
    parts, total = [], 0
    for s, sc in by_source.items():
        m = orig & (b.source == s)
        acc = m & (sc >= thr)
        pos = np.isin(b.clip, [c for c in set(b.clip[m]) if b.labels[c] == "clap"])
        neg = np.isin(b.clip, [c for c in set(b.clip[m]) if c in neg_clips])
        tp = int(np.sum(acc & pos & (b.y == 1)))
        fp = int(np.sum(acc & pos & (b.y == 0)))
        fn = sum(b.onsets[c] for c in set(b.clip[m & pos])) - tp
        text = f"{s}"
        if tp + fp + fn:
            text += f" F1 {2 * tp / (2 * tp + fp + fn):.3f} ({tp}/{fp}/{fn})"
        if neg.any():
            nf = int(np.sum(acc & neg))
            total += nf
            text += f" neg {nf} in {len(set(b.clip[acc & neg]))}/{len(set(b.clip[m & neg]))}"
        parts.append(text)
    return f"{total} false claps on negatives ({total / hours:.0f}/h) | " + " | ".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path,
                    default=SHARED_DATA)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/clap_heldout.pkl"))
    ap.add_argument("--threshold", type=float, default=None)
    ap.add_argument("--thresholds", default="0,0.5,1,1.25,1.5,2,3,4")
    args = ap.parse_args(argv)
    if data_refused(args.data):
        return 2
    from sensekit.evaluation.audio import clap_training as ct
    from sensekit.audio.clap_features import FEATURES
    from sensekit.audio.clap_model import THRESHOLD
    from sensekit.evaluation.audio.evaluate import read_clips, read_wav

    if args.cache.is_file():
        b, folds, ungated, dur = pickle.loads(args.cache.read_bytes())
    else:
        b = ct.collect(args.data)
        folds, ungated = {}, {}
        for s in sorted(set(b.source)):
            print(f"# fold without {s}", file=sys.stderr, flush=True)
            model = ct.train(b, leave_out=[s])
            folds[s] = ct.scores(b, model)
            ungated[s] = ct.scores(b, {k: v[:-1] if k in ("feature", "threshold", "leaf") else v
                                       for k, v in model.items()})
        dur = {}
        for c in read_clips(args.data):
            x, rate = read_wav(args.data / c.file)
            dur[c.file] = len(x) / rate
        args.cache.write_bytes(pickle.dumps((b, folds, ungated, dur)))
    orig = (b.variant == "orig") & (b.y >= 0)
    neg_clips = {c for c in set(b.clip[orig]) if b.labels[c] != "clap"}
    hours = sum(dur[c] for c in neg_clips) / 3600.0

    for title, by_source in (("with the air gate", folds), ("without the air gate", ungated)):
        print(f"held out, {title} (burst level): clap clips F1 (tp/fp/fn); negative clips: "
              "false claps in clips hit/clips")
        for thr in [float(v) for v in args.thresholds.split(",") if v.strip()]:
            print(f"threshold {thr:+.2f}: " + _row(b, orig, neg_clips, hours, by_source, thr))
        print()

    thr = THRESHOLD if args.threshold is None else args.threshold
    claps = b.X[b.y == 1]
    false = {s: orig & (b.source == s) & (b.y == 0) & (sc >= thr) for s, sc in folds.items()}
    false = {s: m for s, m in false.items() if m.any()}
    print(f"\nfeatures at threshold {thr:g}: clap bursts (all copies) quantiles | median of each "
          "source's held-out false claps (count)")
    print(f"{'':14s} {'0.1%':>7s} {'2%':>7s} {'50%':>7s} {'98%':>7s} {'99.9%':>7s} | "
          + " ".join(f"{s}({int(m.sum())})".rjust(14) for s, m in false.items()))
    for j, name in enumerate(FEATURES):
        v = claps[:, j][np.isfinite(claps[:, j])]
        q = np.quantile(v, [0.001, 0.02, 0.5, 0.98, 0.999])
        med = [float(np.nanmedian(b.X[m, j])) if np.isfinite(b.X[m, j]).any() else float("nan")
               for m in false.values()]
        print(f"{name:14s} " + " ".join(f"{x:7.2f}" for x in q) + " | "
              + " ".join(f"{x:14.2f}" for x in med))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
