"""The extent experiments the benchmarks can turn on (none shipped; docs/tracking.md): one
``extent.ExtentExperiment`` for their flags, passed down the call as ``experiment=``.

- ``motion_proposals``: the motion-coherent regions in every pool with a history
  (``motion_proposals.py``; ``--motion-proposals``);
- ``motion_edge``: the motion-boundary cue among the motion cues (``motion_edge.py``;
  ``--motion-edge``).

``ExperimentTracker``: a ``ColorTracker`` whose measured clicks use an experiment (``ColorTracker``
itself is always the shipped extent); the experiment carries the weights that score its cues.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

from sensekit.evaluation.vision.held_out import FittedExperiment
from sensekit.evaluation.vision.motion_edge import MOTION_EDGE
from sensekit.evaluation.vision.motion_proposals import motion_proposals as _motion_proposals
from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.extent import ExtentExperiment
from sensekit.vision.segment import Pool, Segment

__all__ = ["ClickPoolFn", "ExperimentTracker", "experiment", "make_tracker"]


def experiment(*, motion_proposals: bool = False, motion_edge: bool = False,
               weights: Mapping[str, Any] | None = None, folds: Mapping[str, Mapping[str, Any]] | None = None
               ) -> FittedExperiment | None:
    """The experiment of those flags, scored by ``weights`` and held out by ``folds`` (a
    ``train_extent.py`` model file's ``ACTIVE`` and ``FOLDS``; None: the shipped ones), a
    ``held_out.FittedExperiment``; None (the shipped extent) when no flag is on."""
    if not (motion_proposals or motion_edge):
        return None
    edge = MOTION_EDGE if motion_edge else ExtentExperiment()
    return FittedExperiment(proposals=_motion_proposals if motion_proposals else None,
                            motion_cues=edge.motion_cues, motion_names=edge.motion_names, weights=weights,
                            folds=folds)


#: ``f(frame, x, y, history=..., experiment=...)``: a click's first box and measured pool, in place
#: of ``segment.segment_click_pool`` (``benchmarks/_first_box_hooks.py``: ``--holder-cut``, ``--salient``)
ClickPoolFn = Callable[..., tuple[Segment, Pool | None]]


class ExperimentTracker(ColorTracker):
    """``ColorTracker`` whose measured clicks (segmentation, the click's pool, the second look)
    use ``extent_experiment`` and take their first box by ``click_pool`` (None for either: as
    shipped, the same as ``ColorTracker``); every other argument is ``ColorTracker``'s. For the
    benchmarks (``track_eval.py``, ``click_cost.py``)."""

    def __init__(self, color: int | str | None = None, *, extent_experiment: ExtentExperiment | None = None,
                 click_pool: ClickPoolFn | None = None, **kwargs: Any) -> None:
        super().__init__(color, **kwargs)
        self.extent_experiment = extent_experiment
        self.click_pool = click_pool

    def _click_pool(self, frame: np.ndarray, x: float, y: float, history: Sequence[np.ndarray]
                    ) -> tuple[Segment, Pool | None]:
        if self.click_pool is None:
            return super()._click_pool(frame, x, y, history)
        return self.click_pool(frame, x, y, history=history, experiment=self.extent_experiment)


def make_tracker(settings: Mapping[str, Any] | None = None) -> ExperimentTracker:
    """The tracker a benchmark's run makes from its ``settings``: ``ExperimentTracker(**settings)``,
    or, when ``settings`` holds ``tracker_class`` (a subclass of it: ``track_eval.py
    --point-prompt-late``'s trackers re-seeded after the click), that class with the rest."""
    rest = dict(settings or {})
    cls: type[ExperimentTracker] = rest.pop("tracker_class", ExperimentTracker)
    return cls(**rest)
