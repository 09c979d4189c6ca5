"""Fitting the clap score's boosted trees and writing them out as a module.

The training set (``clap_training.Bursts``: every judged burst, labelled, with its source) and
the choice of which bursts a fold trains on (``clap_training.train``) stay in ``clap_training.py``;
this module holds what turns feature rows into trees:

- ``balanced_weights``: each (source, class) group weighs ``n ** 0.5`` in all, both classes the same;
- ``fit_trees``: the hand-written gradient booster (logistic loss, Newton leaves, every split
  complete; ``DEPTH`` x ``TREES`` at shrinkage ``RATE``, ``L2`` on the leaves), deterministic;
  scikit-learn's ``clap_hgb.fit_hgb`` (the shipped family) takes the same constants and is
  monotone in ``DECREASING``;
- the **air gate**: ``air_floor`` (the ``GATE_QUANTILE`` quantile of the claps' ``GATE_FEATURE``
  less ``GATE_IQR`` x their IQR) and ``with_air_gate`` (one more tree scoring ``GATE_LEAF`` under it);
- ``format_module``: the source of ``sensekit/audio/clap_model.py``, one line a tree.

Every name is importable from ``clap_training`` too. Cost: a booster fit takes ~5-20 s.
"""
from __future__ import annotations

import numpy as np

from sensekit.audio.clap_features import FEATURES, Model

__all__ = ["DECREASING", "DEPTH", "GATE_FEATURE", "GATE_IQR", "GATE_LEAF", "GATE_QUANTILE", "L2", "RATE", "TREES",
           "air_floor", "balanced_weights", "fit_trees", "format_module", "with_air_gate"]

DEPTH = 6                # boosted trees: depth, count, shrinkage, L2 on leaf values
TREES = 300
RATE = 0.1
L2 = 1.0
#: the score may only fall as these grow (hgb): a clap is over within ~10 ms
DECREASING = ("fall10_ms", "fall20_ms", "decay_db", "tail_db")
GATE_FEATURE = "air_db"  # the air gate: the feature, its quantile and margin (x IQR)
GATE_QUANTILE = 0.001
GATE_IQR = 0.25
GATE_LEAF = -100.0


def balanced_weights(y: np.ndarray, source: np.ndarray, power: float = 0.5) -> np.ndarray:
    """Each (source, class) group weighs ``n ** power`` in total (0.5: a source with 100x
    the bursts counts 10x, so one big collection cannot drown a small one, nor a single
    burst outweigh a hundred); both classes weigh the same."""
    w = np.zeros(len(y))
    for cls in (0, 1):
        for s in sorted(set(source[y == cls])):
            m = (y == cls) & (source == s)
            w[m] = m.sum() ** power / m.sum()
        c = y == cls
        if c.any():
            w[c] /= w[c].sum()
    return np.asarray(w * (len(y) / w.sum()), np.float64)


def _bins(X: np.ndarray, n_bins: int) -> list[np.ndarray]:
    """Split points per feature: quantiles of the finite values (NaN sorts below all)."""
    edges = []
    for j in range(X.shape[1]):
        v = X[:, j][np.isfinite(X[:, j])]
        q = np.unique(np.quantile(v, np.linspace(0, 1, n_bins + 1)[1:-1])) if len(v) else np.zeros(0)
        edges.append(q)
    return edges


def fit_trees(X: np.ndarray, y: np.ndarray, w: np.ndarray, *, depth: int = DEPTH,
              trees: int = TREES, rate: float = RATE, l2: float = L2, min_weight: float = 5.0,
              n_bins: int = 32) -> Model:
    """Gradient-boosted trees for the logistic loss (Newton leaves), all splits complete.

    Deterministic: features are cut at quantiles, every split is the best one found by
    scanning all of them. A tree is stored level by level (``2**depth - 1`` split
    nodes: feature, threshold; ``2**depth`` leaves); ``x > threshold`` goes right, and a
    NaN goes left (it was binned below every value). A node that cannot split sends
    everything left (threshold +inf).
    """
    edges = _bins(X, n_bins)
    B = np.zeros(X.shape, np.int16)
    for j, e in enumerate(edges):
        col = np.where(np.isfinite(X[:, j]), X[:, j], -np.inf)
        B[:, j] = np.searchsorted(e, col, side="left")        # bin b: e[b-1] < x <= e[b]
    nb = max(len(e) for e in edges) + 1
    nf = X.shape[1]
    BF = B.astype(np.int64) + np.arange(nf) * nb            # (row, feature) -> histogram cell
    n_int = 2 ** depth - 1
    F = np.zeros((trees, n_int), np.int16)
    T = np.full((trees, n_int), np.inf)
    L = np.zeros((trees, 2 ** depth))
    base = float(np.log(np.sum(w * y) / np.sum(w * (1 - y))))
    z = np.full(len(y), base)
    for t in range(trees):
        p = 1.0 / (1.0 + np.exp(-z))
        g = w * (p - y)
        h = w * p * (1 - p)
        gr, hr = np.repeat(g, nf), np.repeat(h, nf)
        node = np.zeros(len(y), np.int64)
        for level in range(depth):
            first, count = 2 ** level - 1, 2 ** level
            # every node's and feature's histogram in one bincount: cell (node, feature, bin)
            cells = ((node - first)[:, None] * (nf * nb) + BF).ravel()
            hist_g = np.bincount(cells, weights=gr, minlength=count * nf * nb).reshape(count, nf, nb)
            hist_h = np.bincount(cells, weights=hr, minlength=count * nf * nb).reshape(count, nf, nb)
            G, H = hist_g[:, 0, :].sum(axis=1), hist_h[:, 0, :].sum(axis=1)
            left_g, left_h = np.cumsum(hist_g, axis=2)[:, :, :-1], np.cumsum(hist_h, axis=2)[:, :, :-1]
            tot_g, tot_h = G[:, None, None], H[:, None, None]
            valid = (left_h >= min_weight) & (tot_h - left_h >= min_weight)
            with np.errstate(divide="ignore", invalid="ignore"):
                gains = np.where(valid, left_g ** 2 / (left_h + l2)
                                 + (tot_g - left_g) ** 2 / (tot_h - left_h + l2), -1.0)
            parent = G ** 2 / (H + l2)
            arg = gains.argmax(axis=2)                           # best bin per node and feature
            split_f = np.full(count, -1, np.int64)
            split_b = np.zeros(count, np.int64)
            for c in range(count):
                best = 0.0
                for j in range(nf):
                    i = int(arg[c, j])
                    gain = float(gains[c, j, i] - parent[c])
                    if gain > best + 1e-12 and i < len(edges[j]):
                        best, split_f[c], split_b[c] = gain, j, i
                if split_f[c] >= 0:
                    F[t, first + c] = split_f[c]
                    T[t, first + c] = edges[split_f[c]][split_b[c]]
            local = node - first
            fj = split_f[local]
            right = (fj >= 0) & (B[np.arange(len(y)), np.maximum(fj, 0)] > split_b[local])
            node = 2 * node + 1 + right
        leaf = node - n_int
        gs = np.bincount(leaf, weights=g, minlength=2 ** depth)
        hs = np.bincount(leaf, weights=h, minlength=2 ** depth)
        L[t] = np.where(np.bincount(leaf, minlength=2 ** depth) > 0, -rate * gs / (hs + l2), 0.0)
        z += L[t, leaf]
    return {"depth": depth, "base": round(base, 6),
            "feature": F.tolist(), "threshold": [[round(float(v), 4) for v in r] for r in T],
            "leaf": [[round(float(v), 5) for v in r] for r in L]}


def air_floor(claps: np.ndarray) -> float:
    """The air gate's bound from the clap bursts' feature rows: below every clap's air."""
    v = claps[:, FEATURES.index(GATE_FEATURE)]
    v = v[np.isfinite(v)]
    q1, q3 = np.quantile(v, [0.25, 0.75])
    return round(float(np.quantile(v, GATE_QUANTILE) - GATE_IQR * (q3 - q1)), 2)


def with_air_gate(model: Model, floor_db: float) -> Model:
    """``model`` plus one tree: ``GATE_LEAF`` for a burst with ``air_db <= floor_db``
    (finite), 0 otherwise. Its root sends ``air_db > floor_db`` right (0); the left child
    splits the rest at ``-1e30``: a NaN (not measured) goes left (0), a finite value right;
    every node below sends everything left."""
    d = int(model["depth"])
    n_int = 2 ** d - 1
    j = FEATURES.index(GATE_FEATURE)
    feature, threshold, leaf = [0] * n_int, [float("inf")] * n_int, [0.0] * 2 ** d
    feature[0], threshold[0] = j, floor_db
    feature[1], threshold[1] = j, -1e30
    node = 4                                      # root left, then right: finite and low
    while node < n_int:
        node = 2 * node + 1
    leaf[node - n_int] = GATE_LEAF
    return {**model, "feature": [*model["feature"], feature],
            "threshold": [*model["threshold"], threshold], "leaf": [*model["leaf"], leaf]}


def format_module(model: Model, threshold: float, note: str) -> str:
    """The source of ``sensekit/audio/clap_model.py``: one line per tree."""
    def nums(row: list[float], fmt: str) -> str:
        return "(" + ", ".join("INF" if v == float("inf") else fmt % v for v in row) + ")"

    lines = ['"""The shipped clap model: boosted trees on ``clap_features.FEATURES``.', "",
             "Written by ``benchmarks/train_clap.py`` (do not edit by hand):", note,
             "The last tree is the air gate (``clap_training.with_air_gate``).",
             "Each line is one tree, level by level: the feature index and the threshold of",
             "its split nodes (``x > threshold`` goes right, NaN left) and its leaf values.",
             '"""', "from typing import Any", "", "from sensekit.audio.clap_trees import model_dict", "",
             'INF = float("inf")', "", f"THRESHOLD = {threshold!r}",
             f"DEPTH = {model['depth']}", f"BASE = {model['base']!r}", "", "TREES = ("]
    def trees(m: Model) -> list[str]:
        return [f"    ({nums(f, '%d')}, {nums(t, '%.10g')}, {nums(v, '%.10g')}),"
                for f, t, v in zip(m["feature"], m["threshold"], m["leaf"])]

    lines += [*trees(model), ")", ""]
    below = model.get("below")
    if below is None:
        lines += ["MODEL: dict[str, Any] = model_dict(DEPTH, BASE, TREES)", ""]
        return "\n".join(lines)
    # a routed model (clap_folds.routed): the noise expert's trees, and where it takes over
    lines += [f"ROUTE = {model['route']!r}  # FEATURES index: under SPLIT, BELOW_TREES score",
              f"SPLIT = {model['split']!r}", f"BELOW_BASE = {below['base']!r}", "", "BELOW_TREES = (",
              *trees(below), ")", "", "MODEL: dict[str, Any] = {", "    **model_dict(DEPTH, BASE, TREES),",
              '    "route": ROUTE,', '    "split": SPLIT,',
              *(['    "either": True,  # under SPLIT: the higher of both experts\' scores']
                if model.get("either") else []), '    "below": model_dict(DEPTH, BELOW_BASE, BELOW_TREES),',
              "}", ""]
    return "\n".join(lines)
