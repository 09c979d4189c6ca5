"""Malformed HTTP from the network, as the panel answers and logs it (harden16's fuzz sweep).

- ``protocol_problem(exc)``: the one line an aiohttp protocol error (``BadHttpMessage``,
  ``RequestPayloadError``...) carries, without its ``400, message:`` prefix and the byte dump
  and caret aiohttp puts on the lines below it.
- ``header_problem(request)``: a request header that is not UTF-8 text (aiohttp decodes
  headers with ``surrogateescape``; an ``Upgrade: websocke\\xc0\\x80t`` made aiohttp's own
  400 fail to encode its text: a 500 and a traceback).
- ``MalformedRequests``: a filter on aiohttp's ``aiohttp.server`` logger, installed while a
  panel serves (``install()``/``uninstall()``, counted). aiohttp logs every request it cannot
  parse (a duplicate ``Host``, a bad request line, a header line over 8 kB, a body that is not
  the gzip it claims) at ERROR **with a traceback**: 10-25 lines on the show's stderr for each
  request anyone on the network sends wrong. The filter makes such a record one WARNING line
  under one template (``panel: a malformed request from %s was refused (%s)``), so the rate
  limit (``sensekit.ratelimit``) folds a flood of them into a count; ``refused`` counts them.
  Any other record (a bug in a handler) passes as aiohttp wrote it.
"""
from __future__ import annotations

import logging
import threading

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

__all__ = ["MalformedRequests", "header_problem", "protocol_problem", "install", "uninstall"]

_PROTOCOL_ERRORS: tuple[type[BaseException], ...] = (HttpProcessingError, web.RequestPayloadError)
TEMPLATE = "panel: a malformed request from %s was refused (%s)"


def protocol_problem(exc: BaseException) -> str:
    """The first meaningful line of a protocol error, at most 120 characters, printable."""
    text = str(getattr(exc, "message", "") or exc)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.strip().endswith("message:")]
    first = lines[0] if lines else type(exc).__name__
    first = first.removeprefix("400, message:").strip() or type(exc).__name__
    first = first.encode("ascii", "backslashreplace").decode("ascii")
    return first if len(first) <= 120 else first[:117] + "..."


def header_problem(request: web.BaseRequest) -> str | None:
    """A header name or value that is not UTF-8 text, named; ``None`` when all are."""
    for name, value in request.raw_headers:
        for part in (name, value):
            try:
                part.decode("utf-8")
            except UnicodeDecodeError:
                shown = name.decode("ascii", "backslashreplace")[:40]
                return f"the request header {shown!r} is not UTF-8 text"
    return None


class MalformedRequests(logging.Filter):
    """Turns aiohttp's traceback for a request it could not parse into one counted line."""

    def __init__(self) -> None:
        super().__init__()
        self.refused = 0
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is None or not isinstance(exc, _PROTOCOL_ERRORS):
            return True
        remote = record.args[0] if isinstance(record.args, tuple) and record.args else "a client"
        record.msg, record.args = TEMPLATE, (remote, protocol_problem(exc))
        record.exc_info, record.exc_text = None, None
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        with self._lock:
            self.refused += 1
        return True


_filter = MalformedRequests()
_users = [0]
_users_lock = threading.Lock()


def install() -> MalformedRequests:
    """Put the filter on ``aiohttp.server`` (once however many panels serve); returns it."""
    with _users_lock:
        _users[0] += 1
        logging.getLogger("aiohttp.server").addFilter(_filter)
    return _filter


def uninstall() -> None:
    """The last panel to close takes the filter off."""
    with _users_lock:
        _users[0] = max(0, _users[0] - 1)
        if _users[0] == 0:
            logging.getLogger("aiohttp.server").removeFilter(_filter)

