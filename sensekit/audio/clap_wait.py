"""The close-call wait (issue 19; docs/claps_history.md, passes 19-23): a burst the trees call
close is decided once its ring is in, by the ring's trees and a linear score on its log-mel.

A burst whose trees' score ``t`` lies within ``MARGIN`` of the threshold ``T`` (a close call) is
held until ``WAIT_MS`` of signal after its peak are in. It is then a clap when

    ring(16 features, late_above_db, voiced_after) + mel(log-mel, t - T) - THETA >= T

(the "sum" rule): ``ring`` the ring's trees (``clap_wait_model.RING_MODEL``), ``late_above_db`` the
ring's power 30-80 ms after the peak less the floor's 35-10 ms before it, over the 1 ms peak's (dB,
at least -60), ``voiced_after`` the largest normalised autocorrelation at pitch lags 2.5-12.5 ms
of 50-130 ms after the peak, and ``mel`` a logistic regression's log-odds on the log-mel of 16
frames centred -0.25..+0.10 s around the peak (44.1 kHz, 2048-sample Hann frames every 1024, 96
HTK mel bands, ``log10(1e4 P + 1) / LOG_MAX``, the window scaled to a peak of 1) and ``t - T``.
Every constant is in ``clap_wait_model.py`` (``benchmarks/train_clap_wait.py``, fitted on every
source). Pure functions of the samples: what a close call gets does not depend on the blocks.

Cost: ~2-5 ms a close call at 48 kHz (most of it the polyphase resampler to 44.1 kHz,
``polyphase.resample_poly``: SciPy's, in NumPy, so no app's start imports ``scipy.signal``);
nothing for a burst that is not a close call.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from math import gcd

import numpy as np
from sensekit.audio.polyphase import resample_poly

from sensekit.audio.clap_features import Model, clap_score, tree_model
from sensekit.audio.clap_model import THRESHOLD
from sensekit.audio.clap_wait_model import MARGIN, MEL_B, MEL_W, RING_MODEL, THETA

__all__ = ["AFTER_S", "BEFORE_S", "MARGIN", "RING_INPUTS", "SHIPPED", "WAIT_MS", "WINDOW", "WaitModel",
           "close_call_score", "db_ratio", "is_close", "log_mel", "mean_power", "mel_bank", "ring_inputs",
           "ring_level", "voicing", "wait_samples", "warm"]

#: how long after its peak a close call is decided (the voicing's last sample is in)
WAIT_MS = 130.0
SR, NFFT, HOP, NMEL = 44100, 2048, 1024, 96
#: frame centres, s from the peak (16 frames)
WINDOW = (-0.25, 0.10)
#: the resampler's edge on both sides of the frames' span, s
EDGE_S = 0.03
#: the signal the score needs before / after the peak, s
BEFORE_S = -WINDOW[0] + EDGE_S + NFFT / 2 / SR
AFTER_S = WINDOW[1] + EDGE_S
LOG_MAX = 9.457798957824707
#: ``late_above_db`` of a ring no stronger than the floor before the burst
ABOVE_FLOOR_MIN_DB = -60.0
#: how the ring's power 30-80 ms after the peak is measured: against the 1 ms peak (``late_db``),
#: against the floor 35-10 ms before the peak (``late_floor_db``), or its excess over that floor
#: against the peak (``late_above_db``, the shipped wait's; the others are the evaluation's)
RING_INPUTS = ("late_db", "late_floor_db", "late_above_db")
_W = np.asarray(MEL_W, np.float64)


def wait_samples(rate: int) -> int:
    """Samples after a close call's peak that must be in before it is decided."""
    return round(WAIT_MS * rate / 1000.0) + 1


def mel_bank() -> np.ndarray:
    """(96, 1025): triangular HTK mel filters over 0-22,050 Hz, each normalised to sum 1."""
    def mel(f: np.ndarray) -> np.ndarray:
        return np.asarray(2595.0 * np.log10(1.0 + f / 700.0))
    f = np.fft.rfftfreq(NFFT, 1.0 / SR)
    pts = 700.0 * (10.0 ** (np.linspace(0.0, float(mel(np.array(SR / 2.0))), NMEL + 2) / 2595.0) - 1.0)
    fd, ramps = np.diff(pts), pts[:, None] - f[None, :]
    w = np.maximum(0.0, np.minimum(-ramps[:-2] / fd[:-1, None], ramps[2:] / fd[1:, None]))
    return np.asarray(w / np.maximum(w.sum(axis=1, keepdims=True), 1e-12))


_BANK_T = np.ascontiguousarray(mel_bank().T)
_HANN = 0.5 - 0.5 * np.cos(2.0 * np.pi * np.arange(NFFT) / NFFT)


def log_mel(x: np.ndarray, rate: int, p: int, window: tuple[float, float] = WINDOW) -> np.ndarray:
    """(frames, 96) float32: the log-mel of frames centred at ``p + window[0]`` .. ``p + window[1]`` s
    of ``x`` (zeros outside ``x``); the shipped ``WINDOW``'s 16 frames by default."""
    if rate <= 0:
        raise ValueError(f"sample rate must be positive, got {rate}")
    a = p + round(window[0] * rate) - round(EDGE_S * rate)
    b = p + round(window[1] * rate) + round(EDGE_S * rate)
    seg = np.zeros(b - a)
    lo, hi = max(0, a), min(len(x), b)
    if hi > lo:
        seg[lo - a:hi - a] = x[lo:hi]
    g = gcd(rate, SR)
    y = resample_poly(seg, SR // g, rate // g) if rate != SR else seg
    y = y / (np.max(np.abs(y)) or 1.0)
    c0 = round(EDGE_S * SR)
    n = int(round((window[1] - window[0]) * SR / HOP)) + 1
    y = np.r_[np.zeros(NFFT // 2), y, np.zeros(NFFT)]
    fr = np.lib.stride_tricks.sliding_window_view(y[c0:], NFFT)[::HOP][:n] * _HANN
    P = np.abs(np.fft.rfft(fr, axis=1)) ** 2
    return np.asarray(np.log10(P @ _BANK_T * 1e4 + 1.0) / LOG_MAX, np.float32)


def mean_power(x: np.ndarray, a: int, b: int) -> float:
    """The mean square of ``x[a:b]`` (clipped to ``x``; NaN for 8 samples or fewer)."""
    a, b = max(0, a), min(len(x), b)
    return float(np.mean(np.asarray(x[a:b], np.float64) ** 2)) if b - a > 8 else float("nan")


def voicing(x: np.ndarray, a: int, b: int, rate: int) -> float:
    """The largest normalised autocorrelation at pitch lags 2.5-12.5 ms (80-400 Hz) of x[a:b]."""
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


def db_ratio(a: float, b: float) -> float:
    """``a`` over ``b`` in dB (powers; 1e-20 added to both)."""
    return 10.0 * math.log10((a + 1e-20) / (b + 1e-20))


def ring_level(late_db: float, late_floor_db: float, kind: str = "late_above_db") -> float:
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


def ring_inputs(x: np.ndarray, p: int, rate: int, *, voiced_ms: float = WAIT_MS,
                ring: str = "late_above_db") -> tuple[float, float]:
    """The ring input ``ring`` (``ring_level``; shipped: ``late_above_db``) and ``voiced_after``
    (50 ms to ``voiced_ms`` after the peak; shipped: ``WAIT_MS``) of the burst peaking at ``x[p]``."""
    def ms(v: float) -> int:
        return round(v * rate / 1000.0)

    pk, late = mean_power(x, p - ms(0.5), p + ms(0.5)), mean_power(x, p + ms(30), p + ms(80))
    pre = mean_power(x, p - ms(35), p - ms(10))
    level = ring_level(db_ratio(late, pk), db_ratio(late, pre), ring)
    return level, voicing(x, p + ms(50), p + ms(voiced_ms), rate)


@dataclass(frozen=True)
class WaitModel:
    """The wait's constants: the ring's trees, the trees' threshold they were chosen at (a close call
    lies within ``margin`` of it), the log-mel score's weights and the sum rule's theta. ``SHIPPED``:
    ``clap_wait_model.py``'s, at the shipped ``clap_model.THRESHOLD``. A burst's score does not
    depend on ``clap.threshold``, which only cuts it (as ``calibrate --claps`` assumes)."""

    ring_model: Model
    threshold: float
    margin: float
    theta: float
    mel_w: np.ndarray
    mel_b: float


SHIPPED = WaitModel(RING_MODEL, THRESHOLD, MARGIN, THETA, _W, MEL_B)


def is_close(t: float, wait: WaitModel = SHIPPED) -> bool:
    """Whether the trees' score ``t`` makes a burst a close call."""
    return abs(t - wait.threshold) < wait.margin


def close_call_score(x: np.ndarray, p: int, rate: int, vals: Sequence[float], t: float,
                     wait: WaitModel = SHIPPED) -> float:
    """A close call's score (log-odds, cut by the detector's threshold like the trees'; ``t``: the
    trees' score), by the sum rule: the ring's trees' log-odds plus the log-mel score less ``theta``
    (at the wait's own threshold, the ring's trees' log-odds over it plus the score reach theta).
    ``x`` holds the samples
    in (at least ``WAIT_MS`` after the peak ``x[p]``), ``vals`` the burst's ``(peak_db,) + FEATURES``."""
    level, voiced = ring_inputs(x, p, rate)
    ring = clap_score(np.asarray((*vals[1:], level, voiced)), wait.ring_model)
    f = np.append(np.asarray(log_mel(x, rate, p), np.float64).ravel(), float(t - wait.threshold))
    return ring + float(f @ wait.mel_w + wait.mel_b) - wait.theta


def warm(wait: WaitModel = SHIPPED) -> None:
    """The ring's trees' tables built now (when a detector is made), not at the first close call."""
    tree_model(wait.ring_model)
