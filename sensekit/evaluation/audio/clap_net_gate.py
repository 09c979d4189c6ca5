"""The sixteenth pass's gated candidate: the net only for bursts over a floor that moves.

A burst is **gated** (``gate``) when it rises less than the floor route's ``RISE_SPLIT_DB``
(24 dB) over a floor that is *not* steady (``FloorRoute.floor_spread_db`` >= ``FLOOR_SPLIT_DB``,
2 dB: speech, babble, music; NaN, a peak without the route's 0.3 s of history, is not gated).
Both constants are the route's, fixed before this pass looked at anything. A gated burst is
scored by the mean of the trees' and the net's log-odds (the fifteenth pass's candidate);
every other burst keeps the trees' score: steady floors (the route's domain) and bursts
rising well over their floor are where the trees were better.

The gated branch has its own threshold (``choose_gate_threshold``), so the trees' branch keeps
the trees' own (nested) threshold and the net does not drag it: for a held-out source ``s`` the
branch threshold is the one with the best mean of two pooled per-clap F1 on the *other*
sources' folds (their recordings, ``orig``; their copies under noise, ``NOISY``, and under other
sources' speech, music or noise at 0 and +6 dB, ``mix0``/``mix6``), the
trees' branch at ``s``'s own trees threshold; within ``TIE_F1`` of the best, the lowest. The
detector then sees one score, ``gated_scores``: a gated burst's mean shifted by the difference
of the two thresholds, so the trees' threshold decides both branches.

Evaluation code (``benchmarks/clap_net_stream.py --mode gated``); ``sensekit/audio`` is unchanged.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sensekit.audio.clap_features import FEATURES
from sensekit.audio.clap_floor import FLOOR_SPLIT_DB, RISE_SPLIT_DB
from sensekit.evaluation.audio.clap_folds import THRESHOLDS, TIE_F1
from sensekit.evaluation.audio.clap_training import NOISY, Bursts

__all__ = ["GROUPS", "bursts_gate", "choose_gate_threshold", "gate", "gated_scores", "nested_gate_thresholds",
           "pooled_f1"]

#: the two groups whose pooled per-clap F1 the branch threshold averages
GROUPS: tuple[tuple[str, ...], ...] = (("orig",), (*NOISY, "mix0", "mix6"))


def gate(rise_db: np.ndarray, spread_db: np.ndarray, *, rise_split: float = RISE_SPLIT_DB) -> np.ndarray:
    """Which bursts the net judges: rising under ``rise_split`` (the route's ``RISE_SPLIT_DB``;
    ``inf``: any rise, the variant measured after) over a floor spreading ``FLOOR_SPLIT_DB`` or
    more (NaN spread: not gated)."""
    rise = np.asarray(rise_db, np.float64)
    spread = np.asarray(spread_db, np.float64)
    with np.errstate(invalid="ignore"):
        return np.asarray((rise < rise_split) & (spread >= FLOOR_SPLIT_DB))


def bursts_gate(bursts: Bursts, *, rise_split: float = RISE_SPLIT_DB) -> np.ndarray:
    """``gate`` of every burst (needs ``Bursts.S``: ``collect(patches=True)``)."""
    if bursts.S is None:
        raise ValueError("the bursts hold no floor spread: collect them with patches=True")
    return gate(bursts.X[:, FEATURES.index("rise_db")], bursts.S, rise_split=rise_split)


def gated_scores(trees: np.ndarray, net: np.ndarray, gated: np.ndarray, *,
                 t_trees: float, t_gate: float) -> np.ndarray:
    """One score per burst for a detector at threshold ``t_trees``: the trees' score, or for a
    gated burst the mean of trees and net less ``t_gate - t_trees``."""
    mean = 0.5 * (np.asarray(trees) + np.asarray(net)) - (t_gate - t_trees)
    return np.asarray(np.where(gated, mean, trees), np.float64)


def _counts(bursts: Bursts, source: str, variants: tuple[str, ...]) -> tuple[np.ndarray, int]:
    m = (bursts.source == source) & np.isin(bursts.variant, variants) & (bursts.y >= 0)
    n = 0
    for v in variants:
        clips = set(bursts.clip[(bursts.source == source) & (bursts.variant == v) & (bursts.y >= 0)])
        n += sum(k for c, k in bursts.onsets.items() if bursts.labels[c] == "clap" and c in clips)
    return m, n


def pooled_f1(bursts: Bursts, sources: list[str],
              accepted: Callable[[str, np.ndarray], list[np.ndarray]], n: int) -> np.ndarray:
    """For ``n`` candidate rules, the mean over ``GROUPS`` of the per-clap F1 pooled over
    ``sources``: ``accepted(s, m)`` gives, for source ``s``'s bursts selected by ``m``, which of
    them each rule takes for claps (one boolean array per rule)."""
    crit = np.zeros(n)
    for variants in GROUPS:
        tp, fp, claps = np.zeros(n), np.zeros(n), 0
        for s in sources:
            m, k = _counts(bursts, s, variants)
            claps += k
            y = bursts.y[m]
            for i, acc in enumerate(accepted(s, m)):
                tp[i] += np.count_nonzero(acc & (y == 1))
                fp[i] += np.count_nonzero(acc & (y == 0))
        crit += 2 * tp / np.maximum(2 * tp + fp + (claps - tp), 1) / len(GROUPS)
    return crit


def choose_gate_threshold(bursts: Bursts, gated: np.ndarray, trees: dict[str, np.ndarray],
                          net: dict[str, np.ndarray], t_trees: float,
                          thresholds: np.ndarray = THRESHOLDS) -> float:
    """The gated branch's threshold for the sources of ``trees``/``net`` (each source's scores by
    its own fold), the trees' branch at ``t_trees``: the lowest within ``TIE_F1`` of the best
    mean over ``GROUPS`` of the pooled per-clap F1."""
    def accepted(s: str, m: np.ndarray) -> list[np.ndarray]:
        g = gated[m]
        t_ok = (trees[s][m] >= t_trees) & ~g
        mean = 0.5 * (trees[s][m] + net[s][m])
        return [t_ok | (g & (mean >= u)) for u in thresholds]

    crit = pooled_f1(bursts, list(trees), accepted, len(thresholds))
    best = float(crit.max())
    return float(next(u for u, c in zip(thresholds, crit) if c >= best - TIE_F1))


def nested_gate_thresholds(bursts: Bursts, gated: np.ndarray, trees: dict[str, np.ndarray],
                           net: dict[str, np.ndarray], t_trees: dict[str, float]) -> dict[str, float]:
    """For each source ``s``: ``choose_gate_threshold`` on the other sources' folds, the trees'
    branch at ``s``'s own trees threshold ``t_trees[s]``."""
    return {s: choose_gate_threshold(bursts, gated, {o: v for o, v in trees.items() if o != s},
                                     {o: v for o, v in net.items() if o != s}, t_trees[s])
            for s in trees}
