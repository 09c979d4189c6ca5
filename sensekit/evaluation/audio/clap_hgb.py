"""Fit the clap trees with scikit-learn and export them as plain arrays (training only).

``fit_hgb(X, y, w)`` fits ``HistGradientBoostingClassifier`` (log loss, ``trees`` rounds of
depth ``depth``, L2 ``l2`` on the leaves) and returns the same ``Model`` dict that
``clap_training.fit_trees`` (the hand-written booster) returns: complete trees of depth
``depth``, level by level, ``x > threshold`` goes right, NaN goes left. So the shipped
model is numbers in ``clap_model.py``: scoring needs neither scikit-learn nor a pickle,
and the file loads whatever library version wrote it.

How the export keeps the scores: scikit-learn's trees grow unevenly; a leaf above the
last level becomes a node whose threshold is +inf (everything, NaN included, goes left)
with the leaf's value in every leaf below it. NaN (``air_db`` at 8 kHz) is replaced by
-1e9 for the fit, so every learnt split sends it left, as the scorer does.
``tests/audio/test_clap_hgb.py`` checks that the exported model scores exactly what
``decision_function`` does.

Cost: ~2-5 s per fit on the ~38,000 bursts with one thread (``threadpool_limits(1)``:
two threads on a shared 2-core machine were 50x slower). Needs scikit-learn (the
``train`` extra); the detector never imports this module.
"""
from __future__ import annotations

from typing import Any

import numpy as np

Model = dict[str, Any]
NAN_AS = -1e9          # NaN for the fit: below every threshold, i.e. left, as in the scorer


def fit_hgb(X: np.ndarray, y: np.ndarray, w: np.ndarray, *, depth: int = 6, trees: int = 300,
            rate: float = 0.1, l2: float = 1.0, min_leaf: int = 20,
            decreasing: tuple[int, ...] = ()) -> Model:
    """Boosted trees by scikit-learn, as a ``Model`` (see the module docstring).

    ``decreasing``: columns in which the score may only fall (``monotonic_cst`` -1): what
    physics says, where the bursts are too few to say it (a longer decay is never more of
    a clap; unconstrained, a 150 ms hiss scored as one)."""
    from threadpoolctl import threadpool_limits

    clf = classifier(depth=depth, trees=trees, rate=rate, l2=l2, min_leaf=min_leaf)
    if decreasing:
        clf.set_params(monotonic_cst=[-1 if j in decreasing else 0 for j in range(X.shape[1])])
    with threadpool_limits(1):
        clf.fit(finite(X), y, sample_weight=w)
    return export(clf, depth)


def classifier(*, depth: int = 6, trees: int = 300, rate: float = 0.1, l2: float = 1.0,
               min_leaf: int = 20) -> Any:
    """The unfitted ``HistGradientBoostingClassifier`` of ``fit_hgb``."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(
        max_iter=trees, learning_rate=rate, max_depth=depth, max_leaf_nodes=None,
        l2_regularization=l2, min_samples_leaf=min_leaf, early_stopping=False, random_state=0)


def finite(X: np.ndarray) -> np.ndarray:
    """``X`` with NaN as ``NAN_AS`` (what the fit sees)."""
    return np.where(np.isfinite(X), X, NAN_AS)


def export(clf: Any, depth: int) -> Model:
    """A fitted binary ``HistGradientBoostingClassifier`` as complete trees of ``depth``."""
    features, thresholds, leaves = [], [], []
    for (pred,) in clf._predictors:                  # one predictor per round (binary)
        F, T, L = _complete(pred.nodes, depth)
        features.append(F)
        thresholds.append(T)
        leaves.append(L)
    base = float(np.ravel(clf._baseline_prediction)[0])
    return {"depth": depth, "base": base, "feature": features, "threshold": thresholds,
            "leaf": leaves}


def _complete(nodes: Any, depth: int) -> tuple[list[int], list[float], list[float]]:
    """One scikit-learn tree (its ``nodes`` array) as a complete tree of ``depth``."""
    n_int = 2 ** depth - 1
    F = [0] * n_int
    T = [float("inf")] * n_int
    L = [0.0] * (2 ** depth)
    stack = [(0, 0, 0)]                               # (sklearn node, our position, level)
    while stack:
        i, pos, level = stack.pop()
        nd = nodes[i]
        if level == depth:
            if not nd["is_leaf"]:
                raise ValueError(f"a tree is deeper than depth={depth}")
            L[pos - n_int] = float(nd["value"])
        elif nd["is_leaf"]:                           # +inf: everything goes left; the right
            stack += [(i, 2 * pos + 1, level + 1), (i, 2 * pos + 2, level + 1)]   # is unused
        else:
            F[pos] = int(nd["feature_idx"])
            T[pos] = float(nd["num_threshold"])
            stack += [(int(nd["left"]), 2 * pos + 1, level + 1),
                      (int(nd["right"]), 2 * pos + 2, level + 1)]
    return F, T, L
