"""The clap band's running energy for the peak search: a cumulative sum of ``d**2``, each sample once.

``ClapDetector`` searches its candidate regions for their peak on ``e``, the 1 ms mean of
``d**2`` (``d``: ``clap_features.clap_band`` of the samples, in float64), and checks the
peak's rise and sustain on sums of ``d**2`` over 25 ms before and 9 ms after it. All of that
is differences of one cumulative sum. Consecutive searches overlap (each needs the ~50 ms
before its first region), so ``BandEnergy`` keeps the sum between searches and only extends
it over the samples that are new: every sample's band is computed once instead of in every
search that reaches back over it.

The band of a sample depends on that sample and the ``2 L - 1`` before it only, so the
kept ``d**2`` are those a search would compute afresh, to the bit; the sum continues
exactly as one ``np.cumsum`` over the whole stretch would. It restarts (at the first
sample a search needs) when a search needs samples before the kept stretch or after a gap
in it, and when the stretch is older than ``REBASE_S`` (0.5 s), so the sum never grows
over more than half a second of sound (float64 keeps quiet sums after loud ones to
~1e-13 of themselves). Cost: one ``astype``, the band (``log2 L + 1`` additions), a square
and a cumulative sum over the new samples per extension; the array grows when needed.

Failure modes: none of its own (the detector checks rates and blocks); ``extend`` needs
the buffer to hold ``band_pre`` samples before the first new one.
"""
from __future__ import annotations

import numpy as np

from sensekit.audio.clap_features import clap_band
from sensekit.audio.numpy_calls import add_acc

__all__ = ["REBASE_S", "BandEnergy"]

REBASE_S = 0.5        # the kept stretch restarts once it is older than this


class BandEnergy:
    """Cumulative sum of the clap band's ``d**2`` over a stretch of the stream.

    After ``extend(buf, b0, a, stop)``, ``c[i - c0]`` is the sum of ``d**2`` over stream
    samples ``c0 .. i - 1`` for every ``i`` in ``a .. stop`` (``c0 <= a``).
    """

    def __init__(self, rate: int, width: int) -> None:
        self.width = width
        self.band_pre = 2 * width - 1              # samples clap_band needs before the first
        self._rebase = max(1, round(REBASE_S * rate))
        self.c = np.zeros(4096, np.float64)
        self.c0 = 0                                # stream index of the stretch's first sample
        self._cend = 0                             # stream index just past the summed samples

    def reset(self) -> None:
        """Forget the stretch (the stream restarted)."""
        self.c0 = self._cend = 0

    def extend(self, buf: np.ndarray, b0: int, a: int, stop: int) -> None:
        """Make ``c`` cover stream samples ``a .. stop - 1`` (``buf[i - b0]`` is sample ``i``)."""
        if a < self.c0 or a > self._cend or a - self.c0 > self._rebase:
            self.c0 = self._cend = a               # restart the stretch at a
            self.c[0] = 0.0
        end = self._cend
        if stop <= end:
            return
        c0 = self.c0
        if stop - c0 + 1 > len(self.c):
            grown = np.empty(2 * (stop - c0 + 1), np.float64)
            grown[: end - c0 + 1] = self.c[: end - c0 + 1]
            self.c = grown
        d = clap_band(buf[end - self.band_pre - b0: stop - b0].astype(np.float64), self.width)
        d *= d
        i = end - c0
        d[0] += self.c[i]                          # continue the sum exactly
        add_acc(d, out=self.c[i + 1: stop - c0 + 1])     # (np.cumsum's own C loop)
        self._cend = stop
