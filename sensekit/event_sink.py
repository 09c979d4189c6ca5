"""``EventSink``: the file behind ``--events PATH``, which never stops or blocks the run.

A regular file is written as usual (lines gathered in memory, written whole, 8 kB at a time
and at every ``flush``; every line arrives). A FIFO, a pipe or a character device is written
without blocking: a line the reader cannot take at once waits in memory (``waited`` counts
those lines) and is sent as soon as the reader catches up (whole lines, never torn), with up
to ``max_buffer_bytes`` (4 MB) waiting; beyond that new lines are dropped (``dropped``). A
reader that goes away (``EPIPE``) drops what follows.

A write that fails (a full disk: ``ENOSPC``; a file size limit: ``EFBIG``; ``EIO``) does not
stop the run - for a show the camera and the apps matter more than the log: one warning names
the file, the reason and the lines that got out; a regular file is cut back to its last whole
line (JSON-lines readers never see a torn one), and every later line is dropped and counted.
``close()`` gives a slow reader up to ``close_timeout_s`` (1 s) to take what waits, then drops
the rest, and logs one warning with the counts when anything waited or was dropped; ``stats()``
has them too.

Cost: one ``write`` per 8 kB of lines to a file, one non-blocking ``os.write`` per line (and
per waiting batch) to a pipe.
"""
from __future__ import annotations

import contextlib
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
_FILE_CHUNK = 8 << 10        # a regular file is written this much at a time (as a buffered file was)


class EventSink:
    """Lines of text to ``path``: a regular file, or a FIFO/pipe that must not block the run."""

    def __init__(self, path: str | os.PathLike[str], *, max_buffer_bytes: int = 4 << 20,
                 close_timeout_s: float = 1.0) -> None:
        self.path = os.fspath(path)
        self.lines = self.waited = self.dropped = 0
        self.max_buffer_bytes = max_buffer_bytes
        self.close_timeout_s = close_timeout_s
        #: why writing stopped (the first failed write's reason), or ``None``
        self.failed: str | None = None
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
        self._written = 0               # bytes written
        self._whole = 0                 # bytes up to the last whole line written
        self._sent_lines = 0            # lines that got out whole
        if not self.is_pipe:
            os.set_blocking(fd, True)
            os.ftruncate(fd, 0)

    def write(self, line: str) -> None:
        """Write ``line`` (with its newline): to a file's buffer, to a pipe when it can take it."""
        self.lines += 1
        data = line.encode("utf-8")
        if self._gone or (self.is_pipe and len(self._pending) + len(data) > self.max_buffer_bytes):
            self.dropped += 1
            return
        self._pending += data
        if not self.is_pipe:
            if len(self._pending) >= _FILE_CHUNK:
                self._drain()
            return
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
            self._stop()
            return 0
        except OSError as exc:                          # ENOSPC (a full disk, /dev/full), EFBIG, EIO
            self._fail(exc)
            return 0

    def _stop(self) -> None:
        """Nothing more goes out: what waits is dropped (and counted), and so is what follows."""
        self._gone = True
        self.dropped += self._pending.count(b"\n")
        self._pending.clear()

    def _fail(self, exc: OSError) -> None:
        """A failed write: said once; a file is cut back to its last whole line; the run goes on."""
        self.failed = exc.strerror or str(exc)
        self._stop()
        if not self.is_pipe and self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, self._whole)
        log.warning("events to %r: cannot write (%s) after %d line(s); the run goes on, the events "
                    "that follow are dropped and counted", self.path, self.failed, self._sent_lines)

    def _drain(self) -> None:
        """Send whole lines: to a pipe at most ``PIPE_BUF`` bytes a write (such writes are
        atomic: the reader never sees a torn line; a longer single line goes alone), to a file
        all that waits."""
        while self._pending and not self._gone:
            if self.is_pipe:
                end = self._pending.rfind(b"\n", 0, _PIPE_BUF) + 1 or self._pending.find(b"\n") + 1
            else:
                end = self._pending.rfind(b"\n") + 1
            sent = self._send(self._pending[:end or len(self._pending)])
            if sent <= 0:
                return
            last_nl = self._pending.rfind(b"\n", 0, sent)
            if last_nl >= 0:                            # a short write may stop mid-line
                self._whole = self._written + last_nl + 1
            self._sent_lines += self._pending.count(b"\n", 0, sent)
            self._written += sent
            del self._pending[:sent]

    def flush(self) -> None:
        self._drain()

    def close(self) -> None:
        """Finish (a pipe's reader gets ``close_timeout_s`` to take what waits); idempotent."""
        if self._fd is None:
            return
        deadline = time.monotonic() + self.close_timeout_s
        self._drain()
        while self.is_pipe and self._pending and not self._gone and time.monotonic() < deadline:
            time.sleep(0.01)
            self._drain()
        self.dropped += self._pending.count(b"\n")
        self._pending.clear()
        os.close(self._fd)
        self._fd = None
        if self.failed is not None:
            log.warning("events to %r: %d of %d lines written, %d dropped after the write failed (%s)",
                        self.path, self.lines - self.dropped, self.lines, self.dropped, self.failed)
        elif self.waited or self.dropped:
            log.warning("events to %s: the reader fell behind: %d of %d lines waited, %d dropped",
                        self.path, self.waited, self.lines, self.dropped)

    def stats(self) -> dict[str, int]:
        return {"event_lines": self.lines, "event_lines_waited": self.waited,
                "event_lines_dropped": self.dropped}
