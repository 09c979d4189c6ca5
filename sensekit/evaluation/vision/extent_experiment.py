"""The extent experiments the benchmarks can turn on (none shipped; docs/tracking.md): one
``extent.ExtentExperiment`` for their flags, passed down the call as ``experiment=``.

- ``motion_proposals``: the motion-coherent regions in every pool with a history
  (``motion_proposals.py``; ``--motion-proposals``);
- ``motion_edge``: the motion-boundary cue among the motion cues (``motion_edge.py``;
  ``--motion-edge``).
"""
from __future__ import annotations

from sensekit.evaluation.vision.motion_edge import MOTION_EDGE
from sensekit.evaluation.vision.motion_proposals import motion_proposals as _motion_proposals
from sensekit.vision.extent import ExtentExperiment

__all__ = ["experiment"]


def experiment(*, motion_proposals: bool = False, motion_edge: bool = False) -> ExtentExperiment | None:
    """The experiment of those flags; None (the shipped extent) when none is on."""
    if not (motion_proposals or motion_edge):
        return None
    edge = MOTION_EDGE if motion_edge else ExtentExperiment()
    return ExtentExperiment(proposals=_motion_proposals if motion_proposals else None,
                            motion_cues=edge.motion_cues, motion_names=edge.motion_names)
