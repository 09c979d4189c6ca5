"""CameraSource on real inputs: a video file opened as a camera and a local MJPEG stream."""
from __future__ import annotations

import socket
import time

import cv2
import numpy as np
import pytest

from sensekit.capture.camera import CameraSource
from sensekit.capture.base import VideoFrame
from sensekit.errors import ConfigError, DeviceNotFoundError, SourceError
from tests.capture.mjpeg_server import MjpegServer
from tests.hang_guard import returns

FILE_FPS = 20.0
FILE_FRAMES = 12


@pytest.fixture(scope="module")
def video_file(tmp_path_factory) -> str:
    """A 64x48 MJPG .avi: 12 frames at 20 fps, frame i has brightness 20*i."""
    path = str(tmp_path_factory.mktemp("cam") / "clip.avi")
    writer = cv2.VideoWriter(path, cv2.VideoWriter_fourcc(*"MJPG"), FILE_FPS, (64, 48))
    assert writer.isOpened()
    for i in range(FILE_FRAMES):
        writer.write(np.full((48, 64, 3), 20 * i, np.uint8))
    writer.release()
    return path


@pytest.fixture
def server():
    with MjpegServer(size=(160, 120), fps=30) as s:
        yield s


def _read_n(src: CameraSource, n: int, timeout: float = 3.0) -> list[VideoFrame]:
    frames = []
    deadline = time.monotonic() + timeout
    while len(frames) < n and time.monotonic() < deadline:
        f = src.read(timeout=0.5)
        if f is not None:
            frames.append(f)
    assert len(frames) == n, f"only {len(frames)} of {n} frames within {timeout} s"
    return frames


# --- a file simulating a live camera -------------------------------------------

def test_file_as_camera_is_paced_at_its_fps_and_loops(video_file):
    with CameraSource(video_file) as cam:
        assert cam.kind == "camera" and cam.is_live and cam.has_video and not cam.has_audio
        assert cam.frame_size == (64, 48)
        assert cam.fps == pytest.approx(FILE_FPS)
        t0 = time.monotonic()
        frames = _read_n(cam, FILE_FRAMES + 4)      # goes past the end: the file loops
        elapsed = time.monotonic() - t0
    # 16 frames at 20 fps take about 0.75 s; a delivery as fast as possible would take ~0
    assert elapsed > 0.6
    assert all(f.image.shape == (48, 64, 3) and f.image.dtype == np.uint8 for f in frames)
    ts = [f.t for f in frames]
    assert ts == sorted(ts) and ts[0] >= 0 and ts[-1] < 5
    assert all(f.captured_at is not None for f in frames)
    # the content after the end is the first frame again (MJPG is lossy: compare roughly)
    means = [float(f.image.mean()) for f in frames]
    assert means[FILE_FRAMES] == pytest.approx(means[0], abs=3)
    assert means[FILE_FRAMES - 1] > means[0] + 150


def test_file_without_loop_ends_with_eof(video_file):
    with CameraSource(video_file, loop=False) as cam:
        got = []
        with pytest.raises(EOFError):
            while True:
                f = cam.read(timeout=2)
                assert f is not None
                got.append(f)
    assert 1 <= len(got) <= FILE_FRAMES
    assert got[-1].index == FILE_FRAMES - 1


def test_requested_mode_is_reported_as_what_the_device_gives(video_file):
    with CameraSource(video_file, width=320, height=240, fps=60) as cam:
        assert cam.requested_width == 320 and cam.requested_fps == 60
        assert cam.frame_size == (64, 48)
        assert cam.fps == pytest.approx(FILE_FPS)
        assert cam.read(timeout=2).image.shape == (48, 64, 3)


def test_still_image_as_camera_keeps_showing_it(tmp_path):
    """``camera:photo.png`` is a camera that shows the photo: no lost/restored flapping."""
    path = tmp_path / "photo.png"
    picture = np.random.default_rng(3).integers(0, 256, (48, 64, 3), dtype=np.uint8)
    assert cv2.imwrite(str(path), picture)
    with CameraSource(str(path)) as cam:
        frames = _read_n(cam, 50, timeout=10.0)
        events = cam.poll_status()
        stats = cam.stats()
    assert events == [] and stats["losses"] == 0 and not stats["lost"]
    assert all(np.array_equal(f.image, picture) for f in frames)
    ts = [f.t for f in frames]
    assert ts == sorted(ts) and ts[-1] > ts[0]                    # paced, not a burst
    with CameraSource(str(path), loop=False) as cam:              # without looping: one frame
        assert np.array_equal(cam.read(timeout=2).image, picture)
        with pytest.raises(EOFError):
            while cam.read(timeout=2) is not None:
                pass


def test_missing_file_names_the_path(tmp_path):
    path = str(tmp_path / "nope.avi")
    with pytest.raises(SourceError, match="nope.avi"):
        CameraSource(path).open()


def test_a_camera_name_that_is_no_index_url_or_file_says_what_a_camera_is(capsys):
    # `camera:usb` said only "camera file not found: 'usb'"
    from sensekit.cli import main

    assert main(["events", "camera:usb", "--max-items", "1"]) == 2
    assert capsys.readouterr().err == (
        "sensekit: error: no camera 'usb': a camera is an index (camera:0; `sensekit devices` lists "
        "them), a stream URL or a video file that exists\n")


def test_bad_settings_quote_the_value():
    with pytest.raises(ConfigError, match="`width` must be 1..16384, got 0"):
        CameraSource(0, width=0)
    with pytest.raises(ConfigError, match="fps"):
        CameraSource(0, fps=-5)


# --- a live MJPEG stream over HTTP -----------------------------------------------

def test_stream_frames_size_and_latency(server):
    with CameraSource(server.url) as cam:
        assert cam.frame_size == (160, 120)
        assert cam.description == f"camera:{server.url}"
        frames = _read_n(cam, 10)
        stats = cam.stats()
    assert all(f.image.shape == (120, 160, 3) for f in frames)
    idx = [f.index for f in frames]
    assert idx == sorted(idx) and len(set(idx)) == len(idx)
    assert stats["frames_delivered"] == 10
    assert stats["latency_ms"] is not None and 0 <= stats["latency_ms"] < 500
    assert stats["lost"] is False and stats["losses"] == 0


def test_slow_consumer_gets_the_latest_frame_and_drops_are_counted(server):
    with CameraSource(server.url) as cam:
        first = cam.read(timeout=2)
        time.sleep(0.5)                           # ~15 frames arrive meanwhile
        latest = cam.read(timeout=2)
        again = cam.read(timeout=0.0)             # nothing new delivered twice
        stats = cam.stats()
    assert first is not None and latest is not None
    assert latest.index - first.index > 5
    assert again is None or again.index > latest.index
    assert stats["dropped_frames"] >= latest.index - first.index - 1 > 0
    assert (latest.t - first.t) > 0.4
    # the frame handed out was grabbed moments ago (a FIFO would hand out one ~0.5 s old)
    assert stats["latency_ms"] < 150
    # every grabbed frame was delivered, dropped, or is waiting in the one-frame slot
    assert stats["frames_grabbed"] - stats["frames_delivered"] - stats["dropped_frames"] in (0, 1)


def test_stream_lost_then_restored_without_exceptions(server):
    cam = CameraSource(server.url, read_timeout_ms=1000, open_timeout_ms=1000,
                       backoff_initial_s=0.05, backoff_max_s=0.2)
    with cam:
        _read_n(cam, 3)
        assert cam.poll_status() == []
        server.stop()                             # the camera vanishes
        lost = []
        deadline = time.monotonic() + 5
        while not lost and time.monotonic() < deadline:
            cam.read(timeout=0.1)                # never raises while lost
            lost = cam.poll_status()
        assert [e.name for e in lost] == ["source_lost"]
        assert lost[0].source == f"camera:{server.url}" and lost[0].reason
        while cam.read(timeout=0) is not None:   # drain a frame grabbed before the loss
            pass
        assert cam.read(timeout=0.3) is None
        assert cam.stats()["lost"] is True
        last_index = cam.stats()["frames_grabbed"]

        server.start()                            # same port again
        restored = []
        deadline = time.monotonic() + 5
        while not restored and time.monotonic() < deadline:
            cam.read(timeout=0.1)
            restored = cam.poll_status()
        assert [e.name for e in restored] == ["source_restored"]
        assert restored[0].t > lost[0].t
        frames = _read_n(cam, 3)
        assert frames[0].index >= last_index
        stats = cam.stats()
    assert stats["lost"] is False and stats["losses"] == 1 and stats["reconnects"] >= 1


def _fds_and_threads() -> tuple[int, int]:
    import os

    with open("/proc/self/status") as f:
        threads = next(int(line.split()[1]) for line in f if line.startswith("Threads:"))
    return len(os.listdir("/proc/self/fd")), threads


def test_a_stream_server_restarted_60_times_leaves_no_descriptor_or_thread_behind():
    """A show's network camera that restarts again and again: each restart is one ``source_lost``
    and one ``source_restored``, and the reconnects hold no more descriptors or threads (the
    process's own, FFmpeg's included) in the last 20 restarts than in the first 20. A leak of
    one a reconnect would read 40 more."""
    import sys

    if not sys.platform.startswith("linux"):
        pytest.skip("counts descriptors and threads in /proc")
    with MjpegServer(size=(64, 48), fps=60) as server:
        cam = CameraSource(server.url, backoff_initial_s=0.02, backoff_max_s=0.05)
        counts: list[tuple[int, int]] = []
        names: list[str] = []
        with cam:
            _read_n(cam, 1)
            for _ in range(60):
                server.restart_under(cam)
                names += [e.name for e in cam.poll_status()]
                counts.append(_fds_and_threads())
    assert names == ["source_lost", "source_restored"] * 60
    first, last = counts[:20], counts[-20:]
    assert max(c[0] for c in last) <= max(c[0] for c in first), counts
    assert max(c[1] for c in last) <= max(c[1] for c in first), counts


def test_hung_stream_times_out_into_lost_and_recovers(server, monkeypatch):
    # the server keeps the connection open but stops sending: the read timeout must fire
    opened: list[tuple] = []
    real_capture = cv2.VideoCapture

    def capture(*args):                  # every capture the source opens, with its parameters
        opened.append(args)
        return real_capture(*args)

    monkeypatch.setattr(cv2, "VideoCapture", capture)
    cam = CameraSource(server.url, read_timeout_ms=500, open_timeout_ms=500,
                       backoff_initial_s=0.05, backoff_max_s=0.2)
    with cam:
        _read_n(cam, 2)
        # the stream is read with the 0.5 s read timeout in force (OpenCV cannot report it back)
        assert opened == [(server.url, cv2.CAP_FFMPEG, [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, 500,
                                                         cv2.CAP_PROP_READ_TIMEOUT_MSEC, 500])]
        server.pause()
        t0 = time.monotonic()
        lost = []
        while not lost and time.monotonic() - t0 < 5:
            cam.read(timeout=0.05)
            lost = cam.poll_status()
        assert [e.name for e in lost] == ["source_lost"], "no source_lost 5 s after the stream stopped: a hang"
        assert lost[0].reason == "stream stopped delivering frames"
        server.resume()
        restored = []
        while not restored and time.monotonic() - t0 < 8:
            cam.read(timeout=0.05)
            restored = cam.poll_status()
        assert [e.name for e in restored] == ["source_restored"]
        assert cam.read(timeout=2) is not None


# --- bad input -------------------------------------------------------------------

def test_missing_camera_index_names_it_and_lists_what_is_available():
    with pytest.raises(DeviceNotFoundError) as info:
        returns(CameraSource(57).open, what="opening camera 57 (and probing 0..4 for the message)")
    msg = str(info.value)
    assert "57" in msg and "available:" in msg


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_refused_stream_url_names_the_url_promptly():
    url = f"http://127.0.0.1:{_closed_port()}/stream.mjpg"
    with pytest.raises(SourceError) as info:
        returns(CameraSource(url, open_timeout_ms=2000).open, what="opening a refused stream URL")
    assert url in str(info.value) and "refused" in str(info.value)
    assert not isinstance(info.value, DeviceNotFoundError)


def test_a_stream_that_does_not_answer_yet_exits_75_and_a_missing_file_2(tmp_path, capsys):
    """A stream (or camera) not there at start is EX_TEMPFAIL, so a unit restarts the piece; a
    file that does not exist is a wrong setting (2): waiting will not make it appear."""
    from sensekit.cli import main

    url = f"http://127.0.0.1:{_closed_port()}/stream.mjpg"
    assert main(["events", f"camera:{url}", "--max-items", "1"]) == 75
    err = capsys.readouterr().err
    assert err.startswith(f"sensekit: error: cannot open camera stream {url!r}: ") and err.count("\n") == 1, err
    assert main(["events", f"camera:{tmp_path / 'nope.mp4'}", "--max-items", "1"]) == 2
    assert capsys.readouterr().err.startswith(f"sensekit: error: no camera '{tmp_path / 'nope.mp4'}'")
    assert main(["events", "camera:/dev/video97", "--max-items", "1"]) == 75
    assert capsys.readouterr().err.startswith("sensekit: error: no camera '/dev/video97'")


def test_read_after_close_is_eof(server):
    cam = CameraSource(server.url)
    cam.open()
    cam.close()
    cam.close()                                   # idempotent
    with pytest.raises(EOFError):
        cam.read(timeout=0.1)
