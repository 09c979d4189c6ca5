"""The trees refit with the vetoes' features as extra inputs (docs/claps_history.md, thirty-first pass).
Declared before any held-out figure of the pass.

The 26th, 29th and 30th passes each measured one physically motivated feature and used it as a
max-cut veto; each separated one kind of negative, but a cut at the claps' largest value either loses
claps or clears no clip. Here the features are not cut by hand: they are appended to each burst's row
and the trees are fitted again, so that they can be combined with the 16 ``FEATURES``.

**Which features** (``EXTRA``), each computed only on samples the detector has when the trees judge
the burst. The trees score every burst once ``latency_ms`` (31.5 ms) after its peak are in (a far
call is decided there; a close call is then held to 130 ms, ``WAIT_MS``, and its trees' score is
that first look's):

- ``attack_peak_db`` (``clap_attack``, 26th pass): 2 ms before to 20 ms after the peak. In.
- ``low_rise_db`` (``clap_early_decay``, 30th pass): 0-30 ms after the peak. In.
- ``ring_line_db`` (``clap_ring_modes``, 29th pass): 30-80 ms after the peak. **Left out**: at the
  trees' look only 30-31.5 ms of it is there, which is no ring; it could enter only the close-call
  wait's ring trees, not these trees (not done here).

At the end of a stream (``finish()``) both are computed on what there is (samples not yet there
count as zeros, as in their functions).

**How they enter the trees.** The same trainer (``clap_training.train``: scikit-learn's
HistGradientBoosting, ``DEPTH``/``TREES``/``RATE``/``L2``, the monotone decay features, the
balanced weights, ``ORIG_WEIGHT``, the air gate), the same augmented copies (``AUGMENTATIONS``; the
bursts of ``clap_training.collect``, which are the seventeenth pass's ``PATCH.npz`` rows, checked equal
row by row), with ``EXTRA`` appended to each burst's row (columns 16 and 17). The augmented copies
are made again from the seeds (``seed_of(clip, variant)``), so each feature is measured on the very
copy the burst came from, at its peak sample (``collect(extra=extra_inputs)``). Each held-out
source's trees are fitted on the other 13 sources (``train(leave_out=[s])``: neither the clip nor a
mixed-in background from ``s``); its threshold is ``clap_folds.nested_thresholds`` on the other
sources' refit folds, as the shipped ``T`` was chosen. The close-call wait keeps each fold's
constants (margin, theta, ring trees, log-mel weights of ``WAIT_FOLDS.json``, chosen on today's
trees): nothing is chosen on the held-out source.

**Ship rule** (the 26th pass's): held out, streamed at offsets 0 and 517, fewer negative clips fire,
no clap source's per-clap F1 drops, sharwin's recipe F1 does not drop, white/pink/babble at 10 dB do
not lose, p50 decision delay <= 42 ms (``benchmarks/clap_refit_inputs.py``). Pure NumPy; for
evaluation unless the rule holds.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from sensekit.audio import clap_features
from sensekit.audio.clap import ClapDetector
from sensekit.audio.clap_features import FEATURES, Model, TreeModel
from sensekit.evaluation.audio.clap_attack import attack_peak_db
from sensekit.evaluation.audio.clap_early_decay import low_rise_db

__all__ = ["EXTRA", "AppendingTrees", "RefitDetector", "extra_inputs"]

EXTRA = ("attack_peak_db", "low_rise_db")


def extra_inputs(x: np.ndarray, p: int, rate: int) -> tuple[float, float]:
    """``EXTRA`` of the burst peaking at ``x[p]`` (samples after ``x`` count as zeros). ``ValueError``
    for a rate under 2 kHz or a peak outside ``x``."""
    return attack_peak_db(x, p, rate), low_rise_db(x, p, rate)


class AppendingTrees(TreeModel):
    """Trees fitted on ``FEATURES + EXTRA``. A ``FEATURES`` row is scored with ``pending()`` appended
    (set before each burst by whoever can measure it: called only when the trees are consulted); a row
    that already has ``EXTRA`` is scored as it is."""

    def __init__(self, model: Model) -> None:
        super().__init__(model)
        self.pending: Callable[[], tuple[float, ...]] | None = None
        self.measured = 0        # rows scored with ``pending()`` (the bursts whose extra inputs were measured)

    def score(self, v: np.ndarray) -> float:
        if len(v) == len(FEATURES):
            if self.pending is None:
                raise ValueError("no burst to measure the extra inputs on (pending is None)")
            v = np.append(np.asarray(v, np.float64), self.pending())
            self.measured += 1
        elif len(v) != len(FEATURES) + len(EXTRA):
            raise ValueError(f"a row of {len(FEATURES)} or {len(FEATURES) + len(EXTRA)} features, got {len(v)}")
        return super().score(v)


class RefitDetector(ClapDetector):
    """``ClapDetector`` whose trees (``model``, fitted on ``FEATURES + EXTRA``) get ``EXTRA`` measured on
    the samples it holds when it looks at a burst (``extra_inputs`` on the buffer up to the newest
    sample). Everything else is ``ClapDetector``'s (the wait's ring trees see ``FEATURES`` only)."""

    def __init__(self, *, model: Model, **kw: Any) -> None:
        own = dict(model)        # its own dict: no other detector (nor a ClapDetector given ``model``) finds these
        self._trees = AppendingTrees(own)
        clap_features._MODELS[id(own)] = (own, self._trees)
        super().__init__(model=own, **kw)

    def _armed(self) -> None:
        """The detector's trees dict scored by ``_trees`` (``clap_score`` finds them by the dict; again
        at each look, as the cache keeps the last few models only)."""
        model = self.model
        assert model is not None
        clap_features._MODELS[id(model)] = (model, self._trees)

    def _first_look(self, p: int, gap_ok: bool) -> tuple[tuple[float, ...], bool, float, bool]:
        buf, n, q, rate = self._buf, self._end - self._b0, p - self._b0, self._meter.rate
        self._trees.pending = lambda: extra_inputs(buf[:n], q, rate)
        self._armed()
        try:
            return super()._first_look(p, gap_ok)
        finally:
            self._trees.pending = None

    @property
    def measured(self) -> int:
        """How many bursts' extra inputs this detector measured (the bursts its trees scored)."""
        return self._trees.measured
