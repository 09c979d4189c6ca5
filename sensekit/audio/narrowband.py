"""Telephone-band speech for a wideband recogniser: fill the band the source never had.

``widen_band(pcm, band_hz=4000)`` takes 16 kHz int16 samples of audio that was sampled at
``2 * band_hz`` (8 kHz telephone audio upsampled: nothing above 4 kHz) and returns a copy whose
empty band (``band_hz`` .. 8 kHz) holds noise that follows the level of the top of the real
band (its upper quarter, 3-3.9 kHz for 8 kHz audio; ~6 dB under it per Hz, as the random
phases of overlapping frames add up), frame by frame (512-point STFT, 8 ms hop, random
phase from a fixed seed, so the same samples always give the same result). Below ``band_hz``
the audio is unchanged.

Why: the wheel's PocketSphinx model computes its features with mel filters up to 6.8 kHz. On
upsampled 8 kHz audio the top filters are empty, and the fricatives that live there ("s", "f",
"z") vanish, so "six" sounds like "eight" and "five" like "one". Noise shaped by the 3-4 kHz
band puts back a fricative's loudness (not its spectrum). On the developer digits it raises
the held-out keyword recall from 0.636 to 0.676 at the same false accepts (4.3 %) (docs/voice.md,
``benchmarks/voice_eval.py``); it is not a bandwidth-extension model and has been measured
only on 8 kHz input, where it also misses one more of theo's ten test commands at the default
threshold (tests/audio/test_voice.py), so ``VoiceStage`` uses it only when the
``voice.widen_band`` setting is on. Audio whose band reaches ``WIDEN_BELOW_HZ`` (7 kHz) or more is returned
as it is.

Cost: ~1 ms per second of audio (``scipy.signal`` STFT), and only for voiced segments.
"""
from __future__ import annotations

import numpy as np

from sensekit.audio.vad import RATE

__all__ = ["widen_band", "WIDEN_BELOW_HZ"]

WIDEN_BELOW_HZ = 7000.0     # the model's filters end at 6.8 kHz: a band that reaches them is left alone
_NPERSEG = 512
_NOVERLAP = 384
_SEED = 0


def widen_band(pcm: np.ndarray, *, band_hz: float) -> np.ndarray:
    """``pcm`` (16 kHz int16) with the band above ``band_hz`` filled (see the module docstring)."""
    if band_hz >= WIDEN_BELOW_HZ or len(pcm) < _NPERSEG:
        return pcm
    from scipy.signal import istft, stft

    f, _, z = stft(pcm.astype(np.float64), fs=RATE, nperseg=_NPERSEG, noverlap=_NOVERLAP)
    source = (f >= 0.75 * band_hz) & (f < 0.975 * band_hz)
    empty = f >= band_hz
    level = np.sqrt((np.abs(z[source]) ** 2).mean(axis=0))
    phase = np.exp(2j * np.pi * np.random.default_rng(_SEED).random((int(empty.sum()), z.shape[1])))
    z[empty] = level[None, :] * phase
    _, y = istft(z, fs=RATE, nperseg=_NPERSEG, noverlap=_NOVERLAP)
    out: np.ndarray = np.clip(y[:len(pcm)], -32768, 32767).astype(np.int16)
    return out
