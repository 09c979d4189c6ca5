#!/usr/bin/env python3
"""The floor route's held-out folds: each source's noise expert and its threshold, chosen without it.

Rebuilt in the twenty-fourth pass (docs/claps_history.md) after the eighth pass's script, which lived only
on branch ``claps8`` (not kept). A burst goes to the noise expert when it rises less than a split over a
floor spreading less than ``--steady`` dB (``clap_floor``: 2 dB, fixed a priori); every other burst keeps
the clean trees' score at the held-out source's nested threshold. For each held-out source the rise split
(``SPLITS``: 20..38 dB and 41, every burst) and the expert's threshold (-2..6) are chosen on the other
sources' held-out scores only (each burst scored by the folds that did not hear its source): the best mean
of the pooled per-clap F1 on the clips, on their noisy copies and on their speech mixes (``GROUPS``);
within ``TIE_F1`` of it the lowest split (the fewest bursts moved to the expert), then the highest
threshold (``choose``; ``clap_folds.choose_route``, the fourth pass's, breaks ties the other way).

Reads a cache whose columns are the 16 burst features, the patch's four and ``floor_spread_db``
(``ROUTED_FLOOR.npz``), the clean trees' folds (``train_clap.py --save-folds``, e.g. the seventeenth
pass's ``TREES.json``) and the expert's (``clap_expert_refit.py --save-folds``). Writes, per held-out
source, the expert with its threshold folded into its base (so the detector's threshold, the clean trees'
nested one, serves it, as ``clap_noise_model`` folds the shipped one), the split and both thresholds.
Cost: ~1 min (nothing fitted).

Usage: .venv/bin/python benchmarks/clap_floor_route.py --cache ROUTED_FLOOR.npz --clean-folds TREES.json
       --below-folds M4.json --save-folds M4_ROUTE.json [--steady 2]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from _clap_clips import add_expert_folds_options

SPLITS = (20.0, 22.0, 24.0, 26.0, 28.0, 30.0, 32.0, 34.0, 36.0, 38.0, 41.0)
FEATURES_N, EXPERT_N = 16, 20      # the cache's columns: the features, then the patch's, then the spread


def steady_rise(X: np.ndarray, steady_db: float) -> np.ndarray:
    """Each burst's ``rise_db`` where its floor is steady (``floor_spread_db`` under ``steady_db``), else
    +inf (never the expert's); a burst without the floor's history (NaN) is not the expert's either."""
    spread = X[:, EXPERT_N]
    with np.errstate(invalid="ignore"):
        steady = spread < steady_db
    return np.where(steady, X[:, 0], np.inf)


def choose(counts: list[tuple[np.ndarray, np.ndarray, np.ndarray]], keep: list[int],
           splits: tuple[float, ...] = SPLITS) -> tuple[float, float, float]:
    """(split, expert threshold, criterion): the best mean over ``counts``' groups (``route_counts``) of
    the pooled per-clap F1 of the sources ``keep``; within ``TIE_F1`` of it the lowest split, then the
    highest threshold (the eighth pass's rule)."""
    from sensekit.evaluation.audio.clap_folds import THRESHOLDS, TIE_F1

    f1s = []
    for tp, fp, n in counts:
        t, f, nn = tp[:, :, keep].sum(axis=2), fp[:, :, keep].sum(axis=2), n[keep].sum()
        f1s.append(2 * t / np.maximum(2 * t + f + (nn - t), 1))
    crit = np.mean(f1s, axis=0)
    ok = [(a, k) for a in range(len(splits)) for k in range(len(THRESHOLDS)) if crit[a, k] >= crit.max() - TIE_F1]
    a, k = min(ok, key=lambda ak: (splits[ak[0]], -THRESHOLDS[ak[1]]))
    return splits[a], float(THRESHOLDS[k]), float(crit[a, k])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, required=True)
    add_expert_folds_options(ap)
    ap.add_argument("--save-folds", type=Path, required=True)
    ap.add_argument("--steady", type=float, default=2.0, help="the floor split in dB (fixed, not chosen)")
    args = ap.parse_args(argv)
    from sensekit.evaluation.audio import clap_folds as cf
    from sensekit.evaluation.audio import clap_training as ct

    def say(message: str) -> None:
        print(f"# {message}", file=sys.stderr, flush=True)
    b = ct.collect_cached(None, args.cache)  # type: ignore[arg-type]  # (the cache must be there: no data)
    if b.X.shape[1] != EXPERT_N + 1:
        print(f"{args.cache}: {b.X.shape[1]} columns, not the 16 features, the patch's 4 and the "
              "floor spread", file=sys.stderr)
        return 2
    clean_f, below_f = (json.loads(p.read_text()) for p in (args.clean_folds, args.below_folds))
    sources = sorted(clean_f["models"])
    if sorted(below_f["models"]) != sources:
        print("the two fold files hold different sources", file=sys.stderr)
        return 2
    Xc, Xe = b.X[:, :FEATURES_N], b.X[:, :EXPERT_N]
    clean_b = ct.Bursts(Xc, b.y, b.source, b.background, b.variant, b.clip, b.onsets, b.labels)
    clean = {s: ct.scores(clean_b, clean_f["models"][s]) for s in sources}
    below = {s: ct.scores(ct.Bursts(Xe, b.y, b.source, b.background, b.variant, b.clip, b.onsets,
                                    b.labels), below_f["models"][s]) for s in sources}
    t_clean = cf.nested_thresholds(clean_b, clean)
    say(f"{len(b.y)} bursts; clean trees' nested thresholds: "
        + ", ".join(f"{s} {t:g}" for s, t in t_clean.items()))
    csc, bsc = np.zeros(len(b.y)), np.zeros(len(b.y))
    for s in sources:
        m = b.source == s
        csc[m], bsc[m] = clean[s][m], below[s][m]
    X0 = Xc.copy()
    X0[:, 0] = steady_rise(b.X, args.steady)
    routed = ct.Bursts(X0, b.y, b.source, b.background, b.variant, b.clip, b.onsets, b.labels)
    groups = (("orig",), ct.NOISY, ("mix0", "mix6", "lo_speech"))
    counts = {t: [cf.route_counts(routed, csc, bsc, sources, g, splits=SPLITS, t_clean=t) for g in groups]
              for t in sorted(set(t_clean.values()))}
    models, nested, chosen = {}, {}, {}
    for i, s in enumerate(sources):
        sp, tb, fig = choose(counts[t_clean[s]], [j for j in range(len(sources)) if j != i])
        e = below_f["models"][s]
        models[s] = {"clean": clean_f["models"][s],
                     "expert": {**e, "base": float(e["base"]) - tb + t_clean[s]}}
        nested[s] = t_clean[s]
        chosen[s] = {"split": sp, "t_expert": tb, "t_clean": t_clean[s], "criterion": fig}
        say(f"held out {s:16s} rise split {sp:g}, expert threshold {tb:g}, clean {t_clean[s]:g} "
            f"(the other sources' criterion {fig:.4f})")
    args.save_folds.write_text(json.dumps({"steady_db": args.steady, "nested": nested, "chosen": chosen,
                                           "models": models}))
    print(f"wrote {args.save_folds}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
