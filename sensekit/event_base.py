"""The base of the event records, their table by name, and their JSON lines.

``sensekit.events`` declares every event type on top of this and re-exports all of it; import
from there. ``to_jsonl(event)`` gives one line with sorted keys, floats rounded to 6 decimals
and tuples as lists: logs diff cleanly and golden tests are stable.
"""
from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from typing import Any, ClassVar, TextIO

from sensekit.errors import ConfigError

Box = tuple[int, int, int, int]  # x, y, w, h in pixels; w == h == 0 means empty

EVENT_TYPES: dict[str, type[Event]] = {}


def register(cls: type[Event]) -> type[Event]:
    """Class decorator: make an event type known to dispatchers and parsers."""
    name = cls.name
    if name in EVENT_TYPES and EVENT_TYPES[name] is not cls:
        raise ConfigError(f"event name {name!r} registered twice")
    EVENT_TYPES[name] = cls
    return cls


@dataclass(frozen=True, slots=True)
class Event:
    """The base of every event record: its registered ``name`` and its time ``t`` in seconds
    from the start of its source."""
    name: ClassVar[str] = "event"
    t: float

    def to_dict(self) -> dict[str, Any]:
        """``{"event": name, field: value...}`` with plain JSON values (tuples as lists)."""
        d = {"event": self.name}
        for f in dataclasses.fields(self):
            d[f.name] = _plain(getattr(self, f.name))
        return d

    @classmethod
    def parse_fields(cls, fields: dict[str, Any]) -> dict[str, Any]:
        """Field values read from JSON -> constructor arguments (nested records rebuilt)."""
        return fields


def _plain(v: Any) -> Any:
    if isinstance(v, float):
        if not math.isfinite(v):
            return None
        r = round(v, 6)
        return 0.0 if r == 0 else r
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if hasattr(v, "item") and callable(v.item):  # numpy scalar
        return _plain(v.item())
    if dataclasses.is_dataclass(v) and not isinstance(v, type):   # a nested record (BlobInfo)
        return {f.name: _plain(getattr(v, f.name)) for f in dataclasses.fields(v)}
    return v


def to_jsonl(event: Event) -> str:
    return json.dumps(event.to_dict(), sort_keys=True, separators=(",", ":"))


def from_jsonl(line: str) -> Event:
    d = json.loads(line)
    name = d.pop("event", None)
    cls = EVENT_TYPES.get(name)
    if cls is None:
        raise ConfigError(f"unknown event name {name!r} in line {line.strip()[:80]!r}")
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name in d:
            v = d[f.name]
            kwargs[f.name] = tuple(v) if isinstance(v, list) else v
    return cls(**cls.parse_fields(kwargs))


class JsonlWriter:
    """A dispatcher handler that writes each event as one JSON line."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.count = 0

    def __call__(self, event: Event) -> None:
        self.stream.write(to_jsonl(event) + "\n")
        self.count += 1
