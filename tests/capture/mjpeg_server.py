"""A tiny MJPEG-over-HTTP server for testing live camera code without a camera.

``MjpegServer`` serves ``multipart/x-mixed-replace`` JPEG frames at
``http://127.0.0.1:PORT/stream.mjpg`` from a background thread. The frames are
made by a function of the frame number (default: a moving white square on a
grey gradient, with the number encoded in the top-left pixels), encoded with
``cv2.imencode``. ``stop()`` closes the listening socket *and* every open
connection (a camera that vanished); ``start()`` again serves on the same port
(the camera came back), which is what reconnect tests need. ``pause()`` keeps
connections open but stops sending (a hung camera: readers must time out);
``resume()`` sends again.

Usage::

    with MjpegServer(size=(160, 120), fps=30) as server:
        cap = cv2.VideoCapture(server.url, cv2.CAP_FFMPEG)

Cost: one JPEG encode per frame per client (~0.2 ms at 160x120).
"""
from __future__ import annotations

import contextlib
import socket
import socketserver
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, Callable

import cv2
import numpy as np

BOUNDARY = "sensekitframe"


def default_frame(n: int, size: tuple[int, int]) -> np.ndarray:
    """A BGR test frame for frame number ``n``: gradient, a moving square, ``n`` in pixel 0."""
    w, h = size
    img = np.empty((h, w, 3), np.uint8)
    img[:] = np.linspace(40, 200, w, dtype=np.uint8)[None, :, None]
    s = max(4, min(w, h) // 6)
    x = (n * 3) % max(1, w - s)
    y = (h - s) // 2
    img[y:y + s, x:x + s] = 255
    return img


class _Server(socketserver.ThreadingMixIn, HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class MjpegServer:
    """Serve an endless MJPEG stream on 127.0.0.1; stop and restart on the same port."""

    def __init__(self, *, size: tuple[int, int] = (160, 120), fps: float = 30.0,
                 make_frame: Callable[[int, tuple[int, int]], np.ndarray] | None = None,
                 port: int = 0, quality: int = 90) -> None:
        self.size = size
        self.fps = float(fps)
        self.make_frame = make_frame or default_frame
        self.quality = quality
        self.port = port
        self.frames_sent = 0
        self.connections = 0
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._sending = threading.Event()
        self._sending.set()
        self._clients: set[socket.socket] = set()
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/stream.mjpg"

    @property
    def running(self) -> bool:
        return self._httpd is not None

    def start(self) -> MjpegServer:
        if self._httpd is not None:
            return self
        self._stopping.clear()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"

            def log_message(self, *args: object) -> None:  # keep test output quiet
                pass

            def do_GET(self) -> None:
                if self.path.split("?")[0] != "/stream.mjpg":
                    self.send_error(404)
                    return
                with server._lock:
                    server._clients.add(self.connection)
                    server.connections += 1
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", f"multipart/x-mixed-replace; boundary={BOUNDARY}")
                    self.send_header("Cache-Control", "no-cache")
                    self.end_headers()
                    n = n0 = 0
                    t0 = time.monotonic()
                    params = [cv2.IMWRITE_JPEG_QUALITY, server.quality]
                    while not server._stopping.is_set():
                        if not server._sending.is_set():
                            server._sending.wait(0.05)
                            t0, n0 = time.monotonic(), n
                            continue
                        _ok, jpg = cv2.imencode(".jpg", server.make_frame(n, server.size), params)
                        data = jpg.tobytes()
                        self.wfile.write(
                            f"--{BOUNDARY}\r\nContent-Type: image/jpeg\r\n"
                            f"Content-Length: {len(data)}\r\n\r\n".encode() + data + b"\r\n")
                        self.wfile.flush()
                        n += 1
                        server.frames_sent += 1
                        delay = t0 + (n - n0) / server.fps - time.monotonic()
                        if delay > 0:
                            server._stopping.wait(delay)
                except OSError:
                    pass  # client went away or the server was stopped
                finally:
                    with server._lock:
                        server._clients.discard(self.connection)

        # Binding the same port again right after stop() needs SO_REUSEADDR (set above).
        self._httpd = _Server(("127.0.0.1", self.port), Handler)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05},
                                        name=f"mjpeg-server:{self.port}", daemon=True)
        self._thread.start()
        return self

    def pause(self) -> None:
        """Keep every connection open but send nothing (a hung camera)."""
        self._sending.clear()

    def resume(self) -> None:
        self._sending.set()

    def stop(self) -> None:
        """Close the listening socket and drop every connection (the camera vanished)."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.server_close()
        with self._lock:
            clients = list(self._clients)
        for conn in clients:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                conn.close()
        if self._thread is not None:
            self._thread.join(timeout=2.0)

    def restart_under(self, cam: Any, wait_s: float = 20.0) -> None:
        """Stop, wait (up to ``wait_s``) until ``cam`` (a CameraSource on this URL) says it is lost,
        start again, and wait (up to ``wait_s``) until it reads a frame and is no longer lost."""
        self.stop()
        deadline = time.monotonic() + wait_s
        while not cam.stats()["lost"] and time.monotonic() < deadline:
            time.sleep(0.005)
        self.start()
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if cam.read(timeout=0.5) is not None and not cam.stats()["lost"]:
                break

    def __enter__(self) -> MjpegServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
