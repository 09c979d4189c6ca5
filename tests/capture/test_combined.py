"""CombinedSource with two live parts: the horizon rule hands items out without waiting.

Fake live parts whose items "arrive" when a test says so, and whose ``horizon()`` is set
by hand, stand in for a camera and a microphone (the real pair is exercised in
test_microphone.py and benchmarks/latency.py). Time is a hand-moved clock (``FakeTime``, put in
place of the combined source's ``time``): its sleeps advance it, so how long a read waited is
exact, whatever the machine's load.
"""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.capture.base import AudioBlock, Source, VideoFrame
from sensekit.capture.combined import CombinedSource


class FakeTime:
    """``time.monotonic`` and ``time.sleep`` on a clock that only sleeps move."""

    def __init__(self) -> None:
        self.t = 1000.0

    def monotonic(self) -> float:
        return self.t

    def sleep(self, dt: float) -> None:
        self.t += max(0.0, dt)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeTime:
    fake = FakeTime()
    monkeypatch.setattr("sensekit.capture.combined.time", fake)
    monkeypatch.setattr(FakeLive, "time", fake)
    return fake


class FakeLive(Source):
    is_live = True
    time = FakeTime()           # replaced by the ``clock`` fixture's

    def __init__(self, kind: str, with_horizon: bool = True) -> None:
        self.kind = kind
        self.has_video = kind == "video"
        self.has_audio = kind == "audio"
        self.pending: list = []
        self.next_t: float | None = 0.0
        self.started_at = None
        if not with_horizon:
            self.horizon = None          # type: ignore[assignment]

    def open(self) -> None:
        self.started_at = self.time.monotonic()

    def arrive(self, t: float) -> None:
        if self.kind == "video":
            self.pending.append(VideoFrame(len(self.pending), t, np.zeros((2, 2, 3), np.uint8)))
        else:
            self.pending.append(AudioBlock(len(self.pending), t, np.zeros(4, np.float32), 8000))

    def horizon(self) -> float | None:
        return self.next_t

    def read(self, timeout: float | None = None):
        if self.pending:
            return self.pending.pop(0)
        if timeout:
            self.time.sleep(min(timeout, 0.001))
        return None


def _combined(video: FakeLive, audio: FakeLive) -> CombinedSource:
    src = CombinedSource(video, audio, reorder_window_s=0.2)
    src.open()
    for part in src._parts:         # both parts "started" with the combined source
        part.offset = 0.0
    return src


def _timed_read(src: CombinedSource, clock: FakeTime) -> tuple[object, float]:
    t0 = clock.monotonic()
    item = src.read(timeout=0.5)
    return item, clock.monotonic() - t0


def test_audio_goes_out_at_once_when_the_camera_cannot_deliver_anything_earlier(clock):
    video, audio = FakeLive("video"), FakeLive("audio")
    src = _combined(video, audio)
    video.next_t = 0.120                    # the grab in progress started at t = 0.120
    audio.arrive(0.100)
    item, waited = _timed_read(src, clock)
    assert isinstance(item, AudioBlock) and item.t == 0.100
    assert waited == 0.0                    # not the 0.2 s reorder window


def test_a_frame_waits_for_the_block_that_covers_its_time_and_order_is_kept(clock):
    video, audio = FakeLive("video"), FakeLive("audio")
    src = _combined(video, audio)
    audio.next_t = 0.128                    # the microphone's next block starts at 0.128
    video.next_t = 0.150
    video.arrive(0.140)
    assert src.read(timeout=0.02) is None   # a block starting before 0.140 may still come
    audio.arrive(0.128)                     # it does, and goes first
    audio.next_t = 0.160
    first, _ = _timed_read(src, clock)
    second, waited = _timed_read(src, clock)
    assert (type(first), first.t) == (AudioBlock, 0.128)
    assert (type(second), second.t) == (VideoFrame, 0.140) and waited == 0.0


def test_without_a_horizon_the_reorder_window_still_applies(clock):
    video, audio = FakeLive("video"), FakeLive("audio", with_horizon=False)
    src = _combined(video, audio)
    video.arrive(0.5)
    item, waited = _timed_read(src, clock)
    # held the 0.2 s window, polled in the fake microphone's 1 ms sleeps
    assert isinstance(item, VideoFrame) and waited == pytest.approx(0.2, abs=0.0011) and waited >= 0.2
