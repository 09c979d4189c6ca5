"""Progress for the commands that read a whole clip (``events``, ``plot``, ``snapshot``,
``calibrate``): a tqdm bar on stderr in seconds of source time.

``clip_progress(source, desc, quiet=...)`` returns a callable to hand every item to (it moves
the bar to the item's time) that is also a context manager closing the bar. The bar is shown
only when stderr is a terminal: a log file or a pipe gets no ``\\r`` frames, and a run under
``-q`` none at all. A live source has no length, so it gets no bar (the item count would be
noise). Cost: one comparison per item; tqdm redraws at most ten times a second.
"""
from __future__ import annotations

import sys
from types import TracebackType
from typing import Any, TextIO


def on_a_terminal(stream: TextIO | None = None) -> bool:
    """Whether ``stream`` (default stderr) is an interactive terminal."""
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):       # a closed or a fake stream
        return False


def clip_length_s(source: Any) -> float | None:
    """Seconds in one pass of a replay or media file; None for a live source or when unknown."""
    if getattr(source, "is_live", False):
        return None
    try:
        length = float(source.duration_s)
    except (AttributeError, TypeError, ValueError):
        hint, fps = getattr(source, "frame_count_hint", None), getattr(source, "fps", None)
        if not hint or not fps:
            return None
        length = float(hint) / float(fps)
    return length if length > 0 else None


class ClipProgress:
    """A bar in seconds of source time; call it with each item (anything with a ``t``)."""

    def __init__(self, total_s: float | None, desc: str, *, enabled: bool, stream: TextIO | None = None) -> None:
        self.bar: Any = None
        if enabled and total_s:
            from tqdm import tqdm

            self.bar = tqdm(total=round(total_s, 1), unit="s", desc=desc, file=stream or sys.stderr,
                            leave=False, bar_format="{l_bar}{bar}| {n:.1f}/{total:.1f} s [{elapsed}<{remaining}]")

    def __call__(self, item: Any) -> None:
        bar = self.bar
        if bar is not None:
            t = min(round(float(item.t), 1), bar.total)
            if t > bar.n:
                bar.update(t - bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self) -> ClipProgress:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


def clip_progress(source: Any, desc: str, *, quiet: bool = False, stream: TextIO | None = None) -> ClipProgress:
    """The bar for reading ``source`` whole (see the module docstring for when it shows)."""
    return ClipProgress(clip_length_s(source), desc, enabled=not quiet and on_a_terminal(stream), stream=stream)
