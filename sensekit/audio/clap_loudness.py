"""How loud a clap is: its loudest 5 ms RMS (``rms_5ms_peak``), the median over a clip's claps (``clap_loudness``).

The loudness the issue's SNR is measured against: a clap "10 dB over a fan" has its loudest
5 ms RMS 10 dB over the fan's RMS, not the power ratio of two whole recordings (a few claps
in a long clip would otherwise read as very quiet). ``sensekit calibrate --claps``
(``clap_teach``) measures the venue's claps with it; training and evaluation
(``sensekit.evaluation.audio.clap_augment``, ``clap_noise``) set their noise by it.

Cost: one cumulative sum over the window (35 ms a clap); pure functions of their arguments.
An empty ``x`` reads NaN (NumPy warns); the callers pass clips.
"""
from __future__ import annotations

import numpy as np

__all__ = ["clap_loudness", "rms_5ms_peak"]


def rms_5ms_peak(x: np.ndarray, rate: int) -> float:
    """The loudest 5 ms RMS of ``x`` (a sliding window, float64)."""
    n = max(1, round(0.005 * rate))
    x2 = x.astype(np.float64) ** 2
    if len(x2) <= n:
        return float(np.sqrt(x2.mean()))
    c = np.concatenate([[0.0], np.cumsum(x2)])
    return float(np.sqrt(max(0.0, float((c[n:] - c[:-n]).max()) / n)))


def clap_loudness(x: np.ndarray, rate: int, onsets: list[float]) -> float:
    """The median over ``onsets`` of each clap's loudest 5 ms RMS (from 5 ms before its
    onset to 30 ms after); the whole clip's loudest 5 ms RMS when there are no onsets."""
    if not onsets:
        return rms_5ms_peak(x, rate)
    vals = []
    for o in onsets:
        a, b = max(0, round((o - 0.005) * rate)), round((o + 0.030) * rate)
        if b - a > 1:
            vals.append(rms_5ms_peak(x[a:b], rate))
    return float(np.median(vals)) if vals else rms_5ms_peak(x, rate)
