"""A taught sound's fixed-length summary: log-mel statistics of its voiced part.

``embedding(segment)`` gives 60 numbers (float32) from the log energies of 20 mel bands up to
4 kHz (25 ms windows every 10 ms, as ``sounds.features`` uses, so 8 kHz and 48 kHz audio look
alike): per band the mean over the sound less the mean of all bands (the spectrum's shape; the
level does not count), the standard deviation over the sound, and the mean size of the change
from one 10 ms frame to the next. Unlike the MFCC templates of ``sounds.features``, whose mean
is removed, the shape of the spectrum is kept: that is what tells a knock from a clap.
``cosine_distances(a, b)`` compares them (0: the same direction, up to 2).

Cost: ~1 ms per 0.5 s sound (one filterbank). Failure modes: a segment under 25 ms gives one
frame (its deviations are 0); microphones of very different colour move the shape.
"""
from __future__ import annotations

import numpy as np

from sensekit.audio.vad import RATE, Segment

__all__ = ["embedding", "embedding_of", "cosine_distances", "N_BANDS", "EMBEDDING_SIZE"]

N_BANDS = 20
EMBEDDING_SIZE = 3 * N_BANDS


def _voiced(segment: Segment) -> np.ndarray:
    """The voiced part of ``segment`` as ``sounds.features`` cuts it (float64)."""
    a = max(0, int(round((segment.start - segment.t0) * RATE)))
    b = min(len(segment.pcm), int(round((segment.end - segment.t0) * RATE)))
    x = segment.pcm[a:b].astype(np.float64)
    if len(x) < 400:
        x = segment.pcm.astype(np.float64)
    return x


def embedding_of(samples: np.ndarray) -> np.ndarray:
    """``embedding`` of 16 kHz samples (any scale: the level does not count)."""
    from python_speech_features import logfbank

    x = np.asarray(samples, np.float64)
    if len(x) < 400:
        x = np.pad(x, (0, 400 - len(x)))
    m: np.ndarray = logfbank(x, samplerate=RATE, winlen=0.025, winstep=0.01, nfilt=N_BANDS, nfft=512,
                             lowfreq=0, highfreq=4000)
    mean = m.mean(axis=0)
    delta = np.abs(np.diff(m, axis=0)).mean(axis=0) if len(m) > 1 else np.zeros(N_BANDS)
    return np.concatenate([mean - mean.mean(), m.std(axis=0), delta]).astype(np.float32)


def embedding(segment: Segment) -> np.ndarray:
    """The 60 log-mel statistics of the voiced part of ``segment`` (see the module docstring)."""
    return embedding_of(_voiced(segment))


def cosine_distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``1 - cos`` between each row of ``a`` and each row of ``b`` (``len(a) x len(b)``)."""
    def unit(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, np.float64).reshape(len(x), -1)
        return np.asarray(x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12))
    return np.asarray(np.clip(1.0 - unit(a) @ unit(b).T, 0.0, 2.0))
