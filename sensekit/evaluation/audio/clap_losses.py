"""Where a missed clap is lost in the shipped ``ClapDetector`` (the twenty-fifth pass, docs/claps_history.md).

``LossDetector`` is ``ClapDetector`` (same settings, same claps: ``tests/audio/test_clap_losses.py``
checks it on real clips) that also records every step a burst goes through: the grid's candidate
regions, the peaks dropped at peak picking (and why), and every judged burst (its gates, the trees'
score, whether it was a close call and the wait's score). ``loss_of`` then says, for an annotated
clap that no reported clap matches, the furthest step any burst near it reached:

- ``none``: no grid candidate (the 6 dB frame rise over frames k-30..k-7, with ``min_level``) near it;
- ``merged``: candidates, but their peak is a louder sample within +-12 ms, or was already taken by
  the region before (the clap became part of a neighbouring burst);
- ``peak rise`` / ``peak level`` / ``sustained``: the peak picking's cheap checks;
- ``rise`` / ``level``: the judged burst's ``min_rise_db`` / ``min_level`` gate;
- ``gap``: within ``min_gap_ms`` after a reported clap (``gap clap`` when that clap matched another
  annotated clap, ``gap false`` otherwise);
- ``trees``: the trees' score under the threshold by more than the wait's margin;
- ``close low``: a close call under the threshold the wait did not lift;
- ``close cut``: a close call over the threshold that the wait turned down;
- ``recent``: over the threshold, but ``below_claps_db`` under the recent claps (or the room rule);
- ``taken``: a reported clap near it matched a neighbouring annotated clap instead.

Only stages a burst near the clap reached count (``NEAR_S``: its peak from 10 ms before the onset to
60 ms after, as ``benchmarks/clap_babble_misses.py``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sensekit.audio.clap import ClapDetector
from sensekit.audio.clap_peaks import ONSET_DB, SUSTAINED
from sensekit.audio.clap_wait import SHIPPED, close_call_score
from sensekit.audio.numpy_calls import reduce_max
from sensekit.events import Clap

NEAR_S = (-0.010, 0.060)
TOLERANCE_S = 0.06
#: the kinds of loss, from the earliest step to the last
KINDS = ("none", "merged", "peak rise", "peak level", "sustained", "level", "rise", "gap clap", "gap false",
         "trees", "close low", "close cut", "recent", "taken")


@dataclass
class Judged:
    """One judged burst: where it was, its gates, the trees' score and the wait's."""

    t_peak: float
    t_onset: float
    peak_db: float
    rise_db: float
    level_ok: bool
    rise_ok: bool
    gap_ok: bool
    trees: float
    close: bool
    final: float
    clap: bool


class LossDetector(ClapDetector):
    """``ClapDetector`` recording each burst's path (see the module docstring). Its claps are
    ``ClapDetector``'s: only ``_grid``, ``_find_peaks``, ``_first_look`` and ``_judge`` are wrapped,
    and ``_find_peaks`` repeats the parent's loop with the reasons kept."""

    def __init__(self, **kw: Any) -> None:
        self.candidates: list[float] = []             # grid candidate regions' start times
        self.dropped: list[tuple[float, str]] = []    # peaks dropped at peak picking: time, why
        self.judged: list[Judged] = []
        self.claps: list[float] = []
        self._fl: tuple[Any, ...] | None = None
        super().__init__(**kw)

    def _time(self, p: int) -> float:
        return (self._t0 or 0.0) + p / self._meter.rate

    def _grid(self, k0: int, k1: int) -> None:
        n = len(self._regions)
        super()._grid(k0, k1)
        self.candidates.extend(self._time(s) for s in self._regions[n:])

    def _find_peaks(self, starts: list[int]) -> None:
        h, loc, span = self._hop, self._local, self._region[1]
        far, near, d3 = self._rise_far, self._rise_near, self._d3
        first = starts[0] - loc
        n_e = starts[-1] + span + loc - first
        en = self._energy
        en.extend(self._buf, self._b0, first - far - h, first + n_e + h)
        c, c0 = en.c, en.c0
        i0 = first - h // 2 - c0
        e = (c[i0 + h: i0 + h + n_e] - c[i0: i0 + n_e]) / h
        last = self._last_found
        b0 = self._b0
        for s in starts:
            i = s - first
            k = i + int(e[i: i + span].argmax())
            p = first + k
            if p <= last:                                 # the same peak as an earlier region's
                continue
            last = p
            e_p = float(e[k])
            if e_p < float(reduce_max(e[k - loc: k + loc + 1])):
                self.dropped.append((self._time(p), "merged"))
                continue
            if not self.keep_features:
                q = p - c0
                rise = e_p * (far - near) / (float(c[q - near] - c[q - far]) + 1e-30)
                after = float(c[q + loc] - c[q + d3]) / (loc - d3)
                if rise < self._min_rise or after > e_p * SUSTAINED:
                    self.dropped.append((self._time(p), "peak rise" if rise < self._min_rise else "sustained"))
                    continue
                xs = self._buf[p - h // 2 - b0: p - h // 2 + h - b0].astype(np.float64)
                if float(np.dot(xs, xs)) / h * self._gain2 < self._min_peak:
                    self.dropped.append((self._time(p), "peak level"))
                    continue
            back = e[k - loc: k + 1] >= e_p * 10.0 ** (-ONSET_DB / 10.0)
            self._peaks.append((p, p - loc + int(back.argmax())))
        self._last_found = last

    def _first_look(self, p: int, gap_ok: bool) -> tuple[tuple[float, ...], bool, float, bool]:
        got = super()._first_look(p, gap_ok)
        self._fl = (p, *got)
        return got

    def _judge(self, p: int, onset: int) -> Clap | None:
        gap_ok = p - self._last_clap >= self._gap
        clap = super()._judge(p, onset)
        if self._fl is None or self._fl[0] != p:       # skipped for the gap: look for the record
            self._first_look(p, gap_ok)
        assert self._fl is not None
        _, vals, _, trees, close = self._fl
        final = trees
        if close and self._hold_n:                      # (at finish() the trees decide)
            b0 = self._b0
            final = close_call_score(self._buf[: self._end - b0], p - b0, self._meter.rate, vals, trees,
                                     self.wait_model or SHIPPED)
        self.judged.append(Judged(self._time(p), self._time(onset), float(vals[0]), float(vals[1]),
                                  bool(vals[0] >= self._min_peak_db), bool(vals[1] >= self.min_rise_db), gap_ok,
                                  float(trees), bool(close), float(final), clap is not None))
        if clap is not None:
            self.claps.append(clap.t)
        return clap


def unmatched(detected: list[float], truth: list[float], tolerance_s: float = TOLERANCE_S) -> tuple[
        list[float], dict[float, float]]:
    """``evaluate.match``'s greedy matching: the annotated times no detection matched, and which
    annotated time each matched detection went to."""
    det = sorted(detected)
    used: dict[int, float] = {}
    missed = []
    for t in sorted(truth):
        best = None
        for i, d in enumerate(det):
            if i not in used and abs(d - t) <= tolerance_s and (best is None or abs(d - t) < abs(det[best] - t)):
                best = i
        if best is None:
            missed.append(t)
        else:
            used[best] = t
    return missed, {det[i]: t for i, t in used.items()}


def _step(det: LossDetector, j: Judged, matched: dict[float, float], offset_s: float) -> str:
    """The step (``KINDS``) where the judged burst ``j`` stopped."""
    if j.clap:
        return "taken"
    if not j.level_ok:
        return "level"
    if not j.rise_ok:
        return "rise"
    if not j.gap_ok:
        prev = [t for t in det.claps if t <= j.t_onset]
        return "gap clap" if prev and matched.get(max(prev) - offset_s) is not None else "gap false"
    if j.final >= det.threshold:
        return "recent"
    if j.close:
        return "close cut" if j.trees >= det.threshold else "close low"
    return "trees"


def loss_of(det: LossDetector, onset: float, matched: dict[float, float], offset_s: float = 0.0) -> str:
    """Where the annotated clap at ``onset`` (clip time; the stream started ``offset_s`` earlier) was lost:
    the latest step (``KINDS``) any burst near it reached."""
    lo, hi = onset + offset_s + NEAR_S[0], onset + offset_s + NEAR_S[1]
    rank = {k: i for i, k in enumerate(KINDS)}
    got = [_step(det, j, matched, offset_s) for j in det.judged if lo <= j.t_peak <= hi]
    got += [why for t, why in det.dropped if lo <= t <= hi]
    if got:
        return max(got, key=lambda k: rank[k])
    if any(lo - 0.014 <= t <= hi for t in det.candidates):
        return "merged"                                 # a candidate whose peak lay outside the window
    return "none"


def best_near(det: LossDetector, onset: float, offset_s: float = 0.0) -> Judged | None:
    """The judged burst near the clap at ``onset`` that passed the gates with the highest trees' score."""
    lo, hi = onset + offset_s + NEAR_S[0], onset + offset_s + NEAR_S[1]
    near = [j for j in det.judged if lo <= j.t_peak <= hi and j.level_ok and j.rise_ok]
    return max(near, key=lambda j: j.trees) if near else None
