"""OSC addresses and argument signatures of the events (the table in docs/OSC.md).

The address of an event is ``/sensekit/`` followed by its registered name with every ``_``
turned into ``/`` (``color_tracked`` -> ``/sensekit/color/tracked``). Its arguments are the
event time ``t`` and then its fields in declared order; ``signature(cls)`` gives their OSC
type tags, flattened as ``sensekit.osc.encode`` writes them, and ``describe_addresses()`` the
whole Markdown table (``python -m sensekit.osc`` prints it; a test keeps docs/OSC.md in sync).
"""
from __future__ import annotations

import dataclasses
import re
import types
import typing
from typing import Any

from sensekit.errors import ConfigError
from sensekit.events import EVENT_TYPES, Event

__all__ = ["PREFIX", "address_for", "signature", "describe_addresses"]

PREFIX = "/sensekit"


def address_for(name: str) -> str:
    """The OSC address of an event name: ``color_tracked`` -> ``/sensekit/color/tracked``."""
    if not re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", name):
        raise ConfigError(f"event name {name!r} cannot be turned into an OSC address")
    return f"{PREFIX}/{name.replace('_', '/')}"


def _field_kind(tp: Any) -> tuple[str, str]:
    """(OSC type tag pattern, description) for a field's declared type."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    for scalar, kind in _SCALARS:
        if tp is scalar:
            return kind
    if isinstance(tp, type) and dataclasses.is_dataclass(tp) and hasattr(tp, "osc_tags"):
        return str(tp.osc_tags), " ".join(f.name if f.name != "box" else "x y w h"
                                          for f in dataclasses.fields(tp))
    if origin is tuple:
        return _tuple_kind(args)
    if origin is dict:
        return "(sf)*", "name, value pairs"
    if origin is typing.Literal and all(isinstance(a, str) for a in args):
        return "s", "string"
    if isinstance(tp, types.UnionType) or origin is typing.Union:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            tags, desc = _field_kind(rest[0])
            if len(tags) == 1:
                return tags + "?", f"{desc}, or nil (N) when absent"
    raise ConfigError(f"field type {tp!r} has no OSC mapping")


#: the plain types, in the order they are tested (bool before int: a bool is an int)
_SCALARS: tuple[tuple[type, tuple[str, str]], ...] = (
    (bool, ("i", "int 0/1")), (int, ("i", "int")), (float, ("f", "float")), (str, ("s", "string")))


def _tuple_kind(args: tuple[Any, ...]) -> tuple[str, str]:
    """A variable tuple (``tuple[X, ...]``: one tag, repeated) or a fixed one (a box, a point)."""
    if len(args) == 2 and args[1] is Ellipsis:
        inner, _ = _field_kind(args[0])
        return inner + "*", f"{_field_kind(args[0])[1]} per element"
    tags = "".join(_field_kind(a)[0] for a in args)
    if len(args) == 4 and all(a is int for a in args):
        return tags, "x y w h"
    return tags, "x y z" if len(args) == 3 and all(a is float for a in args) else "tuple"


def signature(cls: type[Event]) -> list[tuple[str, str, str]]:
    """[(field name, OSC type tags, description)] in argument order for an event type."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        tags, desc = _field_kind(hints[f.name])
        out.append((f.name, tags, desc))
    return out


def describe_addresses() -> str:
    """A Markdown table of every event's address and arguments (the docs are generated from it)."""
    rows = ["| event | address | arguments (in order) | type tags |",
            "|---|---|---|---|"]
    for name in sorted(EVENT_TYPES):
        sig = signature(EVENT_TYPES[name])
        args = ", ".join(f"`{n}`" + (f" ({d})" if d not in ("int", "float", "string") else "")
                         for n, _, d in sig)
        tags = "".join(t for _, t, _ in sig)
        rows.append(f"| `{name}` | `{address_for(name)}` | {args} | `{tags}` |")
    return "\n".join(rows)
