"""``stop_signals()``: SIGTERM (``systemctl stop``, ``kill``) and SIGHUP (a closed terminal or
ssh session) end a run the way Ctrl-C does, cleanly (screenshot, ``--video``, events file, panel
and OSC closed), and are reported as what they were.

Inside ``with stop_signals() as stopped:`` such a signal raises ``KeyboardInterrupt`` in the main
thread and ``stopped.by`` becomes ``"SIGTERM"`` or ``"SIGHUP"``; ``stopped.why`` is that or
``"Ctrl-C"``. SIGHUP ignored on entry (``nohup``) stays ignored (``sensekit.stop_signals``).
Off the main thread (tests calling ``main``) nothing is installed.
"""
from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sensekit.stop_signals import terminating_signals

__all__ = ["Stopped", "stop_signals"]


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
