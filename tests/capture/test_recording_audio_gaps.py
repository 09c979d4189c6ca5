"""A microphone that goes quiet for longer than 10 s, then comes back: the recording keeps the gap.

The microphone's sample clock jumps forward to the wall time after a reconnect
(``MicrophoneSource._reopen``); a device that delivers nothing for 10 s is lost after 2 s and
reopened with back-off, so its next block starts more than 10 s after the last. The recorder
used to fill gaps of at most 10 s (``MAX_PAD_S``) with silence and log the rest: every sample
after a longer gap was stored straight after the samples before it, so the replay played it
early by the gap's length (out of sync with the video, the claps at the wrong times), and
``sensekit inspect`` said nothing. The recorder's clock (``sensekit.capture.recorder._monotonic``)
is moved by hand here, so the tests are exact.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sensekit.capture import recorder as recorder_mod
from sensekit.capture.base import AudioBlock, VideoFrame
from sensekit.capture.recording import MAX_PAD_S, Recorder, read_meta
from sensekit.capture.replay import ReplaySource
from sensekit.cli.inspect import summary

RATE = 1000
BLOCK = 100


class HandClock:
    """The recorder's monotonic clock, moved by the test only."""

    def __init__(self) -> None:
        self.now = 5000.0

    def __call__(self) -> float:
        return self.now


def _block(k: int, t: float) -> AudioBlock:
    return AudioBlock(k, t, np.full(BLOCK, ((k % 7) + 1) / 8, np.float32), RATE)


def _record_with_gap(path: Path, clock: HandClock, gap_s: float, *, video: bool = False) -> None:
    """Blocks for 1 s, nothing for ``gap_s`` seconds (the clock moves on), blocks for 1 s."""
    kwargs = {"video": (16, 12, 10.0)} if video else {}
    with Recorder(path, audio=(RATE, 1), block_size=BLOCK, **kwargs) as r:
        for k in range(10):
            r.write(_block(k, k * 0.1))
            if video:
                r.write(VideoFrame(k, k * 0.1, np.full((12, 16, 3), k, np.uint8)))
            clock.now += 0.1
        clock.now += gap_s
        for k in range(10, 20):
            t = gap_s + k * 0.1
            r.write(_block(k, t))
            if video:
                r.write(VideoFrame(k, t, np.full((12, 16, 3), k, np.uint8)))
            clock.now += 0.1


@pytest.mark.parametrize("gap_s", [12.0, 60.0])
def test_a_gap_longer_than_ten_seconds_stays_a_gap_in_the_replay(tmp_path: Path, monkeypatch, gap_s):
    clock = HandClock()
    monkeypatch.setattr(recorder_mod, "_monotonic", clock)
    assert gap_s > MAX_PAD_S
    rec = tmp_path / "quiet.skrec"
    _record_with_gap(rec, clock, gap_s, video=True)
    meta = read_meta(rec)
    gap = int(gap_s * RATE)
    assert meta["audio_padded_samples"] == gap
    assert meta["audio_samples"] == 2000 + gap
    assert meta["audio_gaps"] == [[1000, gap]]
    blocks = [b for b in ReplaySource(rec) if isinstance(b, AudioBlock)]
    heard = np.concatenate([b.samples for b in blocks])
    # every block after the gap plays at the time it was heard, bit for bit
    for k in range(10, 20):
        start = int(round((gap_s + k * 0.1) * RATE))
        assert np.array_equal(heard[start:start + BLOCK], _block(k, 0).samples), k
    assert not heard[1000:1000 + gap].any()
    text, status = summary(rec)
    assert status == 0
    assert f"{gap_s:.3f} s of silence fills 1 gap" in text, text


def test_a_jump_beyond_the_time_recorded_is_not_padded_and_inspect_says_so(tmp_path, monkeypatch):
    """A block whose time is later than any live gap could be (the recorder has run 1 s, the
    block claims 1 hour on): not filled with an hour of silence, but kept in meta and named."""
    clock = HandClock()
    monkeypatch.setattr(recorder_mod, "_monotonic", clock)
    rec = tmp_path / "jump.skrec"
    with Recorder(rec, audio=(RATE, 1), block_size=BLOCK) as r:
        for k in range(10):
            r.write(_block(k, k * 0.1))
            clock.now += 0.1
        r.write(_block(10, 3600.0))
    meta = read_meta(rec)
    assert meta["audio_samples"] == 1100 and meta["audio_padded_samples"] == 0
    assert meta["audio_jumps"] == [[1000, 3600 * RATE - 1000]]
    text, _ = summary(rec)
    assert "not kept" in text and "3599.000 s" in text, text


def test_gaps_up_to_ten_seconds_are_padded_whatever_the_clock(tmp_path, monkeypatch):
    """A replay recorded faster than real time (the clock barely moves) still has its gaps of
    up to 10 s filled, as before."""
    clock = HandClock()
    monkeypatch.setattr(recorder_mod, "_monotonic", clock)
    rec = tmp_path / "fast.skrec"
    with Recorder(rec, audio=(RATE, 1), block_size=BLOCK) as r:
        r.write(_block(0, 0.0))
        r.write(_block(1, 9.1))
    meta = read_meta(rec)
    assert meta["audio_padded_samples"] == 9000 and meta["audio_gaps"] == [[100, 9000]]


def test_the_blocks_after_a_jump_follow_on_without_a_warning_each(tmp_path, monkeypatch, caplog):
    """The blocks after a jump that is not filled used to be jumps too (the stored samples never
    caught up): one warning and one ``audio_jumps`` row per block, 94 a second at 48 kHz."""
    clock = HandClock()
    monkeypatch.setattr(recorder_mod, "_monotonic", clock)
    rec = tmp_path / "jump2.skrec"
    with caplog.at_level("WARNING", logger="sensekit.capture.recorder"), \
            Recorder(rec, audio=(RATE, 1), block_size=BLOCK) as r:
        r.write(_block(0, 0.0))
        for k in range(1, 50):
            r.write(_block(k, 3600.0 + (k - 1) * 0.1))
    meta = read_meta(rec)
    assert meta["audio_jumps"] == [[100, 3600 * RATE - 100]]
    assert meta["audio_samples"] == 50 * BLOCK and meta["audio_padded_samples"] == 0
    assert sum("audio jumps" in m for m in caplog.messages) == 1


def test_a_recorder_s_own_clock_is_the_one_its_gap_rule_reads(tmp_path):
    """``Recorder._clock`` (``benchmarks/_fault_mic.py``'s hand-moved clock: a subclass, where it
    used to rewrite ``recorder._monotonic`` for the process): a 60 s gap after 60 s on that clock
    is filled, the same gap on a recorder whose clock stood still is a jump."""
    now = [50.0]

    class HandClock(recorder_mod.Recorder):
        def _clock(self) -> float:
            return now[0]

    padded = []
    for moved in (60.0, 0.0):
        with HandClock(tmp_path / f"r{moved:g}", audio=(1000, 1), block_size=100) as r:
            r.write(AudioBlock(0, 0.0, np.full(100, 0.25, np.float32), 1000))
            now[0] += moved
            r.write(AudioBlock(1, 60.1, np.full(100, 0.5, np.float32), 1000))
        padded.append(r.padded_samples)
    assert padded == [60000, 0]
