"""A strict OSC 1.0 datagram reader: every size, pad and depth checked before a value is read.

``read_packet(dgram)`` returns the messages of a datagram (a message or a bundle, nested up to
``MAX_DEPTH`` levels) as ``(address, tags, args, timetag)`` tuples, or raises ``ValueError``
with one line saying what is wrong and at which byte. It never loops on its input: each step
moves forward by at least four bytes, so the cost is linear in the datagram's size (~10 us
per short message). python-osc's own parser is never given a received byte (a bundle element
of negative size sends it into an endless loop).

Checked, and refused as malformed:

- a datagram that is empty, not a whole number of 4-byte words or longer than ``max_bytes``;
- a string without its NUL, with non-zero padding or that is not UTF-8; an address not
  starting with ``/`` or holding control characters (a newline would forge log lines); a
  type-tag string not starting with ``,``;
- an argument running past the end; a blob of negative size; an unknown type tag;
  ``[`` ``]`` unbalanced or nested deeper than ``MAX_ARRAY_DEPTH``; bytes left after the last
  argument;
- a bundle element whose size is not positive, not a multiple of 4 or past the end; bundles
  nested deeper than ``MAX_DEPTH``; more than ``MAX_MESSAGES`` messages in one datagram.

Values are read the way python-osc reads them (``i`` ``h`` -> int, ``f`` ``d`` -> float,
``s`` ``S`` -> str, ``b`` -> bytes, ``r`` -> int, ``m`` -> 4 ints, ``T`` ``F`` ``N`` ``I`` ->
True, False, None, inf, ``c`` -> a one-character str, ``t`` -> epoch seconds; arrays ->
lists), and a bundle's timetag becomes epoch seconds (0 for "immediately").
"""
from __future__ import annotations

import math
import struct
from typing import Any

__all__ = ["read_packet", "MAX_DEPTH", "MAX_ARRAY_DEPTH", "MAX_MESSAGES", "MAX_PACKET_BYTES"]

MAX_DEPTH = 8            # bundles inside bundles
MAX_ARRAY_DEPTH = 8      # '[' inside '['
MAX_MESSAGES = 1024      # messages in one datagram
MAX_PACKET_BYTES = 65536

_BUNDLE = b"#bundle\x00"
_NTP_DELTA = 2208988800          # seconds from 1900-01-01 to 1970-01-01
_FIXED = {"i": (">i", 4), "h": (">q", 8), "f": (">f", 4), "d": (">d", 8), "r": (">I", 4),
          "c": (">I", 4), "t": (">Q", 8), "m": (">4B", 4)}
_EMPTY = {"T": True, "F": False, "N": None, "I": math.inf}

Message = tuple[str, str, tuple[Any, ...], "float | None"]


def _epoch(ntp: int) -> float:
    return 0.0 if ntp == 1 else ntp / 2 ** 32 - _NTP_DELTA


def _string(d: bytes, at: int, end: int, what: str) -> tuple[str, int]:
    nul = d.find(b"\x00", at, end)
    if nul < 0:
        raise ValueError(f"{what} at byte {at} has no terminating NUL")
    stop = nul + 4 - (nul - at) % 4          # NUL + pad to a 4-byte boundary
    if stop > end:
        raise ValueError(f"{what} at byte {at} runs past the end")
    if d[nul:stop].count(0) != stop - nul:
        raise ValueError(f"{what} at byte {at} has non-zero padding")
    try:
        return d[at:nul].decode("utf-8"), stop
    except UnicodeDecodeError:
        raise ValueError(f"{what} at byte {at} is not UTF-8") from None


def _fixed(d: bytes, tag: str, at: int, end: int) -> tuple[Any, int]:
    """A fixed-size argument (int, float, char, time tag, MIDI...) and the offset after it."""
    fmt, size = _FIXED[tag]
    if at + size > end:
        raise ValueError(f"argument '{tag}' at byte {at} runs past the end")
    v: Any = struct.unpack_from(fmt, d, at)
    v = v if tag == "m" else v[0]
    if tag == "c":
        v = chr(v) if v < 0x110000 else "\ufffd"
    elif tag == "t":
        v = _epoch(v)
    return v, at + size


def _blob(d: bytes, at: int, end: int) -> tuple[bytes, int]:
    """A blob argument (size, bytes, padding) and the offset after it."""
    if at + 4 > end:
        raise ValueError(f"blob size at byte {at} runs past the end")
    (n,) = struct.unpack_from(">i", d, at)
    if n < 0 or at + 4 + n > end:
        raise ValueError(f"blob at byte {at} has size {n}, beyond the {end - at - 4} bytes left")
    return bytes(d[at + 4:at + 4 + n]), at + 4 + n + (-n % 4)


def _bracket(stack: list[list[Any]], tag: str) -> None:
    """``[`` opens an array inside the current one (depth bounded), ``]`` closes it."""
    if tag == "[":
        if len(stack) > MAX_ARRAY_DEPTH:
            raise ValueError(f"arrays nested deeper than {MAX_ARRAY_DEPTH}")
        inner: list[Any] = []
        stack[-1].append(inner)
        stack.append(inner)
    else:
        if len(stack) == 1:
            raise ValueError("']' without '[' in the type tags")
        stack.pop()


def _args(d: bytes, tags: str, at: int, end: int) -> tuple[list[Any], int]:
    out: list[Any] = []
    stack = [out]
    for tag in tags:
        if tag in "[]":
            _bracket(stack, tag)
            continue
        if tag in _FIXED:
            v, at = _fixed(d, tag, at, end)
        elif tag in _EMPTY:
            v = _EMPTY[tag]
        elif tag in "sS":
            v, at = _string(d, at, end, "string argument")
        elif tag == "b":
            v, at = _blob(d, at, end)
        else:
            raise ValueError(f"unknown type tag {tag!r}")
        stack[-1].append(v)
    if len(stack) != 1:
        raise ValueError("'[' without ']' in the type tags")
    return out, at


def _message(d: bytes, at: int, end: int, timetag: float | None) -> Message:
    address, at = _string(d, at, end, "address")
    if not address.startswith("/"):
        raise ValueError(f"address {address[:40]!r} does not start with '/'")
    if not address.isprintable():
        raise ValueError(f"address {address[:40]!r} holds control characters")
    if at == end:
        return address, "", (), timetag
    tags, at = _string(d, at, end, "type tags")
    if not tags.startswith(","):
        raise ValueError(f"type tags {tags[:40]!r} do not start with ','")
    args, at = _args(d, tags[1:], at, end)
    if at != end:
        raise ValueError(f"{end - at} bytes left after the arguments of {address[:40]}")
    return address, tags[1:], tuple(args), timetag


def _bundle(d: bytes, at: int, end: int, depth: int, out: list[Message]) -> None:
    if depth > MAX_DEPTH:
        raise ValueError(f"bundles nested deeper than {MAX_DEPTH}")
    if end - at < 16:
        raise ValueError(f"bundle at byte {at} is shorter than its 16-byte header")
    (ntp,) = struct.unpack_from(">Q", d, at + 8)
    timetag = _epoch(ntp)
    at += 16
    while at < end:
        if end - at < 4:
            raise ValueError(f"bundle element size at byte {at} runs past the end")
        (size,) = struct.unpack_from(">i", d, at)
        at += 4
        if size <= 0 or size % 4 or at + size > end:
            raise ValueError(f"bundle element at byte {at - 4} has size {size} "
                             f"(must be a positive multiple of 4, at most {end - at})")
        if d.startswith(_BUNDLE, at):
            _bundle(d, at, at + size, depth + 1, out)
        else:
            out.append(_message(d, at, at + size, timetag))
            if len(out) > MAX_MESSAGES:
                raise ValueError(f"more than {MAX_MESSAGES} messages in one datagram")
        at += size


def read_packet(dgram: bytes, *, max_bytes: int = MAX_PACKET_BYTES) -> list[Message]:
    """The messages of one datagram, each ``(address, tags, args, timetag)``; ``ValueError`` if
    it is not well-formed OSC (see the module docstring)."""
    d = bytes(dgram)
    if not d or len(d) % 4:
        raise ValueError(f"not OSC: {len(d)} bytes is not a whole number of 4-byte words")
    if len(d) > max_bytes:
        raise ValueError(f"not OSC: {len(d)} bytes is more than {max_bytes}")
    if d.startswith(_BUNDLE):
        out: list[Message] = []
        _bundle(d, 0, len(d), 1, out)
        return out
    return [_message(d, 0, len(d), None)]
