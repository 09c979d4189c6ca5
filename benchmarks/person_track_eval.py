#!/usr/bin/env python3
"""track_eval.py with HOG person boxes in every click's pool (the click10 experiment), held out.

``person_pool_eval.py --write-models M.pkl`` fits the "+ HOG" variant (the click's proposals
and OpenCV's HOG person boxes holding the click, with a from-HOG column and HOG's margin) on
all five clips and leaving each out. This runs ``benchmarks/track_eval.py`` with the extent
measured by that scoring: an ``ExtentExperiment`` whose ``pool`` is ``measure_pool`` with a fit
(``extent.measure_pool``, and so ``measure_extent``, return it where ``segment``, ``click_pool``
and ``click_refine`` measure), for the first box, the click's other boxes and the second look
alike, each clip with the fit made without it (``unseen_by_fit``, passed to ``track_eval.main``
as its ``unseen``; ``--held-out`` is implied; the click times with the fit on all clips).
Everything else (the clean colour region first, the tracker, the clicks, the views) is track_eval's.
Needs OpenCV 4.x (HOG) and the hands venv:

    .venv-hands/bin/python benchmarks/person_track_eval.py M.pkl --scales 0.5,1,2 --no-mil --per-click out.json

Compare with ``.venv-hands/bin/python benchmarks/track_eval.py --scales 0.5,1,2 --no-mil --held-out
--per-click base.json`` (the same venv: its OpenCV and NumPy give slightly other cues than the
default install's) through ``track_compare.py --size``.
"""
from __future__ import annotations

import pickle
import sys
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, Sequence

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import track_eval
from person_pool_eval import person_proposals
from train_extent import KINDS, choice_values

from sensekit.errors import ConfigError
from sensekit.evaluation.vision import held_out
from sensekit.vision.extent import HISTORY_FRAMES, ExtentExperiment, features
from sensekit.vision.proposals import Proposal, click_proposals



def measure_pool(fit: dict[str, Any], frame: np.ndarray, x: float, y: float,
                 history: Sequence[np.ndarray] = ()) -> tuple[list[Proposal], np.ndarray]:
    """``extent.measure_pool`` with the HOG person boxes in the pool, valued by ``fit`` (a
    ``--write-models`` fit: ``{"still": ..., "motion": ...}``; the highest value: the proposal
    ``train_extent.choose`` takes)."""
    props = click_proposals(frame, x, y)
    history = [h for h in history if h.shape == frame.shape]
    motion = len(history) >= max(HISTORY_FRAMES)
    extra_props, extra = person_proposals(frame, x, y, ("hog",))
    allp = props + extra_props
    cues = features(frame, x, y, allp, history if motion else ())
    cues = np.hstack([cues, np.vstack([np.zeros((len(props), 2)), extra[:, :2]])])
    kind = "motion" if motion else "still"
    boxes = np.array([p.box for p in allp], np.float64)
    return allp, choice_values(fit[kind], cues[:, KINDS[kind]], boxes)


def unseen_by_fit(models: dict[str, Any], clip: str | None,
                  experiment: ExtentExperiment | None = None) -> ExtentExperiment:
    """``held_out.unseen_by_fit`` for the HOG fit: ``experiment`` held out alike (the shipped
    weights, for anything that still scores with them) with the HOG pool valued by the fold fitted
    without ``clip`` when it is one of the fitted clips, else by the fit on all of them. No other
    extent experiment (one that only scores with other weights, a held-out fold of the shipped
    fit, is not used)."""
    if experiment is not None and (experiment.proposals is not None or experiment.motion_cues is not None):
        raise ConfigError("person_track_eval.py: the HOG pool does not combine with another extent experiment")
    fit = models["folds"][clip] if clip is not None and clip in models["folds"] else models["active"]
    return replace(held_out.unseen_by_fit(clip, experiment) or ExtentExperiment(), pool=partial(measure_pool, fit))


def main(argv: list[str]) -> int:
    models = pickle.loads(Path(argv[0]).read_bytes())
    rest = argv[1:]
    return track_eval.main(rest if "--held-out" in rest else rest + ["--held-out"],
                           unseen=partial(unseen_by_fit, models))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
