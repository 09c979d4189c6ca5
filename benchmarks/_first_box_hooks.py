"""First boxes for ``track_eval.py`` other than the shipped click's, for its trackers (each an
``ExperimentTracker(click_pool=...)``; no module of sensekit is patched): ``--holder-cut`` (the
holder's skin cut out of a measured first box, ``holder_eval.py``), ``--salient`` (the salient
model's part, ``salient_eval.py``) and ``--point-prompt`` (MobileSAM's mask at the click,
``point_prompt_eval.py``); and the extent weights and cues of ``--motion-proposals`` and
``--motion-edge`` (``extent_experiment``: the experiment, with the model file's weights, each
``ExperimentTracker`` is made with, ``extent_experiment=``). Kept apart from those two benchmarks
so that ``track_eval.py`` does not import back the benchmarks that import it.
"""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sensekit.errors import ConfigError
from sensekit.evaluation.vision.holder_cut import cut_holder

if TYPE_CHECKING:
    from sensekit.evaluation.vision.extent_experiment import ClickPoolFn
    from sensekit.vision.extent import ExtentExperiment
    from sensekit.evaluation.vision.salient_click import SalientClick

Box = tuple[float, float, float, float]


def mask_box(mask: np.ndarray | None) -> Box | None:
    """The bounding box ``(x, y, w, h)`` of a mask's pixels; None for no mask."""
    if mask is None:
        return None
    ys, xs = np.nonzero(mask)
    return float(xs.min()), float(ys.min()), float(xs.max() - xs.min() + 1), float(ys.max() - ys.min() + 1)


def holder_cut_in_tracker() -> ClickPoolFn:
    """The first box of a tracker's click that cuts the holder out of a measured first box (for
    ``track_eval.py --holder-cut``: ``ExperimentTracker(click_pool=...)``); the click's pool for a
    gesture stays the same."""
    from sensekit.vision.segment import Pool, Segment, segment_click_pool

    def pool(frame: np.ndarray, x: float, y: float, **kw: Any) -> tuple[Segment, Pool | None]:
        first, measured = segment_click_pool(frame, x, y, **kw)
        if first.method == "proposal":
            first = cut_holder(frame, first, x, y)
        return first, measured

    return pool


def salient_in_tracker(rule: str, model: SalientClick) -> ClickPoolFn:
    """The first box of a tracker's click by ``rule`` (for ``track_eval.py --salient``:
    ``ExperimentTracker(click_pool=...)``): ``then-extent``, the salient part of the smallest whole crop
    (``SalientClick.segment``) and the shipped box where there is none; ``refine``, the salient
    part of a crop twice the shipped box's long side, the shipped box where there is none. The
    click's pool for a gesture is measured at the first gesture, as after a colour region."""
    from sensekit.vision.segment import Pool, Segment, segment_click_pool

    def pool(frame: np.ndarray, x: float, y: float, **kw: Any) -> tuple[Segment, Pool | None]:
        if rule == "then-extent":
            mask = model.segment(frame, x, y)
        else:
            first, measured = segment_click_pool(frame, x, y, **kw)
            mask, _t = model.part(frame, x, y, int(round(2 * max(first.box[2], first.box[3]))))
            if mask is None:
                return first, measured
        if mask is None:
            return segment_click_pool(frame, x, y, **kw)
        b = mask_box(mask)
        assert b is not None
        return Segment(tuple(int(v) for v in b), mask, "salient"), None  # type: ignore[arg-type]

    if rule not in ("then-extent", "refine"):
        raise ConfigError(f"--salient must be then-extent or refine, got {rule!r}")
    return pool


def point_prompt_in_tracker(model: Any) -> ClickPoolFn:
    """The first box of a tracker's click from MobileSAM (``_point_prompt.MobileSam``, for
    ``track_eval.py --point-prompt``: ``ExperimentTracker(click_pool=...)``): the box of the mask with the
    highest predicted IoU for one point at the click (the rule ``point_prompt_eval.py`` declared
    first), the shipped box where that mask is empty. The encoder runs once per distinct frame
    (the clicks of one start share it). The click's pool for a gesture is measured at the first
    gesture, as after a colour region."""
    from sensekit.vision.segment import Pool, Segment, segment_click_pool

    def pool(frame: np.ndarray, x: float, y: float, **kw: Any) -> tuple[Segment, Pool | None]:
        key = (frame.shape, hashlib.sha1(np.ascontiguousarray(frame).data).hexdigest())
        masks, scores = model.masks(frame, x, y, key=key)
        mask = masks[int(np.argmax(scores))]
        if not mask.any():
            return segment_click_pool(frame, x, y, **kw)
        b = mask_box(mask)
        assert b is not None
        return Segment(tuple(int(v) for v in b), mask, "point prompt"), None  # type: ignore[arg-type]

    return pool


def _model_file(model_py: Path, flag: str, how: str) -> ModuleType:
    """The model file ``model_py`` (a ``train_extent.py`` ``--out``) as a module; ``ConfigError``
    for none."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"_{flag.strip('-').replace('-', '_')}_model", model_py)
    if spec is None or spec.loader is None or not model_py.is_file():
        raise ConfigError(f"{flag}: no model file at {model_py} ({how} writes one)")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def extent_experiment(motion_proposals: Path | None = None, motion_edge: Path | None = None
                      ) -> ExtentExperiment | None:
    """The extent experiment of ``--motion-proposals MODEL_PY`` and ``--motion-edge MODEL_PY``
    (``extent_experiment.experiment``; None for neither: as shipped), scored by the model file's
    weights (its ``ACTIVE``, and its ``FOLDS`` for ``--held-out``: carried by the experiment, the
    shipped ``extent_model`` untouched), the file that ``train_extent.py`` wrote with the same flag
    and ``--out``. ``ConfigError`` for no model file or one whose motion fit has another number of
    weights than the cues."""
    from sensekit.evaluation.vision.extent_experiment import experiment
    from sensekit.vision.extent import feature_names

    exp = experiment(motion_proposals=motion_proposals is not None, motion_edge=motion_edge is not None)
    if motion_edge is not None:
        flag, model_py, how = "--motion-edge", motion_edge, "train_extent.py --motion-edge --out"
    elif motion_proposals is not None:
        flag, model_py, how = "--motion-proposals", motion_proposals, "train_extent.py --motion-proposals --out"
    else:
        return None
    module = _model_file(model_py, flag, how)
    want, got = len(feature_names(exp)), len(module.ACTIVE["motion"]["weights"])
    if got != want:
        raise ConfigError(f"{flag}: {model_py} has {got} motion weights, the cues of this run are {want}; "
                          f"write it with {how}")
    return experiment(motion_proposals=motion_proposals is not None, motion_edge=motion_edge is not None,
                      weights=module.ACTIVE, folds=module.FOLDS)


def extent_flags(motion_proposals: bool, motion_edge: Path | None) -> ExtentExperiment | None:
    """``--motion-proposals`` (a flag: the shipped weights) and ``--motion-edge MODEL_PY`` of
    ``extent_diagnose.py`` and ``click_cost.py``: the extent experiment of what the click's pool
    and cues hold (None: as shipped), scored by ``--motion-edge``'s weights."""
    from sensekit.evaluation.vision.extent_experiment import experiment

    if motion_edge is None:
        return experiment(motion_proposals=motion_proposals)
    edge = extent_experiment(motion_edge=motion_edge)
    assert edge is not None
    return experiment(motion_proposals=motion_proposals, motion_edge=True, weights=edge.weights, folds=edge.folds)
