"""A camera that comes back at another size under a running ``sensekit record`` (harden27).

A show records for weeks; a USB camera unplugged and plugged back, or a stream server
restarted, reconnects (``CameraSource``'s back-off) and may give frames of another size (the
device's default instead of the size asked, a stream now served at 640x360). ``record_source``
handed them to the recorder, which refuses a frame of another shape: the recording stopped there
(``RecordingError``, marked incomplete) and ``sensekit record`` exited, for the rest of the show.
Now each such frame is scaled to the recording's size, a warning says it once per new size, and
``meta.json``'s ``source_drops`` counts them (``resized_frames``), which ``inspect`` shows.

The frames are the bundled demo recording's (real footage), the second half at half size, as a
camera reconnected at another resolution would hand them over."""
from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from sensekit.capture.base import Item, Source, VideoFrame
from sensekit.capture.record_loop import record_source
from sensekit.capture.replay import ReplaySource
from sensekit.cli import main
from sensekit.clock import ManualClock

from ..test_arg_types import DEMO

N = 12


class ReconnectedCamera(Source):
    """A live camera handing over ``frames`` (then it ends), each 1/15 s after the last."""
    is_live = True
    has_video = True
    kind = "camera"

    def __init__(self, frames: list[np.ndarray], clock: ManualClock) -> None:
        self.frames, self.clock, self.n = frames, clock, 0
        self.frame_size = (frames[0].shape[1], frames[0].shape[0])
        self.fps = 15.0

    @property
    def description(self) -> str:
        return "camera 0 (reconnected)"

    def read(self, timeout: float | None = None) -> Item | None:
        if self.n >= len(self.frames):
            raise EOFError
        self.clock.advance(1 / 15)
        frame = VideoFrame(self.n, self.n / 15, self.frames[self.n], captured_at=None)
        self.n += 1
        return frame


def _demo_frames() -> list[np.ndarray]:
    if not (DEMO / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")
    with ReplaySource(DEMO) as src:
        frames = [i.image for i in src if isinstance(i, VideoFrame)]
    return frames[:2 * N]


def test_frames_of_another_size_after_a_reconnect_are_scaled_and_the_recording_goes_on(
        tmp_path: Path, caplog: Any, capsys: Any) -> None:
    frames = _demo_frames()
    h, w = frames[0].shape[:2]
    small = [cv2.resize(f, (w // 2, h // 2), interpolation=cv2.INTER_AREA) for f in frames[N:2 * N]]
    given = frames[:N] + small[: N // 2] + frames[N + N // 2: 2 * N] + small[N // 2:]   # and back, then again
    out = tmp_path / "show.skrec"
    with caplog.at_level(logging.WARNING):
        done = record_source(ReconnectedCamera(given, ManualClock()), out, progress=False)
    assert done["frames"] == len(given) == 30 and not done["interrupted"]
    assert done["source_drops"] == {"resized_frames": N}
    said = [r.getMessage() for r in caplog.records if "scaled" in r.getMessage()]
    assert len(said) == 1 and f"{w // 2}x{h // 2}" in said[0] and f"{w}x{h}" in said[0], said
    meta = json.loads((out / "meta.json").read_text())
    assert meta["complete"] is True and meta["source_drops"] == {"resized_frames": N}
    with ReplaySource(out) as src:
        got = [i.image for i in src if isinstance(i, VideoFrame)]
    want = [f if f.shape[:2] == (h, w) else cv2.resize(f, (w, h), interpolation=cv2.INTER_LINEAR) for f in given]
    assert len(got) == len(given) and all(np.array_equal(a, b) for a, b in zip(got, want))   # FFV1: lossless
    assert main(["inspect", str(out)]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert (f"FFV1, 30 frames; {N} frames of another size scaled to the recording's (the camera came back at "
            "another size)") in shown, shown
    assert "missing" not in shown and "lost" not in shown, shown                  # nothing was lost


def test_a_frame_that_is_not_a_picture_still_stops_the_recording(tmp_path: Path) -> None:
    """The control: only a picture of another size is scaled; a grey frame is the recorder's error."""
    frames = _demo_frames()
    given = frames[:3] + [frames[3][:, :, 0].copy()]
    with pytest.raises(Exception, match="frame must be a"):
        record_source(ReconnectedCamera(given, ManualClock()), tmp_path / "bad.skrec", progress=False)
