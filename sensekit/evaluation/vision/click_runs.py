"""The runs of the click benchmarks on the uncut clips (``benchmarks/false_losses.py`` and
``benchmarks/confirmed_events.py`` walk the same ones): on each start frame of a clip
(``start_frames``), the 5 clicks around the true box (``click_points``, each with the frames a
live click looks back on) and the true box itself, each followed for ``RUN_FRAMES`` frames."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sensekit.evaluation.vision.evaluate import TrackClip, click_points, first_frames, history_before, start_frames

__all__ = ["RUN_FRAMES", "ClickRun", "click_runs", "start_run"]

#: frames from a run's start frame to its end (the start frame included)
RUN_FRAMES = 100


@dataclass(frozen=True)
class ClickRun:
    """One run: where it starts and how the tracker is given the object there."""
    start: int                              # the start frame's index in the clip
    how: str                                # a click's name (``click_points``) or ``"box"``
    point: tuple[float, float] | None       # the click (x, y) in pixels; None for ``"box"``
    first: np.ndarray                       # the start frame (BGR)
    box: np.ndarray                         # the true box on the start frame (x, y, w, h)
    history: Sequence[np.ndarray]           # the frames a live click looks back on
    after: list[np.ndarray]                 # the frames tracked after the start


def click_runs(clip: TrackClip, frames: int = RUN_FRAMES) -> Iterator[ClickRun]:
    """The clip's runs, start frame by start frame, the 5 clicks then the box on each; the clip
    is decoded once."""
    n = len(clip.truth)
    decoded = first_frames(clip, n)
    for s in start_frames(n):
        after = decoded[s + 1:min(n, s + frames)]
        history = history_before(decoded, s)
        for how, point in [*click_points(clip.truth[s]).items(), ("box", None)]:
            yield ClickRun(s, how, point, decoded[s], clip.truth[s], history, after)


def start_run(tracker: Any, run: ClickRun) -> None:
    """Give ``tracker`` (a ``ColorTracker``, or another version's with the same ``pick`` and
    ``pick_box``) the run's object on its start frame: the true box, or the click with its history."""
    if run.point is None:
        tracker.pick_box(run.first, run.box)
    else:
        tracker.pick(run.first, *run.point, history=run.history)
