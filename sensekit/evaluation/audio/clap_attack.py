"""The shape of a burst's attack spectrum (docs/claps_history.md, twenty-sixth pass).

A clap's first milliseconds are broadband noise; a knuckle knock, a key's plastic and a step's thud
ring in a few modes. ``attack_peak_db`` is the power spectrum of the samples ``BEFORE_MS`` before to
``AFTER_MS`` after the peak (Hann window, zero-padded to at least four times its length), over
``LOW_HZ`` to ``min(HIGH_HZ, 0.45 rate)``: its largest bin over its median, in dB. Noise gives
~10-15 dB (the largest of many chi-square bins), a tone or a few modes far more. Pure NumPy; scale
invariant; for evaluation only.
"""
from __future__ import annotations

import numpy as np

from sensekit.evaluation.audio.clap_window import check_peak, ms_samples, padded

__all__ = ["AFTER_MS", "BEFORE_MS", "HIGH_HZ", "LOW_HZ", "attack_peak_db"]

BEFORE_MS = 2.0
AFTER_MS = 20.0
LOW_HZ = 300.0
HIGH_HZ = 12000.0


def attack_peak_db(x: np.ndarray, p: int, rate: int, after_ms: float = AFTER_MS) -> float:
    """The largest over the median power of the attack's spectrum (dB) of the burst peaking at ``x[p]``,
    over ``BEFORE_MS`` before to ``after_ms`` after it. Samples outside ``x`` count as zeros.
    ``ValueError`` for a rate under 2 kHz, a peak outside ``x`` or ``after_ms`` under 1 ms."""
    check_peak(x, p, rate, what="attack_peak_db needs")
    if after_ms < 1.0:
        raise ValueError(f"the attack's window needs at least 1 ms after the peak, got {after_ms} ms")
    w = padded(x, p - ms_samples(BEFORE_MS, rate), p + ms_samples(after_ms, rate))
    n = 1 << int(np.ceil(np.log2(4 * len(w))))
    P = np.abs(np.fft.rfft(w * np.hanning(len(w)), n)) ** 2
    f = np.fft.rfftfreq(n, 1.0 / rate)
    band = P[(f >= LOW_HZ) & (f <= min(HIGH_HZ, 0.45 * rate))]
    med = float(np.median(band))
    if med <= 0.0:
        return 0.0 if float(band.max()) <= 0.0 else 99.0
    return float(10.0 * np.log10(band.max() / med))
