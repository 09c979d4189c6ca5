#!/usr/bin/env python3
"""The fifteenth pass's look: held out at burst level, the shipped trees against a small net on
the noise-normalised patch around each burst (``sensekit.evaluation.audio.clap_net``).

Leave-one-source-out: each of the 14 sources' bursts is scored by trees and by a net that never
heard it (nor a copy with its sound mixed in); the net's size and L2 are chosen on inner folds
of the other sources only (``clap_net.choose_config``). Reported, pooled over the sources, for
(a) the recordings' own bursts, (b) the noisy copies' bursts rising < 26 dB (white, pink,
babble), (c) one speaker of another source at 0 dB over every clap clip (``SPEECH0``, never
trained on): ROC AUC of each, the trees' false-positive rate at each source's nested threshold,
and each scorer's recall at that rate (the net's threshold set to give the same rate on that
group: the same footing for both, not a deployable threshold).

Usage: .venv/bin/python benchmarks/clap_net_look.py --cache BURSTS.npz [--tree-folds T.json]
       [--net-folds N.npz] [--jobs 2] [--features both|patch]
  --cache      bursts with patches (collected here when the file does not exist: ~3 min)
  --tree-folds the trees' 14 single-source fits (JSON; fitted and written when missing: ~3 min)
  --net-folds  the nets' held-out scores, choices and models (written when missing; ~25 min, 2 jobs)
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from _reference import SHARED_DATA, data_refused

RISE_UNDER_DB = 26.0
NOISY_KINDS = ("white", "pink", "babble")
_B: Any = None


def _net_fold(args: tuple[str, str, int]) -> tuple[str, list[float], list[float], list[int], float, dict[str, Any]]:
    from sensekit.evaluation.audio import clap_net as cn
    source, features, epochs = args
    use_f = features == "both"

    def say(m: str) -> None:
        print(f"# {m}", file=sys.stderr, flush=True)
    hidden, alpha, crit = cn.choose_config(_B, source, use_features=use_f, epochs=epochs, progress=say)
    model = cn.fit_net(_B, leave_out=[source], hidden=hidden, alpha=alpha, use_features=use_f, epochs=epochs)
    say(f"{source}: chose {hidden} alpha {alpha}")
    return source, cn.net_scores(_B, model).tolist(), crit, list(hidden), alpha, model


def group_masks(b: Any) -> dict[str, np.ndarray]:
    from sensekit.evaluation.audio.clap_training import SPEECH0, SYNTH
    from sensekit.audio.clap_features import FEATURES
    ok = (b.y >= 0) & (b.source != SYNTH)
    rise = b.X[:, FEATURES.index("rise_db")]
    g = {"(a) clean: the recordings": ok & (b.variant == "orig")}
    low = ok & (rise < RISE_UNDER_DB)
    for k in NOISY_KINDS:
        g[f"(b) n_{k}, rise < {RISE_UNDER_DB:g} dB"] = low & (b.variant == f"n_{k}")
    g[f"(b) the three, rise < {RISE_UNDER_DB:g} dB"] = low & np.isin(b.variant, [f"n_{k}" for k in NOISY_KINDS])
    g["(c) one speaker 0 dB (sp0)"] = ok & (b.variant == SPEECH0)
    return g


def table(b: Any, trees: np.ndarray, thr: np.ndarray, net: np.ndarray) -> str:
    from sensekit.evaluation.audio.clap_net import auc
    rows = ["| group | claps / others | AUC trees | AUC net | AUC mean | trees' FPR | recall trees "
            "| recall net | recall mean |", "|---|---|---|---|---|---|---|---|---|"]
    mean = 0.5 * (trees + net)
    for name, m in group_masks(b).items():
        y = b.y[m]
        t, n, a = trees[m], net[m], mean[m]
        acc = t >= thr[m]
        neg = y == 0
        fpr = float(acc[neg].mean()) if neg.any() else float("nan")
        rec_t = float(acc[y == 1].mean())

        def rec_at(s: np.ndarray) -> float:
            k = int(round(fpr * neg.sum()))          # as many false positives as the trees
            cut = np.sort(s[neg])[::-1][k] if k < neg.sum() else -np.inf
            return float((s[y == 1] > cut).mean())
        rows.append(f"| {name} | {int((y == 1).sum())} / {int(neg.sum())} | {auc(t, y):.3f} | {auc(n, y):.3f} | "
                    f"{auc(a, y):.3f} | {fpr:.3f} | {rec_t:.3f} | {rec_at(n):.3f} | {rec_at(a):.3f} |")
    return "\n".join(rows)


def net_folds(args: argparse.Namespace, sources: list[str], epochs: int) -> dict[str, Any]:
    """Each source's held-out net scores and its inner choice (read from / written to
    ``--net-folds``; the sources missing there fitted, ``--jobs`` at a time)."""
    got: dict[str, Any] = {}
    if args.net_folds is not None and args.net_folds.is_file():
        got = json.loads(args.net_folds.read_text())
    work = [(s, args.features, epochs) for s in sources if s not in got]
    if not work:
        return got
    if args.jobs > 1:
        import multiprocessing as mp
        with mp.get_context("fork").Pool(args.jobs) as pool:
            results = pool.map(_net_fold, work, chunksize=1)
    else:
        results = [_net_fold(w) for w in work]
    for s, sc, crit, hidden, alpha, model in results:
        got[s] = {"scores": sc, "crit": crit, "hidden": hidden, "alpha": alpha, "model": model}
    if args.net_folds is not None:
        args.net_folds.write_text(json.dumps(got))
    return got


def main(argv: list[str] | None = None) -> int:
    global _B
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=SHARED_DATA)
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--tree-folds", type=Path, default=None)
    ap.add_argument("--net-folds", type=Path, default=None)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--epochs", type=int, default=None)
    ap.add_argument("--features", choices=("both", "patch"), default="both",
                    help="the net reads the patch and the 16 features (both) or the patch only")
    ap.add_argument("--sources", default="", help="only these held-out sources (comma-separated)")
    args = ap.parse_args(argv)
    if not args.cache.is_file() and data_refused(args.data):
        return 2
    from sensekit.evaluation.audio import clap_folds as cf
    from sensekit.evaluation.audio import clap_net as cn
    from sensekit.evaluation.audio import clap_training as ct

    def say(m: str) -> None:
        print(f"# {m}", file=sys.stderr, flush=True)
    b = ct.collect_cached(args.data, args.cache, augment=ct.AUGMENTATIONS + (ct.SPEECH0,), patches=True,
                          progress=say)
    _B = b
    sources = sorted(set(b.source) - {ct.SYNTH})
    if args.sources:
        sources = [s for s in sources if s in args.sources.split(",")]
    train = b.variant != ct.SPEECH0
    tb = ct.Bursts(b.X[train], b.y[train], b.source[train], b.background[train], b.variant[train],
                   b.clip[train], b.onsets, b.labels)
    if args.tree_folds is not None and args.tree_folds.is_file():
        models = json.loads(args.tree_folds.read_text())["models"]
    else:
        models = {}
        for s in sorted(set(b.source) - {ct.SYNTH}):
            say(f"trees without {s}")
            models[s] = ct.train(tb, leave_out=[s])
        if args.tree_folds is not None:
            args.tree_folds.write_text(json.dumps({"models": models}))
    tree_sc = {s: ct.scores(b, models[s]) for s in models}
    nested = cf.nested_thresholds(tb, {s: sc[train] for s, sc in tree_sc.items()})
    say(f"trees' nested thresholds {nested}")
    got = net_folds(args, sources, args.epochs or cn.EPOCHS)
    trees = np.full(len(b.y), np.nan)
    net = np.full(len(b.y), np.nan)
    thr = np.full(len(b.y), np.nan)
    for s in sources:
        m = b.source == s
        trees[m] = tree_sc[s][m]
        net[m] = np.asarray(got[s]["scores"])[m]
        thr[m] = nested[s]
    for s in sources:
        print(f"{s}: net {tuple(got[s]['hidden'])} alpha {got[s]['alpha']} (inner AUC "
              + ", ".join(f"{c:.4f}" for c in got[s]["crit"]) + f"); trees' threshold {nested[s]:g}")
    keep = np.isin(b.source, sources)
    bk = ct.Bursts(b.X[keep], b.y[keep], b.source[keep], b.background[keep], b.variant[keep],
                   b.clip[keep], b.onsets, b.labels, b.P[keep] if b.P is not None else None)
    print(table(bk, trees[keep], thr[keep], net[keep]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
