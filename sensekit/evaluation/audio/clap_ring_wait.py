"""The nineteenth pass's candidate: wait for the ring only on the close calls.

Every burst is first scored by the trees of today (``t``, the 16 features) at their threshold
``T``. A burst outside the margin (``|t - T| >= margin``) is decided at once, as today. A close
call (``|t - T| < margin``) waits until its ring is in and is then decided by the trees refit
with the ring appended (``r``, 16 features + ``late_db`` + ``voiced_after``) at their own
threshold ``T_ring``. Margin 0 is today's trees; margin ``inf`` is the refit trees alone (every
burst waits).

The margin and ``T_ring`` of a held-out source ``s`` are chosen on the *other* sources' folds
(``nested_waits``), each other source scored by its own fold, ``T`` at ``s``'s own nested
threshold; the criterion is ``clap_net_gate.pooled_f1``'s (the mean of the pooled per-clap F1
of the recordings and of their copies under noise and mixes). Within ``TIE_F1`` of the best:
the smallest margin (the fewest delayed claps), then the best ``T_ring`` (ties: the lowest).

Evaluation code (``benchmarks/clap_ring_wait.py``); ``sensekit/audio`` is unchanged.
"""
from __future__ import annotations

import math

import numpy as np

from sensekit.evaluation.audio.clap_folds import THRESHOLDS, TIE_F1
from sensekit.evaluation.audio.clap_net_gate import GROUPS, pooled_f1
from sensekit.evaluation.audio.clap_training import Bursts

__all__ = ["MARGINS", "choose_wait", "delayed_share", "nested_waits", "wait_decision", "waits"]

#: margins tried (log-odds of today's trees' score from their threshold); 0: today's trees
MARGINS: tuple[float, ...] = (0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, math.inf)


def waits(trees: np.ndarray, *, threshold: float, margin: float) -> np.ndarray:
    """Which bursts are close calls: they wait for their ring (``|t - threshold| < margin``)."""
    return np.asarray(np.abs(np.asarray(trees, np.float64) - threshold) < margin)


def wait_decision(trees: np.ndarray, ring: np.ndarray, *, threshold: float, ring_threshold: float,
                  margin: float) -> np.ndarray:
    """Which bursts are claps: today's trees outside the margin, the ring's trees inside it."""
    t = np.asarray(trees, np.float64)
    w = waits(t, threshold=threshold, margin=margin)
    return np.asarray(np.where(w, np.asarray(ring, np.float64) >= ring_threshold, t >= threshold))


def delayed_share(bursts: Bursts, trees: dict[str, np.ndarray], ring: dict[str, np.ndarray],
                  threshold: float, rules: list[tuple[float, float]]) -> np.ndarray:
    """For each rule ``(margin, ring threshold)``: the share of the claps it finds (pooled over
    the sources of ``trees`` and the copies of ``GROUPS``) that waited for their ring."""
    found, late = np.zeros(len(rules)), np.zeros(len(rules))
    m = np.isin(bursts.variant, [v for g in GROUPS for v in g]) & (bursts.y == 1)
    for s in trees:
        k = m & (bursts.source == s)
        t, r = trees[s][k], ring[s][k]
        for i, (u, v) in enumerate(rules):
            acc = wait_decision(t, r, threshold=threshold, ring_threshold=v, margin=u)
            found[i] += np.count_nonzero(acc)
            late[i] += np.count_nonzero(acc & waits(t, threshold=threshold, margin=u))
    return np.asarray(late / np.maximum(found, 1))


def choose_wait(bursts: Bursts, trees: dict[str, np.ndarray], ring: dict[str, np.ndarray],
                threshold: float, *, margins: tuple[float, ...] = MARGINS,
                ring_thresholds: np.ndarray = THRESHOLDS,
                max_delayed: float = 1.0) -> tuple[float, float, float]:
    """The margin and ring threshold for the sources of ``trees``/``ring`` (each source's scores
    by its own fold), today's trees at ``threshold``; and the criterion there. Rules that delay
    more than ``max_delayed`` of the claps they find (``delayed_share``) are not considered
    (0.5 keeps the median clap undelayed, on those sources)."""
    rules = [(u, float(v)) for u in margins for v in (ring_thresholds if u > 0 else ring_thresholds[:1])]

    def accepted(s: str, m: np.ndarray) -> list[np.ndarray]:
        t, r = trees[s][m], ring[s][m]
        return [wait_decision(t, r, threshold=threshold, ring_threshold=v, margin=u) for u, v in rules]

    crit = pooled_f1(bursts, list(trees), accepted, len(rules))
    if max_delayed < 1.0:
        crit[delayed_share(bursts, trees, ring, threshold, rules) > max_delayed] = -1.0
    best = float(crit.max())
    u = min(u for (u, _), c in zip(rules, crit) if c >= best - TIE_F1)
    i = max((k for k, (w, _) in enumerate(rules) if w == u), key=lambda k: (crit[k], -rules[k][1]))
    return u, rules[i][1], float(crit[i])


def nested_waits(bursts: Bursts, trees: dict[str, np.ndarray], ring: dict[str, np.ndarray],
                 thresholds: dict[str, float], *, margins: tuple[float, ...] = MARGINS,
                 ring_thresholds: dict[str, float] | None = None,
                 max_delayed: float = 1.0) -> dict[str, tuple[float, float]]:
    """For each source ``s``: ``choose_wait`` on the other sources' folds, today's trees at
    ``s``'s own ``thresholds[s]``: ``(margin, ring threshold)``. With ``ring_thresholds`` the
    ring's trees keep ``ring_thresholds[s]`` (their own nested one) and only the margin is chosen."""
    out = {}
    for s in trees:
        grid = THRESHOLDS if ring_thresholds is None else np.array([ring_thresholds[s]])
        u, v, _ = choose_wait(bursts, {o: x for o, x in trees.items() if o != s},
                              {o: x for o, x in ring.items() if o != s}, thresholds[s], margins=margins,
                              ring_thresholds=grid, max_delayed=max_delayed)
        out[s] = (u, v)
    return out
