"""``RunOutputs``: what a run writes - the events file, the window's video, screenshots, the profile.

- ``--events FILE``: every event as one JSON line (a ``"*"`` observer on the dispatcher, so it
  sees every event whatever the app's handlers return), through ``sensekit.event_sink`` (a FIFO
  that stops reading never blocks the run; what waited or was dropped is counted);
- ``--video FILE``: the window, one frame per drawing (``sensekit.app.video``);
- screenshots (key ``s``, ``--screenshot``);
- the venue profile (``Shift+S``): the keys of the profile the run started from at their
  current values, every setting this run changed and what the detectors learned, written into
  ``RunOptions.profile_path`` (an existing file is edited in place, comments kept).

Failure modes: ``ConfigError`` for an unwritable ``--video`` path; ``OSError`` or
``SensekitError`` from ``write_profile`` / ``write_values`` (``AppHost`` turns them into a message:
``Shift+S`` writes through ``write_values`` on a thread of its own, ``app/profile_saver.py``).
"""
from __future__ import annotations

import contextlib
import errno
import io
import os
import tempfile
from pathlib import Path
from typing import Any

import pygame

from sensekit.app.options import RunOptions
from sensekit.app.video import VideoRecorder
from sensekit.event_sink import EventSink
from sensekit.events import Dispatcher, to_jsonl
from sensekit.safe_read import file_kind
from sensekit.settings.live import Tuning

__all__ = ["RunOutputs", "save_screenshot"]


def save_screenshot(screen: pygame.Surface, path: str | Path) -> Path:
    """Save ``screen`` to ``path`` (the format from its suffix) through a temporary file renamed
    into place, so a full disk leaves no truncated picture; a failed write is one ``OSError``
    naming the file (pygame's own error, and libpng's, name nothing). A new picture is readable by
    all (0644, not the temporary file's 0600); one saved over keeps its file's mode. A symlink is
    followed (its target is saved over, the link stays); a FIFO, a device or a socket is an
    ``OSError`` and left alone (the rename would have replaced it with the picture)."""
    path = Path(path)
    if path.is_symlink():
        path = path.resolve()
    kind = file_kind(path)
    if kind is not None:
        raise OSError(errno.EINVAL, f"cannot save the screenshot {str(path)!r}: it is {kind}, not a file")
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o7777 if path.is_file() else 0o644
    picture = io.BytesIO()          # encoded in memory: a full disk is Python's OSError, not libpng's line
    try:
        pygame.image.save(screen, picture, path.name)
    except pygame.error as exc:
        raise OSError(errno.EIO, f"cannot save the screenshot {str(path)!r}: {exc}") from None
    tmp = ""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=path.suffix, dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(picture.getvalue())
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as exc:
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise OSError(errno.EIO, f"cannot save the screenshot {str(path)!r}: {exc.strerror or exc}") from None
    return path


class RunOutputs:
    def __init__(self, options: RunOptions, dispatcher: Dispatcher, tuning: Tuning, *, step_s: float) -> None:
        self.options = options
        self.tuning = tuning
        self._events_file: EventSink | None = None
        self.video: VideoRecorder | None = None
        if options.events is not None:
            options.events.parent.mkdir(parents=True, exist_ok=True)
            sink = self._events_file = EventSink(options.events)   # a FIFO never blocks the run
            dispatcher.on("*", lambda e: sink.write(to_jsonl(e) + "\n"))
        if options.video is not None:
            try:
                self.video = VideoRecorder(options.video, fps=1.0 / step_s)
            except BaseException:                  # the events file opened above is not left open
                self.close()
                raise

    def drawn(self, screen: pygame.Surface) -> None:
        """After each drawing: the window's frame into the video."""
        if self.video is not None:
            self.video.write(screen)

    def profile_values(self) -> dict[str, Any]:
        """What ``Shift+S`` saves (see the module docstring)."""
        from sensekit.profile import run_values
        return run_values(self.tuning, self.options.profile)

    def write_profile(self) -> Path:
        """Write the venue profile; raises on failure."""
        return self.write_values(self.profile_values(), self.options.profile_path)

    @staticmethod
    def write_values(values: dict[str, Any], path: Path) -> Path:
        """Write ``values`` (``profile_values``) to the profile at ``path`` (any thread)."""
        from sensekit.profile import save_profile
        return save_profile(values, path)

    def close(self) -> None:
        try:
            if self.video is not None:
                video, self.video = self.video, None
                video.close()
        finally:                                   # the events file is closed whatever the video says
            if self._events_file is not None:
                self._events_file.close()
                self._events_file = None
