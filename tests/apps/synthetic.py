"""A tiny deterministic Source for testing the app layer without the bundled clip.

Video: 160x120 at 15 fps, grey room with a dark horizontal shelf and an
orange-red ball moving left to right (camera coordinates, not mirrored).
Audio: 16 kHz mono in 1024-sample blocks, a 220 Hz tone that is loud for the
first half of every second and quiet for the second half. ``lose_at`` makes the
source report ``SourceLost`` at that time (as a live device would).
"""
from __future__ import annotations

import numpy as np

from sensekit.capture.base import AudioBlock, Item, Source, VideoFrame, merge_by_time
from sensekit.events import SourceLost

W, H, FPS = 160, 120, 15.0
RATE, BLOCK = 16000, 1024


def ball_x(t: float) -> float:
    return 20.0 + (t % 4.0) / 4.0 * (W - 40)


class SyntheticSource(Source):
    kind = "synthetic"

    def __init__(self, seconds: float = 4.0, *, video: bool = True, audio: bool = True,
                 lose_at: float | None = None) -> None:
        self.seconds = seconds
        self.has_video, self.has_audio = video, audio
        self.frame_size = (W, H) if video else None
        self.fps = FPS if video else None
        self.sample_rate = RATE if audio else None
        self.channels = 1 if audio else None
        self.lose_at = lose_at
        self._lost_reported = False
        self._last_t = 0.0
        self._it = None

    @property
    def description(self) -> str:
        return "synthetic"

    def _frames(self):
        rng = np.random.default_rng(0)
        base = np.full((H, W, 3), 120, np.uint8)
        base += rng.integers(0, 20, base.shape, dtype=np.uint8)
        base[60:64, :] = 30                                   # a shelf edge
        yy, xx = np.mgrid[0:H, 0:W]
        for i in range(int(self.seconds * FPS)):
            t = i / FPS
            img = base.copy()
            img[(xx - ball_x(t)) ** 2 + (yy - 40) ** 2 <= 64] = (20, 60, 250)   # BGR orange-red
            yield VideoFrame(i, t, img)

    def _blocks(self):
        n = int(self.seconds * RATE / BLOCK)
        for i in range(n):
            t = i * BLOCK / RATE
            s = np.arange(BLOCK) + i * BLOCK
            amp = 0.5 if (t % 1.0) < 0.5 else 0.005
            yield AudioBlock(i, t, (amp * np.sin(2 * np.pi * 220 * s / RATE)).astype(np.float32), RATE)

    def open(self) -> None:
        if self._it is None:
            streams = ([self._frames()] if self.has_video else []) + ([self._blocks()] if self.has_audio else [])
            self._it = merge_by_time(*streams)

    def read(self, timeout: float | None = None) -> Item | None:
        self.open()
        try:
            item = next(self._it)
        except StopIteration:
            raise EOFError from None
        self._last_t = item.t
        return item

    def poll_status(self) -> list:
        if self.lose_at is not None and not self._lost_reported and self._last_t >= self.lose_at:
            self._lost_reported = True
            return [SourceLost(t=self._last_t, source="synthetic camera", reason="unplugged")]
        return []
