"""``ProfileSaver``: ``Shift+S`` writes the venue profile on a thread of its own.

Editing a large profile (a taught model's weights; tomlkit is pure Python) takes seconds; written
on the run's thread, the piece stood still for all of them. The host reads the values on the
run's thread (``AppHost.profile_values``, quick) and hands them here; the file is written on a
thread of this saver's, one save at a time (the panel's save does the same,
``PanelServer._api_save``; ``profile.save_profile`` itself lets one writer at a time edit a file).

What became of a save is handed back on the run's thread: ``result`` (non-blocking, each step)
or ``wait`` (blocks until the save in hand is written: the host's ``close`` and tests).
"""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Callable

#: what became of a save: the path written, or the error that stopped it
Outcome = tuple[Path | None, Exception | None]


class ProfileSaver:
    """One save at a time, written off the caller's thread by ``write(values, path)``."""

    def __init__(self, write: Callable[[dict[str, Any], Path], Path]) -> None:
        self._write = write
        self._thread: threading.Thread | None = None
        self._outcome: Outcome | None = None

    @property
    def busy(self) -> bool:
        """A save was started and its outcome not yet handed back."""
        return self._thread is not None

    def start(self, values: dict[str, Any], path: Path) -> bool:
        """Start writing ``values`` to ``path``; False (nothing started) while a save is in hand."""
        if self._thread is not None:
            return False
        self._outcome = None

        def work() -> None:
            try:
                self._outcome = (self._write(values, path), None)
            except Exception as exc:               # handed back to the run's thread, never lost
                self._outcome = (None, exc)
        self._thread = threading.Thread(target=work, name="sensekit-profile-save", daemon=False)
        self._thread.start()
        return True

    def result(self) -> Outcome | None:
        """The outcome of the save in hand once it is written (once), else None; never blocks."""
        thread = self._thread
        if thread is None or thread.is_alive():
            return None
        return self.wait()

    def wait(self, timeout: float | None = None) -> Outcome | None:
        """Block until the save in hand is written (or ``timeout`` s pass) and hand back its
        outcome (once); None when there was none or it is still being written."""
        thread = self._thread
        if thread is None:
            return None
        thread.join(timeout)
        if thread.is_alive():
            return None
        self._thread = None
        outcome, self._outcome = self._outcome, None
        return outcome if outcome is not None else (None, RuntimeError("the save ended without an outcome"))
