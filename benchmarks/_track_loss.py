"""``track_eval.py --loss``: the delay before ``color_lost`` once the object is gone (cut and
cover runs, ``loss_table``) and the object leaving the view (pans and a still window,
``leave_table``); see ``track_eval.py``'s docstring. Kept apart from the tracking table's runs."""
from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.evaluation.vision.comeback import CUT_AT
from sensekit.evaluation.vision.evaluate import frames_of, load_clip


def _first(clip_folder: Path, name: str, n: int) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for frame in frames_of(load_clip(clip_folder, name)):
        if len(out) == n:
            break
        out.append(frame)
    return out


def _delay(tracker: Any, picked: list[np.ndarray], after: list[np.ndarray], start: int) -> tuple[bool, int | None]:
    """(lost before the object went, frames after it went until color_lost or None)."""
    from sensekit.events import ColorLost

    before, at = False, None
    for k, frame in enumerate(picked[1:] + after, start=1):
        lost = any(isinstance(e, ColorLost) for e in tracker.step(frame, k / 30))
        before |= lost and k < start
        if lost and k >= start and at is None:
            at = k - start
    return before, at


def _cover(frame: np.ndarray, box: Sequence[float]) -> np.ndarray:
    """``frame`` with a dark grey card 20 % larger than ``box`` over it."""
    f = frame.copy()
    x, y, w, h = box
    f[int(max(0, y - 0.1 * h)):int(y + 1.1 * h), int(max(0, x - 0.1 * w)):int(x + 1.1 * w)] = 60
    return f


def _long_enough(first: dict[str, list[np.ndarray]], names: list[str]) -> dict[str, list[str]]:
    """The clips long enough for the cut runs (the ``CUT_AT`` frames before the cut) and the
    cover runs (and 15 covered frames after it); a note on stderr for each left out."""
    out = {}
    for label, least in (("cut", CUT_AT), ("cover", CUT_AT + 16)):
        out[label] = [n for n in names if len(first[n]) >= least]
        for name in (n for n in names if len(first[n]) < least):
            print(f"  {name}: {len(first[name])} frames, the {label} runs need {least}; left out of them",
                  file=sys.stderr)
    return out


def loss_table(folder: Path, names: list[str], settings: dict[str, Any] | None = None) -> str:
    """Cut and cover runs from a centre click and from the true box (see the docstring), the
    trackers made with ``settings`` (``--tracker``) beside the check's on/off."""
    import cv2

    from sensekit.evaluation.vision.extent_experiment import ExperimentTracker, make_tracker

    first = {n: _first(folder, n, 60) for n in names}
    truth = {n: load_clip(folder, n).truth for n in names}

    def started(name: str, how: str, check: bool) -> ExperimentTracker:
        t = make_tracker(settings) if check else \
            make_tracker({**(settings or {}), "appearance_below": 0.0, "appearance_found": 0.0})
        x, y, w, h = truth[name][0]
        if how == "click":
            t.pick(first[name][0], x + w / 2, y + h / 2)
        else:
            t.pick_box(first[name][0], truth[name][0])
        return t

    long_enough = _long_enough(first, names)
    lines = ["loss            check   runs not lost before   color_lost within 15 frames"]
    for label in ("cut", "cover"):
        for check in (True, False):
            runs = []
            for name in long_enough[label]:
                frames = first[name]
                size = (frames[0].shape[1], frames[0].shape[0])
                for how in ("click", "box"):
                    if label == "cut":
                        for other in (o for o in names if o != name):
                            away = [cv2.resize(f, size) for f in first[other][:20]]
                            runs.append(_delay(started(name, how, check), frames[:CUT_AT], away, CUT_AT))
                    else:
                        covered = [_cover(frames[k], truth[name][k]) for k in range(CUT_AT, len(frames))]
                        runs.append(_delay(started(name, how, check), frames[:CUT_AT], covered, CUT_AT))
            kept = [at for before, at in runs if not before]
            soon = sum(1 for at in kept if at is not None and at <= 15)
            lines.append(f"  {label:12s} {'on' if check else 'off':>5s}   {len(kept):4d} of {len(runs):<4d}"
                         f"            {soon:4d} ({soon / max(1, len(kept)):.2f})")
    return "\n".join(lines)


LEAVE_SPEEDS_PX = (4.0, 16.0)      # a slow pan and a fast one, source pixels per frame


def leave_plans(folder: Path, name: str) -> tuple[list[Any], list[np.ndarray]]:
    """The pans (each direction x ``LEAVE_SPEEDS_PX``) and the still window the clip allows
    (``sensekit.evaluation.vision.leave``), with the clip's frames up to the last one needed."""
    from sensekit.evaluation.vision.leave import DIRECTIONS, pan_plan, still_plan

    truth = load_clip(folder, name).truth
    frames = _first(folder, name, 1)
    size = (frames[0].shape[1], frames[0].shape[0])
    plans = [pan_plan(truth, size, direction=d, speed_px=v, start=min(30, len(truth) // 4))
             for v in LEAVE_SPEEDS_PX for d in DIRECTIONS]
    plans.append(still_plan(truth, size))
    kept = [p for p in plans if p is not None]
    need = max((p.first + len(p.windows) for p in kept), default=0)
    return kept, _first(folder, name, need)


def leave_run(tracker: Any, frames: list[np.ndarray], plan: Any, truth: np.ndarray,
              how: str) -> tuple[tuple[int, float] | None, int | None, bool]:
    """One run through ``plan``'s views: (the frame of a ``color_lost`` while the object was fully
    inside and the IoU of the last box found with the truth then, else None; frame of the first
    ``color_lost`` from ``edge`` on, minus ``out``; still lost at ``out`` + 15, not found again)."""
    from sensekit.evaluation.vision.evaluate import iou
    from sensekit.evaluation.vision.leave import view, view_box
    from sensekit.events import ColorFound, ColorLost

    size = (frames[0].shape[1], frames[0].shape[0])
    first = view(frames[plan.first], plan.windows[0])
    box = view_box(truth[plan.first], plan.windows[0], size)
    if how == "click":
        tracker.pick(first, box[0] + box[2] / 2, box[1] + box[3] / 2)
    else:
        tracker.pick_box(first, box)
    inside: tuple[int, float] | None = None
    at, lost, held = None, False, (0.0, 0.0, 0.0, 0.0)
    for k in range(1, plan.out + 16):
        for e in tracker.step(view(frames[plan.first + k], plan.windows[k]), k / 30):
            if isinstance(e, ColorLost):
                lost = True
                if k < plan.edge and inside is None:
                    inside = (k, iou(held, view_box(truth[plan.first + k], plan.windows[k], size)))
                elif k >= plan.edge and at is None:
                    at = k - plan.out
            elif isinstance(e, ColorFound):
                lost = False
        if tracker.last is not None and tracker.last.found:
            held = tracker.last.box
    return inside, at, lost


def leave_table(folder: Path, names: list[str], settings: dict[str, Any] | None = None,
                verbose: bool = False) -> str:
    """The object leaving the view (a pan away, or walking out of a still window): runs lost
    while it was fully inside (false when the last box still overlapped it, IoU > 0.3), and of
    the others how many got ``color_lost`` by 15 frames after it was fully out, and how many
    were still lost then (not found again on something else)."""
    from sensekit.evaluation.vision.extent_experiment import make_tracker

    lines = ["leave        check  runs  lost inside (IoU>0.3, before the pan)  not lost before  "
             "color_lost by out+15  still lost at out+15  delay from out, median"]
    rows: dict[tuple[str, bool], list[Any]] = {}
    for name in names:
        plans, frames = leave_plans(folder, name)
        truth = load_clip(folder, name).truth
        for plan in plans:
            kind = "walks out" if not plan.label.startswith("pan") else \
                "pan slow" if plan.label.endswith(f" {LEAVE_SPEEDS_PX[0]:g} px/frame") else "pan fast"
            for check in (True, False):
                for how in ("click", "box"):
                    t = make_tracker(settings) if check else \
                        make_tracker({**(settings or {}), "appearance_below": 0.0, "appearance_found": 0.0})
                    r = leave_run(t, frames, plan, truth, how)
                    rows.setdefault((kind, check), []).append((*r, plan.turn, plan.out - plan.half))
                    if verbose:
                        print(f"  {name} {plan.label} {how} check {'on' if check else 'off'}: edge {plan.edge}"
                              f" half {plan.half} out {plan.out}; lost in view "
                              f"{'-' if r[0] is None else f'at {r[0][0]} (IoU {r[0][1]:.2f})'}; from out {r[1]},"
                              f" still lost {r[2]}", file=sys.stderr, flush=True)
    for (kind, check), runs in sorted(rows.items(), key=lambda kv: (kv[0][0], not kv[0][1])):
        early = [(r[0][1], r[0][0] < r[3]) for r in runs if r[0] is not None]
        kept = [r for r in runs if r[0] is None]
        soon = [r[1] for r in kept if r[1] is not None and r[1] <= 15]
        still = sum(1 for r in kept if r[2])
        med = f"{np.median(soon):+.0f}" if soon else "-"
        halves = [r[1] + r[4] for r in kept if r[1] is not None and r[1] <= 15]
        med += f" ({np.median(halves):+.0f} from half out)" if halves else ""
        lines.append(f"  {kind:10s} {'on' if check else 'off':>4s} {len(runs):5d} {len(early):6d} "
                     f"({sum(1 for v, _ in early if v > 0.3)}, {sum(1 for _, b in early if b)})"
                     f"{len(kept):26d}  {len(soon):10d} "
                     f"({len(soon) / max(1, len(kept)):.2f}) {still:12d} ({still / max(1, len(kept)):.2f})"
                     f" {med:>14s}")
    return "\n".join(lines)
