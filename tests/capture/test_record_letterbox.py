"""A camera that comes back at another aspect ratio under ``sensekit record`` is letterboxed.

A stream server restarted at 16:9 under a 4:3 recording: the frames used to be stretched to the
recording's size (a round ball became an egg to the tracker, a zone moved against the picture).
Now they keep their aspect: scaled to fit, with black bands top and bottom. Through a real
substitute: a local MJPEG server stopped and started again at 160x90 while ``record_source``
records a ``CameraSource`` on it at 160x120; the replay is what a user gets.
"""
from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np

from sensekit.capture.base import VideoFrame
from sensekit.capture.camera import CameraSource
from sensekit.capture.record_loop import letterboxed, record_source
from sensekit.capture.replay import ReplaySource
from tests.capture.mjpeg_server import MjpegServer


def _bright(n: int, size: tuple[int, int]) -> np.ndarray:
    """A picture with no black in it (so a band of black can only be the letterbox)."""
    w, h = size
    img = np.empty((h, w, 3), np.uint8)
    img[:] = np.linspace(80, 220, w, dtype=np.uint8)[None, :, None]
    return img


def test_a_stream_back_at_16_9_under_a_4_3_recording_is_letterboxed_not_stretched(tmp_path: Path) -> None:
    out = tmp_path / "show.skrec"
    with MjpegServer(size=(160, 120), fps=30, make_frame=_bright) as server:
        cam = CameraSource(server.url, backoff_initial_s=0.02, backoff_max_s=0.05)

        def restart_at_16_9() -> None:
            time.sleep(0.5)
            server.stop()
            server.size = (160, 90)
            time.sleep(0.3)
            server.start()
        mover = threading.Thread(target=restart_at_16_9, daemon=True)
        mover.start()
        with cam:
            # 5.5 s after the restart: room for the scaled frames on a loaded machine
            done = record_source(cam, out, seconds=6.0, progress=False)
        mover.join(timeout=5)
    assert done["source_drops"].get("resized_frames", 0) >= 10, done
    with ReplaySource(out) as src:
        frames = [i.image for i in src if isinstance(i, VideoFrame)]
    assert all(f.shape == (120, 160, 3) for f in frames)
    late = frames[-5:]                                    # after the restart: 160x90 fitted into 160x120
    for f in late:
        assert f[:14].max() == 0 and f[-14:].max() == 0   # the bands: 15 rows each side, black
        assert f[17:-17].min() >= 60                      # the picture between them, not stretched over them
    early = frames[:5]
    assert all(f.min() >= 60 for f in early)              # before: the full picture


def test_letterboxed_keeps_the_aspect_and_fills_a_picture_of_the_same_aspect() -> None:
    rng = np.random.default_rng(0)
    wide = rng.integers(1, 256, (90, 160, 3), dtype=np.uint8)
    boxed = letterboxed(wide, (320, 240))
    assert boxed.shape == (240, 320, 3)
    assert boxed[:30].max() == 0 and boxed[-30:].max() == 0 and boxed[30:-30].min() > 0
    tall = rng.integers(1, 256, (240, 100, 3), dtype=np.uint8)
    side = letterboxed(tall, (160, 120))
    assert side[:, :55].max() == 0 and side[:, -55:].max() == 0 and side[:, 55:-55].min() > 0
    same = rng.integers(0, 256, (60, 80, 3), dtype=np.uint8)
    import cv2
    assert np.array_equal(letterboxed(same, (160, 120)), cv2.resize(same, (160, 120), interpolation=cv2.INTER_LINEAR))
