"""The twenty-third pass: a linear score on the log-mel around a close call's peak.

The twentieth pass (``benchmarks/clap_general_look.py``) found that the log-mel of the window
-0.25..+0.10 s (frame centres) around a burst's peak, with ``t - T`` (today's trees' score less
their threshold) appended, scored by a logistic regression fitted on the *other* sources' close
calls, separates the close calls almost as well as a packaged sound model. Here that score is an
input of the close-call decision of the wait (``clap_ring_wait``), in one of two rules:

- ``veto``: a close call is a clap when the ring's trees accept it *and* the score is at least ``theta``;
- ``sum``: when the ring's trees' log-odds over their threshold plus the score is at least ``theta``.

The front end is the twentieth pass's (the sound-effects model's): 44.1 kHz, 2048-sample Hann frames
every 1024, 96 HTK mel bands, ``log10(1e4 P + 1) / LOG_MAX``, the window's samples scaled to a peak of 1.
It needs 0.13 s of signal after the peak (0.03 s of it for the resampler's edge), inside the wait's 130 ms.

Evaluation code (``benchmarks/clap_mel_wait.py``); ``sensekit/audio`` is unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import gcd

import numpy as np
from scipy.signal import resample_poly

__all__ = ["AFTER_S", "BEFORE_S", "LinearScore", "MEL_RULES", "WINDOW", "fit_linear", "log_mel", "mel_bank",
           "mel_decision", "mel_features"]

SR, NFFT, HOP, NMEL = 44100, 2048, 1024, 96
#: frame centres, s from the peak (16 frames)
WINDOW = (-0.25, 0.10)
#: the resampler's edge on both sides of the frames' span, s
EDGE_S = 0.03
#: the signal the score needs before / after the peak, s
BEFORE_S = -WINDOW[0] + EDGE_S + NFFT / 2 / SR
AFTER_S = WINDOW[1] + EDGE_S
LOG_MAX = 9.457798957824707
MEL_RULES = ("veto", "sum")


def mel_bank() -> np.ndarray:
    """(96, 1025): triangular HTK mel filters over 0-22,050 Hz, each normalised to sum 1."""
    def mel(f: np.ndarray) -> np.ndarray:
        return np.asarray(2595.0 * np.log10(1.0 + f / 700.0))
    f = np.fft.rfftfreq(NFFT, 1.0 / SR)
    pts = 700.0 * (10.0 ** (np.linspace(0.0, float(mel(np.array(SR / 2.0))), NMEL + 2) / 2595.0) - 1.0)
    fd, ramps = np.diff(pts), pts[:, None] - f[None, :]
    w = np.maximum(0.0, np.minimum(-ramps[:-2] / fd[:-1, None], ramps[2:] / fd[1:, None]))
    return np.asarray(w / np.maximum(w.sum(axis=1, keepdims=True), 1e-12))


_BANK = mel_bank()
_BANK_T = np.ascontiguousarray(_BANK.T)
_HANN = 0.5 - 0.5 * np.cos(2.0 * np.pi * np.arange(NFFT) / NFFT)


def log_mel(x: np.ndarray, rate: int, p: int, window: tuple[float, float] = WINDOW) -> np.ndarray:
    """(frames, 96) float32: the log-mel of frames centred at ``p + window[0]`` .. ``p + window[1]``
    s (zeros outside ``x``)."""
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


def mel_features(mel: np.ndarray, t_minus_T: float) -> np.ndarray:
    """The score's input: the window's log-mel, flattened, and today's trees' ``t - T``."""
    return np.append(np.asarray(mel, np.float64).ravel(), float(t_minus_T))


@dataclass(frozen=True)
class LinearScore:
    """``w . f + b``: a logistic regression's log-odds on ``mel_features`` (its scaler folded in)."""

    w: np.ndarray
    b: float

    def __call__(self, f: np.ndarray) -> np.ndarray:
        f = np.asarray(f, np.float64)
        if f.shape[-1] != len(self.w):
            raise ValueError(f"the score takes {len(self.w)} inputs, got {f.shape[-1]}")
        return np.asarray(f @ self.w + self.b)

    def to_json(self) -> dict[str, object]:
        return {"w": [float(v) for v in self.w], "b": self.b}

    @classmethod
    def from_json(cls, d: dict[str, object]) -> LinearScore:
        w, b = d["w"], d["b"]
        assert isinstance(w, list) and isinstance(b, float | int)
        return cls(np.asarray(w, np.float64), float(b))


def fit_linear(F: np.ndarray, y: np.ndarray, *, C: float = 0.05) -> LinearScore:
    """The twentieth pass's LR (standardised inputs, L2 with ``C``, classes balanced), as one linear score."""
    from sklearn.linear_model import LogisticRegression

    F = np.asarray(F, np.float64)
    y = np.asarray(y)
    if len(set(y.tolist())) != 2:
        raise ValueError("the score needs claps and non-claps to fit")
    mu, sd = F.mean(axis=0), F.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    lr = LogisticRegression(C=C, max_iter=3000, class_weight="balanced").fit((F - mu) / sd, y)
    w = lr.coef_[0] / sd
    return LinearScore(np.asarray(w, np.float64), float(lr.intercept_[0] - np.dot(w, mu)))


def mel_decision(rule: str, ring_over: np.ndarray, score: np.ndarray, theta: float) -> np.ndarray:
    """Which close calls are claps: ``ring_over`` is the ring's trees' score less their threshold,
    ``score`` the linear score's log-odds (``MEL_RULES``)."""
    r, s = np.asarray(ring_over, np.float64), np.asarray(score, np.float64)
    if rule == "veto":
        return np.asarray((r >= 0) & (s >= theta))
    if rule == "sum":
        return np.asarray(r + s >= theta)
    raise ValueError(f"rule {rule!r} is not one of {MEL_RULES}")
