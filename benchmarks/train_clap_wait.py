#!/usr/bin/env python3
"""Write ``sensekit/audio/clap_wait_model.py``: the close-call wait's constants, fitted on every source.

The twenty-second and twenty-third passes (docs/claps_history.md) chose the wait nested; this is
their ``--shipped`` recipe, every source in:

- the ring's trees: 16 features + ``late_above_db`` + ``voiced_after`` (50-130 ms), fitted on every
  burst but the ``sp0`` copies (``benchmarks/clap_ring_stream.py --shipped``'s RING_130_late_above_db_all.json);
- the margin: ``clap_ring_wait.choose_wait`` on every source's fold scores at the shipped threshold,
  the share of delayed claps on the recordings capped by ``latency_cap`` of every source's streamed
  delays (+1 ms);
- the log-mel linear score: ``clap_mel_score.fit_linear`` on every source's close calls (``|t - T| < 1.5``,
  no ``sp0``); the rule and theta: ``benchmarks/clap_mel_wait.choose`` on every source (each scored by
  its own held-out fit), at the shipped threshold and that margin.

Usage: .venv/bin/python benchmarks/train_clap_wait.py --cache /tmp/claps20/PATCH.npz
       --tree-folds /tmp/claps20/TREES.json --out DIR [--module sensekit/audio/clap_wait_model.py]
  DIR: clap_mel_wait.py's folder (SCORES_130_late_above_db.npz, RING_130_late_above_db_all.json,
  DELAYS_today_0_517.json, MARGIN.npy, MELS.npz, MEL_SCORES.npy).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from _reference import SHARED_DATA, data_refused
from clap_mel_wait import RING, TRAIN_MARGIN, choose, mel_scores

from sensekit.evaluation.audio import clap_ring_wait as rw
from sensekit.evaluation.audio import clap_training as ct
from sensekit.evaluation.audio.clap_mel_score import LinearScore, fit_linear

MODULE = Path(__file__).resolve().parents[1] / "sensekit" / "audio" / "clap_wait_model.py"


def format_wait_module(ring: dict[str, object], margin: float, theta: float, score: LinearScore,
                       note: str) -> str:
    """The source of ``clap_wait_model.py``: the ring's trees one line each, the score's weights."""
    def nums(row: list[float], fmt: str) -> str:
        return "(" + ", ".join("INF" if v == float("inf") else fmt % v for v in row) + ")"

    m = ring
    trees = [f"    ({nums(f, '%d')}, {nums(t, '%.10g')}, {nums(v, '%.10g')}),"
             for f, t, v in zip(m["feature"], m["threshold"], m["leaf"])]  # type: ignore[call-overload]
    w = ["    " + ", ".join(f"{v:.10g}" for v in score.w[i:i + 8]) + "," for i in range(0, len(score.w), 8)]
    return "\n".join([
        '"""The close-call wait\'s constants (``clap_wait.py``): the ring\'s trees and the log-mel score.',
        "", "Written by ``benchmarks/train_clap_wait.py`` (do not edit by hand):", note,
        "RING_TREES: boosted trees on FEATURES + (late_above_db, voiced_after), one line per tree, level by",
        "level (``x > threshold`` goes right, NaN left). MEL_W / MEL_B: the linear score's weights on the",
        "log-mel (16 frames x 96 bands, frame-major) and t - T, its scaler folded in.", '"""',
        "from typing import Any", "", "from sensekit.audio.clap_trees import model_dict", "",
        'INF = float("inf")', "",
        f"MARGIN = {margin!r}", f"THETA = {theta!r}", f"RING_DEPTH = {m['depth']}", f"RING_BASE = {m['base']!r}",
        "", "RING_TREES = (", *trees, ")", "",
        "RING_MODEL: dict[str, Any] = model_dict(RING_DEPTH, RING_BASE, RING_TREES)", "",
        f"MEL_B = {score.b!r}", "", "MEL_W = (", *w, ")", ""])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--tree-folds", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--module", type=Path, default=MODULE)
    ap.add_argument("--latency-slack", type=float, default=1.0)
    args = ap.parse_args()
    if data_refused():
        return 2
    from sensekit.audio.clap_model import THRESHOLD

    b = ct.collect_cached(SHARED_DATA, args.cache, patches=True)
    sources = sorted(json.loads(args.tree_folds.read_text())["models"])
    z = np.load(args.out / f"SCORES_130_{RING}.npz")
    so, sr = {s: z[f"o_{s}"] for s in sources}, {s: z[f"r_{s}"] for s in sources}
    delays = json.loads((args.out / "DELAYS_today_0_517.json").read_text())
    cap = rw.latency_cap(np.concatenate([np.asarray(v, np.float64) for v in delays.values()]), args.latency_slack)
    margin, _, _ = rw.choose_wait(b, so, sr, THRESHOLD, ring_thresholds=np.array([THRESHOLD]), max_recorded=cap)
    ms, _ = mel_scores(args, b, sources)
    rule, theta, crit = choose(b, so, sr, ms, THRESHOLD, margin, sources)
    print(f"cap {cap:.3f} -> margin {margin:g}; rule {rule}, theta {theta:g} (criterion {crit:.4f})")
    if rule != "sum":
        raise SystemExit(f"the shipped wait is the sum rule; every source chose {rule}")
    d = np.load(args.out / "MARGIN.npy")
    mz = np.load(args.out / "MELS.npz")
    idx, M = mz["idx"], mz["short"]
    F = np.column_stack([M.reshape(len(M), -1).astype(np.float64), d[idx]])
    y, var = b.y[idx], b.variant[idx]
    train = (np.abs(d[idx]) < TRAIN_MARGIN) & (y >= 0) & (var != ct.SPEECH0)
    score = fit_linear(F[train], y[train])
    ring = json.loads((args.out / f"RING_130_{RING}_all.json").read_text())
    note = (f"margin {margin:g} (the share of delayed claps on the recordings capped at {cap:.3f}, from every "
            f"source's streamed delays +{args.latency_slack:g} ms);\nthe sum rule at theta {theta:g} (chosen on "
            f"every source, criterion {crit:.4f}); the score fitted on {int(train.sum())} close calls.")
    args.module.write_text(format_wait_module(ring, margin, theta, score, note))
    print(f"wrote {args.module}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
