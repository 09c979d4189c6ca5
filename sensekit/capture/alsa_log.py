"""ALSA's own messages, through Python's logging (and so through the log's rate limit).

alsa-lib writes what goes wrong in a PCM straight to the process's stderr ("ALSA lib
pcm.c:8570:(snd_pcm_recover) overrun occurred", "ALSA lib pcm_file.c:315:(...) read from file
failed, error: -1: Is a directory"), past every logging filter. A microphone whose driver says
something at every period said it 94 times a second at 48 kHz, for as long as the piece ran:
a week of it fills a journal. ``route_alsa_messages()`` installs an ALSA error handler
(``snd_lib_error_set_handler``) that logs each message as a WARNING of the logger
``sensekit.capture.alsa``, so the rate limit the ``sensekit`` command installs
(``sensekit.ratelimit``: 5 lines of a kind in 10 s, 10 in 600 s, the rest counted) caps it like
a camera's lines. ``import_sounddevice`` calls it before PortAudio starts (PortAudio lists the
ALSA devices as it initialises, and that listing has its own messages).

The handler is variadic in C (``file, line, function, err, fmt, ...``). ctypes cannot take a
``va_list``, so the callback declares ``_SLOTS`` more pointer-sized arguments: on the Linux
ABIs (x86-64, AArch64) the variadic integer and pointer arguments sit where those would be, and
``_format`` reads as many as ``fmt``'s conversions name (``%s``, ``%d``, ``%u``, ``%x``,
``%ld``, ``%c``, ``%p``); a floating-point conversion, or one beyond ``_SLOTS``, is shown as
``?`` and the rest of the template is left as it is. The message is what ALSA's default handler
prints. The caller's C ``errno`` is kept across the call (alsa-lib reads it after some messages;
Python's logging changes it: a failed open then read as a success, and alsa-lib used memory it
had freed, ``realloc(): invalid pointer``, in ``tests/capture/test_microphone.py``'s stream death).

Linux only; elsewhere, or without libasound, it does nothing. ``restore_alsa_messages()`` puts
ALSA's default back (registered at exit, so no message of a stream left to the system after
Python shuts down calls into a finished interpreter). Cost: nothing until ALSA says something;
then one Python call per message (the record is usually counted and dropped by the filter).
"""
from __future__ import annotations

import atexit
import contextlib
import ctypes
import ctypes.util
import logging
import os
import re
import sys
import threading
from typing import Any

log = logging.getLogger(__name__)

#: the variadic arguments the handler can read (integers and pointers)
_SLOTS = 8
_CONVERSION = re.compile(rb"%[-+ #0]*\d*(?:\.(\d+))?(hh|h|ll|l|z|j|t|L)?([diouxXcspfeEgGaA%])")
_lock = threading.Lock()
_state: dict[str, Any] = {"lib": None, "handler": None, "errno": None}

_Handler = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
                            ctypes.c_char_p, *([ctypes.c_void_p] * _SLOTS))


def _signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _format(fmt: bytes, slots: tuple[int | None, ...]) -> str:
    """``fmt`` with its conversions filled from the variadic ``slots`` (see the module)."""
    out: list[str] = []
    pos, used = 0, 0
    for m in _CONVERSION.finditer(fmt):
        out.append(fmt[pos:m.start()].decode("utf-8", "replace"))
        pos = m.end()
        prec, size, conv = m.groups()
        if conv == b"%":
            out.append("%")
            continue
        if conv in b"feEgGaA" or used >= len(slots):   # a float is not in an integer slot
            out.append("?")
            if conv not in b"feEgGaA":
                out.append(fmt[pos:].decode("utf-8", "replace"))
                return "".join(out)
            continue
        raw = slots[used] or 0
        used += 1
        if conv == b"s":
            text = ctypes.string_at(raw).decode("utf-8", "replace") if raw else "(null)"
            out.append(text[:int(prec)] if prec else text)
            continue
        bits = 64 if size in (b"l", b"ll", b"z", b"j", b"t") else 32
        if conv == b"c":
            out.append(chr(raw & 0xFF))
        elif conv == b"p":
            out.append(hex(raw))
        elif conv in b"di":
            out.append(str(_signed(raw, bits)))
        else:
            number = raw & ((1 << bits) - 1)
            out.append({b"o": f"{number:o}", b"x": f"{number:x}", b"X": f"{number:X}"}.get(conv, str(number)))
    out.append(fmt[pos:].decode("utf-8", "replace"))
    return "".join(out)


def message(file: bytes | None, line: int, function: bytes | None, err: int, fmt: bytes | None,
            slots: tuple[int | None, ...] = ()) -> str:
    """The line ALSA's default handler would print (without its ``ALSA lib`` prefix)."""
    text = _format(fmt or b"", slots)
    where = f"{(file or b'?').decode('utf-8', 'replace')}:{line}:({(function or b'?').decode('utf-8', 'replace')})"
    if err:
        text += f": {os.strerror(abs(err))}"
    return f"{where} {text}"


def _handle(file: bytes | None, line: int, function: bytes | None, err: int, fmt: bytes | None,
            *slots: int | None) -> None:
    # C's errno is the caller's: alsa-lib reads it after the message ("open %s for reading failed",
    # then ``return -errno``), and Python's logging sets it (to 0, among others). Not kept, a failed
    # open read as a success and alsa-lib used a file it had freed (``realloc(): invalid pointer``)
    where = _errno_location()
    saved = where[0] if where else 0
    try:
        # nothing may escape into the C library's thread; the text itself, its numbers masked, is
        # the kind the rate limit counts (a template of "%s" would make every ALSA message one kind)
        with contextlib.suppress(Exception):
            log.warning("ALSA lib " + message(file, line, function, err, fmt, slots))
    finally:
        if where:
            where[0] = saved


def _errno_location() -> Any:
    """A pointer to this thread's C ``errno`` (glibc and musl: ``__errno_location``), or ``None``."""
    fn = _state.get("errno")
    return fn() if fn is not None else None


def _library() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    name = ctypes.util.find_library("asound")
    if name is None:
        return None
    try:
        return ctypes.CDLL(name)
    except OSError:
        return None


def route_alsa_messages() -> bool:
    """Send ALSA's messages to ``logging`` (idempotent); ``False`` when there is no ALSA."""
    with _lock:
        if _state["handler"] is not None:
            return True
        lib = _library()
        if lib is None:
            return False
        try:
            errno_fn = ctypes.CDLL(None).__errno_location
            errno_fn.restype = ctypes.POINTER(ctypes.c_int)
            errno_fn.argtypes = []
        except (AttributeError, OSError):
            return False                       # no way to keep errno: leave ALSA's handler
        _state["errno"] = errno_fn
        handler = _Handler(_handle)
        lib.snd_lib_error_set_handler.argtypes = [_Handler]
        lib.snd_lib_error_set_handler.restype = ctypes.c_int
        if lib.snd_lib_error_set_handler(handler) != 0:
            return False
        _state["lib"], _state["handler"] = lib, handler     # the callback must outlive its use
    atexit.register(restore_alsa_messages)
    return True


def restore_alsa_messages() -> None:
    """Put ALSA's default handler (stderr) back."""
    with _lock:
        lib, handler = _state["lib"], _state["handler"]
        if lib is None or handler is None:
            return
        lib.snd_lib_error_set_handler.argtypes = [ctypes.c_void_p]
        lib.snd_lib_error_set_handler(None)
        _state["handler"] = None
