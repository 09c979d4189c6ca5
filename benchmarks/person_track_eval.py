#!/usr/bin/env python3
"""track_eval.py with HOG person boxes in every click's pool (the click10 experiment), held out.

``person_pool_eval.py --write-models M.pkl`` fits the "+ HOG" variant (the click's proposals
and OpenCV's HOG person boxes holding the click, with a from-HOG column and HOG's margin) on
all five clips and leaving each out. This runs ``benchmarks/track_eval.py`` with the extent
measured by that scoring (``SEAMS``: ``extent.measure_pool`` where ``segment`` and
``click_pool`` call it, ``extent.measure_extent`` where ``click_refine`` does), for the first
box, the click's other boxes and the second look alike, each clip with the fit made without
it (``track_eval``'s ``unseen_by_fit``, called once per clip before its runs; ``--held-out`` is
implied). Everything else (the clean
colour region first, the tracker, the clicks, the views) is track_eval's.
Needs OpenCV 4.x (HOG) and the hands venv:

    .venv-hands/bin/python benchmarks/person_track_eval.py M.pkl --scales 0.5,1,2 --no-mil --per-click out.json

Compare with ``.venv-hands/bin/python benchmarks/track_eval.py --scales 0.5,1,2 --no-mil --held-out
--per-click base.json`` (the same venv: its OpenCV and NumPy give slightly other cues than the
default install's) through ``track_compare.py --size``.
"""
from __future__ import annotations

import pickle
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Sequence

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import track_eval
from person_pool_eval import person_proposals
from train_extent import KINDS, choice_values

from sensekit.errors import ConfigError
from sensekit.evaluation.vision import held_out
from sensekit.vision import click_pool, click_refine, segment
from sensekit.vision.extent import HISTORY_FRAMES, ExtentExperiment, features
from sensekit.vision.proposals import Proposal, click_proposals

_models: dict[str, Any] = {}
_current: dict[str, Any] = {}


def measure_pool(frame: np.ndarray, x: float, y: float, history: Sequence[np.ndarray] = (), *,
                 experiment: ExtentExperiment | None = None) -> tuple[list[Proposal], np.ndarray]:
    """``extent.measure_pool`` with the HOG person boxes in the pool, valued by the current fit
    (the highest: the proposal ``train_extent.choose`` takes); no other extent experiment (one
    that only scores with other weights, a held-out fold of the shipped fit, is not used)."""
    if experiment is not None and (experiment.proposals is not None or experiment.motion_cues is not None):
        raise ConfigError("person_track_eval.py: the HOG pool does not combine with another extent experiment")
    props = click_proposals(frame, x, y)
    history = [h for h in history if h.shape == frame.shape]
    motion = len(history) >= max(HISTORY_FRAMES)
    extra_props, extra = person_proposals(frame, x, y, ("hog",))
    allp = props + extra_props
    cues = features(frame, x, y, allp, history if motion else ())
    cues = np.hstack([cues, np.vstack([np.zeros((len(props), 2)), extra[:, :2]])])
    kind = "motion" if motion else "still"
    boxes = np.array([p.box for p in allp], np.float64)
    return allp, choice_values(_current[kind], cues[:, KINDS[kind]], boxes)


def measure_extent(frame: np.ndarray, x: float, y: float, history: Sequence[np.ndarray] = (), *,
                   experiment: ExtentExperiment | None = None) -> Proposal:
    """``extent.measure_extent`` with the HOG person boxes in the pool, scored by the current fit."""
    props, values = measure_pool(frame, x, y, history, experiment=experiment)
    return props[int(np.argmax(values))]


def unseen_by_fit(clip: str | None, experiment: ExtentExperiment | None = None) -> ExtentExperiment | None:
    """``held_out.unseen_by_fit`` for the HOG fit: from now on (the clip's runs, which follow this
    call) the fold fitted without ``clip`` when it is one of the fitted clips, else the fit on all
    of them; returned, the shipped weights held out alike (for anything that still scores with
    them)."""
    _current.clear()
    _current.update(_models["folds"][clip] if clip is not None and clip in _models["folds"] else _models["active"])
    return held_out.unseen_by_fit(clip, experiment)


#: what ``main`` replaces: (module, the name the pipeline calls there, the replacement). Each
#: is looked up at call time, so setting it takes effect; tests/test_benchmarks.py checks the
#: names are still the ones ``segment_click_pool``, ``ClickPool``, ``ClickRefiner.decide`` and
#: ``track_eval.scale_results`` call.
SEAMS: tuple[tuple[ModuleType, str, object], ...] = (
    (segment, "measure_pool", measure_pool),
    (click_pool, "measure_pool", measure_pool),
    (click_refine, "measure_extent", measure_extent),
    (track_eval, "unseen_by_fit", unseen_by_fit),
)


def _replace(module: ModuleType, name: str, value: object) -> None:
    """``module.name = value``, refused by name when ``module`` no longer has ``name``: setting
    it then would change nothing and the run would be plain ``track_eval``'s."""
    if not hasattr(module, name):
        raise SystemExit(f"person_track_eval: {module.__name__}.{name} is gone, so the HOG scoring would not be "
                         f"used; the experiment needs porting to what {module.__name__} calls now")
    setattr(module, name, value)


def main(argv: list[str]) -> int:
    _models.update(pickle.loads(Path(argv[0]).read_bytes()))
    _current.update(_models["active"])
    for module, name, value in SEAMS:
        _replace(module, name, value)
    rest = argv[1:]
    return track_eval.main(rest if "--held-out" in rest else rest + ["--held-out"])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
