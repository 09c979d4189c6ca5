"""Events to OSC datagrams and back: typed arguments in a fixed order, optional bundles.

Flattening rules (``sensekit.osc.address.signature`` gives the tags per event):

- ``int`` -> ``i`` (clamped to int32); ``float`` -> ``f`` (float32; beyond its range -> +-inf);
  ``str`` -> ``s`` (NUL characters removed: OSC strings end at NUL);
- ``bool`` -> ``i`` 0/1 (every OSC client reads ints; not all read T/F);
- a box ``(x, y, w, h)`` -> four ``i``; a tuple of floats -> one ``f`` per element; a tuple of
  points -> ``f f f`` per point, flat;
- a dict (``motion.zones``) -> ``s`` name, ``f`` value pairs, in the order the zones were defined;
- an optional value (``X | None``) -> its type, or nil ``N`` when absent.

``encode(event, timetag=...)`` wraps the message in a bundle when a timetag is given; a
``blobs`` event is a bundle of ``/sensekit/blobs`` and one ``/sensekit/blob/<id>`` per blob.
``decode(dgram)`` reads a message or a (nested) bundle back with its type tags through the
strict reader ``sensekit.osc.wire``; a datagram that is not well-formed OSC is a ``ValueError``.
Cost: ~10-20 us per message.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pythonosc import osc_bundle_builder, osc_message, osc_message_builder
from pythonosc.parsing import osc_types

from sensekit.errors import ConfigError
from sensekit.events import BlobInfo, Blobs, Event
from sensekit.osc.address import PREFIX, address_for, signature
from sensekit.osc.wire import MAX_PACKET_BYTES, read_packet

__all__ = ["encode", "decode", "blob_messages", "build_message", "event_arguments", "Received", "INT32_MIN",
           "INT32_MAX", "FLOAT32_MAX"]

INT32_MIN, INT32_MAX = -(2 ** 31), 2 ** 31 - 1
FLOAT32_MAX = 3.4028234663852886e38


def _plain(v: Any) -> Any:
    if hasattr(v, "item") and callable(v.item) and not isinstance(v, (str, bytes)):
        return v.item()  # numpy scalar
    return v


def _int32(v: Any) -> int:
    i = int(_plain(v))
    return max(INT32_MIN, min(INT32_MAX, i))


def _float32(v: Any) -> float:
    """A float that float32 can hold: beyond its range becomes +-inf (NaN stays NaN)."""
    f = float(_plain(v))
    return math.copysign(math.inf, f) if math.isfinite(f) and abs(f) > FLOAT32_MAX else f


def _text(v: Any) -> str:
    return str(v).replace("\x00", "")        # OSC strings end at NUL


_SCALAR: dict[str, Callable[[Any], Any]] = {"i": _int32, "f": _float32, "s": _text}


def _add_value(builder: osc_message_builder.OscMessageBuilder, tags: str, value: Any) -> None:
    value = _plain(value)
    if hasattr(value, "osc_values"):          # a nested record (BlobInfo): its flat values
        value = value.osc_values()
    if tags.endswith("?"):
        if value is None:
            builder.add_arg(None, "N")
            return
        tags = tags[:-1]
    if tags in _SCALAR:
        builder.add_arg(_SCALAR[tags](value), tags)
    elif tags == "(sf)*":
        for k, x in dict(value).items():
            builder.add_arg(str(k).replace("\x00", ""), "s")
            builder.add_arg(_float32(x), "f")
    elif tags.endswith("*"):
        for x in value:
            _add_value(builder, tags[:-1], x)
    else:
        _add_fixed(builder, tags, value)


def _add_fixed(builder: osc_message_builder.OscMessageBuilder, tags: str, value: Any) -> None:
    """A fixed tuple, e.g. a box "iiii": one value per tag."""
    seq = tuple(value)
    if len(seq) != len(tags):
        raise ConfigError(f"expected {len(tags)} values, got {seq!r}")
    for t, x in zip(tags, seq):
        _add_value(builder, t, x)


_SIGNATURES: dict[type, list[tuple[str, str, str]]] = {}


def event_arguments(event: Event) -> list[tuple[str, Any]]:
    """The (type tag, value) arguments of an event's message, in order."""
    return [(tag, value) for tag, value in build_message(event).args]


def build_message(event: Event) -> osc_message_builder.OscMessageBuilder:
    """A message builder for ``event`` (address and typed arguments, not yet built)."""
    cls = type(event)
    sig = _SIGNATURES.get(cls)
    if sig is None:
        sig = _SIGNATURES[cls] = signature(cls)
    builder = osc_message_builder.OscMessageBuilder(address=address_for(event.name))
    for name, tags, _ in sig:
        _add_value(builder, tags, getattr(event, name))
    return builder


def blob_messages(event: Blobs) -> list[osc_message.OscMessage]:
    """One ``/sensekit/blob/<id>`` message per blob: ``t``, then id x y w h cx cy area_px vx vy."""
    out = []
    for info in event.blobs:
        builder = osc_message_builder.OscMessageBuilder(address=f"{PREFIX}/blob/{int(info.id)}")
        builder.add_arg(_float32(event.t), "f")
        _add_value(builder, BlobInfo.osc_tags, info)
        out.append(builder.build())
    return out


def encode(event: Event, *, timetag: float | None = None) -> bytes:
    """The datagram for ``event``: a message, or a bundle when ``timetag`` (epoch seconds) is given.

    A ``blobs`` event is always a bundle (timetag "immediately" when none is given): its
    ``/sensekit/blobs`` message and one ``/sensekit/blob/<id>`` message per blob, so a receiver
    gets every blob of a frame at once.
    """
    msg = build_message(event).build()
    extra = blob_messages(event) if isinstance(event, Blobs) and event.blobs else []
    if timetag is None and not extra:
        return msg.dgram
    when = osc_types.IMMEDIATELY if timetag is None else timetag
    bundle = osc_bundle_builder.OscBundleBuilder(when)  # type: ignore[arg-type]
    bundle.add_content(msg)
    for m in extra:
        bundle.add_content(m)
    return bundle.build().dgram


@dataclass(frozen=True, slots=True)
class Received:
    """One decoded message: ``timetag`` is the bundle's epoch time (``None`` outside a bundle)."""
    address: str
    tags: str
    args: tuple[Any, ...]
    timetag: float | None = None


def decode(dgram: bytes, *, max_bytes: int = MAX_PACKET_BYTES) -> list[Received]:
    """Messages in a datagram (a message, or a possibly nested bundle), with type tags.

    Raises ``ValueError`` (one line) for a datagram that is not well-formed OSC: it is read by
    the strict reader ``sensekit.osc.wire``, which checks every size, pad and depth first.
    """
    return [Received(address, tags, args, timetag)
            for address, tags, args, timetag in read_packet(dgram, max_bytes=max_bytes)]
