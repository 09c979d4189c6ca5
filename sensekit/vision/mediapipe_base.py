"""What the MediaPipe stages (hands, pose, silhouette) share: loading a solution, a quiet stderr,
the frame in RGB.

- ``load_solution(name, model, needs)``: ``mediapipe.solutions.<name>`` (a model bundled in
  the wheel of mediapipe ``MEDIAPIPE_VERSION``), or ``ConfigError`` naming the install
  (``INSTALL_HINT``).
- ``NativeStderrFilter`` / ``filtered_native_stderr()``: MediaPipe's and TensorFlow Lite's
  start-up chatter on the C-level stderr dropped, anything else it prints there passed on.
- ``RgbBuffer``: a BGR frame in RGB, MediaPipe's order, in one array reused while the frame
  size holds (a frame of a new size is checked first).
- ``frame_in(stage, item)``: how the hands and pose stages start on an item: only a video
  frame, their pending settings applied, the frame counted, its picture in RGB.

Cost: the import of MediaPipe on the first load (seconds); a stderr window is a temporary
file and two ``dup2`` calls; the conversion one ``cv2.cvtColor``. Failure modes:
``ConfigError`` without the extra or without its bundled model; no real stderr (embedded
Python): nothing is filtered.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import re
import sys
import tempfile
from typing import Any, Iterator, Protocol

import cv2
import numpy as np

from sensekit.capture.base import Item, VideoFrame
from sensekit.errors import ConfigError
from sensekit.installed import install_hint
from sensekit.paths import doc
from sensekit.validate import check_frame

__all__ = ["INSTALL_HINT", "MEDIAPIPE_VERSION", "load_solution", "NativeStderrFilter", "filtered_native_stderr",
           "RgbBuffer", "frame_in"]

INSTALL_HINT = install_hint("hands")
MEDIAPIPE_VERSION = "0.10.21"


def load_solution(name: str, model: str, needs: str) -> Any:
    """``mediapipe.solutions.<name>`` (a model bundled in the wheel), or ``ConfigError`` naming
    the install: ``needs`` is what the user asked for ("hand tracking needs"), ``model`` what
    the wheel must hold ("hand models")."""
    try:
        import mediapipe as mp
    except ImportError as exc:
        raise ConfigError(f"{needs} the optional extra: {INSTALL_HINT} "
                          f"(mediapipe {MEDIAPIPE_VERSION} is not installed: {exc}; it brings numpy 1 and a "
                          f"Qt OpenCV, so best in a venv of its own, with the two lines after it in "
                          f"{doc('hands.md')})") from None
    solutions = getattr(mp, "solutions", None)
    if solutions is None or not hasattr(solutions, name):
        raise ConfigError(f"mediapipe {getattr(mp, '__version__', '?')} has no bundled {model} "
                          f"(solutions.{name}); {needs} mediapipe=={MEDIAPIPE_VERSION}: {INSTALL_HINT}")
    return getattr(solutions, name)


#: MediaPipe's and TensorFlow Lite's start-up chatter on the C-level stderr (it ignores the
#: usual log-level variables): dropped; anything else it prints there is passed on.
_NOISE = re.compile(r"^(INFO: Created TensorFlow Lite|WARNING: All log messages before absl|[IW]\d{4} )")


class NativeStderrFilter:
    """File descriptor 2 into a temporary file from ``start`` to ``stop``; what was written there,
    minus ``_NOISE``, goes on to the real stderr at every ``pass_on`` (the hand stage calls it
    after each frame, so nothing waits longer than a frame) and at ``stop`` (also at exit, so a
    traceback or a last message written while the window is open is not lost). MediaPipe's
    graphs log from their own threads, so a window that stays open across frames catches a line
    that one around each call can miss (it was printed between two calls on a loaded machine)."""

    def __init__(self) -> None:
        self._saved: int | None = None
        self._tmp: Any = None
        self._read = 0                   # bytes of the file already passed on
        self._partial = b""              # a last line without its newline yet

    def start(self) -> None:
        if self._saved is not None:
            return
        try:
            sys.stderr.flush()
            saved = os.dup(2)
        except (OSError, ValueError):    # no real stderr (embedded): nothing to filter
            return
        tmp = tempfile.TemporaryFile()   # noqa: SIM115 - kept open across frames; closed in stop()
        os.dup2(tmp.fileno(), 2)
        self._saved, self._tmp, self._read, self._partial = saved, tmp, 0, b""
        atexit.register(self.stop)

    def pass_on(self, *, final: bool = False) -> None:
        """Write what came since the last call, minus ``_NOISE``, to the real stderr (a line
        still without its newline waits, unless ``final``)."""
        if self._saved is None:
            return
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.flush()
        self._tmp.seek(self._read)
        data = self._partial + self._tmp.read()
        self._read = self._tmp.tell()
        lines = data.split(b"\n")
        self._partial = b"" if final else lines.pop()
        kept = [line for line in lines if line.strip() and not _NOISE.match(line.decode("utf-8", "replace"))]
        if kept:
            os.write(self._saved, b"\n".join(kept) + b"\n")

    def stop(self) -> None:
        if self._saved is None:
            return
        self.pass_on(final=True)
        saved, tmp = self._saved, self._tmp
        self._saved = self._tmp = None
        atexit.unregister(self.stop)
        os.dup2(saved, 2)
        os.close(saved)
        tmp.close()


@contextlib.contextmanager
def filtered_native_stderr() -> Iterator[None]:
    """Catch what native code writes to file descriptor 2 during the block, minus ``_NOISE``."""
    window = NativeStderrFilter()
    window.start()
    try:
        yield
    finally:
        window.stop()


class RgbBuffer:
    """Call with a BGR frame: the frame in RGB, written into the one array this keeps (a new
    one, after ``check_frame``, when the frame's size changes)."""

    def __init__(self) -> None:
        self._rgb: np.ndarray | None = None

    def __call__(self, image: np.ndarray) -> np.ndarray:
        if self._rgb is None or self._rgb.shape != image.shape:
            check_frame(image, "frame image")
            self._rgb = np.empty_like(image)
        return cv2.cvtColor(image, cv2.COLOR_BGR2RGB, dst=self._rgb)


class _FrameStage(Protocol):
    _pending: Any
    _rgb: RgbBuffer
    _last_index: int
    runs: dict[str, int]

    def apply_pending(self) -> dict[str, Any]: ...


def frame_in(stage: _FrameStage, item: Item) -> np.ndarray | None:
    """The start of a MediaPipe stage's ``process``: ``None`` for anything but a video frame;
    else the stage's pending settings applied, the frame counted (``runs["frames"]``, its
    index kept for ``layers``) and its picture in RGB (the stage's ``RgbBuffer``)."""
    if not isinstance(item, VideoFrame):
        return None
    if stage._pending:
        stage.apply_pending()
    rgb = stage._rgb(item.image)
    stage.runs["frames"] += 1
    stage._last_index = item.index
    return rgb
