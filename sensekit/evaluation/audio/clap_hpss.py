"""A burst's percussive share by harmonic/percussive median filtering (docs/claps_history.md, twenty-seventh pass).

Fitzgerald's separation: in a magnitude spectrogram a clap is a vertical line (every bin at once) and
voiced speech or music are horizontal lines (a few bins held). Here, on frames of ``FRAME_MS`` every
``HOP_MS`` whose centres run from ``BEFORE_MS`` before the burst's peak to as late as ``AFTER_MS`` after it
allows (``before_ms``, ``after_ms``; the look-ahead the detector already has when it judges a burst,
so it can be streamed):

- the harmonic estimate ``H`` of a bin is the median of that bin over the window's frames
  (``causal=True``: over the frames that end before the peak only);
- the percussive estimate ``P`` of a frame is the median over ``KERNEL_HZ`` of frequency around each bin;
- the percussive mask is ``P^2 / (P^2 + H^2)`` (Wiener-like, power 2).

``percussive_share`` is the mask's share of the power in the frames from the peak to ``PEAK_MS`` after it,
over ``LOW_HZ`` to ``min(HIGH_HZ, 0.45 rate)`` and per band (``BANDS_HZ``); ``percussive_rise_db`` the
rise of the percussive part's power at the peak over the frames before it. Pure NumPy, scale invariant;
for evaluation only.
"""
from __future__ import annotations

import numpy as np

from sensekit.evaluation.audio.clap_window import check_peak, ms_samples, padded

__all__ = ["AFTER_MS", "BANDS_HZ", "BEFORE_MS", "FRAME_MS", "HOP_MS", "KERNEL_HZ", "NAMES", "percussive_rise_db",
           "percussive_share"]

FRAME_MS = 16.0
HOP_MS = 4.0
BEFORE_MS = 64.0
AFTER_MS = 31.5
PEAK_MS = 8.0
KERNEL_HZ = 600.0
LOW_HZ = 300.0
HIGH_HZ = 8000.0
BANDS_HZ = ((300.0, 1000.0), (1000.0, 3000.0), (3000.0, 8000.0))
#: the values ``percussive_share`` returns, in order
NAMES = ("perc_share", "perc_low", "perc_mid", "perc_high")


def _median_freq(s: np.ndarray, k: int) -> np.ndarray:
    """Median over ``k`` (odd) neighbouring bins of each bin (axis 1), edges repeated."""
    h = k // 2
    pad = np.pad(s, ((0, 0), (h, h)), mode="edge")
    win = np.lib.stride_tricks.sliding_window_view(pad, k, axis=1)
    out: np.ndarray = np.median(win, axis=-1)
    return out


def _spectrogram(x: np.ndarray, p: int, rate: int, before_ms: float, after_ms: float) -> tuple[
        np.ndarray, np.ndarray, int, int]:
    """Magnitudes (frames x bins in ``LOW_HZ``..``min(HIGH_HZ, 0.45 rate)``), their frequencies, the index
    of the frame centred on ``p`` and the frequency median's kernel (bins)."""
    n = ms_samples(FRAME_MS, rate)
    hop = ms_samples(HOP_MS, rate)
    k_lo = -int(before_ms // HOP_MS)
    k_hi = int((after_ms * 1e-3 * rate - (n - n // 2)) // hop)
    centres = p + hop * np.arange(k_lo, k_hi + 1)
    a, b = int(centres[0]) - n // 2, int(centres[-1]) - n // 2 + n
    seg = padded(x, a, b)
    frames = np.lib.stride_tricks.sliding_window_view(seg, n)[centres - n // 2 - a]
    nfft = 1 << int(np.ceil(np.log2(n)))
    S = np.abs(np.fft.rfft(frames * np.hanning(n), nfft, axis=1))
    f = np.fft.rfftfreq(nfft, 1.0 / rate)
    keep = (f >= LOW_HZ) & (f <= min(HIGH_HZ, 0.45 * rate))
    k = max(3, int(round(KERNEL_HZ / (rate / nfft))) | 1)
    return S[:, keep], f[keep], -k_lo, k


def _check(x: np.ndarray, p: int, rate: int, before_ms: float, after_ms: float) -> None:
    check_peak(x, p, rate, what="percussive_share needs", min_rate=8000)
    if before_ms < FRAME_MS:
        raise ValueError(f"percussive_share needs at least {FRAME_MS:g} ms before the peak, got {before_ms} ms")
    if after_ms < FRAME_MS / 2 + PEAK_MS:
        raise ValueError(f"percussive_share needs {FRAME_MS / 2 + PEAK_MS:g} ms after the peak, got {after_ms} ms")


def percussive_share(x: np.ndarray, p: int, rate: int, *, causal: bool = False,
                     before_ms: float = BEFORE_MS, after_ms: float = AFTER_MS) -> np.ndarray:
    """``NAMES``: the percussive share of the power of the burst peaking at ``x[p]`` (0..1), over the
    whole band and per band of ``BANDS_HZ`` (each cut at 0.45 ``rate``). Only samples up to
    ``after_ms`` after the peak are used; samples outside ``x`` count as zeros. ``ValueError`` for a
    rate under 8 kHz, a peak outside ``x``, ``before_ms`` shorter than a frame or ``after_ms`` shorter than half a frame
    and ``PEAK_MS``. ``before_ms``: where the window of the harmonic estimate starts."""
    _check(x, p, rate, before_ms, after_ms)
    S, f, at, k = _spectrogram(x, p, rate, before_ms, after_ms)
    top = min(HIGH_HZ, 0.45 * rate)
    peak = slice(at, at + int(PEAK_MS // HOP_MS) + 1)
    n_before = int(np.ceil(FRAME_MS / 2 / HOP_MS))          # frames that reach past the peak: left out
    hist = S[: at - n_before] if causal else S
    H = np.median(hist, axis=0)
    P = _median_freq(S[peak], k)
    m = P ** 2 / (P ** 2 + H[None, :] ** 2 + 1e-30)
    pw = S[peak] ** 2
    out = [float((m * pw).sum() / (pw.sum() + 1e-30))]
    for f0, f1 in BANDS_HZ:
        sel = (f >= f0) & (f < min(f1, top))
        out.append(float((m[:, sel] * pw[:, sel]).sum() / (pw[:, sel].sum() + 1e-30)) if sel.any() else np.nan)
    return np.asarray(out, np.float64)


def percussive_rise_db(x: np.ndarray, p: int, rate: int, *, causal: bool = True,
                       after_ms: float = AFTER_MS) -> tuple[float, float]:
    """The rise (dB) of the percussive part's power, the frames from the peak to ``PEAK_MS`` after it over
    the median frame of those ending before the peak (``BEFORE_MS``); and the same rise of the whole
    power. The percussive part is the frequency median ``P`` of each frame masked by ``P^2 / (P^2 + H^2)``,
    ``H`` the per-bin median of the frames before the peak (``causal``) or of the whole window. Same errors
    as ``percussive_share``."""
    _check(x, p, rate, BEFORE_MS, after_ms)
    S, _, at, k = _spectrogram(x, p, rate, BEFORE_MS, after_ms)
    n_before = int(np.ceil(FRAME_MS / 2 / HOP_MS))
    H = np.median(S[: at - n_before] if causal else S, axis=0)
    P = _median_freq(S, k)
    perc = (P ** 2 / (P ** 2 + H[None, :] ** 2 + 1e-30)) * S ** 2
    peak = slice(at, at + int(PEAK_MS // HOP_MS) + 1)

    def rise(e: np.ndarray) -> float:
        return float(10.0 * np.log10((e[peak].mean() + 1e-20) / (np.median(e[: at - n_before]) + 1e-20)))
    return rise(perc.sum(axis=1)), rise((S ** 2).sum(axis=1))
