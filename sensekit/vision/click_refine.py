"""A second look at a measured click: the object's own motion since.

A click on the first frames of a live camera, or on a still picture, is measured without
motion cues (``segment_click``), and on a multi-coloured object may take one part of it (the
red logo of a silver can); a click with the frames before it may take a part too, or the
object with what moved with it. People move what they hold: ``ClickRefiner`` keeps the frames
from the click on, and once ``after_frames`` have passed it measures the extent again
(``extent.measure_extent``) at the tracked point, those frames as the history. The new box
is taken when it is clearly better supported by the motion than the tracked box: its
motion separation from its ring (``extent.motion_separation``) is at least ``gain`` times the
tracked box's, and it is not the same box (IoU < 0.8). A fragment moves like the rest of the
object around it; the whole object, against a still background, does not. ``ColorTracker``
takes one look per click by default; with ``tracker.refine_looks`` above 1, a look that
re-seeded is followed by another (a new ``ClickRefiner``, the frames since as its history).

Constants (``tracker.refine_after_frames``, ``tracker.refine_gain``, ``tracker.refine_with_history``,
``tracker.refine_looks``)
and what they give from clicks without history (``benchmarks/refine_eval.py``) and with it
(``benchmarks/track_eval.py --held-out``): ``docs/tracking.md``. Cost: one ``measure_extent``
with motion (~60 ms of CPU at 640x480) on one frame per look; the frames kept are
copies (``after_frames`` frames).
Failure modes: an object held by a hand may be re-measured with the hand; a still object is
never re-measured into anything (its motion supports no box).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from sensekit.vision.extent import HISTORY_FRAMES, ExtentExperiment, box_ious, measure_extent, motion_separation
from sensekit.vision.segment import Segment, proposal_segment

__all__ = ["ClickRefiner"]


class ClickRefiner:
    """Keeps the frames since a click; ``add`` each tracked frame, then ``decide`` once."""

    def __init__(self, frame: np.ndarray, after_frames: int, gain: float,
                 experiment: ExtentExperiment | None = None) -> None:
        self.after_frames = max(after_frames, max(HISTORY_FRAMES))
        self.experiment = experiment          # the measured extent's (``extent.ExtentExperiment``; None: shipped)
        self.gain = gain
        self.frames: list[np.ndarray] = [frame.copy()]
        #: what was decided: ``None`` before, then the two motion separations (tracked, new)
        self.support: tuple[float, float] | None = None

    @property
    def due(self) -> bool:
        """Have ``after_frames`` frames passed since the click?"""
        return len(self.frames) >= self.after_frames

    def add(self, frame: np.ndarray) -> None:
        """One more frame (before it is due, it is kept as history)."""
        if frame.shape == self.frames[0].shape:
            self.frames.append(frame.copy())

    def decide(self, frame: np.ndarray, point: tuple[float, float], box: Sequence[float]) -> Segment | None:
        """The re-measured object at ``point`` of ``frame`` when its motion supports it clearly
        better than the tracked ``box``; else ``None``."""
        history = [f for f in self.frames if f.shape == frame.shape]
        H, W = frame.shape[:2]
        x, y = min(W - 1.0, max(0.0, point[0])), min(H - 1.0, max(0.0, point[1]))
        best = measure_extent(frame, x, y, history, experiment=self.experiment)
        old, new = motion_separation(frame, [box, best.box], history)
        self.support = (float(old), float(new))
        if not new > self.gain * old or box_ious(np.array([best.box, box], np.float64))[0, 1] >= 0.8:
            return None
        return proposal_segment(best, (H, W))
