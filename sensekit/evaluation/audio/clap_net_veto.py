"""The seventeenth pass's candidate: the trees decide, the net may only change a close call.

A burst whose trees score ``t`` lies within ``margin`` of the trees' threshold ``T``
(``|t - T| < margin``) is decided by the mean of the trees' and the net's log-odds at the same
``T`` (the fifteenth pass's candidate); every other burst keeps the trees' decision, and its
patch need not be computed at all. ``side="both"``: the net may demote a clap or promote a
non-clap inside the margin; ``side="claps"``: it may only veto the trees' claps (``T <= t <
T + margin``), never promote.

The margin of a held-out source ``s`` is chosen on the *other* sources' folds
(``nested_margins``): each other source's bursts scored by its own fold's trees and net, the
trees' threshold at ``s``'s own nested one, the criterion ``clap_net_gate``'s (the mean of two
pooled per-clap F1: the recordings, and their copies under noise and mixes); within ``TIE_F1``
of the best, the smallest margin (the least net and the fewest patches). Margin 0 is main's
trees.

Evaluation code (``benchmarks/clap_net_stream.py --mode veto``); ``sensekit/audio`` is unchanged.
"""
from __future__ import annotations

import math

import numpy as np

from sensekit.evaluation.audio.clap_folds import TIE_F1
from sensekit.evaluation.audio.clap_net_gate import pooled_f1
from sensekit.evaluation.audio.clap_training import Bursts

__all__ = ["MARGINS", "SIDES", "choose_margin", "in_margin", "nested_margins", "veto_scores"]

#: margins tried (log-odds of the trees' score from their threshold); 0: the trees alone
MARGINS: tuple[float, ...] = (0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, math.inf)
SIDES = ("both", "claps")


def in_margin(trees: np.ndarray, *, threshold: float, margin: float, side: str = "both") -> np.ndarray:
    """Which bursts the net may decide (and whose patch is needed)."""
    if side not in SIDES:
        raise ValueError(f"side must be one of {SIDES}, not {side!r}")
    d = np.asarray(trees, np.float64) - threshold
    if side == "claps":
        return np.asarray((d >= 0.0) & (d < margin))
    return np.asarray(np.abs(d) < margin)


def veto_scores(trees: np.ndarray, net: np.ndarray, *, threshold: float, margin: float,
                side: str = "both") -> np.ndarray:
    """One score per burst for a detector at ``threshold``: the trees', or inside the margin the
    mean of trees and net."""
    t = np.asarray(trees, np.float64)
    m = in_margin(t, threshold=threshold, margin=margin, side=side)
    return np.asarray(np.where(m, 0.5 * (t + np.asarray(net, np.float64)), t), np.float64)


def choose_margin(bursts: Bursts, trees: dict[str, np.ndarray], net: dict[str, np.ndarray],
                  threshold: float, *, side: str = "both",
                  margins: tuple[float, ...] = MARGINS) -> tuple[float, list[float]]:
    """The margin for the sources of ``trees``/``net`` (each source's scores by its own fold) at
    the trees' ``threshold``: the smallest within ``TIE_F1`` of the best mean over ``GROUPS`` of
    the pooled per-clap F1; and the criterion of every margin."""
    def accepted(s: str, m: np.ndarray) -> list[np.ndarray]:
        return [veto_scores(trees[s][m], net[s][m], threshold=threshold, margin=u, side=side) >= threshold
                for u in margins]

    crit = pooled_f1(bursts, list(trees), accepted, len(margins))
    best = float(crit.max())
    return float(next(u for u, c in zip(margins, crit) if c >= best - TIE_F1)), crit.tolist()


def nested_margins(bursts: Bursts, trees: dict[str, np.ndarray], net: dict[str, np.ndarray],
                   thresholds: dict[str, float], *, side: str = "both") -> dict[str, float]:
    """For each source ``s``: ``choose_margin`` on the other sources' folds, the trees'
    threshold at ``s``'s own ``thresholds[s]``."""
    return {s: choose_margin(bursts, {o: v for o, v in trees.items() if o != s},
                             {o: v for o, v in net.items() if o != s}, thresholds[s], side=side)[0]
            for s in trees}
