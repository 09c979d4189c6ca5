#!/usr/bin/env python3
"""The eighteenth pass's look (docs/claps_history.md): a longer ring and context as new inputs,
measured on the trees' close calls, held out per source; then the trees refit with the ring.

For every judged burst of ``clap_training.collect`` (the same bursts in the same order as
``--cache``, checked), eight candidate inputs from the signal around its peak ``p`` (``RING``,
``CONTEXT``). A close call is a burst whose own source's held-out trees score ``t`` lies within
``M`` of that source's nested threshold. Printed: per feature and negative kind, the AUC of the
other sources' close-call claps against that kind (direction set on the other sources); a
logistic regression on the other sources' close calls deciding each held-out source's; and the
trees refit with the six ring features appended (nested thresholds, burst level, not streamed).

Usage: .venv/bin/python benchmarks/clap_ring_look.py --cache BURSTS.npz --tree-folds T.json
       --out DIR [--margins 1,2,4]
  BURSTS.npz, T.json: the seventeenth pass's cache (with patches) and the trees' 14 folds.
  DIR keeps EXTRA.npz (the eight inputs) and TREES_RING.json (the refit folds) between runs.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from collections.abc import Callable
from typing import Any

import numpy as np
from _reference import SHARED_DATA
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sensekit.audio.clap_wait import db_ratio as _db
from sensekit.audio.clap_wait import mean_power as _power
from sensekit.audio.clap_wait import voicing as _voiced
from sensekit.evaluation.audio import clap_folds as cf
from sensekit.evaluation.audio import clap_training as ct

RING = ("late_db", "late_floor_db", "later_floor_db", "voiced_after", "voiced_before", "ring_peak_db")
CONTEXT = ("n_near", "n_similar")
NAMES = RING + CONTEXT
_EXTRA: list[tuple[float, ...]] = []


def _ring(x: np.ndarray, p: int, rate: int) -> float:
    """How tonal 5-35 ms after the peak is: the strongest 0.2-8 kHz bin over the median bin, dB."""
    a, b = p + int(0.005 * rate), p + int(0.035 * rate)
    if b > len(x):
        return float("nan")
    sp = np.abs(np.fft.rfft(x[a:b] * np.hanning(b - a), 4096)) ** 2
    f = np.fft.rfftfreq(4096, 1 / rate)
    band = sp[(f >= 200) & (f <= min(8000, 0.45 * rate))]
    return _db(float(band.max()), float(np.median(band)))


def burst_inputs(y: np.ndarray, rate: int, feats: list[Any]) -> list[tuple[float, ...]]:
    """The eight inputs (``NAMES``) of each of ``feats`` (judged bursts of ``y``)."""
    def ms(v: float) -> int:
        return round(v * rate / 1000.0)

    tp = np.array([f.t_peak for f in feats])
    V = np.array([f.vector() for f in feats]) if feats else np.zeros((0, 16))
    out: list[tuple[float, ...]] = []
    for i, f in enumerate(feats):
        p = round(f.t_peak * rate)
        pk, pre = _power(y, p - ms(0.5), p + ms(0.5)), _power(y, p - ms(35), p - ms(10))
        late, later = _power(y, p + ms(30), p + ms(80)), _power(y, p + ms(80), p + ms(200))
        d = np.abs(tp - f.t_peak)
        near = (d > 0.075) & (d < 1.5)
        sim = near & (np.abs(V[:, 4] - V[i, 4]) < 2.0) & (np.abs(V[:, 14] - V[i, 14]) < 0.5)
        out.append((_db(late, pk), _db(late, pre), _db(later, pre), _voiced(y, p + ms(50), p + ms(200), rate),
                    _voiced(y, p - ms(200), p - ms(50), rate), _ring(y, p, rate), float(near.sum()),
                    float(sim.sum())))
    return out


def collect_checked(cache: Path, seen: Callable[[np.ndarray, int, list[Any]], None]) -> ct.Bursts:
    """``collect``'s bursts (every copy, ``sp0`` too) with ``seen(audio, rate, bursts)`` called on each
    judged stretch of audio in burst order; stops when they are not ``cache``'s rows."""
    def judged(x: np.ndarray, rate: int) -> list[Any]:
        feats = ct.judged_bursts(x, rate)
        seen(x, rate, feats)
        return feats

    b = ct.collect(SHARED_DATA, augment=(*ct.AUGMENTATIONS, ct.SPEECH0), judge=judged)
    X = np.load(cache)["X"]
    if X.shape != b.X.shape or not np.allclose(np.nan_to_num(X), np.nan_to_num(b.X)):
        raise SystemExit(f"{cache}: its bursts are not collect()'s of today; rebuild it")
    return b


def extra_inputs(cache: Path, out: Path) -> np.ndarray:
    """The eight inputs of every burst of ``collect`` (kept in ``out``), checked against ``cache``'s rows."""
    if out.is_file():
        return np.asarray(np.load(out)["E"])
    collect_checked(cache, lambda x, rate, feats: _EXTRA.extend(burst_inputs(np.asarray(x, np.float64), rate, feats)))
    E = np.array(_EXTRA)
    np.savez(out, E=E, names=np.array(NAMES))
    return E


def subset(b: ct.Bursts, X: np.ndarray, m: np.ndarray) -> ct.Bursts:
    return ct.Bursts(X[m], b.y[m], b.source[m], b.background[m], b.variant[m], b.clip[m], b.onsets, b.labels)


def kinds_of(b: ct.Bursts, close: np.ndarray) -> np.ndarray:
    kind = np.full(len(b.y), "", dtype=object)
    for i in np.flatnonzero(close):
        lab = b.labels[b.clip[i]]
        if b.y[i] == 1:
            kind[i] = "clap"
        elif lab == "clap":
            mix = " (speech/mix)" if b.variant[i] in ("sp0", "mix0", "mix6") else ""
            kind[i] = f"{b.source[i]}: non-clap in clap clip{mix}"
        else:
            kind[i] = f"{b.source[i]}: {lab}"
    return kind


def _auc(pos: np.ndarray, neg: np.ndarray) -> float:
    return float(roc_auc_score(np.r_[np.ones(len(pos)), np.zeros(len(neg))], np.r_[pos, neg]))


def feature_table(b: ct.Bursts, F: np.ndarray, close: np.ndarray, names: list[str]) -> None:
    kind = kinds_of(b, close)
    claps = close & (b.y == 1)
    print("\n| negative kind (close calls) | n | " + " | ".join(names) + " |")
    print("|---|---|" + "---|" * len(names))
    for k in sorted(set(kind[close]) - {"clap"}, key=lambda k: -(kind == k).sum()):
        neg, src = kind == k, k.split(":")[0]
        if neg.sum() < 10:
            continue
        cells = []
        for j in range(F.shape[1]):
            ok = np.isfinite(F[:, j])
            cp, ng = claps & ok & (b.source != src), neg & ok
            other = close & ok & (b.source != src) & (b.y == 0)
            if cp.sum() < 5 or ng.sum() < 5:
                cells.append("-")
                continue
            sign = 1 if _auc(F[cp, j], F[other, j]) >= 0.5 else -1
            cells.append(f"{_auc(sign * F[cp, j], sign * F[ng, j]):.2f}")
        print(f"| {k} | {neg.sum()} | " + " | ".join(cells) + " |")


def lr_table(b: ct.Bursts, F: np.ndarray, close: np.ndarray, margin: np.ndarray, sources: list[str]) -> None:
    last = F.shape[1] - 1
    sets = {"trees": [last], "trees+ring": [*range(len(RING)), last], "trees+all": list(range(F.shape[1]))}
    tot = {k: [0, 0] for k in ["trees t>=T", *sets]}
    print("\n| held out | close calls (claps) | trees t>=T: claps / false | "
          + " | ".join(f"LR {k}: AUC, claps / false" for k in sets) + " |")
    print("|---|---|---|" + "---|" * len(sets))
    for s in sources:
        te, tr = close & (b.source == s), close & (b.source != s)
        if te.sum() == 0:
            continue
        yy = b.y[te]
        decisions = {"trees t>=T": (margin[te] >= 0, "")}
        for k, cols in sets.items():
            lr = make_pipeline(SimpleImputer(strategy="median"), StandardScaler(),
                               LogisticRegression(C=1.0, max_iter=2000, class_weight="balanced"))
            p = lr.fit(F[tr][:, cols], b.y[tr]).decision_function(F[te][:, cols])
            decisions[k] = (p >= 0, f"{roc_auc_score(yy, p):.3f}, " if 0 < yy.sum() < len(yy) else "-, ")
        cells = []
        for k, (d, auc) in decisions.items():
            got = [int((d & (yy == 1)).sum()), int((d & (yy == 0)).sum())]
            tot[k] = [tot[k][0] + got[0], tot[k][1] + got[1]]
            cells.append(f"{auc}{got[0]} / {got[1]}")
        print(f"| {s} | {te.sum()} ({yy.sum()}) | " + " | ".join(cells) + " |")
    print("| total | | " + " | ".join(f"{a} / {f}" for a, f in tot.values()) + " |")


def refit_table(b: ct.Bursts, E: np.ndarray, trees: dict[str, Any], sources: list[str], out: Path) -> None:
    train = b.variant != ct.SPEECH0
    Xn = np.column_stack([b.X, E[:, :len(RING)]])
    got = json.loads(out.read_text()) if out.is_file() else {}
    for s in sources:
        if s not in got:
            got[s] = ct.train(subset(b, Xn, train), leave_out=[s])
            out.write_text(json.dumps(got))
    every = np.ones(len(b.y), bool)
    so = {s: ct.scores(subset(b, b.X, every), trees[s]) for s in sources}
    sn = {s: ct.scores(subset(b, Xn, every), got[s]) for s in sources}
    To = cf.nested_thresholds(subset(b, b.X, train), {s: v[train] for s, v in so.items()})
    Tn = cf.nested_thresholds(subset(b, Xn, train), {s: v[train] for s, v in sn.items()})
    print("\n| held out | T old / new | claps found old / new (of) | false bursts old / new "
          "| orig: claps / false old -> new | sp0 claps old / new (of) | +1 step new: claps / false |")
    print("|---|---|---|---|---|---|---|")
    y = b.y
    for s in sources:
        m = (b.source == s) & (y >= 0) & train
        o, n, n1 = so[s] >= To[s], sn[s] >= Tn[s], sn[s] >= Tn[s] + 0.25
        org, sp = m & (b.variant == "orig"), (b.source == s) & (b.variant == ct.SPEECH0) & (y == 1)

        def c(d: np.ndarray, w: np.ndarray) -> int:
            return int((d & w).sum())
        print(f"| {s} | {To[s]:.2f} / {Tn[s]:.2f} | {c(o, m & (y == 1))} / {c(n, m & (y == 1))} ({c(m, y == 1)}) "
              f"| {c(o, m & (y == 0))} / {c(n, m & (y == 0))} | {c(o, org & (y == 1))} / {c(o, org & (y == 0))} -> "
              f"{c(n, org & (y == 1))} / {c(n, org & (y == 0))} | {c(o, sp)} / {c(n, sp)} ({int(sp.sum())}) "
              f"| {c(n1, m & (y == 1))} / {c(n1, m & (y == 0))} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--tree-folds", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--margins", default="1,2,4")
    a = ap.parse_args()
    if not SHARED_DATA.is_dir():
        raise SystemExit(f"{SHARED_DATA} is absent: this look needs the real clips")
    a.out.mkdir(parents=True, exist_ok=True)
    E = extra_inputs(a.cache, a.out / "EXTRA.npz")
    b = ct.collect_cached(SHARED_DATA, a.cache, patches=True)
    trees = json.loads(a.tree_folds.read_text())["models"]
    sources = sorted(trees)
    train = b.variant != ct.SPEECH0
    tree_sc = {s: ct.scores(b, trees[s]) for s in sources}
    nested = cf.nested_thresholds(subset(b, b.X, train), {s: v[train] for s, v in tree_sc.items()})
    t, T = np.full(len(b.y), np.nan), np.full(len(b.y), np.nan)
    for s in sources:       # each burst by its own source's held-out fold (synth: never held out)
        m = b.source == s
        t[m], T[m] = tree_sc[s][m], nested[s]
    F = np.column_stack([E, t - T])
    for M in (float(v) for v in a.margins.split(",")):
        close = (np.abs(t - T) < M) & (b.y >= 0)
        n_claps = (close & (b.y == 1)).sum()
        print(f"\n# margin {M}: close calls {close.sum()} of {np.isfinite(t).sum()}; claps {n_claps}")
        feature_table(b, F, close, [*NAMES, "trees-T"])
        lr_table(b, F, close, t - T, sources)
    refit_table(b, E, trees, sources, a.out / "TREES_RING.json")


if __name__ == "__main__":
    main()
