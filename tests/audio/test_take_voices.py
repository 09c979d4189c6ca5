"""``take_voices``: whether the takes of taught words sound like one voice (the default of
``teach words``' parts). Synthetic voice vectors here; real takes in test_taught_words_parts.py."""
from __future__ import annotations

import math

import numpy as np
import pytest

from sensekit.audio.take_voices import MAX_ONE_VOICE_TAKES, ONE_VOICE_BELOW, one_voice, spread_of, voice_vector
from sensekit.audio.vad import RATE, Segment

WORDS = np.array([[0.0] * 19, [10.0] + [0.0] * 18, [0.0, 10.0] + [0.0] * 17])   # three words, 10 apart


def takes_of(rng: np.random.Generator, voices: list[np.ndarray], per_voice: int) -> dict[str, np.ndarray]:
    """Two taught words, each said ``per_voice`` times by every voice (a voice shifts every take)."""
    return {w: np.array([WORDS[i] + v + rng.normal(0, 0.5, 19) for v in voices for _ in range(per_voice)])
            for i, w in enumerate(("one", "five"))}


def test_one_voice_is_tight_and_two_voices_spread():
    rng = np.random.default_rng(0)
    me, you = np.zeros(19), np.r_[np.zeros(9), 10.0, np.zeros(9)]
    others = np.array([WORDS[2] + me + rng.normal(0, 0.5, 19) for _ in range(4)])
    alone = spread_of(takes_of(rng, [me], 4), others)
    both = spread_of(takes_of(rng, [me, you], 2), np.concatenate([others, others + you]))
    assert alone < ONE_VOICE_BELOW <= both
    assert one_voice(alone, 4) and not one_voice(both, 4)
    assert not one_voice(alone, MAX_ONE_VOICE_TAKES + 1)        # a collection of takes: several people


def test_no_word_with_two_takes_counts_as_several_voices():
    spread = spread_of({"one": np.zeros((1, 19))}, np.ones((3, 19)))
    assert math.isnan(spread) and not one_voice(spread, 1)
    assert math.isnan(spread_of({"one": np.zeros((3, 19))}, np.zeros((0, 19))))   # nothing else to compare


def test_voice_vector_of_a_segment():
    pytest.importorskip("python_speech_features")
    t = np.arange(int(0.5 * RATE)) / RATE
    pcm = (8000 * np.sin(2 * np.pi * 220 * t) * (1 + np.sin(2 * np.pi * 3 * t))).astype(np.int16)
    v = voice_vector(Segment(0.1, 0.4, pcm, 0.0))
    assert v.shape == (19,) and np.isfinite(v).all()
    short = voice_vector(Segment(0.1, 0.11, pcm, 0.0))          # under one frame: the whole segment
    assert np.isfinite(short).all()
