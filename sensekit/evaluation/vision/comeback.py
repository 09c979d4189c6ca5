"""The object gone and back: scripted runs of real clips for ``color_found``, nothing painted in
but a grey card.

A **script** is a list of steps, one per frame: which clip frame to show, through which window
(``leave.view``: a crop enlarged back to the frame's size; ``None``: the whole frame), with an
optional grey card over a box, and where the picked object then is in the picture (``None``
when it is not in view: panned or walked out, cut away, covered). Scripts are plain data, so a
test can check them on hand-made tracks; ``render`` makes the frames.

Two kinds, from the frame ``gone`` on (the object starts to go):

- **gone for good** (``gone_*``): the object does not come back within ``hold`` frames; every
  ``color_found`` from ``gone`` on is **false** when the object is not in view or the found
  box overlaps it by IoU < 0.1 (``score_run``);
- **back** (``back_*``): it comes back and ``back`` is the first frame it is fully in view
  again; the **delay** is the frames from ``back`` to the first ``color_found`` whose box
  overlaps it by IoU > 0.3, counted from the frame it was fully out of view (``away``), so it is
  negative when it is re-found while partly back (``None``: never within the script).

The ways: ``cut`` (after ``CUT_AT`` frames the picture cuts to another clip; back: it cuts
back to the first clip's frames as they would be then, a live camera cut away and back);
``cover`` (a dark grey card 20 % larger than the true box from frame ``CUT_AT``; back: removed
after ``COVER_FRAMES``); ``pan`` (``leave.pan_plan``; gone: the window then holds still; back:
after ``hold`` frames out it pans back along the same path and then follows the object again);
``walk`` (``leave.still_plan``; back: after ``hold`` frames out the window follows the object,
an operator catching up). Cost: one ``cv2.resize`` per frame.
Used by ``benchmarks/found_eval.py`` and ``tests/vision/test_found.py``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

from sensekit.evaluation.vision.evaluate import iou
from sensekit.evaluation.vision.leave import LeavePlan, outside_share, view, view_box
from sensekit.events import ColorFound, ColorLost
from sensekit.vision.color_tracker import ColorTracker

__all__ = ["Step", "Script", "cut_script", "cover_script", "pan_script", "walk_script", "render",
           "RunScore", "score_run", "run_script", "CUT_AT", "COVER_FRAMES"]

CUT_AT = 30             # frames of the first clip before a cut or a card
COVER_FRAMES = 20       # frames the card stays on in the "back" arm
FALSE_IOU = 0.1         # a found box overlapping the object less than this is false
TRUE_IOU = 0.3          # a found box overlapping it more than this is the object re-found
GAIN = 0.2              # how fast a following window catches up (as leave.pan_plan)

Window = tuple[float, float, float, float]
BoxF = tuple[float, float, float, float]


@dataclass(frozen=True)
class Step:
    clip: str
    frame: int
    window: Window | None = None
    card: BoxF | None = None           # a grey card over this source box
    truth: BoxF | None = None          # the object's box in the picture, None when not in view


@dataclass(frozen=True)
class Script:
    label: str
    steps: list[Step]
    gone: int                          # the first frame the object goes (touches the edge, cut, covered)
    back: int | None = None            # the first frame it is fully in view again (back arms)
    away: int | None = None            # the first frame it is fully out of view (default: ``gone``)


def _box(b: Sequence[float]) -> BoxF:
    return (float(b[0]), float(b[1]), float(b[2]), float(b[3]))


def _inside_frame(b: Sequence[float], size: tuple[int, int]) -> bool:
    return outside_share(b, (0, 0, size[0], size[1])) <= 1e-6


def cut_script(name: str, truth: np.ndarray, other: str, other_frames: int, size: tuple[int, int], *,
               back_after: int | None = None, hold: int = 45) -> Script | None:
    """``CUT_AT`` frames of ``name``, then ``other`` (``hold`` frames, or ``back_after`` before
    cutting back to ``name``'s frames as they would be by then, to the clip's end or ``hold``);
    ``None`` when ``name`` has fewer than ``CUT_AT`` frames (nothing to cut from)."""
    if len(truth) < CUT_AT:
        return None
    steps = [Step(name, k, truth=_box(truth[k])) for k in range(CUT_AT)]
    away = min(other_frames, hold if back_after is None else back_after)
    steps += [Step(other, k) for k in range(away)]
    if back_after is None:
        return Script(f"cut to {other}", steps, CUT_AT)
    resume = CUT_AT + back_after
    if resume >= len(truth) or not _inside_frame(truth[resume], size):
        return None
    steps += [Step(name, k, truth=_box(truth[k])) for k in range(resume, min(len(truth), resume + hold))]
    return Script(f"cut to {other} and back", steps, CUT_AT, CUT_AT + away)


def cover_script(name: str, truth: np.ndarray, *, back: bool, hold: int = 45) -> Script | None:
    """A grey card over the object from ``CUT_AT`` (removed after ``COVER_FRAMES`` with ``back``)."""
    n = len(truth)
    end = min(n, CUT_AT + (COVER_FRAMES if back else hold))
    end_all = min(n, end + hold) if back else end
    if end <= CUT_AT + 5 or (back and end_all <= end):
        return None
    steps = [Step(name, k, truth=_box(truth[k])) for k in range(CUT_AT)]
    steps += [Step(name, k, card=_box(truth[k])) for k in range(CUT_AT, end)]
    if not back:
        return Script("covered", steps, CUT_AT)
    steps += [Step(name, k, truth=_box(truth[k])) for k in range(end, end_all)]
    return Script("covered and uncovered", steps, CUT_AT, end)


def _follow_from(window: Sequence[float], truth: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Windows of ``window``'s size whose centre catches up with the true box's (``GAIN``)."""
    W, H = size
    x0, y0, ww, wh = (float(v) for v in window)
    aim = np.array([x0 + ww / 2, y0 + wh / 2])
    out = []
    for b in truth:
        aim = aim + GAIN * (np.array([b[0] + b[2] / 2, b[1] + b[3] / 2]) - aim)
        out.append((float(np.clip(aim[0] - ww / 2, 0, W - ww)), float(np.clip(aim[1] - wh / 2, 0, H - wh)),
                    ww, wh))
        aim = np.array([out[-1][0] + ww / 2, out[-1][1] + wh / 2])
    return np.array(out).reshape(-1, 4)


def _script(name: str, truth: np.ndarray, plan: LeavePlan, windows: np.ndarray, size: tuple[int, int],
            label: str, back: bool) -> Script | None:
    steps = []
    for k, w in enumerate(windows):
        b = truth[plan.first + k]
        inside = outside_share(b, w) < 1 - 1e-6
        steps.append(Step(name, plan.first + k, _box(w), truth=_box(view_box(b, w, size)) if inside else None))
    if not back:
        return Script(label, steps, plan.edge, None, plan.out)
    full = [k for k in range(plan.out, len(windows)) if outside_share(truth[plan.first + k], windows[k]) <= 1e-6]
    if not full:
        return None
    return Script(label, steps, plan.edge, full[0], plan.out)


def pan_script(name: str, truth: np.ndarray, plan: LeavePlan, size: tuple[int, int], *, back: bool,
               hold: int = 45) -> Script | None:
    """``plan`` (``leave.pan_plan``, its windows up to ``after`` frames out) then: the window holds
    still for the rest of ``hold`` frames after out; or (``back``) pans back along the same path
    and follows the object again, ``hold`` frames from the turn back."""
    n = len(truth)
    if not back:
        end = min(n - plan.first, plan.out + hold + 1)
        extra = np.tile(plan.windows[-1], (max(0, end - len(plan.windows)), 1))
        return _script(name, truth, plan, np.concatenate([plan.windows, extra])[:end], size,
                       f"{plan.label}, held", False)
    away = plan.windows[plan.turn:]
    rest = n - plan.first - len(plan.windows)
    if rest <= 0:
        return None
    ret = away[::-1][1:rest + 1]
    follow_n = max(0, min(hold - len(ret), n - plan.first - len(plan.windows) - len(ret)))
    start = len(plan.windows) + len(ret)
    fol = _follow_from(ret[-1], truth[plan.first + start:plan.first + start + follow_n], size)
    windows = np.concatenate([plan.windows, ret, fol])
    return _script(name, truth, plan, windows, size, f"{plan.label}, and back", True)


def walk_script(name: str, truth: np.ndarray, plan: LeavePlan, size: tuple[int, int], *, back: bool,
                hold: int = 45) -> Script | None:
    """``plan`` (``leave.still_plan``) then: the window stays for ``hold`` frames after out; or
    (``back``) after its ``after`` frames out it follows the object for ``hold`` frames."""
    n = len(truth) - plan.first
    if not back:
        end = min(n, plan.out + hold + 1)
        windows = np.tile(plan.windows[0], (end, 1))
        return _script(name, truth, plan, windows, size, f"{plan.label}, held", False)
    end = min(n, len(plan.windows) + hold)
    fol = _follow_from(plan.windows[-1], truth[plan.first + len(plan.windows):plan.first + end], size)
    return _script(name, truth, plan, np.concatenate([plan.windows, fol]), size,
                   f"{plan.label}, followed back", True)


def render(step: Step, frames: dict[str, list[np.ndarray]], size: tuple[int, int]) -> np.ndarray:
    """The picture of one step: the clip frame (resized to ``size``), card, window."""
    f = frames[step.clip][step.frame]
    if (f.shape[1], f.shape[0]) != size:
        f = cv2.resize(f, size)
    if step.card is not None:
        f = f.copy()
        x, y, w, h = step.card
        f[int(max(0, y - 0.1 * h)):int(y + 1.1 * h), int(max(0, x - 0.1 * w)):int(x + 1.1 * w)] = 60
    return view(f, step.window) if step.window is not None else f


@dataclass(frozen=True)
class RunScore:
    lost_before: bool                  # color_lost before ``gone`` (not tracking when it went)
    lost: bool                         # a color_lost from ``gone`` on
    false_found: list[int]             # frames of false color_found from ``gone`` on
    delay: int | None                  # back arms: frames from ``back`` to the true re-finding
    first_false: int | None            # frames from the first loss to the first false found
    founds: list[tuple[int, float]]    # every color_found from ``gone`` on: frame, IoU with the object


def score_run(events: Sequence[tuple[int, str, BoxF | None]], script: Script) -> RunScore:
    """Score one run's ``(frame, "lost"|"found", box at that frame)`` events (see the module)."""
    lost_before = any(kind == "lost" and k < script.gone for k, kind, _ in events)
    lost_at = [k for k, kind, _ in events if kind == "lost" and k >= script.gone]
    false, delay, founds = [], None, []
    for k, kind, box in events:
        if kind != "found" or k < script.gone:
            continue
        truth = script.steps[k].truth
        overlap = iou(box, truth) if (truth is not None and box is not None) else 0.0
        founds.append((k, round(overlap, 2)))
        if overlap < FALSE_IOU:
            false.append(k)
        away = script.gone if script.away is None else script.away
        if script.back is not None and k >= away and overlap > TRUE_IOU and delay is None:
            delay = k - script.back
    first_false = false[0] - lost_at[0] if false and lost_at else None
    return RunScore(lost_before, bool(lost_at), false, delay, first_false, founds)


def run_script(tracker: ColorTracker, script: Script, frames: dict[str, list[np.ndarray]], size: tuple[int, int],
               how: str) -> RunScore:
    """Pick on the script's first frame (``how``: ``"click"`` at the true box's centre, or
    ``"box"``: the true box), step through the rest and score it (``score_run``)."""
    first = render(script.steps[0], frames, size)
    box = script.steps[0].truth
    if box is None:
        raise ValueError(f"script {script.label!r} starts without the object in view")
    if how == "click":
        tracker.pick(first, box[0] + box[2] / 2, box[1] + box[3] / 2)
    else:
        tracker.pick_box(first, box)
    events: list[tuple[int, str, BoxF | None]] = []
    for k in range(1, len(script.steps)):
        for e in tracker.step(render(script.steps[k], frames, size), k / 30):
            if isinstance(e, (ColorLost, ColorFound)):
                last = tracker.last
                found = last.box if last is not None and last.found else None
                events.append((k, "lost" if isinstance(e, ColorLost) else "found",
                               None if found is None else _box(found)))
    return score_run(events, script)
