"""StageInput: what an app's hand input and body input share (``hand_input.py``, ``body_input.py``).

A MediaPipe stage made on first use - so an app that never switches it on never imports
MediaPipe (a 2-5 s import) - and, without the ``hands`` extra, its one-line install message kept
in ``error`` while the app goes on with its other input; the handlers attached to the host's
dispatcher while the input is on; and the conversion of the stage's camera pixels to window
pixels of ``app.camera_view``. A subclass says which stage (``_build``), which handlers
(``handlers``) and what to forget when switched off (``_forget``); the rest is its own.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable

from sensekit.app.convert import camera_to_view
from sensekit.errors import ConfigError
from sensekit.events import Event

if TYPE_CHECKING:
    from sensekit.app.base import App

__all__ = ["StageInput"]

log = logging.getLogger(__name__)


class StageInput:
    def __init__(self, app: App) -> None:
        self.app = app
        #: the stage, once made
        self.stage: Any = None
        #: why there is no stage (the extra's install line), ``None`` while there is no problem
        self.error: str | None = None
        self.active = False

    def _build(self) -> Any:
        """The stage (imports MediaPipe); raises ``ConfigError`` without the extra."""
        raise NotImplementedError

    def handlers(self) -> dict[str, Callable[[Event], None]]:
        """The event handlers attached while the input is on, by event name."""
        raise NotImplementedError

    def _make_stage(self) -> bool:
        """Make the stage on first use; ``False``, and ``error`` set, without the extra."""
        if self.stage is None:
            try:
                self.stage = self._build()
            except ConfigError as exc:
                first = self.error is None
                self.error = str(exc).split(" (")[0]     # "... needs the optional extra: pip install ..."
                if first:                                 # headless, the window's line is not seen
                    log.warning("%s: %s (the app goes on without it)", self.app.name, self.error)
                return False
        return True

    def _add_stage(self) -> str | None:
        """Make the stage if needed and add it to the running host's runner; the install
        message without the extra, else ``None``."""
        if self.stage is not None:
            return None
        if not self._make_stage():
            return self.error
        stage: Any = self.stage
        self.app.host.runner.stages.append(stage)
        return None

    def _forget(self) -> None:
        """Drop what the input follows (the input was switched off)."""
        raise NotImplementedError

    def _turn(self, on: bool) -> str | None:
        """Switch the input on (making and adding the stage first) or off (forgetting what it
        followed); the install message when it cannot go on, else ``None``."""
        if not on:
            self.active = False
            self._listen(False)
            self._forget()
            return None
        error = self._add_stage()
        if error is not None:
            return error
        self.active = True
        self._listen(True)
        return None

    def _listen(self, on: bool) -> None:
        d = self.app.host.dispatcher
        for name, handler in self.handlers().items():
            if on:
                d.on(name, handler)
            else:
                d.off(name, handler)

    def _view(self, x: float, y: float) -> tuple[float, float] | None:
        """Camera pixel ``(x, y)`` in window pixels of ``app.camera_view``; ``None`` before a frame."""
        size, view = self.app.host.frame_size, self.app.camera_view
        if size is None or view is None:
            return None
        return camera_to_view(x, y, size, view)
