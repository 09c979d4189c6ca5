"""A live camera's rate in ``meta.json`` is measured from the frame times, checked on known times.

A ``Recorder`` with ``fps=None`` is fed frames whose times the test sets: a camera at 15 or
8 fps with seeded jitter of up to 3 ms and a connect backlog of 5 frames sent back to back.
The stated rate is then exact whatever the machine's load: 15 (a standard rate, snapped),
8.03 (8 is not a standard rate: 1 / the median interval, to 0.01 fps), ``fps_from:
"timestamps"``, and ``fps_measured`` the mean rate after the backlog. A recording that lost
one frame in four (the recorder could not keep up) states the mean recorded rate instead,
so the video plays as long as it took. ``test_record_fps.py`` checks the real CLI on an
MJPEG server against the same rule applied to the recording's own timestamps.
"""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.capture.base import VideoFrame
from sensekit.capture.recorder import Recorder
from sensekit.capture.recording_meta import read_meta, read_timestamps
from sensekit.capture.video_segments import STANDARD_FPS

BACKLOG = 5


def _times(fps: float, seconds: float) -> np.ndarray:
    rng = np.random.default_rng(int(fps))
    n = int(seconds * fps)
    t = 1.0 + np.arange(n) / fps + rng.uniform(-0.003, 0.003, n)
    t[:BACKLOG] = t[BACKLOG] - 0.001 * np.arange(BACKLOG, 0, -1)      # sent back to back at connect
    return t


def _record(tmp_path, times: np.ndarray) -> dict:
    path = tmp_path / "cam.skrec"
    image = np.zeros((24, 32, 3), np.uint8)
    with Recorder(path, video=(32, 24, None)) as rec:
        for i, t in enumerate(times):
            rec.write(VideoFrame(i, float(t), image))
    assert np.array_equal(read_timestamps(path / "video_ts.csv", complete=True), np.round(times, 6))
    return read_meta(path)["video"]


@pytest.mark.parametrize("fps", [15.0, 8.0])
def test_meta_states_the_camera_rate_measured_from_frame_times(tmp_path, fps):
    times = _times(fps, 3.0)
    video = _record(tmp_path, times)
    assert video["fps_from"] == "timestamps"
    if fps in STANDARD_FPS:
        assert video["fps"] == fps                                    # exactly: a standard rate
    else:                                                             # the camera's rate, to 0.01 fps
        camera = 1 / np.median(np.diff(times[-65:]))                  # (the last 64 intervals)
        assert video["fps"] == round(camera, 2) and abs(video["fps"] - fps) <= 0.25
    mean = (len(times) - 1 - BACKLOG) / (times[-1] - times[BACKLOG])  # after the backlog
    assert video["fps_measured"] == round(mean, 3)


def test_a_recorder_that_fell_behind_states_the_recorded_rate(tmp_path):
    times = _times(30.0, 4.0)
    k = np.arange(len(times))
    times = times[(k % 4 != 3) | (k <= BACKLOG)]                      # then one frame in four lost
    video = _record(tmp_path, times)
    mean = (len(times) - 1 - BACKLOG) / (times[-1] - times[BACKLOG])
    assert video["fps_measured"] == round(mean, 3)
    assert video["fps"] == round(mean, 2) != 30.0                     # plays as long as it took
