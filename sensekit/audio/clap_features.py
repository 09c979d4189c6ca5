"""What a clap is, measured: the features of one burst, and the shipped decision on them.

A hand clap is the air pushed out from between two palms: a burst of noise that jumps
tens of dB within a few milliseconds, has most of its energy between ~0.5 and 4 kHz
with no single resonance (no pitch, no ring), and is over within ~10 ms, leaving only
the room's reverberation. Everything here is measured at one *peak sample* ``p`` of
the burst, on the signal around it only, so the same burst gives the same numbers
wherever the stream started and however it was cut into blocks.

``e`` is the 1 ms moving mean of ``d**2`` (``d`` = first difference of the signal, a
+6 dB/octave tilt that lifts the clap band out of hum, rumble and bass), centred on
each sample. The features (all in dB, except flatness):

============  ==============================================================  ========
feature       definition                                                      why
============  ==============================================================  ========
peak_db       mean ``x**2`` over the 1 ms around ``p`` (dBFS, after gain)     level
rise_db       ``e[p]`` over the mean ``d**2`` from 35 to 10 ms before ``p``   onset
attack_db     ``e[p]`` over the mean ``d**2`` from 5 to 2 ms before ``p``     instant
decay_db      mean ``d**2`` from 3 to 13 ms after ``p``, relative to ``e[p]`` short
tail_db       mean ``d**2`` from 13 to 25 ms after ``p``, relative to ``e[p]`` no ring
low_db        energy below 500 Hz over the 0.5-4 kHz energy (12 ms Hann      knocks,
              window from 4 ms before ``p``)                                  kicks
tilt_db       2-4 kHz over 0.5-2 kHz energy                                   hi-hats
air_db        4.5 kHz..min(0.45 rate, 16 kHz) over 0.5-4 kHz (NaN at 8 kHz)   snaps
flatness      spectral flatness of 0.5-4 kHz (1 = white noise, 0 = a tone)    tones
============  ==============================================================  ========

``rise_db`` and ``attack_db`` are capped at 40 dB (before the stream's first sample the
signal counts as digital silence, so a clap at t = 0 reads the cap; prepending zeros
changes nothing). ``clap_score`` is a logistic regression on the standardised
features; its constants (``MODEL``) are written by ``benchmarks/clap_training.py``,
which chooses them with leave-one-source-out on the developer clips plus augmented
copies (gain, resampling to 8/16 kHz, synthetic reverberation, clipping, mixing with
speech and music). A score >= 0 means "clap".

Cost: one 12 ms FFT and a few cumulative sums, ~60-120 us per burst. Needs
``PRE_MS`` before and ``POST_MS`` after ``p``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

PRE_MS = 250.0       # signal needed before the peak (the calm window)
POST_MS = 30.0       # signal needed after the peak (fall times)
CAP_DB = 40.0        # rise and attack are capped here
CONTRAST_CAP_DB = 60.0
_TINY = 1e-20

FEATURES = ("rise_db", "attack_db", "contrast_db", "steep_db", "fall10_ms", "fall20_ms",
            "decay_db", "tail_db", "body_db", "low_db", "tilt_db", "air_db", "flatness",
            "zcr_khz", "centroid_oct", "spread_db", "calm_db")


@dataclass(frozen=True, slots=True)
class BurstFeatures:
    """The measurements of one burst (``t_*`` in stream seconds) and its score."""
    t_onset: float
    t_peak: float
    peak_db: float
    rise_db: float
    attack_db: float
    contrast_db: float
    steep_db: float
    fall10_ms: float
    fall20_ms: float
    decay_db: float
    tail_db: float
    body_db: float
    low_db: float
    tilt_db: float
    air_db: float
    flatness: float
    zcr_khz: float
    centroid_oct: float
    spread_db: float
    calm_db: float
    score: float = 0.0

    def vector(self) -> np.ndarray:
        return np.array([getattr(self, k) for k in FEATURES], dtype=np.float64)

    def as_dict(self) -> dict[str, float]:
        return {k: float(getattr(self, k)) for k in self.__slots__}


class TreeModel:
    """Boosted trees as arrays (``clap_model.MODEL``, written by ``benchmarks/train_clap.py``).

    ``score(v)`` is the log-odds that the burst with features ``v`` (``FEATURES`` order,
    NaN = not measured) is a clap: ``base`` plus one leaf per tree, reached by
    ``depth`` comparisons ``v[feature] > threshold`` (NaN goes left).
    """

    def __init__(self, model: dict) -> None:
        self.depth = int(model["depth"])
        self.base = float(model["base"])
        self.feature = np.asarray(model["feature"], np.intp)
        self.threshold = np.asarray(model["threshold"], np.float64)
        self.leaf = np.asarray(model["leaf"], np.float64)
        self._rows = np.arange(len(self.feature))
        self._n_int = 2 ** self.depth - 1

    def score(self, v: np.ndarray) -> float:
        rows = self._rows
        node = np.zeros(len(rows), np.intp)
        for _ in range(self.depth):
            go = v[self.feature[rows, node]] > self.threshold[rows, node]
            node = 2 * node + 1 + go
        return self.base + float(self.leaf[rows, node - self._n_int].sum())


_MODELS: dict[int, TreeModel] = {}


def clap_score(v: np.ndarray, model: dict | None = None) -> float:
    """Log-odds of "this burst is a clap" (``v`` in ``FEATURES`` order; NaN = not measured)."""
    if model is None:
        from sensekit.audio.clap_model import MODEL as model
    tm = _MODELS.get(id(model))
    if tm is None:
        tm = _MODELS[id(model)] = TreeModel(model)
    return tm.score(v)


class BurstMeter:
    """Precomputed windows and bands for one sample rate; ``measure`` does one burst."""

    def __init__(self, rate: int) -> None:
        self.rate = rate
        ms = self.ms
        self.hop = max(1, round(rate / 1000.0))                  # 1 ms
        self.pre = ms(PRE_MS)
        self.post = ms(POST_MS)
        n = ms(12.0)
        self._spec_off = ms(4.0)
        self._nfft = 1 << max(6, math.ceil(math.log2(n)))
        win = np.zeros(self._nfft)
        win[:n] = np.hanning(n)
        self._win = win
        self._nwin = n
        f = np.fft.rfftfreq(self._nfft, 1.0 / rate)
        top = min(16000.0, 0.45 * rate)
        self._lo = (f >= 50.0) & (f < 500.0)
        self._mid = (f >= 500.0) & (f < 2000.0)
        self._high = (f >= 2000.0) & (f < 4000.0)
        self._core = self._mid | self._high
        self._freqs = f
        self._core4 = (f >= 250.0) & (f < 4000.0)
        self._octaves = [(f >= lo) & (f < 2 * lo) for lo in (500.0, 1000.0, 2000.0)]
        self._air = (f >= 4500.0) & (f < top) if top > 5000.0 else None

    def ms(self, v: float) -> int:
        return max(1, round(self.rate * v / 1000.0))

    def envelope(self, x: np.ndarray) -> np.ndarray:
        """``e`` for every sample of ``x[1:]`` (centred 1 ms mean of the squared difference)."""
        d = np.diff(x.astype(np.float64))
        c = np.concatenate(([0.0], np.cumsum(d * d)))
        h = self.hop
        a = h // 2
        n = len(d)
        i = np.arange(n)
        lo = np.clip(i - a, 0, n)
        hi = np.clip(i - a + h, 0, n)
        return (c[hi] - c[lo]) / h

    def measure(self, x: np.ndarray, p: int, *, gain2: float = 1.0) -> tuple[float, ...]:
        """Features of the burst peaking at ``x[p]``; ``x`` holds ``pre`` before, ``post`` after.

        Returns ``(peak_db,) + FEATURES``.
        """
        ms = self.ms
        h = self.hop
        seg = x[p - self.pre - h: p + self.post + h].astype(np.float64)
        q = self.pre + h                                          # index of p in seg
        d = np.diff(seg)                                          # d[i] = seg[i+1] - seg[i]
        c = np.concatenate(([0.0], np.cumsum(d * d)))
        qd = q - 1                                                # p in d

        def mean_d2(a: int, b: int) -> float:                     # [qd + a, qd + b)
            return (c[qd + b] - c[qd + a]) / (b - a)

        # e for every sample of seg[h:-h] (centred 1 ms), and in dB
        lo = np.arange(h, len(seg) - h) - 1 - h // 2
        env = (c[lo + h] - c[lo]) / h + _TINY
        db = 10.0 * np.log10(env)
        qe = q - h                                                # p in env
        e_p = env[qe]
        pk = db[qe]
        xs = seg[q - h // 2: q - h // 2 + h]
        peak_db = 10.0 * math.log10(float(np.dot(xs, xs)) / h * gain2 + _TINY)
        rise = 10.0 * math.log10(e_p / (mean_d2(-ms(35.0), -ms(10.0)) + _TINY))
        attack = 10.0 * math.log10(e_p / (mean_d2(-ms(5.0), -ms(2.0)) + _TINY))
        contrast = pk - float(np.median(db[qe - ms(32.0): qe - ms(4.0)]))
        calm = pk - float(np.percentile(db[qe - ms(250.0): qe - ms(5.0): h], 10.0))
        k = ms(1.0)
        win = db[qe - ms(10.0): qe + 1]
        steep = min(CAP_DB, float(np.max(win[k:] - win[:-k])))
        after = db[qe: qe + ms(30.0)]
        fall10 = _first_below(after, pk - 10.0) * 1000.0 / self.rate
        fall20 = _first_below(after, pk - 20.0) * 1000.0 / self.rate
        decay = 10.0 * math.log10(mean_d2(ms(3.0), ms(13.0)) / e_p + _TINY)
        tail = 10.0 * math.log10(mean_d2(ms(13.0), ms(25.0)) / e_p + _TINY)
        cx = np.cumsum(seg[q + ms(3.0): q + ms(15.0)] ** 2)
        body = 10.0 * math.log10(float(cx[-1]) / len(cx) / (float(np.dot(xs, xs)) / h + _TINY) + _TINY)
        w = seg[q - self._spec_off: q - self._spec_off + self._nwin]
        buf = np.zeros(self._nfft)
        buf[: len(w)] = w
        spec = np.abs(np.fft.rfft(buf * self._win)) ** 2 + _TINY
        core = float(spec[self._core].sum())
        mid = float(spec[self._mid].sum())
        low = 10.0 * math.log10(float(spec[self._lo].sum()) / core)
        tilt = 10.0 * math.log10(float(spec[self._high].sum()) / mid)
        air = (10.0 * math.log10(float(spec[self._air].sum()) / core)
               if self._air is not None else math.nan)
        sp = spec[self._core]
        flat = float(np.exp(np.mean(np.log(sp))) / np.mean(sp))
        zb = seg[q - ms(2.0): q + ms(6.0)]
        zb = zb - zb.mean()
        zcr = float(np.count_nonzero(np.signbit(zb[1:]) != np.signbit(zb[:-1]))) / (2.0 * len(zb) / self.rate * 1000.0)
        cent = math.log2(float(np.dot(self._freqs[self._core4], spec[self._core4])
                               / spec[self._core4].sum()) / 1000.0)
        octs = [float(spec[m].sum()) for m in self._octaves]
        spread = 10.0 * math.log10(min(octs) / max(octs))
        return (peak_db, min(CAP_DB, rise), min(CAP_DB, attack), min(CONTRAST_CAP_DB, contrast),
                steep, fall10, fall20, decay, tail, body, low, tilt, air, flat, zcr, cent, spread, min(CONTRAST_CAP_DB, calm))


def _first_below(v: np.ndarray, level: float) -> int:
    """Samples until ``v`` first drops below ``level`` (``len(v)`` if it never does)."""
    below = v < level
    return int(np.argmax(below)) if below.any() else len(v)
