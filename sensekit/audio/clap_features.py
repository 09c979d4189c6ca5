"""What a clap is, measured: the features of one burst, and the score on them.

A hand clap is the air pushed out from between two palms: a burst of noise that jumps
tens of dB within a few milliseconds, has its energy spread over ~0.5-4 kHz with no
pitch or ring, and is over within ~10 ms, leaving only the room's reverberation. Every
feature is measured at one *peak sample* ``p`` of the burst, on the signal around it
only, so the same burst gives the same numbers wherever the stream started and however
it was cut into blocks.

``d`` is the signal's clap band (``clap_band``: a difference of two ~0.17 ms boxes,
+6 dB/octave up to ~2-3 kHz and falling above, so a clap rises out of hum, rumble and bass
*and* out of white or pink noise, whose power sits above 5 kHz); ``e`` is the 1 ms mean of
``d**2`` on quarter-millisecond bins anchored at ``p``. Every onset and shortness feature
is a ratio to the signal just before or after the burst, never an absolute level, and the
spectrum is the burst's minus the room's just before it: what a clap rises over is the
running noise floor and spectrum. The 16 features (``FEATURES``), grouped by what they say:

- **onset**: ``rise_db`` (``e[p]`` over the mean ``d**2`` 35..10 ms before), ``attack_db``
  (over 5..2 ms before), ``contrast_db`` (over the median of ``e`` 32..4 ms before),
  ``steep_db`` (largest rise of ``e`` within 1 ms, up to ``p``);
- **shortness**: ``fall10_ms``/``fall20_ms`` (time until ``e`` is 10/20 dB down),
  ``decay_db`` (3..13 ms after, re ``e[p]``), ``tail_db`` (13..25 ms after), ``body_db``
  (``x**2`` 3..15 ms after, re the 1 ms peak: a drum's body, a vowel);
- **spectrum** of a 12 ms Hann window from 4 ms before ``p``, less the background's (the
  same window 34..22 ms before ``p``; each bin keeps at least 5 %): ``low_db`` (50-500 Hz re
  0.5-4 kHz: knocks, kicks), ``tilt_db`` (2-4 over 0.5-2 kHz), ``air_db`` (4.5 kHz..
  min(0.45 rate, 16 kHz) re 0.5-4 kHz; NaN at 8 kHz: hi-hats, snaps, keys),
  ``flatness`` (0.5-4 kHz; 0 = a tone), ``centroid_oct`` (log2 of the 0.25-4 kHz
  centroid in kHz), ``spread_db`` (weakest of the 0.5-1, 1-2, 2-4 kHz octaves re the
  strongest), ``zcr_khz`` (zero crossings from 2 ms before to 6 ms after, in kHz).

``peak_db`` (the 1 ms peak, dBFS after gain) is measured too but is not a feature:
loudness decides nothing beyond ``min_level``. The onset features are capped (40, 60 dB):
before the stream's first sample the signal counts as digital silence, so a clap at
t = 0 reads the cap and prepending zeros changes nothing. At rates that are not a
multiple of 4 kHz a "quarter millisecond" is up to 9 % off.

``clap_score`` is the log-odds from boosted trees (``TreeModel``; the shipped one is
``clap_model.MODEL``, written by ``benchmarks/train_clap.py`` from
``clap_training.py``). Cost: ~100 us per burst for the features (one FFT, a few
cumulative sums) and ~15 us for the trees (every tree at once: ``clap_trees.BitTrees``).
``measure`` needs ``pre`` samples before and ``post`` after ``p``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from sensekit.audio.numpy_calls import add_acc, count_nonzero, einsum, maximum_acc, reduce_max, rfft_ufuncs, sum_reduce

from sensekit.audio.clap_trees import MAX_DEPTH, BitTrees

PRE_MS = 36.0        # signal needed before the peak (rise window + 1 ms)
POST_MS = 30.0       # signal needed after the peak (fall times)
CAP_DB = 40.0        # rise and attack are capped here
CONTRAST_CAP_DB = 60.0
_FLOOR = 0.05        # spectral subtraction keeps at least 5 % (-13 dB) of each bin
_TINY = 1e-20
#: a tree model as ``clap_model.MODEL`` holds it: depth, base, and per tree its split
#: features, thresholds and leaf values
Model = dict[str, Any]

FEATURES = ("rise_db", "attack_db", "contrast_db", "steep_db", "fall10_ms", "fall20_ms",
            "decay_db", "tail_db", "body_db", "low_db", "tilt_db", "air_db", "flatness",
            "zcr_khz", "centroid_oct", "spread_db")


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

    A *routed* model (keys ``route``, ``split``, ``below``) holds two experts: a burst
    whose feature ``route`` is below ``split`` is scored by the trees of ``below`` (a
    model trained for bursts that rise little over their noise floor), every other one
    (NaN included) by this model's own trees. Each expert's own threshold is folded into
    its ``base``, so one decision threshold serves both. With ``either`` set, a burst under
    ``split`` gets the higher of both experts' scores (a clap if either says so).
    """

    def __init__(self, model: Model) -> None:
        below = model.get("below")
        self._below = TreeModel(below) if below is not None else None
        self._route = int(model.get("route", 0))
        self._split = float(model.get("split", -math.inf))
        self._either = bool(model.get("either", False))
        self.depth = d = int(model["depth"])
        self.base = float(model["base"])
        feature = np.asarray(model["feature"], np.intp)
        n_trees = len(feature)
        self._n_int = 2 ** d - 1
        self._feature = feature.ravel()
        self._threshold = np.asarray(model["threshold"], np.float64).ravel()
        self._leaf = np.asarray(model["leaf"], np.float64).ravel()
        self._first = np.arange(n_trees) * self._n_int           # node 0 of every tree
        self._leaf0 = np.arange(n_trees) * 2 ** d - self._n_int   # leaf index offset
        # every internal node's left child as a flat index: an internal node's, or on the
        # last level a leaf's (so one step is three takes, a compare and an add)
        j = np.arange(n_trees * self._n_int) % self._n_int
        t = np.arange(n_trees * self._n_int) // self._n_int
        self._left = np.where(2 * j + 1 < self._n_int, t * self._n_int + 2 * j + 1,
                              self._leaf0[t] + 2 * j + 1).astype(np.intp)
        # trees of depth <= 6 (the shipped ones): every leaf at once (clap_trees.BitTrees)
        self._bits = (BitTrees(self._feature.reshape(-1, self._n_int),
                               self._threshold.reshape(-1, self._n_int))
                      if 1 <= d <= MAX_DEPTH and n_trees else None)

    def leaf_index(self, v: np.ndarray) -> np.ndarray:
        """The flat index of the leaf ``v`` reaches in every tree (this model's own trees)."""
        if self._bits is not None:
            return self._bits.leaf_index(v)
        a: np.ndarray = self._first
        for _ in range(self.depth):
            a = self._left.take(a) + (v.take(self._feature.take(a)) > self._threshold.take(a))
        return a

    def score(self, v: np.ndarray) -> float:
        if self._below is not None and v[self._route] < self._split:
            if self._either:
                return max(self._below.score(v), self._own(v))
            return self._below.score(v)
        # the leaves summed in tree order by one numpy sum, whichever way they were found
        return self.base + float(self._leaf.take(self.leaf_index(v)).sum())

    def _own(self, v: np.ndarray) -> float:
        """This model's own trees, whatever the route."""
        return self.base + float(self._leaf.take(self.leaf_index(v)).sum())


def score_range(model: Model) -> tuple[float, float]:
    """The lowest and highest score ``model`` can give (over both experts when routed)."""
    lo = model["base"] + sum(min(v) for v in model["leaf"])
    hi = model["base"] + sum(max(v) for v in model["leaf"])
    below = model.get("below")
    if below is not None:
        blo, bhi = score_range(below)
        lo, hi = min(lo, blo), max(hi, bhi)
    return float(lo), float(hi)


#: the models scored lately: id -> (model, its TreeModel); a few only (the shipped trees'
#: tables are 7 MB, and evaluation scripts score one model per fold)
_MODELS: dict[int, tuple[Model, TreeModel]] = {}
_KEEP_MODELS = 8


def tree_model(model: Model | None = None) -> TreeModel:
    """The ``TreeModel`` of ``model`` (default the shipped ``clap_model.MODEL``), built once
    and kept while it is among the last few models used (the shipped trees' tables take
    ~16 ms to build: ``ClapDetector`` builds them when it is created, not at the first burst)."""
    if model is None:
        from sensekit.audio.clap_model import MODEL
        model = MODEL
    hit = _MODELS.get(id(model))
    if hit is not None and hit[0] is model:
        return hit[1]
    tm = TreeModel(model)
    _MODELS.pop(id(model), None)                 # (a dead model's id, reused)
    while len(_MODELS) >= _KEEP_MODELS:
        del _MODELS[next(iter(_MODELS))]         # the oldest
    _MODELS[id(model)] = (model, tm)
    return tm


def clap_score(v: np.ndarray, model: Model | None = None) -> float:
    """Log-odds of "this burst is a clap" (``v`` in ``FEATURES`` order; NaN = not measured)."""
    return tree_model(model).score(v)


class BurstMeter:
    """Precomputed windows and bands for one sample rate; ``measure`` does one burst.

    Time runs on quarter-millisecond bins anchored at the peak sample (``q`` samples
    each, ``hop = 4 q`` is "1 ms"; at rates that are not a multiple of 4 kHz a bin is
    up to 9 % longer or shorter): bin ``j`` holds the sum of ``d**2`` over the samples
    ``p + (j - 2) q .. p + (j - 1) q - 1``, so ``e`` at ``p + j q`` is bins ``j..j+3``.
    Bands are index ranges of a 12 ms Hann-windowed FFT from 4 ms before the peak.
    One meter per detector: ``measure`` reuses a scratch array (not for two threads at once).
    """

    def __init__(self, rate: int) -> None:
        self.rate = rate
        ms = self.ms
        self.q = q = max(1, round(rate / 4000.0))                # a quarter millisecond
        self.hop = 4 * q                                          # "1 ms"
        self.nb_pre = round(4 * PRE_MS) + 4                       # bins before the peak
        self.nb_post = round(4 * POST_MS) + 6
        self.width = band_width(rate)                             # clap_band's L
        self.band_pre = 2 * self.width - 1                        # history clap_band needs
        self.pre = self.nb_pre * q + self.band_pre                # samples needed before p
        self.post = self.nb_post * q
        n = ms(12.0)
        self._spec_off = ms(4.0)
        self._bg_off = ms(34.0)                                   # the background window
        self._win = np.hanning(n)
        self._nwin = n
        self._w2 = np.empty((2, n), np.float64)
        # np.fft.rfft(self._w2) as its own ufunc does it, into a kept array (fct 1: no norm)
        self._rfft = None if rfft_ufuncs is None else (rfft_ufuncs.rfft_n_even if n % 2 == 0
                                                       else rfft_ufuncs.rfft_n_odd)
        self._spec2 = np.empty((2, n // 2 + 1), np.complex128)
        self._two = np.empty((2, n // 2 + 1), np.float64)        # measure's scratch arrays
        self._sp = np.empty((2, n // 2 + 1), np.float64)
        self._cs = np.zeros(n // 2 + 2, np.float64)
        f = np.fft.rfftfreq(n, 1.0 / rate)
        def edge(hz: float) -> int:
            return int(np.searchsorted(f, hz))

        top = min(16000.0, 0.45 * rate)
        # band edges as indices into the cumulative spectrum (sum of bins a..b-1 = cs[b] - cs[a])
        self._b = {name: (edge(lo), edge(hi)) for name, lo, hi in (
            ("lo", 50, 500), ("mid", 500, 2000), ("high", 2000, 4000), ("core", 500, 4000),
            ("core4", 250, 4000), ("o1", 500, 1000), ("o2", 1000, 2000), ("o3", 2000, 4000),
            ("air", 4500, top))}
        self._b_lo = np.array([a for a, _ in self._b.values()], np.intp)
        self._b_hi = np.array([b for _, b in self._b.values()], np.intp)
        self._has_air = top > 5000.0
        self._core, self._core4 = self._b["core"], self._b["core4"]
        a, b = self._core4
        self._f4 = f[a:b]
        # per-burst constants: bin indices into measure's cumulative sum ``c`` and envelope
        B = self.bins
        z = self.nb_pre - 2                                       # bin index j = 0
        self._env_lo, self._env_hi = z - B(32.0), z + B(30.0)     # env: j = -128..119
        self._k0 = k0 = z - self._env_lo                          # j = 0 in env
        self._pre_end, self._win0, self._after_end = k0 - B(4.0), k0 - B(10.0), k0 + B(30.0)

        def at(v: float) -> int:
            return z + 2 + B(v) if v >= 0 else z + 2 - B(-v)
        spans = ((-35.0, -10.0), (-5.0, -2.0), (3.0, 13.0), (13.0, 25.0))   # ms, mean d**2
        self._me_i = np.array([at(a_) for a_, _ in spans], np.intp)
        self._me_k = np.array([at(b_) for _, b_ in spans], np.intp)
        self._me_n = ((self._me_k - self._me_i) * q).astype(np.float64)

    def ms(self, v: float) -> int:
        return max(1, round(self.rate * v / 1000.0))

    def bins(self, v: float) -> int:
        """Quarter-ms bins in ``v`` ms."""
        return max(1, round(v * 4.0))

    def measure(self, x: np.ndarray, p: int, *, gain2: float = 1.0) -> tuple[float, ...]:
        """Features of the burst peaking at ``x[p]``; ``x`` holds ``pre`` before, ``post`` after.

        Returns ``(peak_db,) + FEATURES``.
        """
        q, h = self.q, self.hop
        n0, n1 = self.nb_pre, self.nb_post
        k = self.band_pre
        bseg = x[p - n0 * q - k: p + n1 * q].astype(np.float64)   # k more for the band
        seg = bseg[k - 1:]                                        # x from p - n0 q - 1
        d = clap_band(bseg, self.width)                           # d[i] <-> seg[i + 1]
        dq = d.reshape(-1, q)
        b = einsum("ij,ij->i", dq, dq)                           # bin i <-> index i - n0 + 2
        c = np.empty(len(b) + 1)
        c[0] = 0.0
        add_acc(b, out=c[1:])
        # mean d**2 over -35..-10, -5..-2, 3..13 and 13..25 ms, element by element as one
        # call each (the same subtraction and division as one burst at a time)
        far, near, e3, e13 = ((c.take(self._me_k) - c.take(self._me_i)) / self._me_n).tolist()
        lo, hi, k0 = self._env_lo, self._env_hi, self._k0
        env = np.subtract(c[lo + 4: hi + 4], c[lo: hi])
        env /= h
        env += _TINY                                              # e at p + j q, j = -128..119
        db = np.log10(env)
        db *= 10.0
        e_p = float(env[k0])
        pk = float(db[k0])
        xs = seg[n0 * q + 1 - 2 * q: n0 * q + 1 + 2 * q]          # the 1 ms around p
        px = float(np.dot(xs, xs)) / h
        peak_db = 10.0 * math.log10(px * gain2 + _TINY)
        rise = 10.0 * math.log10(e_p / (far + _TINY))
        attack = 10.0 * math.log10(e_p / (near + _TINY))
        win = db[self._win0: k0 + 1]
        steep = min(CAP_DB, float(reduce_max(win[4:] - win[:-4])))  # largest rise within 1 ms
        # bins until the level first drops 10 / 20 dB under the peak (len if never): the
        # first j with -db[j] > 10 - pk, in the running maximum of -db
        fall = np.negative(db[k0: self._after_end])
        maximum_acc(fall, out=fall)
        i10, i20 = fall.searchsorted((10.0 - pk, 20.0 - pk), "right").tolist()
        fall10, fall20 = i10 * 0.25, i20 * 0.25
        pre = db[: self._pre_end]                                 # (db is not read after this)
        m = len(pre) // 2
        pre.partition(m)
        contrast = pk - float(pre[m])                             # over the median, 32..4 ms before
        decay = 10.0 * math.log10(e3 / e_p + _TINY)
        tail = 10.0 * math.log10(e13 / e_p + _TINY)
        bx = seg[n0 * q + 1 + 12 * q: n0 * q + 1 + 60 * q]         # x from 3 to 15 ms after
        body = 10.0 * math.log10(float(np.dot(bx, bx)) / len(bx) / (px + _TINY) + _TINY)
        o, ob = n0 * q + 1 - self._spec_off, n0 * q + 1 - self._bg_off
        w2 = self._w2                                             # the two windowed frames
        np.multiply(seg[o: o + self._nwin], self._win, out=w2[0])
        np.multiply(seg[ob: ob + self._nwin], self._win, out=w2[1])
        two = self._two
        if self._rfft is not None:
            np.abs(self._rfft(w2, 1, axes=[(1,), (), (1,)], out=self._spec2), out=two)
        else:                                                 # pragma: no cover (numpy < 2)
            np.abs(np.fft.rfft(w2), out=two)
        np.square(two, out=two)                                   # (what ** 2 calls)
        # what the burst adds to the room: the background's spectrum (34..22 ms before)
        # taken off, at most 13 dB of each bin (so a steady noise or hum does not read as
        # the burst's own spectrum, and a bin is never emptied)
        spec, fl = self._sp
        np.subtract(two[0], two[1], out=spec)
        np.multiply(two[0], _FLOOR, out=fl)
        np.maximum(spec, fl, out=spec)
        spec += _TINY
        cs = self._cs                                             # cs[0] is 0
        add_acc(spec, out=cs[1:])
        (lo_b, mid_b, high_b, core, core4, o1, o2, o3, air_b) = (
            cs.take(self._b_hi) - cs.take(self._b_lo)).tolist()
        low = 10.0 * math.log10(lo_b / core)
        tilt = 10.0 * math.log10(high_b / mid_b)
        air = 10.0 * math.log10(air_b / core) if self._has_air else math.nan
        a, b = self._core
        logs = np.log(spec[a:b], out=fl[a:b])
        flat = float(np.exp(sum_reduce(logs) / (b - a)) / (core / (b - a)))
        zb = seg[n0 * q + 1 - 8 * q: n0 * q + 1 + 24 * q]         # 2 ms before to 6 ms after
        sb = np.signbit(zb - sum_reduce(zb) / len(zb))
        zcr = float(count_nonzero(sb[1:] != sb[:-1])) * self.rate / (2000.0 * len(zb))
        a, b = self._core4
        cent = math.log2(float(np.dot(self._f4, spec[a:b])) / core4 / 1000.0)
        octs = (o1, o2, o3)
        spread = 10.0 * math.log10(min(octs) / max(octs))
        return (peak_db, min(CAP_DB, rise), min(CAP_DB, attack), min(CONTRAST_CAP_DB, contrast),
                steep, fall10, fall20, decay, tail, body, low, tilt, air, flat, zcr, cent, spread)


def band_width(rate: int) -> int:
    """``L`` of ``clap_band`` at ``rate``: a power of two near ``rate / 6 kHz`` (1 at 8 kHz,
    2 at 16 kHz, 4 at 22.05-32 kHz, 8 at 44.1-48 kHz), so the band peaks at ~2-3 kHz."""
    return int(2 ** max(0, round(math.log2(rate / 6000.0))))


def clap_band(seg: np.ndarray, width: int) -> np.ndarray:
    """The clap band of ``seg``: ``y[i]`` = sum of ``seg[i+L .. i+2L-1]`` minus the sum of
    ``seg[i .. i+L-1]`` (``L = width``, a power of two), ``len(seg) - 2L + 1`` values;
    ``y[i]`` belongs to sample ``i + 2L - 1`` of ``seg``.

    A difference of two boxes: +6 dB/octave up to ~0.37 ``rate / L`` (~2.2 kHz at 48 kHz),
    nulls at multiples of ``rate / L``. It keeps the first difference's rise out of hum and
    rumble (``L = 1`` is the first difference) but not its +6 dB/octave up to the Nyquist
    frequency, which let white or pink noise above 5 kHz bury a clap 10 dB above it. The
    boxes are built by doubling (``log2 L`` additions), so every value comes from the same
    operations wherever ``seg`` starts: the result does not depend on block or start."""
    s = seg
    w = 1
    while w < width:
        s = s[w:] + s[:-w]
        w *= 2
    out: np.ndarray = s[width:] - s[:-width]
    return out

