"""The thirty-second pass (docs/claps_history.md): the close-call wait re-nested for the refit trees.

Declared before any held-out figure of the pass. The thirty-first pass's refit trees (``FEATURES`` +
``attack_peak_db`` + ``low_rise_db``, its folds and nested ``T``) kept the wait's constants of today's
trees (``WAIT_FOLDS.json``'s margin and theta, ``MEL_LR.json``'s log-mel weights). Here they are nested
again for the refit trees, for each held-out source ``s`` from the other sources only, exactly as the
shipped wait's were nested for today's trees (the twenty-second and twenty-third passes,
``benchmarks/clap_mel_wait.py``), with the refit trees' fold scores ``t`` and nested ``T`` in place of today's:

- **margin**: ``clap_ring_wait.nested_waits`` on the other sources' refit fold scores, the ring's trees
  (unchanged: ``RING_130_late_above_db.json``, their fold scores) at ``s``'s refit ``T``, the share of
  delayed claps on the recordings capped by ``latency_caps`` of the other sources' streamed delays
  (``DELAYS_today_0_517.json``, +1 ms; the trees look at 31.5 ms with either trees).
- **log-mel weights**: ``clap_mel_score.fit_linear`` on the other sources' close calls, ``|t - T| < 1.5``
  by the refit trees (each burst scored by its own source's refit fold, ``own_margin``), no ``sp0`` copy,
  the 1,536 log-mel values of ``MELS.npz`` and ``t - T`` appended.
- **rule and theta**: ``clap_mel_wait.choose`` (grid -4..4 by 0.25, ``pooled_f1`` on the other sources,
  each scored by its own held-out fit), at that margin. The shipped detector has the sum rule only: a
  source that chooses the veto gets the sum rule's best theta, and it is said.

One difference, stated: ``MELS.npz`` holds the log-mel of the bursts within 4 of today's threshold. The
refit trees' close calls outside it (179 of 3,657 at ``|t - T| < 1.5``, counted before fitting) have no
log-mel: they are left out of the fits, and in the choice of theta their score is 0 (``fill_missing``;
the ring's log-odds alone decide them; how many, at each source's own ``T`` and margin, is printed).
When streamed, every close call's log-mel is computed.

Nothing else changes: the refit trees and ``T``, the ring's trees, the detector (``RefitDetector``,
route off, 512-sample blocks). Ship rule (the twenty-sixth pass's): held out, streamed at offsets 0
and 517, against the thirty-first pass's untouched column: fewer negative clips fire, no clap source's
per-clap F1 drops, sharwin's recipe F1 does not drop, white, pink and babble at 10 dB do not lose,
p50 decision delay <= 42 ms. Otherwise evaluation only.
"""
from __future__ import annotations

import numpy as np

__all__ = ["fill_missing", "own_margin"]


def own_margin(source: np.ndarray, scores: dict[str, np.ndarray], thresholds: dict[str, float]) -> np.ndarray:
    """``t - T`` of every burst by its own source's fold: ``scores[s][i] - thresholds[s]`` where
    ``source[i] == s`` (NaN where that score is NaN, and for a source without a fold)."""
    src = np.asarray(source)
    out = np.full(len(src), np.nan)
    for s, v in scores.items():
        v = np.asarray(v, np.float64)
        if v.shape != src.shape:
            raise ValueError(f"fold {s!r} scores {v.shape[0] if v.ndim else 0} bursts, not {len(src)}")
        if s not in thresholds:
            raise ValueError(f"fold {s!r} has no threshold")
        k = src == s
        out[k] = v[k] - thresholds[s]
    return out


def fill_missing(mel: np.ndarray, close: np.ndarray) -> tuple[np.ndarray, int]:
    """The log-mel scores with the close calls that have none (NaN) set to 0, and how many there were;
    bursts that are not close calls keep their NaN."""
    x = np.array(mel, np.float64)
    c = np.asarray(close, bool)
    if c.shape != x.shape:
        raise ValueError(f"close has {c.shape} entries, the scores {x.shape}")
    gap = c & np.isnan(x)
    x[gap] = 0.0
    return x, int(gap.sum())
