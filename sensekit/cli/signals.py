"""``stop_signals()``: SIGTERM (``systemctl stop``, ``kill``) and SIGHUP (a closed terminal or
ssh session) end a run the way Ctrl-C does, cleanly (screenshot, ``--video``, events file, panel
and OSC closed), and are reported as what they were.

Inside ``with stop_signals() as stopped:`` such a signal raises ``KeyboardInterrupt`` in the main
thread and ``stopped.by`` becomes ``"SIGTERM"`` or ``"SIGHUP"``; ``stopped.why`` is that or
``"Ctrl-C"``. SIGHUP ignored on entry (``nohup``) stays ignored (``sensekit.stop_signals``).
Off the main thread (tests calling ``main``) nothing is installed.

``terminal_gone(exc)``: whether an ``OSError`` is a write to a terminal that hung up (a closed
ssh session or terminal window sends SIGHUP, then every write to it fails with EIO); if so,
stdout and stderr are pointed at /dev/null, so that the run's closing lines, its error line and
the exit's flush fail no more. The files were finished before those lines: the command ends
with status 0 and no traceback (before: status 1, a traceback written to nowhere).
"""
from __future__ import annotations

import errno
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sensekit.stop_signals import terminating_signals

__all__ = ["Stopped", "stop_signals", "terminal_gone"]


@dataclass
class Stopped:
    by: str | None = None

    @property
    def why(self) -> str:
        return self.by or "Ctrl-C"


@contextmanager
def stop_signals() -> Iterator[Stopped]:
    stopped = Stopped()
    if threading.current_thread() is not threading.main_thread():
        yield stopped
        return

    names = terminating_signals()

    def on_term(signum: int, frame: Any) -> None:
        if stopped.by is None:
            stopped.by = names.get(signum, "SIGTERM")
            raise KeyboardInterrupt

    old = {signum: signal.signal(signum, on_term) for signum in names}
    try:
        yield stopped
    finally:
        for signum, handler in old.items():
            signal.signal(signum, handler)


def terminal_gone(exc: BaseException) -> bool:
    """True (and stdout, stderr sent to /dev/null) if ``exc`` is EIO and a terminal on stdout or
    stderr no longer takes writes."""
    if not (isinstance(exc, OSError) and exc.errno == errno.EIO):
        return False
    gone = False
    for fd in (1, 2):
        try:
            os.write(fd, b"")               # nothing written; EIO on a hung-up terminal only
        except OSError as err:              # (isatty() says False there: its tcgetattr fails)
            gone = gone or err.errno == errno.EIO
    if gone:
        devnull = os.open(os.devnull, os.O_WRONLY)
        for fd in (1, 2):
            os.dup2(devnull, fd)
        os.close(devnull)
    return gone
