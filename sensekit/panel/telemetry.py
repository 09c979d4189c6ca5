"""``Telemetry``: the numbers the panel draws, handed from the run's loop to the web server.

The run's loop adds level points, events, the audio graph's lines (thresholds, noise floor)
and a status dict; the server's clients read everything newer than their own cursor with
``since(cursor)``. Everything lives in ring buffers (``max_levels``, ``max_events``) with a
running sequence number, so a client that falls behind skips what was overwritten and nothing
grows without bound, however slow or many the clients.

Events are kept as their JSON dicts (``Event.to_dict()``). Cost per add: one lock and one
deque append (~1 us).
"""
from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Telemetry", "Update"]


@dataclass
class Update:
    """What is new since a cursor (``cursor`` is where the next call starts)."""

    cursor: tuple[int, int]
    levels: list[tuple[float, float]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    lines: dict[str, float] = field(default_factory=dict)
    status: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"levels": self.levels, "events": self.events, "lines": self.lines,
                "status": self.status}


class Telemetry:
    def __init__(self, *, max_levels: int = 4096, max_events: int = 500) -> None:
        self._lock = threading.Lock()
        self._levels: deque[tuple[int, float, float]] = deque(maxlen=max_levels)
        self._events: deque[tuple[int, dict[str, Any]]] = deque(maxlen=max_events)
        self._level_seq = 0
        self._event_seq = 0
        self._lines: dict[str, float] = {}
        self._status: dict[str, Any] = {}

    def add_level(self, t: float, level: float) -> None:
        with self._lock:
            self._level_seq += 1
            self._levels.append((self._level_seq, round(float(t), 4), round(float(level), 2)))

    def add_event(self, event: dict[str, Any]) -> None:
        with self._lock:
            self._event_seq += 1
            self._events.append((self._event_seq, event))

    def set_lines(self, lines: dict[str, float]) -> None:
        """The audio graph's horizontal lines (``{"activity threshold": 25, ...}``)."""
        with self._lock:
            self._lines = {k: round(float(v), 2) for k, v in lines.items()}

    def set_status(self, **status: Any) -> None:
        with self._lock:
            self._status = {**self._status, **status}

    def status(self) -> dict[str, Any]:
        with self._lock:
            return dict(self._status)

    def since(self, cursor: tuple[int, int] = (0, 0)) -> Update:
        """Level points and events newer than ``cursor``, the current lines and status."""
        lv, ev = cursor
        with self._lock:
            levels = [(t, v) for s, t, v in self._levels if s > lv]
            events = [e for s, e in self._events if s > ev]
            return Update((self._level_seq, self._event_seq), levels, events,
                          dict(self._lines), dict(self._status))
