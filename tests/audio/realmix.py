"""Scenes made from the real developer clips, for the tests of claps people make.

Every scene keeps the annotated clap times of the clip it is built from, so the tests count
claps found and false claps the same way the evaluation does (+-60 ms).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sensekit.evaluation.audio.clap_training import clipped, mixed, resample, reverberate
from sensekit.evaluation.audio.evaluate import match, read_clips, read_wav, stream_claps

CLAP_CLIPS = ("clap_k_regular14.wav", "clap_k_steady13.wav", "clap_k_mixed18.wav",
              "clap_j_sparse7.wav", "clap_sparse_eldar-sample2.wav")
SPEECH = ("speech_arctic_aew_a0001.wav", "speech_arctic_axb_a0004.wav")
MUSIC = ("music_ibm_piano.wav", "music_am_perfect-alley.wav", "music_ibm_arcade.wav")


def load(data: Path, name: str) -> tuple[np.ndarray, int, list[float]]:
    clip = next(c for c in read_clips(data) if c.file == f"audio/{name}")
    x, rate = read_wav(data / clip.file)
    return x, rate, clip.onsets


def over(data: Path, name: str, background: str, snr_db: float) -> tuple[np.ndarray, int, list[float]]:
    """The clap clip with a background clip (resampled, looped) at ``snr_db``: the power of
    the clap clip over that of the background, both over the clap clip's length."""
    x, rate, onsets = load(data, name)
    b, brate, _ = load(data, background)
    if brate != rate:
        b = resample(b, brate, rate)
    return mixed(x, b, snr_db), rate, onsets


def reverberant(data: Path, name: str, seed: int) -> tuple[np.ndarray, int, list[float]]:
    x, rate, onsets = load(data, name)
    return reverberate(x, rate, np.random.default_rng(seed)), rate, onsets


def driven(data: Path, name: str, seed: int) -> tuple[np.ndarray, int, list[float]]:
    x, rate, onsets = load(data, name)
    return clipped(x, np.random.default_rng(seed)), rate, onsets


def snippets(x: np.ndarray, rate: int, onsets: list[float], before_s: float, length_s: float,
             gains_db: list[float]) -> tuple[np.ndarray, list[float]]:
    """Claps cut out of a recording (from ``before_s`` before each onset, ``length_s`` long)
    and laid end to end with the given gains: fast or soft clapping by a real person."""
    n, k = int(length_s * rate), int(before_s * rate)
    parts, times = [], []
    for i, g in enumerate(gains_db):
        o = onsets[i % len(onsets)]
        a = int(o * rate) - k
        parts.append(x[a:a + n] * np.float32(10.0 ** (g / 20.0)))
        times.append(i * length_s + before_s)
    return np.concatenate(parts), times


def score(x: np.ndarray, rate: int, onsets: list[float], block: int = 512):
    return match(stream_claps(x, rate, block=block), onsets)
