"""``scipy.signal.resample_poly`` (its default Kaiser window, beta 5, zero padding) in NumPy.

The close-call score (``clap_wait.log_mel``) resamples each close call's window to 44.1 kHz as
its weights were fitted; importing ``scipy.signal`` for that would pull ``scipy.optimize`` into
every app's start (most of a second). Equal to SciPy's to ~1e-15 (``tests/audio/test_polyphase.py``);
each output sample is one dot product of the input with its filter phase (no zero stuffing).
"""
from __future__ import annotations

from functools import lru_cache
from math import gcd

import numpy as np

__all__ = ["resample_poly"]


@lru_cache(maxsize=8)
def _phases(up: int, down: int) -> tuple[np.ndarray, int]:
    """The low-pass SciPy designs for ``up/down`` (``up`` times its unit gain), split into ``up``
    phases with their taps last first, and the first output index SciPy keeps."""
    max_rate = max(up, down)
    half_len = 10 * max_rate
    m = np.arange(2 * half_len + 1) - half_len
    h = np.sinc(m / max_rate) / max_rate * np.kaiser(2 * half_len + 1, 5.0)
    pre_pad = down - half_len % down
    h = np.r_[np.zeros(pre_pad), h / h.sum() * up]
    taps = -(-len(h) // up)
    padded = np.zeros(taps * up)
    padded[:len(h)] = h
    return np.ascontiguousarray(padded.reshape(taps, up).T[:, ::-1]), (half_len + pre_pad) // down


def resample_poly(x: np.ndarray, up: int, down: int) -> np.ndarray:
    """``x`` (1-D) resampled by ``up / down``: ``ceil(len(x) * up / down)`` samples, float64."""
    if up < 1 or down < 1:
        raise ValueError(f"up and down must be positive integers, got {up} and {down}")
    g = gcd(up, down)
    up, down = up // g, down // g
    x = np.asarray(x, np.float64)
    if x.ndim != 1:
        raise ValueError(f"resample_poly takes one channel (1-D), got shape {x.shape}")
    if up == down == 1 or len(x) == 0:
        return x.copy()
    phases, first = _phases(up, down)
    taps, n_in = phases.shape[1], len(x)
    n_out = n_in * up // down + bool(n_in * up % down)
    n = np.arange(first, first + n_out)
    r, q = (n * down) % up, (n * down) // up
    padded = np.r_[np.zeros(taps - 1), x, np.zeros(max(0, int(q[-1]) - n_in + 1))]
    rows = np.lib.stride_tricks.sliding_window_view(padded, taps)[q]
    return np.asarray(np.einsum("nt,nt->n", rows, phases[r]))
