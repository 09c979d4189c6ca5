"""Clap detection: one event per hand clap, told apart from other sounds by what a clap *is*.

A clap is a burst of noise that jumps tens of dB within a few milliseconds, has its
energy spread over ~0.5-4 kHz with no pitch or ring, and is over within ~10 ms. The
detector finds bursts with a cheap test on a fixed 1 ms grid, then judges each burst on
the signal around its peak sample only (``clap_features.py``: rise, attack, decay,
tail, spectral balance and flatness, scored by a small logistic regression whose
constants are chosen leave-one-source-out by ``benchmarks/clap_training.py``).

How it streams, and why the result does not depend on the blocks or the start:

1. Samples go into one buffer indexed by their position in the stream; before the
   first sample the stream counts as digital silence (so prepending zeros changes
   nothing, and a clap in the first milliseconds is found: no learning period).
2. Complete 1 ms frames, on a grid anchored at sample 0, are tested: frame ``k`` is a
   candidate when its power of the first difference is >= 6 dB over the mean of the
   frames 30..7 ms before it and its power reaches ``min_level``. Blocks too quiet to
   hold such a frame are skipped after one comparison (the level stage's energy).
3. A candidate's peak ``p`` is the loudest sample of the 1 ms envelope in the 12 ms
   from 2 ms before it; it must be the loudest within +-12 ms. Every later measurement
   is anchored at ``p``, to the sample, so a different grid phase or block size finds
   the same ``p`` and the same numbers.
4. ``p`` is judged once ``POST_MS`` (25 ms) after it have arrived: a clap needs
   ``peak_db`` >= ``min_level``, ``rise_db`` >= ``min_rise_db`` (10 dB; >= 4 dB above the
   grid test's 6, so grid phase never decides) and ``score`` >= ``threshold`` (0).
   Claps closer than ``min_gap_ms`` (75 ms, 3/4 of the fastest clapping people do)
   are one clap.

Settings (keyword-only): ``min_level`` (activity level 0..100 of the 1 ms peak after
``gain``; default 20 = -54 dBFS), ``threshold`` (score offset: lower finds softer,
odder claps and more false ones), ``min_rise_db``, ``min_gap_ms``. ``t`` of a ``Clap``
is its onset (first sample within 10 dB of the peak); ``strength`` is the peak's level
/ 100. Latency: 25-30 ms after the onset, plus the block that brings those samples.

Cost: ~1 us per block below ``min_level``; ~3-6 us per louder block (the grid test);
~100 us per burst judged (a few per second of busy sound).

Failure modes: ``ConfigError`` for a rate outside 8000..48000 Hz, a rate change
mid-stream, a stereo block with ``channels=1``, or a bad setting (each names the
value). A block with NaN/Inf samples is logged, counted in ``skipped_blocks`` and
skipped; the stream restarts after it (as if from silence). Known limits: see the
README's audio table (per source, leave-one-source-out).

``ClapPatternTracker`` turns claps into ``ClapPattern`` events: ``count`` claps, each
within ``max_gap_ms`` of the previous one (a double clap is ``count=2``).
"""
from __future__ import annotations

import logging
import math
from typing import Iterable, Sequence

import numpy as np

from sensekit.audio.clap_features import FEATURES, BurstFeatures, BurstMeter, clap_score
from sensekit.audio.gain import UNITY_GAIN, gain_to_factor
from sensekit.audio.level import db_to_level, level_to_db, mono
from sensekit.capture.base import AudioBlock
from sensekit.errors import ConfigError
from sensekit.events import Clap, ClapPattern
from sensekit.validate import check_int_range, check_positive, check_range

__all__ = ["BurstFeatures", "ClapDetector", "ClapPatternTracker", "FEATURES", "check_rate"]

log = logging.getLogger(__name__)

_NO_CLAPS: tuple[Clap, ...] = ()   # shared empty result (no allocation per quiet block)

MIN_RATE = 8000
MAX_RATE = 48000
_TINY = 1e-20
_GRID_RISE = 10.0 ** 0.6          # 6 dB: the grid test's rise over the frames before
_BASE_FRAMES = (30, 7)            # the grid test's reference: frames k-30 .. k-7
_REGION_MS = (2.0, 12.0)          # a candidate's peak is searched from 2 ms before, over 12 ms
_LOCAL_MS = 12.0                  # the peak is the loudest sample within +-12 ms
_ONSET_DB = 10.0                  # onset: first sample within 10 dB of the peak


def check_rate(rate: int, what: str = "detector") -> int:
    """Validate a sample rate for the audio detectors (8000..48000 Hz)."""
    if isinstance(rate, bool) or not isinstance(rate, (int, np.integer, float)) or rate != int(rate):
        raise ConfigError(f"sample rate must be an integer number of Hz, got {rate!r}")
    r = int(rate)
    if not MIN_RATE <= r <= MAX_RATE:
        raise ConfigError(
            f"sample rate {r} Hz is not supported by the {what}; it handles {MIN_RATE}..{MAX_RATE} Hz"
        )
    return r


class ClapDetector:
    """Streaming hand-clap detector: ``feed(block)`` or ``process(samples, t, rate)``.

    The module docstring says how it decides and what each setting does.
    """

    def __init__(
        self,
        *,
        rate: int | None = None,
        channels: int | None = None,
        gain: float = UNITY_GAIN,
        min_level: float = 20.0,
        threshold: float | None = None,
        min_rise_db: float = 10.0,
        min_gap_ms: float = 75.0,
        model: dict | None = None,
    ) -> None:
        self.rate = check_rate(rate, "clap detector") if rate is not None else None
        self.channels = None if channels is None else check_int_range("channels", channels, 1, 64)
        self.gain = check_range("gain", gain, 0, 100)
        self._gain2 = gain_to_factor(self.gain) ** 2
        self.min_level = check_range("min_level", min_level, 0, 100)
        if threshold is None:
            from sensekit.audio.clap_model import THRESHOLD as threshold
        self.threshold = check_range("threshold", threshold, -20, 20)
        self.min_rise_db = check_range("min_rise_db", min_rise_db, 8, 40)
        self.min_gap_ms = check_range("min_gap_ms", min_gap_ms, 0, 1000)
        self.model = model
        #: when True, the features of every judged burst are appended to ``features``
        self.keep_features = False
        self.features: list[BurstFeatures] = []
        self.skipped_blocks = 0
        self.reset()

    # -- settings ------------------------------------------------------------
    def set_gain(self, gain: float) -> None:
        """Change the gain (0..100, 50 = unity) from the next block on."""
        self.gain = check_range("gain", gain, 0, 100)
        self._gain2 = gain_to_factor(self.gain) ** 2

    def set_min_level(self, min_level: float) -> None:
        """Change the level (0..100) a clap's 1 ms peak must reach, from the next block on."""
        self.min_level = check_range("min_level", min_level, 0, 100)

    @property
    def latency_ms(self) -> float:
        """How long after a clap's peak it is decided (plus the block that completes it)."""
        return max(_LOCAL_MS, 25.0)

    # -- state ---------------------------------------------------------------
    def reset(self) -> None:
        """Forget the stream: buffer, candidates, last clap, start time."""
        self._t0: float | None = None
        self._buf = np.zeros(0, np.float32)
        self._b0 = 0                       # stream index of _buf[0] (negative: virtual zeros)
        self._end = 0                      # stream index after the last sample
        self._fnext = 0                    # first grid frame not yet tested
        self._prev_n = 0                   # length and sum of squares of the previous block
        self._prev_ss = 0.0
        self._regions: list[int] = []      # candidate search starts waiting for their 12 ms
        self._peaks: list[int] = []        # peaks waiting for their look-ahead
        self._last_peak = -(1 << 62)       # last peak judged (peaks only move forward)
        self._last_clap = -(1 << 62)       # peak of the last clap reported
        if self.rate is not None:
            self._configure(self.rate)

    def _configure(self, rate: int) -> None:
        self.rate = rate
        self._meter = m = BurstMeter(rate)
        self._hop = m.hop
        self._region = (m.ms(_REGION_MS[0]), m.ms(_REGION_MS[1]))
        self._local = m.ms(_LOCAL_MS)
        self._ahead = max(self._local, m.post) + m.hop + 1
        self._back = max(m.pre, self._local, (_BASE_FRAMES[0] + 1) * m.hop) + m.hop + 1
        self._gap = round(rate * self.min_gap_ms / 1000.0)

    def _start(self, t: float) -> None:
        self._t0 = t
        keep = self._back + self._region[0] + 2 * self._hop
        self._buf = np.zeros(max(4096, 4 * keep), np.float32)
        self._b0 = -keep                   # virtual silence before the first sample
        self._end = 0
        self._fnext = 0

    # -- streaming -------------------------------------------------------------
    def feed(self, block: AudioBlock) -> Sequence[Clap]:
        """Feed an ``AudioBlock``."""
        return self.process(block.samples, block.t, block.rate, index=block.index)

    def process(self, samples: np.ndarray, t: float, rate: int, *, index: int = 0,
                energy: float | None = None) -> Sequence[Clap]:
        """Feed one block (float32, (n,) or (n, ch)); returns the claps it completes.

        ``energy`` is the block's mean square before gain, when the caller already has
        it (the level stage computes it once per block). NaN/Inf blocks are skipped.
        """
        if rate != self.rate:
            if self._t0 is not None:
                raise ConfigError(f"sample rate changed from {self.rate} to {rate} Hz at audio "
                                  f"block {index}; call reset() first")
            self._configure(check_rate(rate, "clap detector"))
        x = samples
        if x.ndim != 1 or x.dtype.char != "f":
            x = mono(x, channels=self.channels, index=index)
        n = len(x)
        if n == 0:
            return _NO_CLAPS
        if energy is None:
            energy = float(np.dot(x, x)) / n
        if not math.isfinite(energy):
            self.skipped_blocks += 1
            log.warning("clap detector: audio block %d at t=%.3f s has NaN/Inf samples; skipped "
                        "(the stream restarts at the next block)", index, t)
            self.reset()
            return _NO_CLAPS
        if self._t0 is None:
            self._start(t)
        start = self._end
        self._append(x)
        end = self._end
        # -- grid test on the frames this block completes ----------------------------
        hop = self._hop
        k1 = end // hop
        ss = energy * n
        if k1 > self._fnext:
            # a frame ending here lies in this block and the hop samples before it
            prev = self._prev_ss if self._prev_n >= hop else self._sumsq(start - hop, start)
            if (ss + prev) * self._gain2 >= self._min_frame_energy():
                self._grid(self._fnext, k1)
            self._fnext = k1
        self._prev_n, self._prev_ss = n, ss
        if not self._regions and not self._peaks:
            return _NO_CLAPS
        out = self._judge_ready()
        return out

    def _min_frame_energy(self) -> float:
        return 10.0 ** (level_to_db(self.min_level) / 10.0) * self._hop

    def _sumsq(self, a: int, b: int) -> float:
        seg = self._buf[a - self._b0: b - self._b0]
        return float(np.dot(seg, seg))

    def _append(self, x: np.ndarray) -> None:
        n = len(x)
        used = self._end - self._b0
        if used + n > len(self._buf):
            keep_from = self._end - self._back - self._region[0] - 2 * self._hop
            for s in self._regions[:1] + self._peaks[:1]:
                keep_from = min(keep_from, s - self._back)
            drop = max(0, keep_from - self._b0)
            kept = used - drop
            if kept + n > len(self._buf):
                new = np.zeros(2 * (kept + n), np.float32)
                new[:kept] = self._buf[drop:used]
                self._buf = new
            else:
                self._buf[:kept] = self._buf[drop:used]
            self._b0 += drop
            used = kept
        self._buf[used: used + n] = x
        self._end += n

    def _grid(self, k0: int, k1: int) -> None:
        """Test grid frames k0..k1-1; queue a search region for each candidate."""
        hop = self._hop
        kb = k0 - _BASE_FRAMES[0]
        a = kb * hop - 1 - self._b0                      # one sample more for the difference
        seg = self._buf[a: k1 * hop - self._b0]
        d = np.diff(seg)
        pd = np.einsum("ij,ij->i", *(d.reshape(-1, hop),) * 2)
        xs = seg[1 + (k0 - kb) * hop:].reshape(-1, hop)
        px = np.einsum("ij,ij->i", xs, xs)
        c = np.cumsum(pd)
        nb = _BASE_FRAMES[0] - _BASE_FRAMES[1] + 1           # frames k-30 .. k-7
        lo = np.arange(k0 - kb, k1 - kb) - _BASE_FRAMES[0]   # index of frame k-30 in pd
        base = (c[lo + nb - 1] - c[lo] + pd[lo]) / nb
        now = pd[k0 - kb:]
        hit = ((now >= _GRID_RISE * base) & (now > pd[k0 - kb - 1: len(pd) - 1])
               & (px * self._gain2 >= self._min_frame_energy()))
        if hit.any():
            r0 = self._region[0]
            for k in (np.flatnonzero(hit) + k0).tolist():
                self._regions.append(k * hop - r0)

    def _judge_ready(self) -> list[Clap]:
        out: list[Clap] = []
        end = self._end
        span = self._region[1]
        regions = self._regions
        ready = 0
        while ready < len(regions) and regions[ready] + span + self._hop <= end:
            ready += 1
        if ready:
            a = regions[0]
            e = self._envelope(a, regions[ready - 1] + span)
            peaks = self._peaks
            last = peaks[-1] if peaks else self._last_peak
            for s in regions[:ready]:
                p = s + int(np.argmax(e[s - a: s - a + span]))
                if p > last:
                    peaks.append(p)
                    last = p
            del regions[:ready]
        peaks = self._peaks
        while peaks and peaks[0] + self._ahead <= end:
            p = peaks.pop(0)
            self._last_peak = p
            clap = self._judge(p)
            if clap is not None:
                out.append(clap)
        return out

    def _envelope(self, a: int, b: int) -> np.ndarray:
        """The 1 ms envelope ``e`` for stream samples a..b-1."""
        h = self._hop
        lo = a - h // 2 - 1 - self._b0
        seg = self._buf[lo: lo + (b - a) + h + 1].astype(np.float64)
        d = np.diff(seg)
        c = np.concatenate(([0.0], np.cumsum(d * d)))
        return (c[h: h + b - a] - c[: b - a]) / h

    def _judge(self, p: int) -> Clap | None:
        loc = self._local
        e = self._envelope(p - loc, p + loc + 1)
        if e[loc] < e.max():
            return None                                   # a louder sample nearby owns this burst
        gap_ok = p - self._last_clap >= self._gap
        if not (gap_ok or self.keep_features):
            return None
        vals = self._meter.measure(self._buf, p - self._b0, gain2=self._gain2)
        peak_db, rise_db = vals[0], vals[1]
        ok = peak_db >= level_to_db(self.min_level) and rise_db >= self.min_rise_db
        score = clap_score(np.asarray(vals[1:]), self.model) if ok or self.keep_features else -99.0
        back = e[: loc + 1] >= e[loc] * 10.0 ** (-_ONSET_DB / 10.0)
        t0 = self._t0 or 0.0
        t_onset = t0 + (p - loc + int(np.argmax(back))) / self.rate
        if self.keep_features:
            self.features.append(BurstFeatures(t_onset, t0 + p / self.rate, *vals, score=score))
        if not (ok and gap_ok) or score < self.threshold:
            return None
        self._last_clap = p
        return Clap(t=t_onset, strength=min(1.0, db_to_level(peak_db) / 100.0))


class ClapPatternTracker:
    """Groups claps into n-clap patterns: ``count`` claps, consecutive gaps <= ``max_gap_ms``.

    ``add(clap)`` returns a ``ClapPattern`` when the ``count``-th clap of a run arrives,
    then starts a new run (so four quick claps give two double claps, not three).
    """

    def __init__(self, count: int = 2, max_gap_ms: float = 600.0, min_gap_ms: float = 0.0) -> None:
        self.count = check_int_range("count", count, 2, 16)
        self.max_gap_ms = check_positive("max_gap_ms", max_gap_ms)
        self.min_gap_ms = check_positive("min_gap_ms", min_gap_ms, allow_zero=True)
        self._times: list[float] = []

    def reset(self) -> None:
        self._times.clear()

    def add(self, clap: Clap) -> ClapPattern | None:
        if self._times and (clap.t - self._times[-1]) * 1000.0 > self.max_gap_ms:
            self._times.clear()
        self._times.append(clap.t)
        if len(self._times) == self.count:
            times = tuple(self._times)
            self._times.clear()
            return ClapPattern(t=clap.t, count=self.count, times=times)
        return None

    def add_all(self, claps: Iterable[Clap]) -> list[ClapPattern]:
        out = []
        for c in claps:
            p = self.add(c)
            if p is not None:
                out.append(p)
        return out
