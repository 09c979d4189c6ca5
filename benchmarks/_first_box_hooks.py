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
from sensekit.evaluation.vision.extent_experiment import ExperimentTracker
from sensekit.evaluation.vision.holder_cut import cut_holder

if TYPE_CHECKING:
    from sensekit.evaluation.vision.extent_experiment import ClickPoolFn
    from sensekit.evaluation.vision.held_out import FittedExperiment
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
        masks, scores = model.masks(frame, x, y, key=frame_key(frame))
        mask = masks[int(np.argmax(scores))]
        if not mask.any():
            return segment_click_pool(frame, x, y, **kw)
        b = mask_box(mask)
        assert b is not None
        return Segment(tuple(int(v) for v in b), mask, "point prompt"), None  # type: ignore[arg-type]

    return pool


def carried(sam_box: Box, first: Box, now: Box, frame_wh: tuple[int, int]) -> Box:
    """SAM's box of the click frame carried to a later frame by the tracker's own displacement
    (the centre of its box ``now`` minus that of its first box ``first``), its size unchanged,
    moved inside the frame (``frame_wh``) where it would cross an edge (``track_eval.py
    --point-prompt-late``)."""
    x, y, w, h = sam_box
    fw, fh = frame_wh
    w, h = min(w, float(fw)), min(h, float(fh))
    dx = now[0] + now[2] / 2 - first[0] - first[2] / 2
    dy = now[1] + now[3] / 2 - first[1] - first[3] / 2
    return min(max(0.0, x + dx), fw - w), min(max(0.0, y + dy), fh - h), w, h


def late_point_prompt_tracker(model: Any, delay: int) -> type[ExperimentTracker]:
    """The tracker class (``make_tracker``'s ``tracker_class``) that, started by a click (``pick``), starts
    from the shipped box as live, and be re-seeded (``pick_box``) ``delay`` frames later with
    MobileSAM's box (the mask of highest predicted IoU for the click, on the click's frame)
    ``carried`` by the tracker's displacement since the click: what a live app gets when SAM's
    answer arrives ``delay`` frames after the click (``track_eval.py --point-prompt-late D``).
    Nothing is re-seeded where SAM's mask is empty or the shipped click picked nothing."""
    from dataclasses import replace

    class LateSeeded(ExperimentTracker):
        def pick(self, frame: np.ndarray, x: float, y: float, **kw: Any) -> None:
            super().pick(frame, x, y, **kw)
            self._late: tuple[Box, Box] | None = None
            self._since = 0
            if self.picked is None:
                return
            masks, scores = model.masks(frame, x, y, key=frame_key(frame))
            best = masks[int(np.argmax(scores))]
            sam = mask_box(best) if best.any() else None
            bx, by, bw, bh = (float(v) for v in self.picked.box)
            if sam is not None and sam[2] > 0:
                self._late = (sam, (bx, by, bw, bh))
                self._last: Box = (bx, by, bw, bh)

        def update(self, frame: np.ndarray, t: float | None = None) -> Any:
            r = super().update(frame, t)
            late = getattr(self, "_late", None)
            if late is None:
                return r
            if r.found and r.box[2] > 0:
                x, y, w, h = (float(v) for v in r.box)
                self._last = (x, y, w, h)
            self._since += 1
            if self._since < delay:
                return r
            self._late = None
            box = carried(late[0], late[1], self._last, (frame.shape[1], frame.shape[0]))
            self.pick_box(frame, box)
            bx, by, bw, bh = (int(round(v)) for v in box)
            return replace(r, found=True, box=(bx, by, bw, bh))

    if delay < 1:
        raise ConfigError(f"--point-prompt-late must be at least 1 frame, got {delay}")
    return LateSeeded


def frame_key(frame: np.ndarray) -> tuple[tuple[int, ...], str]:
    """A frame's key: its shape and the SHA-1 of its pixels (what the click hooks key the encoder by)."""
    return tuple(frame.shape), hashlib.sha1(np.ascontiguousarray(frame).data).hexdigest()


class ShadowedTracker(ExperimentTracker):
    """The base of the trackers whose answers a second tracker (``_shadow``, set by a subclass's
    ``pick``; ``fresh()`` makes one with this tracker's own arguments) replaces from
    ``shadow_delay`` frames after the click on (set by the subclass): the shipped answers until
    then, and where there is no shadow."""

    shadow_delay = 1

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._made = (args, kw)
        self._shadow: Any = None
        self._since = 0

    def fresh(self) -> ExperimentTracker:
        args, made = self._made
        return ExperimentTracker(*args, **made)

    def pick(self, frame: np.ndarray, x: float, y: float, **kw: Any) -> None:
        super().pick(frame, x, y, **kw)
        self._shadow, self._since = None, 0

    def update(self, frame: np.ndarray, t: float | None = None) -> Any:
        r = super().update(frame, t)
        if self._shadow is None:
            return r
        caught = self._shadow.update(frame, t)
        self._since += 1
        return r if self._since < self.shadow_delay else caught


def caught_up_point_prompt_tracker(model: Any, delay: int) -> type[ExperimentTracker]:
    """As ``late_point_prompt_tracker`` (added after its first figures, branch ``click25``),
    but SAM's box is not carried: a second tracker started from it on the click's frame runs
    through the frames since (a live app would keep them and run it over them in one go when SAM
    answers), and its answers replace the shipped tracker's from ``delay`` frames after the click
    on (``track_eval.py --point-prompt-late D --catch-up``)."""
    class CaughtUp(ShadowedTracker):
        shadow_delay = delay

        def pick(self, frame: np.ndarray, x: float, y: float, **kw: Any) -> None:
            super().pick(frame, x, y, **kw)
            masks, scores = model.masks(frame, x, y, key=frame_key(frame))
            best = masks[int(np.argmax(scores))]
            if self.picked is not None and best.any():
                self._shadow = self.fresh()
                self._shadow.pick_box(frame, mask_box(best))

    if delay < 1:
        raise ConfigError(f"--point-prompt-late must be at least 1 frame, got {delay}")
    return CaughtUp


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
                      ) -> FittedExperiment | None:
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
