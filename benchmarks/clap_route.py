#!/usr/bin/env python3
"""Two clap experts routed by the burst's own rise over its noise floor (docs/claps.md, fourth pass).

The shipped trees are good on bursts that rise far over a quiet room; trees trained with the
low-SNR copies (``train_clap.py --also lo_white,lo_pink,lo_babble,lo_speech``) are better in
noise. A routed model (``clap_folds.routed``) scores a burst whose ``rise_db`` is under a split
with the noise expert, every other one with the clean expert. The split and the noise
expert's threshold are chosen leave-one-source-out (``clap_folds.choose_route``: the best mean
of the pooled held-out per-clap F1 on the clips and on their noisy copies), for each held-out
source on the other sources' folds only (nested); the clean expert keeps its own nested
threshold. With ``--either`` a burst under the split is a clap when either expert says so
(sixth pass: never fewer claps than the clean expert finds, at the same thresholds).
Writes the routed folds for ``benchmarks/audio_eval.py --loso nested --folds``
(each routed fold's threshold is 0) and, with ``--out``, the routed model module.

Usage: .venv/bin/python benchmarks/clap_route.py --cache BURSTS.npz --clean-folds CLEAN.json
       --below-folds BELOW.json --save-folds ROUTED.json [--below-model BELOW.py] [--out MODEL.py]
  BURSTS.npz: the bursts with the low-SNR copies (train_clap.py --cache, --also ...);
  CLEAN.json / BELOW.json: train_clap.py --save-folds of the shipped and the low-SNR trees.
``--auc`` prints each expert's held-out area under the ROC curve by copy and band of rise.
Cost: ~1 min (28 folds scored; nothing fitted).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from _clap_clips import add_expert_folds_options


def load_model(path: Path) -> tuple[dict[str, Any], float]:
    spec = importlib.util.spec_from_file_location("clap_model_file", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.MODEL, float(mod.THRESHOLD)


def print_auc(b: Any, clean: dict[str, Any], below: dict[str, Any], sources: list[str]) -> None:
    """Area under the ROC curve (claps against the rest) of each expert's held-out scores (each
    source's bursts by the fold that did not hear it), by copy and by band of ``rise_db``."""
    from scipy.stats import rankdata

    from sensekit.evaluation.audio import clap_training as ct

    def held(folds: dict[str, Any]) -> np.ndarray:
        out = np.full(len(b.y), np.nan)
        for s in sources:
            out[b.source == s] = folds[s][b.source == s]
        return out

    def auc(sc: np.ndarray, y: np.ndarray) -> float:
        r = rankdata(sc)
        n1, n0 = int((y == 1).sum()), int((y == 0).sum())
        return float((r[y == 1].sum() - n1 * (n1 + 1) / 2) / max(1, n1 * n0))
    hc, hb = held(clean), held(below)
    rise = b.X[:, 0]
    groups = (("clips", ("orig",)), ("noisy copies", ct.NOISY), ("mixed", ("mix0", "mix6")),
              ("under a speaker", ("lo_speech",)))
    for name, vs in groups:
        for lo, hi in ((0.0, 26.0), (26.0, 99.0)):
            k = (np.isin(b.variant, vs) & (b.y >= 0) & (rise >= lo) & (rise < hi)
                 & np.isin(b.source, sources))
            y = b.y[k]
            if (y == 1).any() and (y == 0).any():
                print(f"AUC {name:16s} rise {lo:g}-{hi:g} dB ({int((y == 1).sum())} claps, "
                      f"{int((y == 0).sum())} others): clean {auc(hc[k], y):.3f}, below {auc(hb[k], y):.3f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, required=True)
    add_expert_folds_options(ap)
    ap.add_argument("--save-folds", type=Path, required=True)
    ap.add_argument("--below-model", type=Path, default=None,
                    help="the noise expert trained on every source (train_clap.py --out)")
    ap.add_argument("--out", type=Path, default=None, help="write the routed model module here")
    ap.add_argument("--either", action="store_true",
                    help="under the split, a clap when either expert says so (sixth pass)")
    ap.add_argument("--auc", action="store_true",
                    help="print each expert's held-out area under the ROC curve by copy and rise")
    args = ap.parse_args(argv)
    from sensekit.evaluation.audio import clap_folds as cf
    from sensekit.evaluation.audio import clap_training as ct
    from sensekit.audio.clap_model import MODEL, THRESHOLD

    def say(message: str) -> None:
        print(f"# {message}", file=sys.stderr, flush=True)
    b = ct.collect_cached(None, args.cache)  # type: ignore[arg-type]  # (the cache must be there: no data)
    clean_f, below_f = (json.loads(p.read_text()) for p in (args.clean_folds, args.below_folds))
    sources = sorted(clean_f["models"])
    clean = {s: ct.scores(b, clean_f["models"][s]) for s in sources}
    below = {s: ct.scores(b, below_f["models"][s]) for s in sources}
    say(f"{len(b.y)} bursts scored by {2 * len(sources)} folds")
    if args.auc:
        print_auc(b, clean, below, sources)
    t_clean = cf.nested_thresholds(b, clean)
    t_all = cf.choose_threshold(b, clean)
    csc = np.zeros(len(b.y))
    bsc = np.zeros(len(b.y))
    for s in sources:
        m = b.source == s
        csc[m], bsc[m] = clean[s][m], below[s][m]
    counts = {t: [cf.route_counts(b, csc, bsc, sources, v, t_clean=t, either=args.either)
                  for v in (("orig",), ct.NOISY)]
              for t in sorted({t_all, *t_clean.values()})}
    idx = list(range(len(sources)))
    split, t_below, fig = cf.choose_route(counts[t_all], idx)
    say(f"all folds: split rise_db {split:g}, noise expert threshold {t_below:g}, clean {t_all:g}; "
        f"figure {fig:.4f}")
    models, nested = {}, {}
    for i, s in enumerate(sources):
        sp, tb, fig = cf.choose_route(counts[t_clean[s]], [j for j in idx if j != i])
        models[s] = cf.routed(clean_f["models"][s], below_f["models"][s], split=sp,
                              t_clean=t_clean[s], t_below=tb, either=args.either)
        nested[s] = 0.0
        say(f"held out {s:16s} split {sp:g}, noise expert threshold {tb:g}, clean {t_clean[s]:g} "
            f"(chosen on the other sources' folds; their figure {fig:.4f})")
    args.save_folds.write_text(json.dumps({"threshold": 0.0, "nested": nested, "models": models,
                                           "route": {"split": split, "t_below": t_below,
                                                     "t_clean": t_all, "either": args.either}}))
    if args.below_model is not None and args.out is not None:
        below_full, _ = load_model(args.below_model)
        full = cf.routed(MODEL, below_full, split=split, t_clean=THRESHOLD, t_below=t_below,
                         either=args.either)
        args.out.write_text(ct.format_module(full, 0.0, "Routed by rise_db (benchmarks/clap_route.py)."))
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
