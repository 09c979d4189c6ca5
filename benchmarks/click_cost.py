#!/usr/bin/env python3
"""The CPU time of a measured click (``extent.measure_extent``): proposals, cues and score.

Every clip in ``--clips`` (default ``../shared/data/video/tracking``): the 5 clicks of
``track_eval`` (the true box's centre and 25 % off it) on frame ``--frame`` (6), once with the 6
frames before it as the click's history (the motion cues: 2 optical flows) and once without (a
still picture). One OpenCV thread; CPU time (``time.process_time``), so the load of other
processes counts less than in wall time (it still slows a shared core's caches). One click is
made first and not counted (imports, OpenCV's first-call set-up). Printed: frame sizes, mean
and max ms per click, each ``--repeat`` times; with ``--parts``, the mean of each part with a
history: the proposals, the two optical flows and the cues; with ``--pick``, the whole click of
a ``ColorTracker`` (segmentation, the click's pool kept, the model) and the first grow after it;
with ``--salient``, the learned salient model's click (``salient_click.SalientClick.segment``, its
crops at ``--salient-px``; needs the salient extra) on the same clicks; with ``--after``, each tracked
frame after a click with history, the second look off, one look, and up to ``--looks`` looks;
``--motion-proposals``: with the motion-coherent regions in the pool (``motion_proposals.py``);
``--motion-edge MODEL_PY``: with the motion-boundary cue (``motion_edge.py``), scored by that model.

    .venv/bin/python benchmarks/click_cost.py [--clips DIR] [--frame 6] [--repeat 1] [--parts] [--pick]
                                              [--after [--looks 3]] [--salient [--salient-px 160]]
                                              [--motion-proposals] [--motion-edge MODEL_PY]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from _first_box_hooks import extent_flags
from _reference import SHARED_DATA

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.errors import ConfigError, SourceError
from sensekit.evaluation.vision.clip_check import checked_clips
from sensekit.evaluation.vision.evaluate import click_points, clip_names, frames_of, load_clip
from sensekit.vision import extent
from sensekit.vision.extent import HISTORY_FRAMES, ExtentExperiment, measure_extent
from sensekit.vision.proposals import click_proposals


def parts(cases: list[tuple[np.ndarray, float, float, list[np.ndarray]]], exp: ExtentExperiment | None = None) -> None:
    """Print the mean CPU time of each part of a click with a history (``--parts``)."""
    ms: dict[str, list[float]] = {k: [] for k in ("superpixel proposals", "2 optical flows", "cues (with the flows)")}
    for frame, px, py, history in cases:
        t0 = time.process_time()
        props = click_proposals(frame, px, py)
        t1 = t2 = time.process_time()
        extent._flows(extent._small(frame)[0], history)
        t3 = time.process_time()
        extent.features(frame, px, py, props, history, experiment=exp)
        t4 = time.process_time()
        for key, v in zip(ms, (t1 - t0, t3 - t2, t4 - t3)):
            ms[key].append(1000 * v)
    for key, times in ms.items():
        print(f"  {key:22s} {np.mean(times):5.1f} ms")


def timed(cases: list[tuple[np.ndarray, float, float, list[np.ndarray]]], exp: ExtentExperiment | None = None) -> None:
    """Print the mean and max CPU time of the clicks, with their history and without."""
    for label, with_history in (("with history", True), ("still picture", False)):
        ms = []
        for frame, px, py, history in cases:
            t0 = time.process_time()
            measure_extent(frame, px, py, history=history if with_history else (), experiment=exp)
            ms.append(1000 * (time.process_time() - t0))
        print(f"{label:14s} mean {np.mean(ms):5.0f} ms CPU, max {np.max(ms):4.0f} ms")


def picks(cases: list[tuple[np.ndarray, float, float, list[np.ndarray]]], exp: ExtentExperiment | None = None) -> None:
    """``--pick``: the whole click as an app's tracker takes it (``ColorTracker.pick``: the
    segmentation, the click's pool kept for a grow, shrink or second click, the colour model),
    and the first grow after it (the pool's segments and ladder; a clean colour region's pool is
    measured then)."""
    from sensekit.evaluation.vision.extent_experiment import ExperimentTracker
    from sensekit.vision.click_pool import ClickPool

    ms, grow, keep = [], [], []
    for frame, px, py, history in cases:
        t = ExperimentTracker(extent_experiment=exp)
        t0 = time.process_time()
        t.pick(frame, px, py, history=history)
        t1 = time.process_time()
        assert t.pool is not None and t.picked is not None
        t.pool.step(+1)
        t2 = time.process_time()
        ClickPool(frame, (px, py), t.picked, history=history, experiment=exp)     # what keeping the pool adds
        keep.append(1000 * (time.process_time() - t2))
        ms.append(1000 * (t1 - t0))
        grow.append(1000 * (t2 - t1))
    print(f"{'tracker pick':14s} mean {np.mean(ms):5.0f} ms CPU, max {np.max(ms):4.0f} ms (the pool kept: "
          f"{np.mean(keep):.2f} ms of it)")
    print(f"{'first grow':14s} mean {np.mean(grow):5.0f} ms CPU, max {np.max(grow):4.0f} ms")


def salient(cases: list[tuple[np.ndarray, float, float, list[np.ndarray]]], input_px: int) -> None:
    """``--salient``: the CPU time of the salient model's click (one ONNX thread) and of its model
    alone on one crop."""
    from sensekit.evaluation.vision.salient_click import SalientClick

    t0 = time.process_time()
    model = SalientClick(input_px=input_px)
    load = 1000 * (time.process_time() - t0)
    frame, px, py, _ = cases[0]
    model.segment(frame, px, py)                        # warm-up, not counted
    ms, one = [], []
    for frame, px, py, _ in cases:
        t0 = time.process_time()
        model.segment(frame, px, py)
        t1 = time.process_time()
        model.saliency(frame[:input_px, :input_px])
        ms.append(1000 * (t1 - t0))
        one.append(1000 * (time.process_time() - t1))
    print(f"{'salient click':14s} mean {np.mean(ms):5.0f} ms CPU, max {np.max(ms):4.0f} ms "
          f"({len(model.crops)} crops at {input_px} px; one model run {np.mean(one):.0f} ms; "
          f"loading the model {load:.0f} ms, once)")


def click_cases(folder: Path, at: int) -> tuple[list[tuple[np.ndarray, float, float, list[np.ndarray]]], set[str]]:
    """The 5 clicks of every clip on frame ``at``, with the frames before it; the frame sizes."""
    cases, sizes = [], set()
    for name in clip_names(folder):
        frames: list[np.ndarray] = []
        for frame in frames_of(load_clip(folder, name)):
            frames.append(frame)
            if len(frames) == at + 1:
                break
        truth = load_clip(folder, name).truth[at]
        sizes.add(f"{frames[-1].shape[1]}x{frames[-1].shape[0]}")
        for px, py in click_points(truth).values():
            cases.append((frames[-1], px, py, frames[:-1]))
    return cases, sizes


def _options(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=Path, default=SHARED_DATA / "video" / "tracking")
    ap.add_argument("--frame", type=int, default=max(HISTORY_FRAMES))
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--parts", action="store_true", help="also the mean time of each part (with a history)")
    ap.add_argument("--pick", action="store_true",
                    help="also the whole click of a tracker (the pool kept) and the first grow after it")
    ap.add_argument("--after", action="store_true",
                    help="also the tracked frames after a click with history, the second look off and on")
    ap.add_argument("--salient", action="store_true", help="also the learned salient click (the salient extra)")
    ap.add_argument("--salient-px", type=int, default=160, help="with --salient: the model's input side")
    ap.add_argument("--looks", type=int, default=3, help="with --after: also up to this many looks (default 3)")
    ap.add_argument("--motion-proposals", action="store_true",
                    help="the motion-coherent regions in every pool with a history (extent_experiment.py)")
    ap.add_argument("--motion-edge", type=Path, metavar="MODEL_PY", default=None,
                    help="the motion-boundary cue, with this train_extent.py --motion-edge model (not shipped)")
    args = ap.parse_args(argv)
    if args.looks < 1:
        raise SystemExit(f"--looks must be at least 1, got {args.looks}")
    if args.frame < max(HISTORY_FRAMES):
        raise SystemExit(f"--frame must be at least {max(HISTORY_FRAMES)} (the motion cues' history)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = _options(argv)
    try:
        exp = extent_flags(args.motion_proposals, args.motion_edge)
    except ConfigError as e:
        print(e, file=sys.stderr)
        return 2
    try:
        short = [n for n in checked_clips(args.clips) if len(load_clip(args.clips, n).truth) <= args.frame]
    except SourceError as e:
        print(e, file=sys.stderr)
        return 2
    if short:
        print(f"--frame {args.frame}: clips {', '.join(short)} in {args.clips} have no frame {args.frame}",
              file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    cases, sizes = click_cases(args.clips, args.frame)
    frame, px, py, history = cases[0]
    measure_extent(frame, px, py, history=history, experiment=exp)      # warm-up, not counted
    print(f"{len(cases)} clicks on frames of {', '.join(sorted(sizes))}")
    for _ in range(args.repeat):
        timed(cases, exp)
    if args.parts:
        parts(cases, exp)
    if args.pick:
        picks(cases, exp)
    if args.salient:
        salient(cases, args.salient_px)
    if args.after:
        after_click(args.clips, args.frame, args.looks, exp)
    return 0


def after_click(folder: Path, at: int, looks: int, exp: ExtentExperiment | None = None) -> None:
    """``--after``: the CPU time of each tracked frame after a click with history, the second
    look off, one look, and up to ``looks`` looks (``tracker.refine_looks``): the frames between
    looks and each frame at which a look is due (``click_refine``), over the same clicks."""
    from sensekit.evaluation.vision.extent_experiment import ExperimentTracker
    from sensekit.vision.color_tracker import ColorTracker

    after = ColorTracker().refine_after_frames
    n = after * looks
    for label, settings in (("off", {"refine_with_history": False}), ("1 look", {"refine_looks": 1}),
                            (f"up to {looks} looks", {"refine_looks": looks})):
        per_frame: list[float] = []
        due: list[list[float]] = [[] for _ in range(looks)]
        taken = []
        for name in clip_names(folder):
            clip = load_clip(folder, name)
            frames: list[np.ndarray] = []
            for frame in frames_of(clip):
                frames.append(frame)
                if len(frames) == at + n + 1:
                    break
            for px, py in click_points(clip.truth[at]).values():
                t = ExperimentTracker(extent_experiment=exp, **settings)
                t.pick(frames[at], px, py, history=frames[:at])
                for j in range(at + 1, min(len(frames), at + n + 1)):
                    t0 = time.process_time()
                    t.update(frames[j], j / 30)
                    ms = 1000 * (time.process_time() - t0)
                    k, r = divmod(j - at, after)
                    (due[k - 1] if r == 0 else per_frame).append(ms)
                taken.append(t.looks)
        dues = ", ".join(f"frame {after * (k + 1)} {np.mean(v):4.1f} (max {np.max(v):3.0f})"
                         for k, v in enumerate(due) if v)
        print(f"after a click, {label:12s}: other frames mean {np.mean(per_frame):4.1f} ms; {dues}; "
              f"looks taken per click {np.mean(taken):.2f}")

if __name__ == "__main__":
    raise SystemExit(main())
