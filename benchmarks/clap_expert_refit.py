#!/usr/bin/env python3
"""The floor route's noise expert refitted, the route's own recordings weighing more (claps_history.md, 11th pass).

Reads a cache of bursts with the expert's 20 features and ``floor_spread_db`` as a 21st column
(``ROUTED_FLOOR.npz``, the eighth pass's) and fits the expert as ``clap_training.train`` does
(hgb, each recording's own bursts weighing ``ORIG_WEIGHT`` times a copy's), the original
recordings' bursts that the route sends to the expert (rise under ``RISE_SPLIT_DB`` over a floor
spreading under ``FLOOR_SPLIT_DB``) weighing ``--route-weight`` times more: 14 single-source
folds and one fit on every source. ``--save-folds`` writes the folds as ``train_clap.py
--save-folds`` does (``clap_floor_route.py --below-folds`` reads them), ``--out`` the fit on
every source as a model module (``--below-model``). With ``--route-weight 1`` it gives the
sixth pass's expert again (the air gate aside). Cost: ~2-4 min.

Run it with ``OMP_NUM_THREADS=1``: scikit-learn's histogram sums are merged across threads in
another order with more of them, and the trees differ (``clap_noise_model.py`` was fitted
with one thread).

Usage: OMP_NUM_THREADS=1 .venv/bin/python benchmarks/clap_expert_refit.py
       --cache ROUTED_FLOOR.npz --route-weight 4 --save-folds M4.json --out M4_MODEL.py
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from sensekit.evaluation.audio import clap_folds as cf
from sensekit.evaluation.audio import clap_training as ct
from sensekit.audio.clap_features import FEATURES, Model
from sensekit.evaluation.audio.clap_hgb import fit_hgb
from sensekit.audio.clap_noise_model import FLOOR_SPLIT_DB, RISE_SPLIT_DB


def load(cache: Path) -> tuple[ct.Bursts, np.ndarray]:
    """The bursts (20 columns) and which of them are the route's original recordings'."""
    d = np.load(cache, allow_pickle=True)
    X = d["X"]
    b = ct.Bursts(X=X[:, :20], y=d["y"], source=d["source"], background=d["background"],
                  variant=d["variant"], clip=d["clip"],
                  onsets={str(k): int(v) for k, v in zip(d["on_k"], d["on_v"])},
                  labels={str(k): str(v) for k, v in zip(d["lab_k"], d["lab_v"])})
    routed = (b.variant == "orig") & (X[:, 0] < RISE_SPLIT_DB) & (X[:, 20] < FLOOR_SPLIT_DB)
    return b, routed


def train(b: ct.Bursts, routed: np.ndarray, weight: float, leave_out: tuple[str, ...] = ()) -> Model:
    """``clap_training.train`` (hgb, the gate from every copy), ``routed`` bursts x ``weight``."""
    m = b.y >= 0
    for s in leave_out:
        m &= (b.source != s) & (b.background != s)
    y = b.y[m]
    w = ct.balanced_weights(y, b.source[m]) * np.where(b.variant[m] == "orig", ct.ORIG_WEIGHT, 1.0)
    w = w * np.where(routed[m], weight, 1.0)
    trees = fit_hgb(b.X[m], y, w, depth=ct.DEPTH, trees=ct.TREES, rate=ct.RATE, l2=ct.L2,
                    decreasing=tuple(FEATURES.index(f) for f in ct.DECREASING))
    return ct.with_air_gate(trees, ct.air_floor(b.X[m & (b.y == 1)]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--route-weight", type=float, default=4.0)
    ap.add_argument("--save-folds", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    b, routed = load(args.cache)
    print(f"{len(b.y)} bursts, {int(routed.sum())} of the originals on the route "
          f"({int((routed & (b.y == 1)).sum())} claps), weighing x{args.route_weight:g}")
    models, folds = {}, {}
    for s in sorted(set(b.source) - {ct.SYNTH}):
        models[s] = train(b, routed, args.route_weight, (s,))
        folds[s] = ct.scores(b, models[s])
    threshold = cf.choose_threshold(b, folds)
    nested = cf.nested_thresholds(b, folds)
    args.save_folds.write_text(json.dumps({"threshold": threshold, "nested": nested, "models": models}))
    model = train(b, routed, args.route_weight)
    args.out.write_text(ct.format_module(model, threshold, f"the noise expert, the route's originals "
                                         f"x{args.route_weight:g} (clap_expert_refit.py)"))
    print(f"wrote {args.save_folds} and {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
