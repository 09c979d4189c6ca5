"""CameraSource: a live camera, a stream URL or a video file, read by a grab thread.

``CameraSource(device)`` opens ``cv2.VideoCapture`` on a device index (``0``), a
stream URL (``http://...``, ``rtsp://...``; FFmpeg backend) or a file path (which
then *simulates* a live camera: paced at the file's natural fps and looped; a
still image is a camera that keeps showing that picture at the file's rate, or
one frame and the end with ``loop=False``). A recording folder or another
folder is refused with a message that says so.

Defaults and behaviour:

- Requested ``width``/``height``/``fps`` (like Flash's ``Camera.setMode``) are
  applied with ``CAP_PROP_*``; ``frame_size``/``fps`` report what the device
  actually gives (measured from the first frame), which may differ.
- A grab thread reads continuously and keeps only the **latest** frame.
  ``read(timeout)`` returns the newest frame not yet delivered; frames grabbed
  but never delivered are counted in ``stats()["dropped_frames"]``. A frame's
  ``index`` is its grab number, so gaps show the drops.
- ``t`` is seconds since ``open()``; ``captured_at`` is ``time.monotonic()`` when
  the grab returned. ``stats()["latency_ms"]`` is the median capture-to-delivery
  time over the last 120 frames (the device's own buffering is not visible).
- Opening never hangs for long: stream/file captures get
  ``CAP_PROP_OPEN_TIMEOUT_MSEC`` (``open_timeout_ms``, 5000) and
  ``CAP_PROP_READ_TIMEOUT_MSEC`` (``read_timeout_ms``, 2000).

Failure modes:

- a camera index that does not open -> ``DeviceNotFoundError`` naming the index and
  listing the cameras that do; a missing file -> ``SourceError`` naming the path;
  a stream that refuses the connection -> ``SourceError`` naming the URL and why.
- **Lost camera** (reads fail, e.g. the stream server went away): ``read`` never
  raises; it keeps returning ``None`` on timeout. ``poll_status()`` reports one
  ``SourceLost(t, source, reason)``; the grab thread reconnects with exponential
  backoff (``backoff_initial_s`` 0.25 doubling up to ``backoff_max_s`` 4) and
  reports ``SourceRestored`` once frames flow again.

Cost: one thread; one frame decode per captured frame even when the consumer is
slower (that is the price of always handing out the latest frame).
"""
from __future__ import annotations

import logging
import os
import socket
import statistics
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import cv2
import numpy as np

from sensekit.arg_types import checked
from sensekit.capture.base import Source, VideoFrame, as_bgr
from sensekit.capture.devices import _quiet_ffmpeg_env, camera_not_found, quiet_opencv
from sensekit.errors import DeviceUnavailableError, SourceError
from sensekit.events import Event, SourceLost, SourceRestored
from sensekit.validate import check_int_range, check_positive

log = logging.getLogger(__name__)

STREAM_SCHEMES = ("http", "https", "rtsp", "rtsps", "rtmp", "udp", "tcp", "srt")
LATENCY_WINDOW = 120


def _is_url(device: str) -> bool:
    return urlparse(device).scheme.lower() in STREAM_SCHEMES


def _connect_reason(url: str, timeout_s: float) -> str:
    """Why a stream URL did not open, by trying a plain TCP connection to it."""
    parts = urlparse(url)
    if parts.scheme.lower() not in ("http", "https", "rtsp", "rtsps", "rtmp") or not parts.hostname:
        return "no video could be read from it"
    default_port = {"http": 80, "https": 443, "rtsp": 554, "rtsps": 322, "rtmp": 1935}
    try:
        port = parts.port or default_port[parts.scheme.lower()]
    except ValueError:
        return "the port is not a number"
    try:
        with socket.create_connection((parts.hostname, port), timeout=min(timeout_s, 2.0)):
            pass
    except ConnectionRefusedError:
        return "connection refused"
    except TimeoutError:
        return "connection timed out"
    except OSError as exc:
        return f"cannot connect ({exc.strerror or exc})"
    return "connected, but no video stream could be decoded from it"


@dataclass
class _Grab:
    """The grab thread's state: the capture, the reconnect backoff, the file's pacing."""
    cap: Any
    backoff: float
    file_start: float
    file_frame: int = 1                  # the frame read in open() was frame 0
    still: np.ndarray | None = None      # a one-frame file (a still image): shown again at the file's rate


class CameraSource(Source):
    """A live camera (index), stream (URL) or video file simulating one. See module doc."""

    kind = "camera"
    is_live = True
    has_video = True

    @checked
    def __init__(
        self,
        device: int | str | os.PathLike[str] | None = 0,
        *,
        width: int | None = None,
        height: int | None = None,
        fps: float | None = None,
        loop: bool = True,
        open_timeout_ms: int = 5000,
        read_timeout_ms: int = 2000,
        backoff_initial_s: float = 0.25,
        backoff_max_s: float = 4.0,
        max_camera_index: int = 4,
    ) -> None:
        if device is None:
            device = 0
        if isinstance(device, os.PathLike):
            device = os.fspath(device)
        if isinstance(device, str) and device.strip().isdigit():
            device = int(device.strip())
        if isinstance(device, bool) or not isinstance(device, (int, str)):
            raise SourceError(f"camera device must be an index, a URL or a file path, got {device!r}")
        if isinstance(device, int):
            check_int_range("camera index", device, 0, 10_000)
        self.device = device
        self.requested_width = None if width is None else check_int_range("width", width, 1, 16384)
        self.requested_height = None if height is None else check_int_range("height", height, 1, 16384)
        self.requested_fps = None if fps is None else check_positive("fps", fps)
        self.loop = loop
        self.open_timeout_ms = check_int_range("open_timeout_ms", open_timeout_ms, 1, 600_000)
        self.read_timeout_ms = check_int_range("read_timeout_ms", read_timeout_ms, 1, 600_000)
        self.backoff_initial_s = check_positive("backoff_initial_s", backoff_initial_s)
        self.backoff_max_s = max(self.backoff_initial_s, check_positive("backoff_max_s", backoff_max_s))
        self.max_camera_index = max_camera_index

        self.is_file = isinstance(device, str) and not _is_url(device)
        self.is_url = isinstance(device, str) and _is_url(device)
        self.file_fps: float | None = None

        self._cap: Any = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._cond = threading.Condition()
        self._latest: VideoFrame | None = None
        self._last_image: np.ndarray | None = None
        self._ended = False
        self._status: list[Event] = []
        self._lost = False
        self._t0 = 0.0
        self.started_at: float | None = None   # time.monotonic() at open
        # counters
        self._grabbed = 0
        self._delivered = 0
        self._dropped = 0
        self._reconnects = 0
        self._losses = 0
        self._latencies: deque[float] = deque(maxlen=LATENCY_WINDOW)
        self._read_started = 0.0   # time.monotonic() when the grab thread last called read()
        self._in_read = False      # the grab thread is inside read(): its frame is not captured yet

    # -- opening -------------------------------------------------------------
    @property
    def description(self) -> str:
        return f"camera:{self.device}"

    def _new_capture(self) -> Any:
        """A fresh, opened ``cv2.VideoCapture`` for the device, or ``None``."""
        _quiet_ffmpeg_env()
        with quiet_opencv():
            if isinstance(self.device, int):
                cap = cv2.VideoCapture(self.device)
            else:
                params = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, self.open_timeout_ms,
                          cv2.CAP_PROP_READ_TIMEOUT_MSEC, self.read_timeout_ms]
                cap = cv2.VideoCapture(self.device, cv2.CAP_FFMPEG, params)
                if not cap.isOpened() and self.is_file:
                    cap = cv2.VideoCapture(self.device)   # any other backend that can read it
        if not cap.isOpened():
            cap.release()
            return None
        if isinstance(self.device, int):
            self._apply_mode(cap)
        return cap

    def _apply_mode(self, cap: Any) -> None:
        if self.requested_width is not None:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.requested_width)
        if self.requested_height is not None:
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.requested_height)
        if self.requested_fps is not None:
            cap.set(cv2.CAP_PROP_FPS, self.requested_fps)

    def _open_error(self) -> SourceError:
        if isinstance(self.device, int):
            return camera_not_found(self.device, self.max_camera_index)
        if self.is_url:
            reason = _connect_reason(self.device, self.open_timeout_ms / 1000.0)
            return DeviceUnavailableError(f"cannot open camera stream {self.device!r}: {reason}")
        if os.path.isdir(self.device):
            from pathlib import Path

            from sensekit.capture.spec import not_a_media_file
            return SourceError(not_a_media_file(Path(self.device), self.description))
        if not os.path.exists(self.device):
            kind = DeviceUnavailableError if self.device.startswith("/dev/") else SourceError  # may appear
            return kind(f"no camera {self.device!r}: a camera is an index (camera:0; "
                               f"`sensekit devices` lists them), a stream URL or a video file that exists")
        return SourceError(f"cannot open {self.device!r} as a camera: OpenCV cannot decode it as video")

    def open(self) -> None:
        if self._thread is not None:
            return
        if self.is_file and not os.path.isfile(self.device):
            raise self._open_error()
        cap = self._new_capture()
        if cap is None:
            raise self._open_error()
        self.started_at = self._t0 = time.monotonic()
        ok, image = cap.read()
        captured_at = time.monotonic()
        if not ok or image is None:
            cap.release()
            kind = SourceError if self.is_file else DeviceUnavailableError   # a device may yet deliver
            raise kind(f"camera {self.device!r} opened but delivered no frame "
                       f"within {self.read_timeout_ms} ms")
        h, w = image.shape[:2]
        self.frame_size = (w, h)
        fps = cap.get(cv2.CAP_PROP_FPS)
        fps = float(fps) if fps and np.isfinite(fps) and 0 < fps < 1000 else None
        if self.is_file:
            self.file_fps = fps or self.requested_fps or 30.0
            self.fps = self.file_fps
        else:
            self.fps = fps or self.requested_fps
        if self.requested_width and self.requested_height and (w, h) != (
                self.requested_width, self.requested_height):
            log.info("%s: requested %dx%d, the device gives %dx%d", self.description,
                     self.requested_width, self.requested_height, w, h)
        self._cap = cap
        self._stop.clear()
        self._ended = False
        self._lost = False
        self._latest = None
        self._publish(as_bgr(image), captured_at)
        self._thread = threading.Thread(target=self._grab_loop, name=f"grab:{self.description}",
                                        daemon=True)
        self._thread.start()

    def close(self) -> None:
        thread, self._thread = self._thread, None
        if thread is None:
            return
        self._stop.set()
        with self._cond:
            self._latest = None          # a closed camera delivers nothing more
            self._cond.notify_all()
        thread.join(timeout=self.read_timeout_ms / 1000.0 + 1.0)
        if thread.is_alive():  # a driver read that ignores timeouts: leave it to die with us
            log.warning("%s: grab thread did not stop; leaving the device to the OS", self.description)
            return
        if self._cap is not None:
            self._cap.release()
            self._cap = None

    # -- the grab thread -----------------------------------------------------
    def _now_t(self, monotonic: float) -> float:
        return monotonic - self._t0

    def _publish(self, image: np.ndarray, captured_at: float) -> None:
        self._last_image = image
        frame = VideoFrame(self._grabbed, self._now_t(captured_at), image, captured_at)
        with self._cond:
            if self._latest is not None:
                self._dropped += 1
            self._latest = frame
            self._grabbed += 1
            self._cond.notify_all()

    def _report(self, event: Event) -> None:
        with self._cond:
            self._status.append(event)

    def _grab_loop(self) -> None:
        g = _Grab(self._cap, self.backoff_initial_s, time.monotonic())
        while not self._stop.is_set():
            if g.still is not None:
                if self._show_still(g, g.still):
                    break
                continue
            if g.cap is None and not self._reconnect(g):     # lost: try to reconnect
                continue
            if self._wait_for_file_frame(g):
                break
            ok, image, captured_at = self._read_one(g.cap)
            if self._stop.is_set():
                break
            if ok and image is not None:
                self._got(g, image, captured_at)
                continue
            after = self._file_ended(g)
            if after == "again":
                continue
            if after == "stop":
                return
            self._read_failed(g, captured_at)               # the device or stream is gone

    def _show_still(self, g: _Grab, still: np.ndarray) -> bool:
        """A one-frame file's picture again, at the file's rate; True if stopped meanwhile."""
        delay = g.file_start + g.file_frame / (self.file_fps or 30.0) - time.monotonic()
        if delay > 0 and self._stop.wait(delay):
            return True
        self._publish(still.copy(), time.monotonic())
        g.file_frame += 1
        return False

    def _reconnect(self, g: _Grab) -> bool:
        """Open the capture again; on failure wait the backoff (doubled each time)."""
        cap = self._new_capture()
        if cap is None:
            log.debug("%s: reconnect failed; next try in %.2f s", self.description, g.backoff)
            self._stop.wait(g.backoff)
            g.backoff = min(g.backoff * 2.0, self.backoff_max_s)
            return False
        self._reconnects += 1
        self._cap = g.cap = cap
        g.file_start, g.file_frame = time.monotonic(), 0
        return True

    def _wait_for_file_frame(self, g: _Grab) -> bool:
        """A file is paced at its natural rate; True if stopped while waiting."""
        if self.is_file and self.file_fps:
            delay = g.file_start + g.file_frame / self.file_fps - time.monotonic()
            return bool(delay > 0 and self._stop.wait(delay))
        return False

    def _read_one(self, cap: Any) -> tuple[bool, np.ndarray | None, float]:
        """One ``cap.read()``: (ok, image, monotonic time); a driver error is a failed read. A
        stream's read is quiet: OpenCV's own "Stream timeout triggered" line at every stall said
        again what the "lost (stream stopped delivering frames)" warning says, unlimited."""
        try:
            self._read_started, self._in_read = time.monotonic(), True
            if self.is_url:
                with quiet_opencv():
                    ok, image = cap.read()
            else:
                ok, image = cap.read()
        except cv2.error as exc:
            log.debug("%s: read raised %s", self.description, exc)
            ok, image = False, None
        self._in_read = False
        return bool(ok), image, time.monotonic()

    def _got(self, g: _Grab, image: np.ndarray, captured_at: float) -> None:
        """A frame: publish it (and say the source is back if it was lost)."""
        if self._lost:
            self._lost = False
            g.backoff = self.backoff_initial_s
            log.info("%s: restored", self.description)
            self._report(SourceRestored(t=self._now_t(captured_at), source=self.description))
        self._publish(as_bgr(image), captured_at)
        g.file_frame += 1

    def _file_ended(self, g: _Grab) -> str | None:
        """A file's read failed: it ended. Looping, start again (``"again"``; a one-frame file
        becomes a still); not looping, the source ends (``"stop"``); ``None``: treat as lost
        (also every failed read of a device or stream, or of a file already lost)."""
        if not self.is_file or self._lost:
            return None
        if self.loop and g.file_frame == 1 and self._last_image is not None:
            g.still = self._last_image.copy()      # one frame, then the end: a still image
            g.cap.release()
            g.cap = self._cap = None
            return "again"
        if self.loop and g.file_frame > 0:
            if not g.cap.set(cv2.CAP_PROP_POS_FRAMES, 0):   # not seekable: open it again
                g.cap.release()
                g.cap = self._cap = self._new_capture()
            if g.cap is not None:
                g.file_start, g.file_frame = time.monotonic(), 0
                return "again"
        if not self.loop:
            with self._cond:
                self._ended = True
                self._cond.notify_all()
            return "stop"
        return None

    def _read_failed(self, g: _Grab, captured_at: float) -> None:
        """The device or stream is gone: report it once, release, wait the backoff."""
        if not self._lost:
            self._lost = True
            self._losses += 1
            reason = ("stream stopped delivering frames" if self.is_url
                      else "camera read failed (unplugged or in use?)")
            log.warning("%s: lost (%s); reconnecting", self.description, reason)
            self._report(SourceLost(t=self._now_t(captured_at), source=self.description, reason=reason))
        if g.cap is not None:
            g.cap.release()
        g.cap = self._cap = None
        self._stop.wait(g.backoff)
        g.backoff = min(g.backoff * 2.0, self.backoff_max_s)

    # -- consumer side -------------------------------------------------------
    def read(self, timeout: float | None = None) -> VideoFrame | None:
        """The newest frame not yet delivered; ``None`` on timeout (also while lost)."""
        deadline = None if timeout is None else time.monotonic() + max(0.0, timeout)
        with self._cond:
            while self._latest is None:
                if self._thread is None or self._stop.is_set():
                    raise EOFError(f"{self.description} is closed")
                if self._ended:
                    raise EOFError(f"{self.description} reached the end of the file")
                if deadline is None:
                    self._cond.wait()
                else:
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        return None
                    self._cond.wait(remaining)
            frame, self._latest = self._latest, None
            self._delivered += 1
            if frame.captured_at is not None:
                self._latencies.append((time.monotonic() - frame.captured_at) * 1000.0)
        return frame

    def poll_status(self) -> list[Event]:
        with self._cond:
            events, self._status = self._status, []
        return events

    def horizon(self) -> float | None:
        """A time no frame delivered from now on can be earlier than (``t`` seconds): now while
        the grab thread waits inside ``read()`` (a frame is timed when ``read()`` returns), else
        the start of the last read. ``CombinedSource`` uses it to hand out the other part's
        items without waiting. ``None`` before ``open()``."""
        if self._thread is None:
            return None
        now = time.monotonic()              # before looking at the flag: see _grab_loop
        with self._cond:
            if self._latest is not None:
                return self._latest.t
        return (now if self._in_read else max(self._read_started, self._t0)) - self._t0

    def stats(self) -> dict[str, Any]:
        with self._cond:
            lat = list(self._latencies)
            return {
                "frames_grabbed": self._grabbed,
                "frames_delivered": self._delivered,
                "dropped_frames": self._dropped,
                "latency_ms": statistics.median(lat) if lat else None,
                "latency_ms_max": max(lat) if lat else None,
                "lost": self._lost,
                "losses": self._losses,
                "reconnects": self._reconnects,
            }
