"""A source that flaps for weeks must not fill the log: the lines per hour are capped per kind
(``RateLimitFilter``'s long window) and OpenCV's own line per stall of a stream is gone.

Before: a camera lost and restored every 6 s (never 5 of a kind in 10 s, so the short window
never bit) wrote 1,200 lines an hour through logging plus 600 of OpenCV's, straight to stderr.
"""
from __future__ import annotations

import logging
import time

import pytest

from sensekit.capture.camera import CameraSource
from sensekit.ratelimit import RateLimitFilter
from tests.capture.mjpeg_server import MjpegServer


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_a_camera_flapping_every_6_s_for_an_hour_writes_120_lines_and_counts_the_rest():
    clock = Clock()
    flt = RateLimitFilter(clock=clock)
    shown: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            shown.append(record.getMessage())

    log = logging.getLogger("sensekit.test.flapping")
    log.propagate = False
    log.setLevel(logging.INFO)
    handler = Keep()
    handler.addFilter(flt)
    log.handlers[:] = [handler]
    for i in range(600):                                   # one hour, a stall every 6 s
        clock.t = 6.0 * i
        log.warning("%s: lost (%s); reconnecting", "camera:http://cam/stream", "stream stopped delivering frames")
        clock.t = 6.0 * i + 3.0
        log.info("%s: restored", "camera:http://cam/stream")
    assert len(shown) == 120                         # 10 of each kind per 10 minutes (was 1,200)
    assert len(shown) + flt.suppressed_total == 1200                # nothing lost uncounted
    lost = [s for s in shown if "lost" in s]
    assert lost[9].endswith("[repeats in the next 546 s are counted, not shown]"), lost[9]
    assert lost[10].endswith("[90 more like this in the last 600 s not shown]"), lost[10]
    assert sum(n for _, n in flt.pending()) == 2 * 90               # flush() says the last window's


def test_a_stalled_stream_says_lost_once_and_opencv_says_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    """OpenCV printed "Stream timeout triggered after 2018 ms" to stderr at each stall, unlimited,
    beside the "lost (stream stopped delivering frames)" warning that says the same."""
    with MjpegServer(size=(64, 48), fps=30) as server:
        cam = CameraSource(server.url, read_timeout_ms=500, open_timeout_ms=500,
                           backoff_initial_s=0.05, backoff_max_s=0.2)
        with cam:
            deadline = time.monotonic() + 10
            while cam.read(timeout=0.2) is None and time.monotonic() < deadline:
                pass
            server.pause()
            lost: list[str] = []
            while not lost and time.monotonic() < deadline + 5:
                cam.read(timeout=0.05)
                lost = [e.name for e in cam.poll_status()]
            server.resume()
    assert lost == ["source_lost"]
    err = capfd.readouterr().err
    assert "Stream timeout triggered" not in err, err
