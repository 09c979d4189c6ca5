"""A source's gain as a run starts from it: a muted (gain 0) microphone or recording stays muted."""
from __future__ import annotations

import argparse
from types import SimpleNamespace

import numpy as np

from sensekit.audio.gain import UNITY_GAIN, source_gain
from sensekit.capture.base import AudioBlock
from sensekit.capture.recorder import Recorder
from sensekit.capture.replay import ReplaySource
from sensekit.cli.audio_options import build_stages


def test_a_missing_or_none_gain_is_unity_and_0_stays_0() -> None:
    assert source_gain(object()) == UNITY_GAIN == 50.0
    assert source_gain(SimpleNamespace(gain=None)) == UNITY_GAIN
    assert source_gain(SimpleNamespace(gain=0)) == 0.0
    assert source_gain(SimpleNamespace(gain=0.0)) == 0.0
    assert source_gain(SimpleNamespace(gain=37)) == 37.0


def _levels(path, gain: float) -> tuple[float, list[float]]:
    rate, block = 16000, 512
    t = np.arange(rate) / rate
    tone = (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)      # loud: level 100 at unity
    with Recorder(path, audio=(rate, 1), block_size=block, gain=gain, fsync=False) as rec:
        for i in range(len(tone) // block):
            rec.write(AudioBlock(i, i * block / rate, tone[i * block:(i + 1) * block], rate))
    args = argparse.Namespace(activity=None, clap=False, pattern=None, pitch=False, level=True,
                              mono=False, pattern_gap_ms=None)
    with ReplaySource(path) as src:
        (stage,) = build_stages(args, src)
        levels = [e.to_dict()["level"] for it in src for e in stage.process(it)
                  if e.to_dict()["event"] == "level"]
        return source_gain(src), levels


def test_a_muted_recording_replays_muted(tmp_path) -> None:
    gain, levels = _levels(tmp_path / "muted.skrec", 0)
    assert gain == 0.0
    assert len(levels) == 31 and set(levels) == {0.0}       # was read as 50: the tone at unity
    gain, levels = _levels(tmp_path / "unity.skrec", UNITY_GAIN)
    assert gain == UNITY_GAIN
    assert len(levels) == 31 and min(levels) > 90
