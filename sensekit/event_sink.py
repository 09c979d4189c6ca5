"""``EventSink``: the file behind ``--events PATH``, which never blocks the run for long.

A regular file is written as usual (buffered; every line arrives). A FIFO, a pipe or a
character device is written without blocking: a line the reader cannot take at once waits in
memory (``waited`` counts those lines) and is sent as soon as the reader catches up (whole
lines, never torn), with up to ``max_buffer_bytes`` (4 MB) waiting; beyond that new lines are dropped (``dropped``). A
reader that goes away (``EPIPE``) drops what follows. ``close()`` gives a slow reader up to
``close_timeout_s`` (1 s) to take what waits, then drops the rest, and logs one warning with
the counts when anything waited or was dropped.

Cost: one ``write`` per line to a file's buffer, one non-blocking ``os.write`` per line (and
per waiting batch) to a pipe.
"""
from __future__ import annotations

import errno
import logging
import os
import select
import stat
import time

from sensekit.errors import ConfigError

__all__ = ["EventSink"]

log = logging.getLogger("sensekit")

_PIPE_BUF = getattr(select, "PIPE_BUF", 512)      # writes up to this size are atomic on a pipe


class EventSink:
    """Lines of text to ``path``: a regular file, or a FIFO/pipe that must not block the run."""

    def __init__(self, path: str | os.PathLike[str], *, max_buffer_bytes: int = 4 << 20,
                 close_timeout_s: float = 1.0) -> None:
        self.path = os.fspath(path)
        self.lines = self.waited = self.dropped = 0
        self.max_buffer_bytes = max_buffer_bytes
        self.close_timeout_s = close_timeout_s
        flags = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
        try:
            fd = os.open(self.path, flags, 0o644)
        except OSError as exc:
            why = "no process is reading it" if exc.errno == errno.ENXIO else (exc.strerror or str(exc))
            raise ConfigError(f"cannot write events to {self.path!r}: {why}") from None
        self._fd: int | None = fd
        self.is_pipe = not stat.S_ISREG(os.fstat(fd).st_mode)
        self._pending = bytearray()
        self._gone = False
        if not self.is_pipe:
            os.set_blocking(fd, True)
            os.ftruncate(fd, 0)
            self._file = os.fdopen(fd, "w", encoding="utf-8")

    def write(self, line: str) -> None:
        """Write ``line`` (with its newline): to a file at once, to a pipe when it can take it."""
        self.lines += 1
        if not self.is_pipe:
            try:
                self._file.write(line)
            except OSError as exc:
                raise self._named(exc) from None
            return
        data = line.encode("utf-8")
        if self._gone or len(self._pending) + len(data) > self.max_buffer_bytes:
            self.dropped += 1
            return
        self._pending += data
        self._drain()
        if self._pending:
            self.waited += 1

    def _send(self, data: bytes | bytearray) -> int:
        assert self._fd is not None
        try:
            return os.write(self._fd, data)
        except BlockingIOError:
            return 0
        except BrokenPipeError:
            self._gone = True
            self.dropped += self._pending.count(b"\n")      # what was sent came from _pending
            self._pending.clear()
            return 0
        except OSError as exc:                          # ENOSPC from /dev/full, EIO, ...
            self._gone = True                           # (close() then has nothing to send)
            self.dropped += self._pending.count(b"\n")
            self._pending.clear()
            raise self._named(exc) from None

    def _named(self, exc: OSError) -> OSError:
        """``exc`` with the events file named (the run ends with it on one line, exit 2)."""
        return OSError(exc.errno, f"cannot write events to {self.path!r} after {self.lines - 1} "
                                  f"line(s): {exc.strerror or exc}")

    def _drain(self) -> None:
        """Send whole lines, at most ``PIPE_BUF`` bytes a write (such writes to a pipe are
        atomic: the reader never sees a torn line; a longer single line goes alone)."""
        while self._pending and not self._gone:
            end = self._pending.rfind(b"\n", 0, _PIPE_BUF) + 1 or self._pending.find(b"\n") + 1
            sent = self._send(self._pending[:end or len(self._pending)])
            if sent <= 0:
                return
            del self._pending[:sent]

    def flush(self) -> None:
        if not self.is_pipe:
            try:
                self._file.flush()
            except OSError as exc:
                raise self._named(exc) from None
        else:
            self._drain()

    def close(self) -> None:
        """Finish (a pipe's reader gets ``close_timeout_s`` to take what waits); idempotent."""
        if self._fd is None:
            return
        if not self.is_pipe:
            try:
                self._file.close()
            except OSError as exc:
                self._fd = None                         # closed all the same: close() is idempotent
                raise self._named(exc) from None
        else:
            deadline = time.monotonic() + self.close_timeout_s
            self._drain()
            while self._pending and not self._gone and time.monotonic() < deadline:
                time.sleep(0.01)
                self._drain()
            self.dropped += self._pending.count(b"\n")
            self._pending.clear()
            os.close(self._fd)
        self._fd = None
        if self.waited or self.dropped:
            log.warning("events to %s: the reader fell behind: %d of %d lines waited, %d dropped",
                        self.path, self.waited, self.lines, self.dropped)

    def stats(self) -> dict[str, int]:
        return {"event_lines": self.lines, "event_lines_waited": self.waited,
                "event_lines_dropped": self.dropped}
