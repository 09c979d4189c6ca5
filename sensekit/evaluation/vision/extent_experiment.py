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

from typing import Any, Mapping

from sensekit.evaluation.vision.motion_edge import MOTION_EDGE
from sensekit.evaluation.vision.motion_proposals import motion_proposals as _motion_proposals
from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.extent import ExtentExperiment

__all__ = ["ExperimentTracker", "experiment"]


def experiment(*, motion_proposals: bool = False, motion_edge: bool = False,
               weights: Mapping[str, Any] | None = None, folds: Mapping[str, Mapping[str, Any]] | None = None
               ) -> ExtentExperiment | None:
    """The experiment of those flags, scored by ``weights`` and held out by ``folds`` (a
    ``train_extent.py`` model file's ``ACTIVE`` and ``FOLDS``; None: the shipped ones); None (the
    shipped extent) when no flag is on."""
    if not (motion_proposals or motion_edge):
        return None
    edge = MOTION_EDGE if motion_edge else ExtentExperiment()
    return ExtentExperiment(proposals=_motion_proposals if motion_proposals else None,
                            motion_cues=edge.motion_cues, motion_names=edge.motion_names, weights=weights,
                            folds=folds)


class ExperimentTracker(ColorTracker):
    """``ColorTracker`` whose measured clicks (segmentation, the click's pool, the second look)
    use ``extent_experiment`` (None: as shipped, the same as ``ColorTracker``); every other
    argument is ``ColorTracker``'s. For the benchmarks (``track_eval.py``, ``click_cost.py``)."""

    def __init__(self, color: int | str | None = None, *, extent_experiment: ExtentExperiment | None = None,
                 **kwargs: Any) -> None:
        super().__init__(color, **kwargs)
        self.extent_experiment = extent_experiment
