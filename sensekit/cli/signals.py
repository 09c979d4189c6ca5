"""``stop_signals()``: SIGTERM (``systemctl stop``, ``kill``) ends a run the way Ctrl-C does,
cleanly (screenshot, events file, panel and OSC closed), and is reported as what it was.

Inside ``with stop_signals() as stopped:`` a SIGTERM raises ``KeyboardInterrupt`` in the main
thread and ``stopped.by`` becomes ``"SIGTERM"``; ``stopped.why`` is that or ``"Ctrl-C"``.
Off the main thread (tests calling ``main``) nothing is installed.
"""
from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

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

    def on_term(signum: int, frame: Any) -> None:
        if stopped.by is None:
            stopped.by = "SIGTERM"
            raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, on_term)
    try:
        yield stopped
    finally:
        signal.signal(signal.SIGTERM, old)
