"""A far call's first 10-30 ms: a contact's low thud stays, a clap's decay does not (docs/claps_history.md,
thirtieth pass). Declared before any held-out figure of the pass.

Physics: a hand clap is an air pocket's burst, broadband, and what follows it in the next tens of ms
is a short noise-like decay (and a room's reverberation) with about the attack's own spectrum. A
contact sound (a key's plastic click, a heel, a knuckle on a table or a phone) is a click followed by
the struck body's response: a low-frequency thud and body modes under ~500 Hz that outlast the click,
so the low band's share of the energy rises from the attack to 10-30 ms after the peak.

``low_rise_db`` (the one feature): the low band's (``LOW_LO_HZ`` to ``LOW_HI_HZ``) share of the energy
(over ``LOW_LO_HZ`` to ``0.45 rate``) in the window ``LATE_FROM_MS`` to ``LATE_TO_MS`` after the peak,
over that share in the attack, ``0`` to ``ATTACK_TO_MS`` after the peak, in dB (rfft of each window,
mean removed, rectangular, zero-padded to ``NFFT_MS``; samples outside ``x`` count as zeros, see
``early_available``). Scale invariant. A clap: near 0 dB; a contact: positive.

The veto (benchmarks/clap_early_decay.py): a clap the detector would emit from a **far call** (not a
close call) is dropped when ``low_rise_db`` exceeds the cut. No added delay: a far call is judged once
31.5 ms after its peak have arrived (``ClapDetector``'s ``latency_ms``), so 0-30 ms after the peak is
always in the buffer when it is decided. The cut, nested: for a held-out source, the largest
``low_rise_db`` of the far-call claps that are the other clap sources' true claps (within 60 ms of a
labelled onset) and sharwin's recipe claps (within 60 ms of a recipe time; not when sharwin is held
out), each streamed held out through its own fold's shipped detector at offset 0. Ship rule (the
twenty-sixth pass's): held out, streamed at offsets 0 and 517, fewer negative clips fire, no clap
source's per-clap F1 drops, sharwin's recipe F1 does not drop, the noise rows (white, pink, babble at
10 dB; one speaker at 0 dB) do not lose, p50 decision delay <= 41 ms, ``benchmarks/audio.py``'s speeds
hold. Pure NumPy; for evaluation unless the rule holds.
"""
from __future__ import annotations

import numpy as np

from sensekit.evaluation.audio.clap_window import check_peak, ms_samples, padded, window_in

__all__ = ["ATTACK_TO_MS", "LATE_FROM_MS", "LATE_TO_MS", "LOW_HI_HZ", "LOW_LO_HZ", "NFFT_MS",
           "early_available", "low_rise_db"]

ATTACK_TO_MS = 10.0
LATE_FROM_MS = 10.0
LATE_TO_MS = 30.0
LOW_LO_HZ = 50.0
LOW_HI_HZ = 500.0
NFFT_MS = 80.0


def early_available(n: int, p: int, rate: int) -> bool:
    """Whether ``n`` samples hold the window up to ``LATE_TO_MS`` after the peak at sample ``p``."""
    return window_in(n, p, rate, LATE_TO_MS)


def _share(x: np.ndarray, a: int, b: int, rate: int) -> float | None:
    """The low band's share of the energy of ``x[a:b]`` (zeros outside ``x``); None when it has none."""
    w = padded(x, a, b)
    n = 1 << int(np.ceil(np.log2(max(ms_samples(NFFT_MS, rate), b - a))))
    P = np.abs(np.fft.rfft(w - w.mean(), n)) ** 2
    f = np.fft.rfftfreq(n, 1.0 / rate)
    total = float(P[(f >= LOW_LO_HZ) & (f <= 0.45 * rate)].sum())
    if total <= 0.0:
        return None
    return float(P[(f >= LOW_LO_HZ) & (f < LOW_HI_HZ)].sum()) / total


def low_rise_db(x: np.ndarray, p: int, rate: int) -> float:
    """The low band's share of the energy 10-30 ms after the peak ``x[p]`` over its share in the first
    10 ms, in dB (module doc); 0.0 when either window is silent. ``ValueError`` for a rate under
    2 kHz or a peak outside ``x``."""
    check_peak(x, p, rate, what="the early decay's bands need")
    early = _share(x, p, p + ms_samples(ATTACK_TO_MS, rate), rate)
    late = _share(x, p + ms_samples(LATE_FROM_MS, rate), p + ms_samples(LATE_TO_MS, rate), rate)
    if early is None or late is None:
        return 0.0
    if early <= 0.0:
        return 0.0 if late <= 0.0 else 99.0
    if late <= 0.0:
        return -99.0
    return float(10.0 * np.log10(late / early))
