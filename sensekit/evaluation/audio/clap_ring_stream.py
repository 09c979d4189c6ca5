"""The nineteenth pass's candidate streamed: a close call is held until its ring is in.

``RingWaitDetector`` is a ``ClapDetector`` whose judge, for a burst whose trees' score ``t`` lies
within ``margin`` of the threshold, waits until ``wait_ms`` of signal after the peak is in the
buffer and then decides it with the ring's trees (``clap_ring_wait``: the 16 features,
``late_db``, ``voiced_after``) at their own threshold. Every other burst is decided as today
(a burst the floor route takes, ``noise_route``, by the route's expert, never waiting).

The held peak stays at the head of the detector's peak queue, so every later peak waits behind
it: claps come out in order, ``min_gap_ms`` and ``below_claps_db`` see them in order, and
whether a burst waits depends on the samples only (not on block sizes or the start offset).
The buffer keeps the head peak's history (``ClapDetector._make_room``), so the ring's samples
are there when it is judged. A close call within ``wait_ms`` of a stream's end is never
decided (as today's detector never judges a burst within its look-ahead of the end).

``decisions`` records, for each clap emitted, its onset time, the time of the last sample in
when it was emitted, and whether it was a close call (decided by the ring): the detector's own
decision delay (the capture and the block add to it). Evaluation code (``benchmarks/clap_ring_stream.py``); not shipped.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from sensekit.audio.clap import ClapDetector
from sensekit.audio.clap_features import BurstFeatures, Model, clap_score
from sensekit.audio.level import db_to_level
from sensekit.events import Clap

__all__ = ["RING_INPUTS", "RingWaitDetector", "ring_inputs", "ring_level"]

#: how the ring's power 30-80 ms after the peak is measured (the twenty-first pass): against the 1 ms
#: peak (``late_db``, the nineteenth pass's), against the floor 35-10 ms before the peak
#: (``late_floor_db``), or its excess over that floor against the peak (``late_above_db``)
RING_INPUTS = ("late_db", "late_floor_db", "late_above_db")
#: ``late_above_db`` of a ring no stronger than the floor before the burst
ABOVE_FLOOR_MIN_DB = -60.0


def ring_level(late_db: float, late_floor_db: float, kind: str) -> float:
    """The ring input ``kind`` (``RING_INPUTS``) from ``late_db`` (ring power over the peak's, dB)
    and ``late_floor_db`` (ring power over the floor's before the burst, dB). ``late_above_db`` is
    ``10 log10((late - floor) / peak)``, at least ``ABOVE_FLOOR_MIN_DB``: the ring less the floor's
    share, so steady noise does not count as ring."""
    if kind == "late_db":
        return late_db
    if kind == "late_floor_db":
        return late_floor_db
    if kind != "late_above_db":
        raise ValueError(f"ring input {kind!r} is not one of {RING_INPUTS}")
    if math.isnan(late_db) or math.isnan(late_floor_db):
        return float("nan")
    excess = 10.0 ** (late_db / 10.0) - 10.0 ** ((late_db - late_floor_db) / 10.0)
    return max(ABOVE_FLOOR_MIN_DB, 10.0 * math.log10(excess)) if excess > 0 else ABOVE_FLOOR_MIN_DB


def _power(x: np.ndarray, a: int, b: int) -> float:
    a, b = max(0, a), min(len(x), b)
    return float(np.mean(np.asarray(x[a:b], np.float64) ** 2)) if b - a > 8 else float("nan")


def _voiced(x: np.ndarray, a: int, b: int, rate: int) -> float:
    """The largest normalised autocorrelation at pitch lags 2.5-12.5 ms (80-400 Hz) of x[a:b]
    (``benchmarks/clap_ring_look.py``'s, which the ring's trees were trained on)."""
    a, b = max(0, a), min(len(x), b)
    if b - a < int(0.06 * rate):
        return float("nan")
    s = np.asarray(x[a:b], np.float64)
    s = s - s.mean()
    n = len(s)
    ac = np.fft.irfft(np.abs(np.fft.rfft(s, 2 * n)) ** 2)[:n]
    if ac[0] <= 0:
        return float("nan")
    lo, hi = int(0.0025 * rate), int(0.0125 * rate)
    lag = np.arange(lo, hi)
    return float(np.max(ac[lo:hi] / (ac[0] * (n - lag) / n)))


def _db(a: float, b: float) -> float:
    return 10.0 * math.log10((a + 1e-20) / (b + 1e-20))


def ring_inputs(x: np.ndarray, p: int, rate: int, *, voiced_ms: float = 130.0,
                ring: str = "late_db") -> tuple[float, float]:
    """The ring input ``ring`` (``ring_level``) and ``voiced_after`` of the burst peaking at
    ``x[p]``, as they were trained (``benchmarks/clap_ring_look.py``'s powers)."""
    def ms(v: float) -> int:
        return round(v * rate / 1000.0)

    pk, late = _power(x, p - ms(0.5), p + ms(0.5)), _power(x, p + ms(30), p + ms(80))
    pre = _power(x, p - ms(35), p - ms(10))
    level = ring_level(_db(late, pk), _db(late, pre), ring)
    return level, _voiced(x, p + ms(50), p + ms(voiced_ms), rate)


class RingWaitDetector(ClapDetector):
    """Today's detector, with the close calls decided by the ring's trees after ``wait_ms``."""

    def __init__(self, *, ring_model: Model, ring_threshold: float, margin: float,
                 wait_ms: float = 130.0, ring: str = "late_db", **kw: Any) -> None:
        if ring not in RING_INPUTS:
            raise ValueError(f"ring input {ring!r} is not one of {RING_INPUTS}")
        self._ring_model, self._ring_threshold = ring_model, float(ring_threshold)
        self._ring = ring
        self._margin, self._wait_ms = float(margin), float(wait_ms)
        self._held: dict[int, bool] = {}
        self._scored: dict[int, tuple[tuple[float, ...], bool, float, bool]] = {}
        #: (onset time, time of the last sample in when emitted, close call) of every clap emitted
        self.decisions: list[tuple[float, float, bool]] = []
        #: close calls decided by the ring's trees (claps or not)
        self.close_calls = 0
        super().__init__(**kw)

    def reset(self) -> None:
        self._held, self._scored = {}, {}
        super().reset()

    def _configure(self, rate: int) -> None:
        super()._configure(rate)
        # the ring's last sample (voicing to wait_ms) and one more
        self._wait = round(self._wait_ms * rate / 1000.0) + 1

    def _score(self, p: int) -> tuple[tuple[float, ...], bool, float, bool]:
        """The burst's values, whether it passes the level and rise checks, its score (the floor
        route's expert's when the route takes it, else today's trees'), and whether it is a close
        call (a trees' score within the margin; a routed burst never is)."""
        vals = self._meter.measure(self._buf, p - self._b0, gain2=self._gain2)
        ok = vals[0] >= self._min_peak_db and vals[1] >= self.min_rise_db
        if not ok:
            return vals, False, -99.0, False
        expert = None if self._route is None else self._route.score(self._buf, p - self._b0, vals)
        if expert is not None:
            return vals, True, expert, False
        t = clap_score(np.asarray(vals[1:]), self.model)
        return vals, True, t, abs(t - self.threshold) < self._margin

    def _waits(self, p: int) -> bool:
        """Whether the burst at ``p`` is a close call that needs its ring (computed once; the
        score is kept for ``_judge``)."""
        if p not in self._held:
            if p - self._last_clap >= self._gap:
                self._scored[p] = got = self._score(p)
                self._held[p] = got[3]
            else:
                self._held[p] = False
        return self._held[p]

    def _judge_ready(self) -> list[Clap]:
        out: list[Clap] = []
        end = self._end
        regions = self._regions
        ready = 0
        if regions and regions[0] + self._ahead <= end:
            need = self._region[1] + self._local + self._hop + 1
            while ready < len(regions) and regions[ready] + need <= end:
                ready += 1
        if ready:
            self._find_peaks(regions[:ready])
            del regions[:ready]
        peaks = self._peaks
        while peaks and peaks[0][0] + self._ahead <= end:
            p, onset = peaks[0]
            if p + self._wait > end and self._waits(p):
                break                                  # held: its ring is not in yet
            peaks.pop(0)
            clap = self._judge(p, onset)
            if clap is not None:
                out.append(clap)
        head = 1 << 62
        if peaks:
            p = peaks[0][0]
            head = p + self._wait if p + self._ahead <= end and self._waits(p) else p + self._ahead
        self._due = min((regions[0] + self._ahead) if regions else 1 << 62, head)
        return out

    def _close_score(self, p: int, vals: tuple[float, ...], t: float) -> float:
        """A close call's score (today's trees' ``t``): the ring's trees', shifted onto today's threshold."""
        level, voiced = ring_inputs(self._buf, p - self._b0, self._meter.rate, voiced_ms=self._wait_ms,
                                    ring=self._ring)
        ring = clap_score(np.asarray((*vals[1:], level, voiced)), self._ring_model)
        return ring - self._ring_threshold + self.threshold

    def _judge(self, p: int, onset: int) -> Clap | None:
        self._held.pop(p, None)
        gap_ok = p - self._last_clap >= self._gap
        if not (gap_ok or self.keep_features):
            return None
        got = self._scored.pop(p, None)
        vals, ok, score, close = self._score(p) if got is None else got
        if close:
            self.close_calls += 1
            score = self._close_score(p, vals, score)
        t0, rate = self._t0 or 0.0, self._meter.rate
        t_onset = t0 + onset / rate
        if self.keep_features:
            self.features.append(BurstFeatures(*(t_onset, t0 + p / rate, *vals, score)))
        if not (ok and gap_ok) or score < self.threshold or (self._room_j and self.is_room(vals)):
            return None
        if self._under_recent_claps(p, vals[0], rate):
            return None
        self._last_clap = p
        self._recent.append((p, vals[0]))
        self.decisions.append((t_onset, t0 + self._end / rate, bool(close)))
        return Clap(t=t_onset, strength=min(1.0, db_to_level(vals[0]) / 100.0))
