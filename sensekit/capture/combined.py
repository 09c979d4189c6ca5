"""CombinedSource: a video source and an audio source as one time-ordered source.

``CombinedSource(video, audio)`` (either may be ``None``) opens both and yields
their items interleaved by ``t`` on a **common time base**: every ``t`` is
re-expressed as seconds since the combined ``open()``, using each live part's
``started_at`` (its ``time.monotonic()`` at open; parts without one are taken
to start when their ``open()`` returned). Non-live parts (files, replays) keep
their own ``t``: both start at 0.

Ordering: for live parts nothing can wait for the other part forever, so an item
is handed out when the other part already has a later item waiting, when the
other part has ended, when the other part's ``horizon()`` (the earliest ``t`` it
can still deliver: the camera's grab in progress, the microphone's next block)
has passed it, or when it has waited ``reorder_window_s`` (0.05 s) in the
buffer. With a camera and a microphone the horizon rule lets audio blocks
through at once and holds a frame at most until the block that covers its time
arrives (one block, ~11 ms); the window only matters for a part without a
horizon or a lost one. Within each part the order is always kept. For non-live
parts (files) the order is strict: the earlier of the two heads always goes
first.

``stats()`` merges both parts' counters (``dropped_frames``, ``latency_ms`` from
the video part; ``overflows``, ``underflows``, ``dropped_blocks`` from the audio part) and keeps
each part's full dict under ``"video"``/``"audio"``. ``poll_status()`` merges
both parts' lost/restored events, re-timed to the common base.

Failure modes: whatever the parts raise on open (the part that did open is
closed again). Cost: one extra dict lookup per item; while both live parts
are empty it waits on one of them for at most 1 ms at a time, so the other
part's item waits at most 1 ms (~1,000 cheap wake-ups a second, about 1 % of
a core).
"""
from __future__ import annotations

import dataclasses
import time
from typing import Any

from sensekit.arg_types import checked
from sensekit.capture.base import Item, Source
from sensekit.errors import ConfigError
from sensekit.events import Event

POLL_S = 0.001


class _Part:
    def __init__(self, source: Source) -> None:
        self.source = source
        self.offset = 0.0                  # add to the part's t to get combined t
        self.head: Item | None = None
        self.head_arrived = 0.0
        self.ended = False
        #: combined ``t`` before which the part can deliver nothing more (``None``: unknown)
        self.horizon: float | None = None


class CombinedSource(Source):
    """A camera and a microphone (or any two sources) read as one; see the module doc."""

    kind = "combined"

    @checked
    def __init__(self, video: Source | None, audio: Source | None, *,
                 reorder_window_s: float = 0.05) -> None:
        if video is None and audio is None:
            raise ConfigError("CombinedSource needs a video source, an audio source or both, got neither")
        self.video, self.audio = video, audio
        self.reorder_window_s = float(reorder_window_s)
        self._parts = [_Part(s) for s in (video, audio) if s is not None]
        self.is_live = any(s.is_live for s in (video, audio) if s is not None)
        self.has_video = video is not None and bool(video.has_video)
        self.has_audio = audio is not None and bool(audio.has_audio)
        self.started_at: float | None = None
        self._opened = False

    @property
    def description(self) -> str:
        return "+".join(p.source.description for p in self._parts)

    def open(self) -> None:
        if self._opened:
            return
        self.started_at = time.monotonic()
        opened: list[_Part] = []
        try:
            for part in self._parts:
                part.source.open()
                begun = getattr(part.source, "started_at", None)
                if begun is None:
                    begun = time.monotonic()
                # files and replays keep their own t (both start at 0)
                part.offset = float(begun) - self.started_at if part.source.is_live else 0.0
                part.head, part.ended = None, False
                opened.append(part)
        except BaseException:
            for part in opened:
                part.source.close()
            raise
        v, a = self.video, self.audio
        if v is not None:
            self.has_video = bool(v.has_video)
            self.frame_size, self.fps = v.frame_size, v.fps
        if a is not None:
            self.has_audio = bool(a.has_audio)
            self.sample_rate, self.channels = a.sample_rate, a.channels
        self._opened = True

    def close(self) -> None:
        self._opened = False
        for part in self._parts:
            part.source.close()
            part.head = None

    # -- reading ---------------------------------------------------------------
    def _retime(self, item: Item, part: _Part) -> Item:
        if part.offset == 0.0:
            return item
        return dataclasses.replace(item, t=item.t + part.offset)

    def _fill(self, part: _Part, timeout: float | None) -> None:
        if part.head is not None or part.ended:
            return
        horizon = getattr(part.source, "horizon", None)
        h = horizon() if part.source.is_live and callable(horizon) else None
        part.horizon = None if h is None else h + part.offset   # taken before the read: safe
        try:
            item = part.source.read(timeout=timeout)
        except EOFError:
            part.ended = True
            return
        if item is not None:
            part.head, part.head_arrived = self._retime(item, part), time.monotonic()

    def _choose(self) -> Item | None:
        heads = [(p.head.t, k) for k, p in enumerate(self._parts) if p.head is not None]
        if not heads:
            return None
        best_t, best_k = min(heads)                           # ties: video first (list order)
        best = self._parts[best_k]
        others = [p for p in self._parts if p is not best]
        ready = all(o.ended or o.head is not None
                    or (o.horizon is not None and o.horizon >= best_t) for o in others)
        if not ready and best.source.is_live:
            ready = time.monotonic() - best.head_arrived >= self.reorder_window_s
        if not ready:
            return None
        item, best.head = best.head, None
        return item

    def read(self, timeout: float | None = None) -> Item | None:
        if not self._opened:
            raise EOFError(f"{self.description} is not open")
        deadline = None if timeout is None else time.monotonic() + max(0.0, timeout)
        while True:
            for part in self._parts:
                self._fill(part, 0.0)
            item = self._choose()
            if item is not None:
                return item
            if all(p.ended for p in self._parts):
                raise EOFError(f"{self.description} ended")
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return None
            wait = POLL_S if deadline is None else min(POLL_S, deadline - now)
            empty = [p for p in self._parts if p.head is None and not p.ended]
            if empty:
                self._fill(empty[0], wait)   # block briefly on a part that has nothing
            else:
                time.sleep(wait)             # both have items: waiting out the reorder window

    # -- status ------------------------------------------------------------------
    def poll_status(self) -> list[Event]:
        events: list[Event] = []
        for part in self._parts:
            for e in part.source.poll_status():
                events.append(dataclasses.replace(e, t=e.t + part.offset) if part.offset else e)
        events.sort(key=lambda e: e.t)
        return events

    def stats(self) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        if self.audio is not None:
            a = self.audio.stats()
            merged["audio"] = a
            for key in ("overflows", "underflows", "dropped_blocks"):
                if key in a:
                    merged[key] = a[key]
            if "latency_ms" in a:
                merged["audio_latency_ms"] = a["latency_ms"]
        if self.video is not None:
            v = self.video.stats()
            merged["video"] = v
            for key in ("dropped_frames", "latency_ms"):
                if key in v:
                    merged[key] = v[key]
        return merged
