"""Whether a burst's attack modes ring on (docs/claps_history.md, twenty-ninth pass).

A knuckle knock rings in a few modes: the attack's strongest spectral peak is a line that is still
there 30-80 ms after the peak. A clap's attack is broadband, and what follows it is a room's decay
(noise-like: its fine structure is new in every window) or the floor: at the attack's strongest
frequency the ring is no higher than around it. ``ring_line_db``: the power spectra (Hann, one FFT
size: at least four times the ring window) of the attack (``BEFORE_MS`` before to ``ATTACK_MS`` after
the peak) and of the ring (``RING_FROM_MS`` to ``RING_TO_MS`` after it); ``f*``, the attack's largest
bin over ``LOW_HZ`` to ``min(HIGH_HZ, 0.45 rate)``; the ring's largest bin within ``LINE_HZ`` of
``f*`` over the ring's median within ``LOCAL_HZ`` of ``f*`` (dB). The local median, not the whole
band's: a room's decay carries the clap's own spectrum (its peaks ~1/12 ms = 80 Hz wide, the
cupped hands' resonance wider), which lifts both; a mode's line (~20-40 Hz in a 50 ms window) only
the first. Noise-like rings give ~5 dB (synthetic reverberant claps at most ~12), a ringing mode
20 dB or more. ``ring_peak_db`` (the backup, looked at only): the
ring's largest bin over its median over the band, less the attack's (``clap_attack``). Pure NumPy;
scale invariant; for evaluation only.
"""
from __future__ import annotations

import numpy as np

from sensekit.evaluation.audio.clap_window import check_peak, ms_samples, padded, window_in

__all__ = ["ATTACK_MS", "BEFORE_MS", "HIGH_HZ", "LINE_HZ", "LOCAL_HZ", "LOW_HZ", "RING_FROM_MS", "RING_TO_MS",
           "ring_available", "ring_line_db", "ring_peak_db"]

BEFORE_MS = 2.0
ATTACK_MS = 20.0
RING_FROM_MS = 30.0
RING_TO_MS = 80.0
LOW_HZ = 300.0
HIGH_HZ = 12000.0
LINE_HZ = 20.0
LOCAL_HZ = 150.0


def ring_available(n: int, p: int, rate: int) -> bool:
    """Whether ``n`` samples hold the ring window of the burst peaking at sample ``p``."""
    return window_in(n, p, rate, RING_TO_MS)


def _check(x: np.ndarray, p: int, rate: int) -> None:
    check_peak(x, p, rate, what="the ring's modes need")


def _power(x: np.ndarray, a: int, b: int, n: int) -> np.ndarray:
    """The Hann-windowed power spectrum of ``x[a:b]`` (zeros outside ``x``), zero-padded to ``n``."""
    return np.asarray(np.abs(np.fft.rfft(padded(x, a, b) * np.hanning(b - a), n)) ** 2)


def _spectra(x: np.ndarray, p: int, rate: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The band's frequencies, the attack's and the ring's power spectra over them."""
    r0, r1 = p + ms_samples(RING_FROM_MS, rate), p + ms_samples(RING_TO_MS, rate)
    a0, a1 = p - ms_samples(BEFORE_MS, rate), p + ms_samples(ATTACK_MS, rate)
    n = 1 << int(np.ceil(np.log2(4 * max(r1 - r0, a1 - a0))))
    f = np.fft.rfftfreq(n, 1.0 / rate)
    band = (f >= LOW_HZ) & (f <= min(HIGH_HZ, 0.45 * rate))
    return f[band], _power(x, a0, a1, n)[band], _power(x, r0, r1, n)[band]


def _db(num: float, den: float) -> float:
    if den <= 0.0:
        return 0.0 if num <= 0.0 else 99.0
    return float(10.0 * np.log10(num / den))


def ring_line_db(x: np.ndarray, p: int, rate: int) -> float:
    """How far the ring (30-80 ms after the peak ``x[p]``) stands at the attack's strongest frequency
    over the ring around it, in dB (module doc). Samples outside ``x`` count as zeros (see
    ``ring_available``). ``ValueError`` for a rate under 2 kHz or a peak outside ``x``."""
    _check(x, p, rate)
    f, A, R = _spectra(x, p, rate)
    fs = f[int(A.argmax())]
    line = R[np.abs(f - fs) <= LINE_HZ]
    local = R[np.abs(f - fs) <= LOCAL_HZ]
    return _db(float(line.max()), float(np.median(local)))


def ring_peak_db(x: np.ndarray, p: int, rate: int) -> float:
    """The backup: the ring's largest over its median power over the band, less the attack's (dB)."""
    _check(x, p, rate)
    _, A, R = _spectra(x, p, rate)
    return _db(float(R.max()), float(np.median(R))) - _db(float(A.max()), float(np.median(A)))
