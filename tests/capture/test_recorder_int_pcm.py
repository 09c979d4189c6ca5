"""A source that hands the recorder integer PCM other than int16 (a 24/32-bit interface read as
int32, 8-bit unsigned): the recording holds what the live stages heard (harden22).

Before, ``float_to_int16`` took an int32 block for floats and clipped every sample to full scale:
a sine at half scale was recorded as a full-scale square wave (mean |x| 0.9999), silently, while the
live level meter read it right (``level.mono`` scales integer PCM). Now both read integer PCM by
``wav.pcm_to_float``, and the replay gives the live stages' levels.
"""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.audio.level import LevelMeter, mono
from sensekit.capture.base import AudioBlock
from sensekit.capture.recorder import Recorder
from sensekit.capture.replay import ReplaySource

RATE = 16000


def sine(dtype: type[np.integer]) -> np.ndarray:
    x = 0.5 * np.sin(np.arange(RATE) * 2 * np.pi * 440 / RATE)
    info = np.iinfo(dtype)
    if info.min < 0:
        return np.round(x * -float(info.min)).astype(dtype)
    half = (info.max + 1) / 2
    return np.round(x * half + half).astype(dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.uint8, np.int64])
def test_integer_pcm_is_recorded_at_its_own_full_scale(tmp_path, dtype) -> None:
    x = sine(dtype)
    path = tmp_path / "take.skrec"
    live = LevelMeter()
    heard = []
    with Recorder(path, audio=(RATE, 1), reproducible=True) as rec:
        for k, i in enumerate(range(0, RATE, 512)):
            block = AudioBlock(k, i / RATE, x[i:i + 512], RATE)
            rec.write(block)
            heard.append(live.process(block.samples))
    got = np.concatenate([b.samples for b in ReplaySource(path) if isinstance(b, AudioBlock)])
    want = mono(x)
    assert len(got) == len(want)
    assert np.abs(got - want).max() <= 1 / 128 + 1e-6          # uint8's step; int32 to 1/32768
    assert float(np.abs(got).mean()) == pytest.approx(2 * 0.5 / np.pi, abs=0.01)   # not a square wave
    again = LevelMeter()
    replayed = [again.process(got[i:i + 512]) for i in range(0, RATE, 512)]
    assert replayed == pytest.approx(heard, abs=0.5)
