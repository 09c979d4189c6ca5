"""Bounded reading of what users and the network hand us: files, JSON, TOML, number text.

- ``read_regular(path, max_bytes=..., what=...)`` reads a file only if it is a regular file
  (never a FIFO, a device such as ``/dev/zero``, a socket or a folder) of at most ``max_bytes``;
  the check is made on the open descriptor (opened non-blocking, so a FIFO cannot hang the
  open), and at most ``max_bytes + 1`` bytes are ever read, even if the file grows meanwhile.
- ``file_kind(path)`` names what a path is when it is not a regular file or a folder
  ("a FIFO (named pipe)", "a character device", ...), for messages.
- ``check_nesting(text, max_depth=..., what=...)`` refuses JSON or TOML whose ``[``/``{``
  nesting (outside strings and comments) is deeper than ``max_depth`` or that has a number of
  more than ``MAX_NUMBER_DIGITS`` digits, before a parser recurses or converts (Python's JSON and
  TOML parsers recurse per level and turn any digit run into an ``int``).
- ``loads_json(text, ...)``: ``json.loads`` after ``check_nesting``, with ``NaN``/``Infinity``
  refused.
- ``number_text(text, what=...)``: a short, finite number written as text -> float, checked
  before any conversion.

Every failure is the caller's error type (``ConfigError`` by default) with a one-line message
naming the thing. Cost: one ``fstat`` per file; the nesting scan is a regex pass plus a NumPy
cumulative sum (~5 ms per MB).
"""
from __future__ import annotations

import json
import math
import os
import re
import stat
from typing import Any

import numpy as np

from sensekit.errors import ConfigError

__all__ = ["read_regular", "file_kind", "check_nesting", "loads_json", "number_text", "short", "clip",
           "MAX_DEPTH", "MAX_NUMBER_DIGITS"]

MAX_DEPTH = 32
MAX_NUMBER_DIGITS = 40           # more digits than any setting, timestamp or count needs

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"))


def _kind(mode: int) -> str | None:
    return next((name for test, name in _KINDS if test(mode)), None)


def file_kind(path: str | os.PathLike[str]) -> str | None:
    """"a FIFO (named pipe)", "a character device", ... for a path that exists and is neither a
    regular file nor a folder; ``None`` otherwise (regular file, folder, missing, unreadable)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return None if stat.S_ISREG(mode) or stat.S_ISDIR(mode) else _kind(mode)


def _size(n: int) -> str:
    for unit, scale in (("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.4g} {unit}"
    return f"{n} bytes"


def read_regular(path: str | os.PathLike[str], *, max_bytes: int, what: str,
                 error: type[Exception] = ConfigError) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``max_bytes``; else ``error``
    (``FileNotFoundError`` is passed through for callers that word "does not exist" their way)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise
    except (OSError, ValueError) as exc:                  # ValueError: a NUL in the name
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise error(f"cannot read {what}: {reason}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise error(f"{what} is {_kind(st.st_mode) or 'not a regular file'}, not a file")
        if st.st_size > max_bytes:
            raise error(f"{what} is {_size(st.st_size)}, more than the {_size(max_bytes)} it may be")
        chunks, left = [], max_bytes + 1
        while left > 0:
            try:
                chunk = os.read(fd, min(left, 1 << 20))
            except OSError as exc:
                raise error(f"cannot read {what}: {exc.strerror or exc}") from None
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > max_bytes:
            raise error(f"{what} grew past {_size(max_bytes)} while being read")
        return data
    finally:
        os.close(fd)


_JSON_SKIP = re.compile(r'"(?:[^"\\]|\\.)*"?')
_TOML_SKIP = re.compile(r'"""[\s\S]*?(?:"""|$)|\'\'\'[\s\S]*?(?:\'\'\'|$)|"(?:[^"\\\n]|\\.)*"?'
                        r"|'[^'\n]*'?|#[^\n]*")
_STEP = np.zeros(256, np.int32)                  # '[' '{' open a level, ']' '}' close one
_STEP[[0x5B, 0x7B]], _STEP[[0x5D, 0x7D]] = 1, -1
_DIGITS = re.compile(r"(?<![\w.])[0-9][0-9_]{" + str(MAX_NUMBER_DIGITS) + ",}")


def check_nesting(text: str, *, max_depth: int = MAX_DEPTH, what: str, toml: bool = False,
                  error: type[Exception] = ConfigError) -> None:
    """``error`` if ``text`` nests ``[``/``{`` deeper than ``max_depth`` or holds a number of
    more than ``MAX_NUMBER_DIGITS`` digits (strings and, for TOML, comments are skipped)."""
    bare = (_TOML_SKIP if toml else _JSON_SKIP).sub(" ", text)
    m = _DIGITS.search(bare)
    if m:
        raise error(f"{what} has a number of {len(m.group().replace('_', ''))} digits "
                    f"(at most {MAX_NUMBER_DIGITS})")
    step = _STEP[np.frombuffer(bare.encode("utf-8", "replace"), dtype=np.uint8)]
    if step.size and int(np.cumsum(step).max()) > max_depth:
        raise error(f"{what} is nested more than {max_depth} levels deep")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def loads_json(text: str | bytes, *, what: str, max_depth: int = MAX_DEPTH,
               error: type[Exception] = ConfigError) -> Any:
    """``json.loads`` with nesting, digit runs and ``NaN``/``Infinity`` refused first."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise error(f"{what} is not UTF-8: {exc}") from None
    check_nesting(text, max_depth=max_depth, what=what, error=error)
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise error(f"{what} is not valid JSON: {exc}") from None


_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,4})?")


def number_text(text: str, *, what: str, error: type[Exception] = ConfigError) -> float:
    """A finite decimal number written in at most ``MAX_NUMBER_DIGITS`` characters -> float."""
    s = text.strip()
    if len(s) > MAX_NUMBER_DIGITS + 8 or not _NUMBER.fullmatch(s):
        raise error(f"{what} must be a number, got {short(text)}")
    v = float(s)
    if not math.isfinite(v):
        raise error(f"{what} must be a finite number, got {short(text)}")
    return v


def stored_number(value: Any, what: str) -> float:
    """A number as a file stores it (a TOML/JSON int or float) -> float; ``TypeError`` naming ``what``
    for anything else: ``true`` is not 1.0 and ``"0.96"`` is not 0.96 (``float()`` took both)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"`{what}` must be a number, got {type(value).__name__} {short(value)}")
    return float(value)


def clip(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters, control characters escaped (a name quoted in a
    one-line message)."""
    if not text.isprintable():
        text = repr(text)[1:-1]
    return text if len(text) <= limit else text[:limit - 3] + "..."


def short(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters; safe for integers of any size."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        return f"<an integer of about {int(value.bit_length() * 0.30103) + 1} digits>"
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[:limit - 3] + "..."

