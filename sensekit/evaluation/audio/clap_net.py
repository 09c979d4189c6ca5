"""Training the fifteenth pass's candidate: a small net on each burst's noise-normalised patch.

The net (scikit-learn's ``MLPClassifier``, exported to ``sensekit.evaluation.audio.clap_mlp.MlpModel``
arrays) reads a burst's ``clap_patch.BurstPatch`` (16 bands x 12 frames in dB over each band's
floor) and, optionally, its 16 burst features. It is trained on exactly the bursts and weights
of the trees (``clap_training.train``: every augmented copy, the synthetic hard negatives, a
recording's own bursts weighing ``ORIG_WEIGHT``, sources balanced), leaving out a source's clips
and the copies with its sound mixed in. Its size and L2 penalty are chosen per held-out source
on **inner** folds of the other sources only (``choose_config``): the held-out source's labels
never choose anything.

Deterministic (``random_state=0``, one thread). Cost: ~10-30 s a fit on ~40,000 bursts.
Needs scikit-learn (the ``train`` extra); the detector never imports this module.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from sensekit.evaluation.audio.clap_mlp import MlpModel, net_input
from sensekit.evaluation.audio.clap_training import (
    ORIG_WEIGHT,
    SPEECH0,
    SYNTH,
    Bursts,
    balanced_weights,
)

#: the configurations the inner folds choose from: (hidden layers, L2 alpha)
CONFIGS: tuple[tuple[tuple[int, ...], float], ...] = (((32,), 1e-3), ((64, 16), 1e-2))
EPOCHS = 30
BATCH = 256
LEARNING_RATE = 1e-3
INNER_GROUPS = 3


def train_mask(bursts: Bursts, leave_out: Iterable[str] = ()) -> np.ndarray:
    """The bursts the trees train on without ``leave_out`` (never the evaluation-only ``SPEECH0``)."""
    m = (bursts.y >= 0) & (bursts.variant != SPEECH0)
    for s in leave_out:
        m &= (bursts.source != s) & (bursts.background != s)
    return np.asarray(m)


def weights(bursts: Bursts, m: np.ndarray) -> np.ndarray:
    """The trees' sample weights (``clap_training.train``) of the bursts ``m``."""
    return np.asarray(balanced_weights(bursts.y[m], bursts.source[m])
                      * np.where(bursts.variant[m] == "orig", ORIG_WEIGHT, 1.0))


def fit_net(bursts: Bursts, *, leave_out: Iterable[str] = (), hidden: tuple[int, ...] = (32,),
            alpha: float = 1e-3, use_patch: bool = True, use_features: bool = True,
            epochs: int = EPOCHS) -> dict[str, Any]:
    """A net trained on the trees' bursts without ``leave_out``, as an ``MlpModel`` dict."""
    from sklearn.neural_network import MLPClassifier
    from threadpoolctl import threadpool_limits

    if bursts.P is None:
        raise ValueError("the bursts hold no patches: collect them with patches=True")
    m = train_mask(bursts, leave_out)
    F = bursts.X[m]
    mean = np.nanmean(F, axis=0)
    std = np.nanstd(F, axis=0) + 1e-6
    Z = net_input(bursts.P[m], F, mean, std, use_patch=use_patch, use_features=use_features)
    w = weights(bursts, m)
    clf = MLPClassifier(hidden_layer_sizes=hidden, alpha=alpha, batch_size=BATCH,
                        learning_rate_init=LEARNING_RATE, max_iter=epochs, shuffle=True,
                        random_state=0, early_stopping=False, n_iter_no_change=epochs + 1,
                        tol=0.0)
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(Z, bursts.y[m], sample_weight=w * (len(w) / w.sum()))
    return {**export(clf, mean, std, use_patch=use_patch, use_features=use_features), "alpha": alpha}


def export(clf: Any, mean: np.ndarray, std: np.ndarray, *, use_patch: bool = True,
           use_features: bool = True) -> dict[str, Any]:
    """A fitted binary ``MLPClassifier`` (ReLU) as an ``MlpModel`` dict of plain lists."""
    if clf.activation != "relu" or clf.out_activation_ != "logistic":
        raise ValueError(f"only a ReLU net with a logistic output exports, got {clf.activation!r}")
    return {"weights": [c.tolist() for c in clf.coefs_], "biases": [b.tolist() for b in clf.intercepts_],
            "mean": np.asarray(mean).tolist(), "std": np.asarray(std).tolist(), "use_patch": use_patch,
            "use_features": use_features, "hidden": list(clf.hidden_layer_sizes)}


def net_scores(bursts: Bursts, model: dict[str, Any]) -> np.ndarray:
    """The net's log-odds of every burst."""
    assert bursts.P is not None
    return MlpModel(model).scores(bursts.P, bursts.X)


def auc(score: np.ndarray, y: np.ndarray) -> float:
    """Area under the ROC curve (ties count half); NaN when a class is empty."""
    pos, neg = score[y == 1], score[y == 0]
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    order = np.argsort(np.concatenate([pos, neg]), kind="mergesort")
    ranks = np.empty(len(order))
    allv = np.concatenate([pos, neg])[order]
    # average ranks for ties
    _, first, counts = np.unique(allv, return_index=True, return_counts=True)
    avg = first + (counts - 1) / 2.0 + 1.0
    ranks[order] = np.repeat(avg, counts)
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2.0) / (len(pos) * len(neg)))


def inner_groups(sources: list[str], k: int = INNER_GROUPS) -> list[list[str]]:
    """``sources`` (sorted) dealt round-robin into ``k`` groups."""
    s = sorted(sources)
    return [s[i::k] for i in range(k)]


def choose_config(bursts: Bursts, outer: str, *, configs: tuple[tuple[tuple[int, ...], float], ...] = CONFIGS,
                  use_patch: bool = True, use_features: bool = True, epochs: int = EPOCHS,
                  progress: Callable[[str], None] | None = None) -> tuple[tuple[int, ...], float, list[float]]:
    """The configuration for held-out source ``outer``: the best mean of two inner AUCs (the
    recordings' own bursts, and every copy) over ``INNER_GROUPS`` folds of the other sources,
    each group scored by a net trained without ``outer`` and without the group."""
    others = sorted(set(bursts.source) - {SYNTH, outer})
    crit = []
    for hidden, alpha in configs:
        sc = np.full(len(bursts.y), np.nan)
        for g in inner_groups(others):
            model = fit_net(bursts, leave_out=[outer, *g], hidden=hidden, alpha=alpha,
                            use_patch=use_patch, use_features=use_features, epochs=epochs)
            held = np.isin(bursts.source, g) & ~np.isin(bursts.background, [outer])
            sc[held] = net_scores(bursts, model)[held]
        ok = train_mask(bursts) & np.isfinite(sc) & (bursts.source != outer) & (bursts.background != outer)
        orig = ok & (bursts.variant == "orig")
        crit.append(0.5 * (auc(sc[orig], bursts.y[orig]) + auc(sc[ok], bursts.y[ok])))
        if progress is not None:
            progress(f"{outer}: {hidden} alpha {alpha}: inner AUC {crit[-1]:.4f}")
    best = int(np.argmax(crit))
    return configs[best][0], configs[best][1], crit


__all__ = ["CONFIGS", "auc", "choose_config", "export", "fit_net", "inner_groups", "net_scores", "train_mask"]
