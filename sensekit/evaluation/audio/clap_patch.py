"""The noise-normalised time-frequency patch around a burst's peak (the fifteenth pass's net input).

``BurstPatch(rate)(x, p)`` gives, for the burst peaking at ``x[p]``, ``PATCH_BANDS`` (16)
log-spaced bands (250 Hz..8 kHz) x ``PATCH_FRAMES`` (12) Hann frames of 4 ms, one every 2 ms
from 6 ms before the peak (the patch spans -6..+20 ms), each value the band's power in dB over
that band's **floor**: the median of the same band in 25 frames, one every 12 ms from 304 to
16 ms before the peak. Steady noise therefore reads ~0 dB, whatever its level or colour; a clap
over it reads its rise. Values are clipped to ``CLIP_DB`` (-20..60 dB); a band above
0.45 x ``rate`` (8 and 16 kHz streams) reads 0 (nothing rose there). Before a stream's start
the signal counts as digital silence (the floor is then tiny: the burst reads the cap).

Pure function of the signal around the peak: gain, block size and start offset do not change
it. Cost: 37 zero-padded FFTs (1024 points at 48 kHz) and a median, ~150 us a burst.
"""
from __future__ import annotations

import numpy as np

__all__ = ["CLIP_DB", "PATCH_BANDS", "PATCH_FRAMES", "BurstPatch"]

PATCH_BANDS = 16
PATCH_FRAMES = 12
FRAME_MS, HOP_MS, FIRST_MS = 4.0, 2.0, -6.0      # the patch's frames: length, hop, first start
FLOOR_MS = (-304.0, -16.0, 12.0)               # the floor's frames: first start, last, step
LO_HZ, HI_HZ = 250.0, 8000.0
CLIP_DB = (-20.0, 60.0)
BIN_HZ = 60.0                                  # the zero-padded FFT's bins at most this far apart
_TINY = 1e-20


class BurstPatch:
    """The patch at one sample rate (its frame offsets, window and band edges)."""

    def __init__(self, rate: int) -> None:
        if rate < 4000:
            raise ValueError(f"rate must be >= 4000 Hz, got {rate}")

        def at(ms: float) -> int:
            return round(rate * ms / 1000.0)

        n = max(8, at(FRAME_MS))
        lo, hi, step = FLOOR_MS
        floor = [at(t) for t in np.arange(lo, hi + 0.5, step)]
        patch = [at(FIRST_MS + k * HOP_MS) for k in range(PATCH_FRAMES)]
        off = np.array(floor + patch)
        self.n_floor = len(floor)
        self.pre = int(-off.min())                   # samples needed before the peak
        self.post = int(off.max()) + n               # and from the peak on
        self._idx = off[:, None] + np.arange(n)[None, :]
        self._win = np.hanning(n)
        self._nfft = int(2 ** np.ceil(np.log2(max(n, rate / BIN_HZ))))
        hz = np.fft.rfftfreq(self._nfft, 1.0 / rate)
        edges = np.geomspace(LO_HZ, HI_HZ, PATCH_BANDS + 1)
        top = 0.45 * rate
        band = np.searchsorted(edges, hz, side="right") - 1    # bin -> band (-1 / 16: outside)
        band[(hz < LO_HZ) | (hz >= HI_HZ) | (hz > top)] = PATCH_BANDS
        self._onehot = np.zeros((len(hz), PATCH_BANDS + 1))
        self._onehot[np.arange(len(hz)), band] = 1.0
        self._onehot = self._onehot[:, :PATCH_BANDS]
        #: bands with no bin under 0.45 x rate read 0 dB
        self._live = self._onehot.sum(axis=0) > 0

    def __call__(self, x: np.ndarray, p: int) -> np.ndarray:
        """The patch of the burst peaking at ``x[p]``: ``(PATCH_BANDS, PATCH_FRAMES)`` in dB
        over the floor. Samples outside ``x`` count as zeros."""
        i = p + self._idx
        if i.min() >= 0 and i.max() < len(x):
            fr = x[i].astype(np.float64)
        else:
            fr = np.where((i >= 0) & (i < len(x)), x[np.clip(i, 0, len(x) - 1)], 0.0).astype(np.float64)
        spec = np.abs(np.fft.rfft(fr * self._win, self._nfft, axis=1)) ** 2
        band = spec @ self._onehot + _TINY                   # (frames, bands)
        floor = np.median(band[: self.n_floor], axis=0)
        db = 10.0 * np.log10(band[self.n_floor:] / floor)
        db[:, ~self._live] = 0.0
        return np.asarray(np.clip(db, *CLIP_DB).T, np.float32)
