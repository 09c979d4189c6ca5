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
It is the shipped one (``sensekit.audio.clap_wait.log_mel``, ``mel_bank``, re-exported here): the
twenty-third pass resampled with SciPy's ``resample_poly``, the shipped ``polyphase.resample_poly``
equals it to 1e-15.

Evaluation code (``benchmarks/clap_mel_wait.py``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sensekit.audio.clap_wait import AFTER_S, BEFORE_S, WINDOW, log_mel, mel_bank

__all__ = ["AFTER_S", "BEFORE_S", "LinearScore", "MEL_RULES", "WINDOW", "fit_linear", "log_mel", "mel_bank",
           "mel_decision", "mel_features"]

MEL_RULES = ("veto", "sum")


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
