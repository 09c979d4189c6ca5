"""The clap detector's peak search: for each candidate region of the grid test, the loudest
sample of the 1 ms envelope, kept when it is the loudest within +-12 ms and passes the cheap
checks (rise, level, not sustained), with its onset (``clap.py``, step 3 of its docstring).

``find_peaks`` reads and updates the detector's buffers through ``Detector``, a protocol (so that
this module does not import the detector that imports it, as ``clap_gap``); it was
``ClapDetector._find_peaks``, moved whole.
"""
from __future__ import annotations

from typing import Protocol

import numpy as np

from sensekit.audio.clap_energy import BandEnergy
from sensekit.audio.numpy_calls import reduce_max

__all__ = ["ONSET_DB", "SUSTAINED", "Detector", "find_peaks"]

ONSET_DB = 10.0                  # onset: first sample within 10 dB of the peak
SUSTAINED = 10.0 ** (-1.0 / 10.0)  # a burst whose 3..12 ms after the peak is within 1 dB of
                                 # it has not stopped: no clap (every training clap is below;
                                 # 3 dB until the clap band, where 25 of 9330 are above -3 dB)


class Detector(Protocol):
    """What ``find_peaks`` uses of ``sensekit.audio.clap.ClapDetector``."""

    keep_features: bool
    _hop: int
    _local: int
    _region: tuple[int, int]
    _rise_far: int
    _rise_near: int
    _d3: int
    _energy: BandEnergy
    _buf: np.ndarray
    _b0: int
    _pbuf: np.ndarray
    _last_found: int
    _min_rise: float
    _min_peak: float
    _gain2: float
    _peaks: list[tuple[int, int]]


def find_peaks(det: Detector, starts: list[int]) -> None:
    """The peak of each search region; keep those that are the loudest sample within
    +-12 ms and pass the cheap checks (rise, level, not sustained), with their onset.

    One envelope serves all the regions: differences of the cumulative ``d**2`` that the
    detector's ``_energy`` keeps from one search to the next (float64: quiet sums follow loud ones)."""
    h, loc, span = det._hop, det._local, det._region[1]
    far, near, d3 = det._rise_far, det._rise_near, det._d3
    first = starts[0] - loc                           # first sample of e
    n_e = starts[-1] + span + loc - first
    en = det._energy
    en.extend(det._buf, det._b0, first - far - h, first + n_e + h)
    c, c0 = en.c, en.c0                               # c[i - c0]: d**2 summed up to sample i
    if n_e > len(det._pbuf):
        det._pbuf = np.empty(2 * n_e, np.float64)
    i0 = first - h // 2 - c0
    e = np.subtract(c[i0 + h: i0 + h + n_e], c[i0: i0 + n_e], out=det._pbuf[:n_e])
    e /= h                                            # e[i] <-> sample first + i
    last = det._last_found
    strict = not det.keep_features
    b0 = det._b0
    for s in starts:
        i = s - first
        k = i + int(e[i: i + span].argmax())
        p = first + k
        if p <= last:
            continue
        last = p
        e_p = float(e[k])
        if e_p < float(reduce_max(e[k - loc: k + loc + 1])):
            continue                                  # a louder sample nearby owns it
        if strict:
            q = p - c0
            rise = e_p * (far - near) / (float(c[q - near] - c[q - far]) + 1e-30)
            after = float(c[q + loc] - c[q + d3]) / (loc - d3)
            if rise < det._min_rise or after > e_p * SUSTAINED:
                continue
            xs = det._buf[p - h // 2 - b0: p - h // 2 + h - b0].astype(np.float64)
            if float(np.dot(xs, xs)) / h * det._gain2 < det._min_peak:
                continue                              # cheap checks before the features
        back = e[k - loc: k + 1] >= e_p * 10.0 ** (-ONSET_DB / 10.0)
        det._peaks.append((p, p - loc + int(back.argmax())))
    det._last_found = last
