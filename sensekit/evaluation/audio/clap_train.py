"""A train's regularity and level spread: the twenty-eighth pass's veto (docs/claps_history.md).

Typing and footsteps fire far calls the trees are sure of; what tells them from claps is not the burst
but the train it comes in: keys and steps come in trains of irregular, level-varying bursts, a rhythm
of claps is regular and even. (How many bursts there are is not it: a rhythm of claps is as dense as
typing, the twenty-sixth pass.)

**Declared before measuring** (committed before any held-out figure of this pass):

- **The train** of a clap the detector is about to emit, peaking at sample ``p``: every burst the
  detector gave a first look (a peak past the cheap checks, at least ``min_gap_ms`` after the last
  clap) that passed the level and rise checks and whose trees' score ``t`` is at least ``T - margin``
  (a clap or a close call: what the detector might call a clap, whether or not it was emitted or
  vetoed), peaking in ``[p - W, p]``, the candidate included. Past only: every burst before ``p`` has
  been judged when ``p`` is, so the veto streams, and it is exact at any block size and offset as the
  detector is.
- **The statistics**, with ``n`` the bursts of the train (no veto when ``n < N_MIN = 4``): ``cv``, the
  coefficient of variation (population standard deviation over mean) of the ``n - 1`` inter-onset
  intervals (consecutive peaks); ``spread``, the population standard deviation of the bursts'
  ``peak_db`` (the detector's 1 ms peak level; over a few seconds the floor is steady, so this is the
  spread of the levels over the floor; a gain changes no spread).
- **The veto**: the clap is dropped (as if the burst had not been one) when ``cv >= C`` and
  ``spread >= S`` (the conjunction; ``C = 0``: the spread alone, ``S = 0``: the regularity alone).
- **The grid** (``GRID``): ``W`` in {2, 4} s, ``C`` in {0, 0.25, 0.5, 0.75}, ``S`` in {0, 2, 3, 4, 6}
  dB, less ``(C, S) = (0, 0)``.
- **The nested choice**: for each held-out source, on the claps the *other* sources' clips give when
  streamed held out through their own folds (the shipped detector with each fold's constants, offset
  0, no veto): the grid point that drops no true clap (a labelled onset within 60 ms) and no clap
  emitted on a recipe clip (sharwin's and j's rhythms), and of those the most false claps on the other
  sources' negative clips; ties to the larger ``S``, then the larger ``C``, then the shorter ``W``
  (the mildest). None that drops a false clap: no veto for that source.
- **Ship rule** (the twenty-sixth pass's): held out, streamed at offsets 0 and 517, fewer negative
  clips fire, no clap source's per-clap F1 drops, the noise rows (white, pink, babble at 10 dB;
  speech 0 dB) do not lose, p50 decision delay <= 41 ms, ``benchmarks/audio.py`` stays >= 1000x
  (sk.all) and >= 500x (dense).

Pure NumPy: ``train_stats`` (the statistics of a train), ``Train`` (the streaming queue a detector
keeps), ``TrainVeto`` (one grid point) and ``TrainDetector`` (``ClapDetector`` with the veto, for the
tests and the benchmark ``benchmarks/clap_train_veto.py``).
"""
from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from sensekit.audio.clap import ClapDetector
from sensekit.events import Clap
from sensekit.audio.clap_wait import SHIPPED

__all__ = ["GRID", "N_MIN", "Train", "TrainDetector", "TrainVeto", "train_stats"]

N_MIN = 4


@dataclass(frozen=True)
class TrainVeto:
    """One grid point: the train's window ``w_s`` (s), the cuts on ``cv`` and ``spread`` (dB)."""

    w_s: float
    cv: float
    spread_db: float

    def vetoes(self, stats: tuple[int, float, float]) -> bool:
        """Whether a clap whose train has ``stats = (n, cv, spread)`` is dropped."""
        n, cv, spread = stats
        return n >= N_MIN and cv >= self.cv and spread >= self.spread_db


GRID = tuple(TrainVeto(w, c, s) for w, c, s in itertools.product((2.0, 4.0), (0.0, 0.25, 0.5, 0.75),
                                                                   (0.0, 2.0, 3.0, 4.0, 6.0))
             if (c, s) != (0.0, 0.0))


def train_stats(peaks_s: np.ndarray, levels_db: np.ndarray) -> tuple[int, float, float]:
    """``(n, cv, spread)`` of a train: its bursts' peak times ``peaks_s`` (ascending, s) and levels
    (dB). ``cv``: population std over mean of the inter-onset intervals (NaN under 3 bursts or a zero
    mean); ``spread``: population std of the levels (NaN with none). ``ValueError`` when the lengths
    differ or the times are not ascending."""
    t = np.asarray(peaks_s, np.float64)
    v = np.asarray(levels_db, np.float64)
    if t.shape != v.shape or t.ndim != 1:
        raise ValueError(f"a train needs as many times as levels, got {t.shape} and {v.shape}")
    d = np.diff(t)
    if (d < 0).any():
        raise ValueError("a train's peak times must be ascending")
    n = len(t)
    m = float(d.mean()) if len(d) >= 2 else 0.0
    cv = float(d.std()) / m if m > 0 else float("nan")
    spread = float(v.std()) if n else float("nan")
    return n, cv, spread


class Train:
    """The streaming train: ``add(p, level, rate)`` each burst that counts (peaks ascending, stream
    samples), ``stats(p, w_s, rate)`` of those in ``[p - w_s, p]``. Bursts older than ``keep_s`` are
    forgotten."""

    def __init__(self, keep_s: float = 4.0) -> None:
        if not keep_s > 0:
            raise ValueError(f"a train keeps a positive window, got {keep_s} s")
        self.keep_s = keep_s
        self._q: deque[tuple[int, float]] = deque()

    def add(self, p: int, level_db: float, rate: int) -> None:
        q = self._q
        if q and p <= q[-1][0]:
            return                                  # judged again (a held close call): once
        q.append((p, level_db))
        while p - q[0][0] > self.keep_s * rate:
            q.popleft()

    def stats(self, p: int, w_s: float, rate: int) -> tuple[int, float, float]:
        if w_s > self.keep_s:
            raise ValueError(f"the train keeps {self.keep_s} s, asked for {w_s} s")
        got = [(a, v) for a, v in self._q if p - w_s * rate <= a <= p]
        return train_stats(np.array([a / rate for a, _ in got]), np.array([v for _, v in got]))

    def clear(self) -> None:
        self._q.clear()


class TrainDetector(ClapDetector):
    """``ClapDetector`` whose claps are dropped by the train veto ``veto`` (None: never); keeps
    ``vetoed`` (the claps dropped) and ``trains`` (each emitted or dropped clap's stats at ``veto``)."""

    def __init__(self, veto: TrainVeto | None = None, **kw: Any) -> None:
        self.veto = veto
        self.vetoed: list[Clap] = []
        self.trains: list[tuple[int, float, float]] = []
        self._train = Train()
        super().__init__(**kw)

    def reset(self) -> None:
        self._train = Train()
        super().reset()

    def _first_look(self, p: int, gap_ok: bool) -> tuple[tuple[float, ...], bool, float, bool]:
        got = super()._first_look(p, gap_ok)
        vals, ok, score, _ = got
        wm = self.wait_model or SHIPPED
        if ok and gap_ok and score >= self.threshold - wm.margin:
            self._train.add(p, vals[0], self._meter.rate)
        return got

    def _judge(self, p: int, onset: int) -> Clap | None:
        last, n_recent = self._last_clap, len(self._recent)
        clap = super()._judge(p, onset)
        if clap is None or self.veto is None:
            return clap
        rate = self._meter.rate
        st = self._train.stats(p, self.veto.w_s, rate)
        self.trains.append(st)
        if self.veto.vetoes(st):
            self._last_clap = last                  # as if the burst had not been a clap
            while len(self._recent) > n_recent:
                self._recent.pop()
            self.vetoed.append(clap)
            return None
        return clap
