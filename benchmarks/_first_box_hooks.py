"""First boxes for ``track_eval.py`` other than the shipped click's, put into every tracker of the
process: ``--holder-cut`` (the holder's skin cut out of a measured first box,
``holder_eval.py``) and ``--salient`` (the salient model's part, ``salient_eval.py``); and the extent weights and cues
of ``--motion-proposals`` and ``--motion-edge``. Kept apart
from those two benchmarks so that ``track_eval.py`` does not import back the benchmarks that
import it.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sensekit.errors import ConfigError
from sensekit.evaluation.vision.holder_cut import cut_holder

if TYPE_CHECKING:
    from sensekit.evaluation.vision.salient_click import SalientClick

Box = tuple[float, float, float, float]


def mask_box(mask: np.ndarray | None) -> Box | None:
    """The bounding box ``(x, y, w, h)`` of a mask's pixels; None for no mask."""
    if mask is None:
        return None
    ys, xs = np.nonzero(mask)
    return float(xs.min()), float(ys.min()), float(xs.max() - xs.min() + 1), float(ys.max() - ys.min() + 1)


def holder_cut_in_tracker() -> None:
    """Make every ``ColorTracker.pick`` of this process cut the holder out of a measured first
    box (for ``track_eval.py --holder-cut``); the click's pool for a gesture stays the same."""
    from sensekit.vision import color_tracker
    from sensekit.vision.segment import Segment, segment_click_pool

    def pool(frame: np.ndarray, x: float, y: float, **kw: object) -> tuple[Segment, object]:
        first, measured = segment_click_pool(frame, x, y, **kw)  # type: ignore[arg-type]
        if first.method == "proposal":
            first = cut_holder(frame, first, x, y)
        return first, measured

    color_tracker.segment_click_pool = pool  # type: ignore[attr-defined, assignment]


def salient_in_tracker(rule: str, model: SalientClick) -> None:
    """Make every ``ColorTracker.pick`` of this process take its first box by ``rule`` (for
    ``track_eval.py --salient``): ``then-extent``, the salient part of the smallest whole crop
    (``SalientClick.segment``) and the shipped box where there is none; ``refine``, the salient
    part of a crop twice the shipped box's long side, the shipped box where there is none. The
    click's pool for a gesture is measured at the first gesture, as after a colour region."""
    from sensekit.vision import color_tracker
    from sensekit.vision.segment import Segment, segment_click_pool

    def pool(frame: np.ndarray, x: float, y: float, **kw: object) -> tuple[Segment, object]:
        if rule == "then-extent":
            mask = model.segment(frame, x, y)
        else:
            first, measured = segment_click_pool(frame, x, y, **kw)  # type: ignore[arg-type]
            mask, _t = model.part(frame, x, y, int(round(2 * max(first.box[2], first.box[3]))))
            if mask is None:
                return first, measured
        if mask is None:
            return segment_click_pool(frame, x, y, **kw)  # type: ignore[arg-type]
        b = mask_box(mask)
        assert b is not None
        return Segment(tuple(int(v) for v in b), mask, "salient"), None  # type: ignore[arg-type]

    if rule not in ("then-extent", "refine"):
        raise ConfigError(f"--salient must be then-extent or refine, got {rule!r}")
    color_tracker.segment_click_pool = pool  # type: ignore[attr-defined, assignment]


def motion_proposals_in_tracker(model_py: Path) -> None:
    """Put the motion-coherent regions in every click's pool of this process
    (``extent.EXTRA_PROPOSALS``, for ``track_eval.py --motion-proposals``) and score them with
    the weights of ``model_py``, a model file that ``train_extent.py --motion-proposals --out``
    wrote (its ``ACTIVE`` and its ``FOLDS``, for ``--held-out``)."""
    import importlib.util

    from sensekit.evaluation.vision.motion_proposals import motion_proposals
    from sensekit.vision import extent, extent_model

    spec = importlib.util.spec_from_file_location("_motion_extent_model", model_py)
    if spec is None or spec.loader is None or not model_py.is_file():
        raise ConfigError(f"--motion-proposals: no model file at {model_py} (train_extent.py --out writes one)")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    extent_model.ACTIVE = module.ACTIVE
    extent_model.FOLDS = module.FOLDS
    extent.EXTRA_PROPOSALS = motion_proposals


def motion_edge_in_extent(model_py: Path) -> None:
    """Put the motion-boundary cue among every click's motion cues of this process
    (``evaluation/vision/motion_edge.use_motion_edge``, for ``--motion-edge`` of ``track_eval.py``,
    ``extent_diagnose.py`` and ``click_cost.py``) and score with the weights of ``model_py``, a
    model file that ``train_extent.py --motion-edge --out`` wrote (its ``ACTIVE`` and its
    ``FOLDS``, for ``--held-out``); ``ConfigError`` for no model file or one without the cue."""
    import importlib.util

    from sensekit.evaluation.vision.motion_edge import use_motion_edge
    from sensekit.vision import extent, extent_model

    spec = importlib.util.spec_from_file_location("_motion_edge_model", model_py)
    if spec is None or spec.loader is None or not model_py.is_file():
        raise ConfigError(f"--motion-edge: no model file at {model_py} "
                          "(train_extent.py --motion-edge --out writes one)")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    use_motion_edge(True)
    want, got = len(extent.FEATURES), len(module.ACTIVE["motion"]["weights"])
    if got != want:
        use_motion_edge(False)
        raise ConfigError(f"--motion-edge: {model_py} has {got} motion weights, the cues with the motion-boundary "
                          f"one are {want}; write it with train_extent.py --motion-edge --out")
    extent_model.ACTIVE = module.ACTIVE
    extent_model.FOLDS = module.FOLDS
