"""The floor route: a burst over a steady floor judged by the noise expert (``clap.noise_route``).

On by default (since the eleventh pass); ``sensekit calibrate --claps`` keeps it on for a room
whose floor is steady and whose claps stand little over it, else switches it off
(``clap_teach``). When on, a burst
that passes ``min_level``/``min_rise_db`` and rises less than ``RISE_SPLIT_DB`` (24 dB) gets
``floor_spread_db``; over a floor spreading less than ``FLOOR_SPLIT_DB`` (2 dB: white or pink
noise, a steady fan) it is scored by the expert of ``clap_noise_model`` on the 16 burst
features plus the noise-normalised patch (``patch``); every other burst keeps the shipped
trees' score. docs/claps_history.md ("Seventh pass", "Eighth pass") has
the choice of the constants and the held-out figures.

Cost: ~13 us for the statistic of a burst rising under 24 dB (the route's own test, ``steady``,
decides the same split in two thirds of its instructions), ~270 us for the patch and the expert
of a burst over a steady floor; nothing when off (the detector then keeps its usual, shorter
history). The statistic is a ratio of the signal to itself anchored at the peak: gain, block
size and start offset do not change it.

Known weakness: a quiet real sound in a quiet steady room can look, to these features, like a
clap buried in steady noise. The eighth pass's expert fired on such a tick in tr's room noise
(2.65 s); the eleventh pass's, fitted with the recordings' own bursts of the route weighing
more, does not, but held out (tr's fold never hearing tr) it still does.
"""
from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from sensekit.audio.clap_features import FEATURES, TreeModel
from sensekit.audio.clap_noise_model import FLOOR_SPLIT_DB, RISE_SPLIT_DB
from sensekit.audio.clap_noise_model import MODEL as EXPERT_MODEL
from sensekit.audio.numpy_calls import einsum

__all__ = ["EXPERT_FEATURES", "FLOOR_SPLIT_DB", "RISE_SPLIT_DB", "FloorRoute", "expert"]

#: the floor a burst rises over: FLOOR_FRAMES frames of FLOOR_FRAME_MS, one every
#: FLOOR_EVERY_MS, the first FLOOR_FROM_MS before the peak (25 frames of 6 ms, 304..10 ms before)
FLOOR_FRAMES, FLOOR_FRAME_MS, FLOOR_EVERY_MS, FLOOR_FROM_MS = 25, 6.0, 12.0, 304.0
FLOOR_RANGE_DB = 60.0    # a frame counts at most this far under the loudest one
#: the noise-normalised patch: 6 ms Hann frames in log-spaced bands; each band's floor is the
#: median of the frames starting every 12 ms from 304 to 16 ms before the peak, the burst's
#: frame starts 2 ms before the peak, the decay's 10 ms after it
PATCH_FLOOR_MS = (-304.0, -16.0, 12.0)     # first start, last start, step
PATCH_AT_MS = (-2.0, 4.0, 10.0)           # the burst, after, later
PATCH_BANDS = 16
PATCH_LO_HZ, PATCH_HI_HZ = 250.0, 8000.0
_TINY = 1e-20
_RANGE = 10.0 ** (-FLOOR_RANGE_DB / 10.0)   # a frame's power counts from this under the loudest
#: ``steady`` decides only when the spread's power ratio clears the split by this (relative;
#: 0.004 dB): the frame powers it sums differ from ``floor_spread_db``'s by at most ~2e-5
_SURE = 1e-3
_UNDER = 10.0 ** (FLOOR_SPLIT_DB / 10.0) * (1.0 - _SURE)
_OVER = 10.0 ** (FLOOR_SPLIT_DB / 10.0) * (1.0 + _SURE)
#: frame powers ``steady`` trusts: far from float32's subnormals (whose products lose their
#: relative precision) and from overflow
_SURE_LO, _SURE_HI = 1e-30, 1e30
_subtract = np.subtract
#: each row's sum of squares in one gufunc call (numpy >= 2; einsum before: ~7k instructions more)
_row_dots: Any = getattr(np, "vecdot", None) or functools.partial(einsum, "ij,ij->i")

#: what the expert's trees read: the burst features, then the patch's four
EXPERT_FEATURES = (*FEATURES, "bands_up", "rise_sd", "rise_tilt", "decay_band")


@functools.cache
def expert() -> TreeModel:
    """The expert's trees, built once per process (~25 ms; importing ``clap_noise_model`` costs
    ~3 ms more from its ``.pyc``, ~100 ms when Python has to compile it). ``ClapDetector``
    calls this when it is built with the route on, so neither its first block nor its first
    routed burst pays for it."""
    return TreeModel(EXPERT_MODEL)


class FloorRoute:
    """The floor statistic, the patch and the expert at one sample rate."""

    def __init__(self, rate: int) -> None:
        def ms(v: float) -> int:
            return max(1, round(rate * v / 1000.0))

        self._fl_len, self._fl_every = ms(FLOOR_FRAME_MS), ms(FLOOR_EVERY_MS)
        floor_pre = ms(FLOOR_FROM_MS) + 1
        lo, hi, step = PATCH_FLOOR_MS
        starts = [*np.arange(lo, hi + 0.5, step), *PATCH_AT_MS]
        off = np.array([round(rate * t / 1000.0) for t in starts])
        self._n_floor = len(starts) - len(PATCH_AT_MS)
        self._patch_idx = off[:, None] + np.arange(ms(6.0))[None, :]
        self._patch_win = np.hanning(ms(6.0))
        fp = np.fft.rfftfreq(ms(6.0), 1.0 / rate)
        hz = np.geomspace(PATCH_LO_HZ, min(PATCH_HI_HZ, 0.45 * rate), PATCH_BANDS + 1)
        self._patch_edges = np.unique(np.maximum(np.searchsorted(fp, hz), 1))
        self._floor_pre = floor_pre
        k = FLOOR_FRAMES
        self._span = k * self._fl_every + 1               # the floor's samples
        self._d = np.empty(k * self._fl_every, np.float32)    # steady's differences, reused
        self._frames = self._d.reshape(k, self._fl_every)[:, : self._fl_len]
        #: samples the route needs before a peak (the detector keeps this much history)
        self.pre = max(floor_pre, int(-off.min()))
        self._expert = expert()

    def score(self, x: np.ndarray, p: int, vals: tuple[float, ...]) -> float | None:
        """The expert's score of the burst peaking at ``x[p]`` with measurements ``vals``
        (``(peak_db,) + FEATURES``), or None when the burst is not the expert's (it rises
        ``RISE_SPLIT_DB`` or more, its floor is not steady, or ``x`` lacks the history)."""
        if vals[1] >= RISE_SPLIT_DB or p < self.pre or not self.steady(x, p):
            return None
        return self._expert.score(np.asarray((*vals[1:], *self.patch(x, p))))

    def steady(self, x: np.ndarray, p: int) -> bool:
        """Whether the floor under the burst peaking at ``x[p]`` is steady: always the answer
        of ``floor_spread_db(x, p) < FLOOR_SPLIT_DB``, in two thirds of its instructions.

        The same 25 frame powers, summed by one ``vecdot`` call from a reused buffer and
        compared as a power ratio in Python (no ``astype``, ``sort`` or ``log10`` calls). Both
        ways sum the float32 squares of a frame's differences (288 at 48 kHz), each within
        289 * 2**-24 (1.7e-5) of the exact sum, so the two ratios differ by under 1e-4: the
        ratio decides only when it clears the split by ``_SURE`` (1e-3, 0.004 dB) and the
        powers lie within 1e-30..1e30 (their sum too: no NaN). Otherwise (a frame of digital
        silence, a spread within 0.004 dB of 2 dB, absurd levels) ``floor_spread_db``
        decides. ``tests/audio/test_clap_floor.py`` and ``benchmarks/clap_identity.py
        --noise-route`` check that the two agree."""
        a = p - self._floor_pre
        b = a + self._span
        _subtract(x[a + 1: b], x[a: b - 1], self._d)
        pw = _row_dots(self._frames, self._frames).tolist()
        pw.sort()
        if pw[0] > _SURE_LO and sum(pw) < _SURE_HI:          # (a NaN fails too)
            m = pw[-1] * _RANGE
            lo, hi = pw[2] + m, pw[-3] + m            # the 3rd and the 23rd, as floor_spread_db
            if hi < lo * _UNDER:
                return True
            if hi > lo * _OVER:
                return False
        return not self.floor_spread_db(x, p) >= FLOOR_SPLIT_DB    # (as score had it: NaN is steady)

    def floor_spread_db(self, x: np.ndarray, p: int) -> float:
        """How much the floor under the burst peaking at ``x[p]`` moves: the power of the
        first difference in 25 frames of 6 ms, one every 12 ms from 304 ms before the peak,
        in dB; the range of the middle 21 (a frame counts at most ``FLOOR_RANGE_DB`` under the
        loudest). Steady noise spreads a few dB, speech and music tens; a floor with a frame of
        digital silence reads ``FLOOR_RANGE_DB`` (no steady noise)."""
        n, every, k = self._fl_len, self._fl_every, FLOOR_FRAMES
        a = p - self._floor_pre
        seg = x[a: a + k * every + 1]
        d = (seg[1:] - seg[:-1]).reshape(k, every)[:, :n]   # (differencing only the frames'
        # samples is fewer subtractions but more instructions: numpy copies the strided views)
        pw = einsum("ij,ij->i", d, d).astype(np.float64)
        # the order statistics of the powers, then the log of the two that count: log10 and
        # adding the same floor keep the order, so this is the log of every frame sorted
        # (numpy's log10, not math's: they differ in the last bit)
        pw.sort()
        if pw[0] == 0.0:                                             # digital silence: no floor
            return FLOOR_RANGE_DB
        lv = np.log10(pw[2: k - 2: k - 5] + pw[k - 1] * _RANGE)      # the 3rd and the 23rd
        return 10.0 * float(lv[1] - lv[0])

    def patch(self, x: np.ndarray, p: int) -> tuple[float, float, float, float]:
        """The noise-normalised patch around ``x[p]``: per log-spaced band (up to 16,
        250 Hz..8 kHz), the burst frame's rise over the band's floor, clipped to -10..40 dB.
        ``bands_up``: share of bands that rose > 6 dB; ``rise_sd``: spread of the rises;
        ``rise_tilt``: the top third's mean rise less the bottom third's; ``decay_band``: in
        the bands that rose, the median of what is left 10..16 ms after less the rise (NaN
        when none rose)."""
        fr = x[p + self._patch_idx] * self._patch_win
        cs = np.cumsum(np.abs(np.fft.rfft(fr, axis=1)) ** 2, axis=1)
        e = self._patch_edges
        band = cs[:, e[1:] - 1] - cs[:, e[:-1] - 1] + _TINY       # (frames, bands)
        nf = self._n_floor
        floor = np.median(band[:nf], axis=0)
        r = np.clip(10.0 * np.log10(band[nf] / floor), -10.0, 40.0)
        left = np.clip(10.0 * np.log10(band[nf + 2] / floor), -10.0, 40.0)
        third = max(1, len(r) // 3)
        up = r > 6.0
        decay = float(np.median(left[up] - r[up])) if up.any() else math.nan
        return (float(up.mean()), float(r.std()), float(r[-third:].mean() - r[:third].mean()), decay)
