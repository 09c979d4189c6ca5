#!/usr/bin/env python3
"""track_eval.py with HOG person boxes in every click's pool (the click10 experiment), held out.

``person_pool_eval.py --write-models M.pkl`` fits the "+ HOG" variant (the click's proposals
and OpenCV's HOG person boxes holding the click, with a from-HOG column and HOG's margin) on
all five clips and leaving each out. This runs ``benchmarks/track_eval.py`` with
``extent.measure_extent`` replaced by that scoring, for the first box and the second look
alike, each clip with the fit made without it (``--held-out`` is implied). Everything else
(the clean colour region first, the tracker, the clicks, the views) is track_eval's.
Needs OpenCV 4.x (HOG) and the hands venv:

    .venv-hands/bin/python benchmarks/person_track_eval.py M.pkl --scales 0.5,1,2 --no-mil --per-click out.json

Compare with ``.venv-hands/bin/python benchmarks/track_eval.py --scales 0.5,1,2 --no-mil --held-out
--per-click base.json`` (the same venv: its OpenCV and NumPy give slightly other cues than the
default install's) through ``track_compare.py --size``.
"""
from __future__ import annotations

import contextlib
import pickle
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator, Sequence

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import track_eval
from person_pool_eval import person_proposals
from train_extent import KINDS, choose

from sensekit.vision import click_refine, segment
from sensekit.vision.extent import HISTORY_FRAMES, features
from sensekit.vision.proposals import Proposal, click_proposals

_models: dict[str, Any] = {}
_current: dict[str, Any] = {}


def measure_extent(frame: np.ndarray, x: float, y: float, history: Sequence[np.ndarray] = ()) -> Proposal:
    """``extent.measure_extent`` with the HOG person boxes in the pool, scored by the current fit."""
    props = click_proposals(frame, x, y)
    history = [h for h in history if h.shape == frame.shape]
    motion = len(history) >= max(HISTORY_FRAMES)
    extra_props, extra = person_proposals(frame, x, y, ("hog",))
    allp = props + extra_props
    cues = features(frame, x, y, allp, history if motion else ())
    cues = np.hstack([cues, np.vstack([np.zeros((len(props), 2)), extra[:, :2]])])
    kind = "motion" if motion else "still"
    boxes = np.array([p.box for p in allp], np.float64)
    return allp[choose(_current[kind], cues[:, KINDS[kind]], boxes)]


@contextlib.contextmanager
def held_out(clip: str) -> Iterator[None]:
    keep = dict(_current)
    _current.clear()
    _current.update(_models["folds"][clip])
    try:
        yield
    finally:
        _current.clear()
        _current.update(keep)


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
    _replace(segment, "measure_extent", measure_extent)
    _replace(click_refine, "measure_extent", measure_extent)
    _replace(track_eval, "held_out", held_out)
    rest = argv[1:]
    return track_eval.main(rest if "--held-out" in rest else rest + ["--held-out"])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
