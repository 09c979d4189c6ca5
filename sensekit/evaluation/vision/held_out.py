"""Held-out extent weights, passed down the call (not shipped): for figures on the developer
clips, each clip's clicks are scored with the fit made without that clip (``train_extent.py``
writes it among a model file's ``FOLDS``).

``held_out(clip, experiment, folds)`` is the ``extent.ExtentExperiment`` to pass as
``experiment=`` (or ``ExperimentTracker(extent_experiment=...)``) for that clip: ``experiment``
(None: the shipped extent) scored with ``folds[clip]``. ``unseen_by_fit`` is the same for a
clip among ``folds`` and ``experiment`` itself for any other (a user's own clip, or a case of no
clip: no weight was fitted on it). ``folds`` defaults to the shipped ``extent_model.FOLDS``, or
for an experiment with its own weights to its model file's (``FittedExperiment.folds``). Nothing
global changes: the shipped ``extent_model.ACTIVE`` stays what every other caller scores with, and
the shipped extent never sees the folds.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from sensekit.vision import extent_model
from sensekit.vision.extent import ExtentExperiment
# FittedExperiment's __init__ (made by @dataclass here) names these: the API reference resolves them here
from sensekit.vision.extent import MotionCues, PoolMeasure, ProposalSource  # noqa: F401

__all__ = ["FittedExperiment", "Folds", "held_out", "unseen_by_fit"]

#: a model file's ``FOLDS``: each clip's fit made without it
Folds = Mapping[str, Mapping[str, Any]]


@dataclass(frozen=True)
class FittedExperiment(ExtentExperiment):
    """An ``ExtentExperiment`` scored by a ``train_extent.py`` model file's ``ACTIVE`` (``weights``)
    with that file's ``FOLDS`` beside it (``folds``: what ``held_out`` takes for a clip; the
    shipped extent reads only ``weights``)."""

    folds: Folds | None = field(default=None, compare=False, repr=False)


def _folds(experiment: ExtentExperiment | None, folds: Folds | None) -> Folds:
    """``folds`` when given; else an experiment's own (``FittedExperiment``; KeyError for one with
    its own weights and no folds: the shipped folds were fitted on other cues), else the shipped."""
    if folds is not None:
        return folds
    if experiment is None or experiment.weights is None:
        return extent_model.FOLDS
    own = experiment.folds if isinstance(experiment, FittedExperiment) else None
    if own is None:
        raise KeyError("no held-out weights: the experiment has its own weights and no folds")
    return own


def held_out(clip: str, experiment: ExtentExperiment | None = None, folds: Folds | None = None
             ) -> ExtentExperiment:
    """``experiment`` (None: the shipped extent) scored with the fit made without ``clip``:
    ``folds[clip]`` (``folds`` None: the shipped ``extent_model.FOLDS``). ``KeyError`` naming the
    clip and the clips there are when ``folds`` has none for it (``folds`` None and an experiment
    with its own weights: its ``FittedExperiment.folds``)."""
    folds = _folds(experiment, folds)
    fold = folds.get(clip)
    if fold is None:
        raise KeyError(f"no held-out weights for clip {clip!r}; clips: {sorted(folds)}")
    base = ExtentExperiment() if experiment is None else experiment
    return ExtentExperiment(proposals=base.proposals, motion_cues=base.motion_cues,
                            motion_names=base.motion_names, weights=fold, pool=base.pool)


def unseen_by_fit(clip: str | None, experiment: ExtentExperiment | None = None, folds: Folds | None = None
                  ) -> ExtentExperiment | None:
    """Weights no fit saw ``clip`` in: ``held_out(clip, experiment, folds)`` when ``clip`` is one of
    the clips of ``folds`` (None: as for ``held_out``), else ``experiment`` as it is
    (a clip of the user's own footage, or ``benchmarks/make_track_gt.py``'s: no weight was fitted on
    it; ``None``: a case of no clip, e.g. a still). Matched by name: a developer clip copied under
    another name is not recognised."""
    folds = _folds(experiment, folds)
    if clip is not None and clip in folds:
        return held_out(clip, experiment, folds)
    return experiment
