"""A recording's files changed while it is being replayed (a segment deleted, the WAV cut short:
a sync tool, a disk cleaner, a second copy being written over it): what the user is told."""
from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from sensekit.capture.base import AudioBlock, VideoFrame
from sensekit.capture.recording import ReplaySource
from sensekit.errors import RecordingError
from tests.capture.test_recording import FPS, RATE, _mark_incomplete, _segments, write_clip


def test_a_segment_deleted_during_the_replay_of_a_complete_recording_is_named_as_missing(
        tmp_path: Path) -> None:
    """It said "cannot be decoded (is it an FFV1/MKV video?)": the file was not there at all."""
    rec = tmp_path / "g.skrec"
    write_clip(rec, frames=40, blocks=10)
    seg = _segments(rec)[2]
    src = ReplaySource(rec)
    with src:
        first = [src.read() for _ in range(3)]
        assert any(isinstance(i, VideoFrame) for i in first)
        seg.unlink()
        with pytest.raises(RecordingError) as info:
            list(src)                                            # the rest
    msg = str(info.value)
    assert f"'g.skrec/video/{seg.name}' is missing" in msg, msg
    assert "FFV1" not in msg and "\n" not in msg


def test_the_wav_cut_short_during_the_replay_of_an_incomplete_recording_ends_the_audio_not_the_show(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """An incomplete recording plays what is there: audio that ends early ends there, with a
    warning, and the frames play on (it stopped the replay with a RecordingError)."""
    rec = tmp_path / "w.skrec"
    write_clip(rec, frames=40, blocks=50)                       # 2.67 s of video, 2.5 s of audio
    _mark_incomplete(rec)
    src = ReplaySource(rec)
    items = []
    with src, caplog.at_level(logging.WARNING):
        while not items or items[-1].t < 0.5:
            items.append(src.read())
        wav = rec / "audio.wav"
        with open(wav, "r+b") as f:                              # 1 s of samples left
            f.truncate(44 + RATE * 2)
        assert os.path.getsize(wav) == 44 + RATE * 2
        items += list(src)                                       # the rest
    frames = [i for i in items if isinstance(i, VideoFrame)]
    blocks = [i for i in items if isinstance(i, AudioBlock)]
    assert [round(f.t * FPS) for f in frames] == list(range(40))          # every frame played
    end = blocks[-1].t + len(blocks[-1].samples) / RATE
    assert 0.5 < end <= 1.0, end                                       # the audio ended where the WAV did
    said = [r.getMessage() for r in caplog.records if "audio.wav" in r.getMessage()]
    assert len(said) == 1 and "ended early" in said[0], said
