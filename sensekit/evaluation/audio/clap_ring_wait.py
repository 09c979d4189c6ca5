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

The cap on delayed claps can come from the latency (the twenty-second pass, ``latency_caps``):
today's streamed decision delays of the *other* sources' recordings give the largest share of
delayed claps that keeps their p50 within a slack of today's (a clap that waits comes out after
every clap that does not), and the margin is chosen under that share, measured on the other
sources' recordings (``recorded_share``).

Evaluation code (``benchmarks/clap_ring_wait.py``); ``sensekit/audio`` is unchanged.
"""
from __future__ import annotations

import math

import numpy as np

from sensekit.evaluation.audio.clap_folds import THRESHOLDS, TIE_F1
from sensekit.evaluation.audio.clap_net_gate import GROUPS, pooled_f1
from sensekit.evaluation.audio.clap_training import Bursts

__all__ = ["MARGINS", "choose_wait", "delayed_share", "latency_cap", "latency_caps", "nested_waits",
           "p50_after_wait", "recorded_share", "wait_decision", "waits"]

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


def _waited_share(bursts: Bursts, trees: dict[str, np.ndarray], ring: dict[str, np.ndarray],
                  threshold: float, rules: list[tuple[float, float]], m: np.ndarray) -> np.ndarray:
    """For each rule ``(margin, ring threshold)``: the share of the bursts of ``m`` it accepts (pooled
    over the sources of ``trees``) that waited for their ring."""
    found, late = np.zeros(len(rules)), np.zeros(len(rules))
    for s in trees:
        k = m & (bursts.source == s)
        t, r = trees[s][k], ring[s][k]
        for i, (u, v) in enumerate(rules):
            acc = wait_decision(t, r, threshold=threshold, ring_threshold=v, margin=u)
            found[i] += np.count_nonzero(acc)
            late[i] += np.count_nonzero(acc & waits(t, threshold=threshold, margin=u))
    return np.asarray(late / np.maximum(found, 1))


def delayed_share(bursts: Bursts, trees: dict[str, np.ndarray], ring: dict[str, np.ndarray],
                  threshold: float, rules: list[tuple[float, float]]) -> np.ndarray:
    """For each rule ``(margin, ring threshold)``: the share of the claps it finds (pooled over
    the sources of ``trees`` and the copies of ``GROUPS``) that waited for their ring."""
    m = np.isin(bursts.variant, [v for g in GROUPS for v in g]) & (bursts.y == 1)
    return _waited_share(bursts, trees, ring, threshold, rules, m)


def recorded_share(bursts: Bursts, trees: dict[str, np.ndarray], ring: dict[str, np.ndarray],
                   threshold: float, rules: list[tuple[float, float]]) -> np.ndarray:
    """For each rule ``(margin, ring threshold)``: the share of the bursts it accepts on the
    recordings (``orig``, claps and false bursts, pooled over the sources of ``trees``) that waited
    for their ring: the population of a streamed p50 decision delay."""
    return _waited_share(bursts, trees, ring, threshold, rules, bursts.variant == "orig")


def p50_after_wait(delays: np.ndarray, share: float) -> float:
    """The p50 decision delay when ``share`` of the claps wait for their ring, the others coming out
    with today's ``delays`` (ms): a waiting clap (130 ms after its peak) comes out after every
    other, so the median moves to today's quantile ``0.5 / (1 - share)``."""
    d = np.asarray(delays, np.float64)
    if len(d) == 0:
        raise ValueError("no decision delays to predict a p50 from")
    if share >= 0.5:
        return math.inf
    return float(np.percentile(d, 100.0 * 0.5 / (1.0 - share)))


def latency_cap(delays: np.ndarray, slack_ms: float = 1.0) -> float:
    """The largest share of delayed claps (on a grid of 0.001) whose ``p50_after_wait`` stays
    within ``slack_ms`` of today's p50 of ``delays``."""
    base = p50_after_wait(delays, 0.0)
    shares = np.arange(0, 500) / 1000.0
    ok = [f for f in shares if p50_after_wait(delays, float(f)) <= base + slack_ms]
    return float(max(ok))


def latency_caps(delays: dict[str, np.ndarray], slack_ms: float = 1.0) -> dict[str, float]:
    """For each source ``s``: ``latency_cap`` of the other sources' delays (``s``'s own are not used)."""
    return {s: latency_cap(np.concatenate([d for o, d in delays.items() if o != s]), slack_ms)
            for s in delays}


def choose_wait(bursts: Bursts, trees: dict[str, np.ndarray], ring: dict[str, np.ndarray],
                threshold: float, *, margins: tuple[float, ...] = MARGINS,
                ring_thresholds: np.ndarray = THRESHOLDS,
                max_delayed: float = 1.0, max_recorded: float = 1.0) -> tuple[float, float, float]:
    """The margin and ring threshold for the sources of ``trees``/``ring`` (each source's scores
    by its own fold), today's trees at ``threshold``; and the criterion there. Rules that delay
    more than ``max_delayed`` of the claps they find (``delayed_share``) are not considered
    (0.5 keeps the median clap undelayed, on those sources); nor, on their recordings
    (``recorded_share``), more than ``max_recorded``."""
    rules = [(u, float(v)) for u in margins for v in (ring_thresholds if u > 0 else ring_thresholds[:1])]

    def accepted(s: str, m: np.ndarray) -> list[np.ndarray]:
        t, r = trees[s][m], ring[s][m]
        return [wait_decision(t, r, threshold=threshold, ring_threshold=v, margin=u) for u, v in rules]

    crit = pooled_f1(bursts, list(trees), accepted, len(rules))
    if max_delayed < 1.0:
        crit[delayed_share(bursts, trees, ring, threshold, rules) > max_delayed] = -1.0
    if max_recorded < 1.0:
        crit[recorded_share(bursts, trees, ring, threshold, rules) > max_recorded] = -1.0
    best = float(crit.max())
    u = min(u for (u, _), c in zip(rules, crit) if c >= best - TIE_F1)
    i = max((k for k, (w, _) in enumerate(rules) if w == u), key=lambda k: (crit[k], -rules[k][1]))
    return u, rules[i][1], float(crit[i])


def nested_waits(bursts: Bursts, trees: dict[str, np.ndarray], ring: dict[str, np.ndarray],
                 thresholds: dict[str, float], *, margins: tuple[float, ...] = MARGINS,
                 ring_thresholds: dict[str, float] | None = None,
                 max_delayed: float = 1.0,
                 max_recorded: dict[str, float] | None = None) -> dict[str, tuple[float, float]]:
    """For each source ``s``: ``choose_wait`` on the other sources' folds, today's trees at
    ``s``'s own ``thresholds[s]``: ``(margin, ring threshold)``. With ``ring_thresholds`` the
    ring's trees keep ``ring_thresholds[s]`` (their own nested one) and only the margin is chosen.
    With ``max_recorded`` (``latency_caps``, chosen without ``s``) the margin keeps the share of
    delayed claps on the other sources' recordings within ``max_recorded[s]``."""
    out = {}
    for s in trees:
        grid = THRESHOLDS if ring_thresholds is None else np.array([ring_thresholds[s]])
        u, v, _ = choose_wait(bursts, {o: x for o, x in trees.items() if o != s},
                              {o: x for o, x in ring.items() if o != s}, thresholds[s], margins=margins,
                              ring_thresholds=grid, max_delayed=max_delayed,
                              max_recorded=1.0 if max_recorded is None else max_recorded[s])
        out[s] = (u, v)
    return out
