"""``FrameHub``: the latest picture for the panel's video clients, JPEG-encoded on demand.

The run's loop ``publish``es a snapshot (``Layers.copy()``, so the stages may reuse their
buffers) and returns at once; encoding happens later, on the server's worker threads, when a
client asks for the frame (``frame(overlays)``). Each overlay combination is composed and
encoded at most once per published frame, however many clients want it. Only the newest frame
is kept: a slow client simply gets fewer frames, nothing queues up.

The binary message a client receives is ``pack(meta, jpeg)``: a 4-byte big-endian length, a
JSON header (frame ``index``, source ``t``, the picture's ``w``/``h`` in camera pixels,
``tap_unix`` - the wall time at which the run handed the frame over, for latency - the tracked
``box``, the motion ``zones``, the ``poses`` (each person's id and 33 ``[x, y, visibility]``)
and the overlays the panel had to ``computed`` itself), then the
JPEG. Pictures wider than ``max_width`` are scaled down for the wire; coordinates in the header
stay in camera pixels.

Cost on the run's loop: one copy of the picture (and of each overlay asked for) per published
frame, at most ``max_fps`` times a second, and only while a client watches. Encoding a 320x240
frame: about 1-2 ms (``cv2.imencode``, which releases the GIL).
"""
from __future__ import annotations

import json
import struct
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import cv2
import numpy as np

from sensekit.vision.layers import OVERLAYS, Layers, compose

__all__ = ["FrameHub", "pack", "unpack"]


def pack(meta: dict[str, Any], jpeg: bytes) -> bytes:
    head = json.dumps(meta, separators=(",", ":")).encode()
    return struct.pack(">I", len(head)) + head + jpeg


def unpack(data: bytes) -> tuple[dict[str, Any], bytes]:
    """The header and the JPEG of one ``pack``ed message (clients, tests, the benchmark)."""
    (n,) = struct.unpack(">I", data[:4])
    return json.loads(data[4:4 + n]), data[4 + n:]


class FrameHub:
    """The newest published frame and the JPEGs made from it (thread-safe)."""

    def __init__(self, *, quality: int = 80, max_width: int = 640, max_fps: float = 60.0) -> None:
        self.quality = int(quality)
        self.max_width = int(max_width)
        self.min_interval_s = 1.0 / max_fps if max_fps > 0 else 0.0
        self._lock = threading.Lock()
        self._encode_lock = threading.Lock()
        self._seq = 0
        self._layers: Layers | None = None
        self._meta: dict[str, Any] = {}
        self._cache: dict[frozenset[str], bytes] = {}
        self._watchers: dict[int, frozenset[str]] = {}
        self._last_publish = 0.0
        #: called (on the publishing thread) after every publish; the server wakes its clients
        self.on_publish: Callable[[], None] | None = None
        self.published = 0
        self.encoded = 0

    # -- who watches ------------------------------------------------------------------------
    def watch(self, client: int, overlays: Iterable[str]) -> None:
        with self._lock:
            self._watchers[client] = frozenset(o for o in overlays if o in OVERLAYS)

    def unwatch(self, client: int) -> None:
        with self._lock:
            self._watchers.pop(client, None)

    @property
    def watching(self) -> bool:
        return bool(self._watchers)

    def wanted(self) -> set[str]:
        """Every overlay some client shows (what ``publish`` must copy)."""
        with self._lock:
            return set().union(*self._watchers.values()) if self._watchers else set()

    # -- the run's side ---------------------------------------------------------------------
    def due(self) -> bool:
        """Whether a frame published now would be seen (a client watches, ``max_fps`` allows;
        a frame a little early is let through, so a source at exactly ``max_fps`` keeps them all)."""
        return (bool(self._watchers)
                and time.monotonic() - self._last_publish >= 0.75 * self.min_interval_s)

    def publish(self, layers: Layers, meta: dict[str, Any]) -> None:
        """Hand over a snapshot that owns its arrays (``Layers.copy``) and its header fields."""
        with self._lock:
            self._seq += 1
            self._layers = layers
            self._meta = meta
            self._cache = {}
            self._last_publish = time.monotonic()
            self.published += 1
        callback = self.on_publish
        if callback is not None:
            callback()

    # -- the clients' side ------------------------------------------------------------------
    @property
    def seq(self) -> int:
        return self._seq

    def frame(self, overlays: Iterable[str]) -> tuple[int, bytes] | None:
        """``(seq, message)`` of the newest frame with ``overlays`` drawn, or ``None`` before the
        first. Runs on a worker thread; encodes at most once per frame and overlay set."""
        key = frozenset(o for o in overlays if o in OVERLAYS)
        with self._lock:
            seq, layers, meta = self._seq, self._layers, self._meta
            cached = self._cache.get(key)
        if layers is None:
            return None
        if cached is not None:
            return seq, cached
        with self._encode_lock:
            with self._lock:
                cached = self._cache.get(key) if self._seq == seq else None
            if cached is not None:
                return seq, cached
            message = self._encode(layers, meta, key)
            self.encoded += 1
            with self._lock:
                if self._seq == seq:
                    self._cache[key] = message
        return seq, message

    def _encode(self, layers: Layers, meta: dict[str, Any], overlays: frozenset[str]) -> bytes:
        picture = compose(layers, overlays) if overlays else layers.image
        h, w = picture.shape[:2]
        if w > self.max_width:
            size = (self.max_width, max(1, round(h * self.max_width / w)))
            picture = cv2.resize(picture, size, interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", np.ascontiguousarray(picture),
                               [cv2.IMWRITE_JPEG_QUALITY, self.quality])
        if not ok:                                    # pragma: no cover - OpenCV never fails on uint8 BGR
            raise RuntimeError("JPEG encoding failed")
        head = {**meta, "overlays": sorted(overlays), "computed": sorted(layers.computed & overlays)}
        return pack(head, buf.tobytes())
