"""Scoring trackers on clips with per-frame boxes, started the way a user starts them: by a click.

A clip is ``NAME.mp4`` with ``NAME_gt.csv`` (``frame,x,y,w,h``, one row per frame, 0-based
pixels; OTB clips, recognised by the ``NAME_groundtruth_rect_original.txt`` kept beside them,
are 1-based). ``clip_names(folder)`` lists every such pair, so ``benchmarks/track_eval.py``
runs on a user's own footage as well as on the developer clips
(``../shared/data/video/tracking``); the benchmarks check such a folder first, row by row
(``clip_check.checked_clips``).

``evaluate_clip`` decodes a clip once. It starts on ``starts`` frames (0, 1/3 and 2/3 of the
clip by default, the first moved to frame 6 so that a click has the 6 frames before it, as it
has live: ``extent.HISTORY_FRAMES``) and runs ``frames`` frames from each:

- **from clicks**: ``ColorTracker.pick(frame, x, y)`` at the true box's centre and at 4 clicks
  moved by ``offset`` (25 %) of the box's width (left, right) or height (up, down); the box the
  click picked is the answer on the start frame, and its **size error** (picked / true width and
  height) is kept;
- **baselines, from the true box, in the same pass**: the same tracker (``pick_box``),
  OpenCV's CamShift on a hue histogram (saturation >= 60, value >= 32) and OpenCV's MIL tracker.

A tracker that reports nothing on a frame keeps its last box (a loss costs accuracy, not a
missing value). Scores: **success** = fraction of frames with IoU > 0.5 against the truth, and
the **median centre error** in pixels. ``format_table`` prints the means over starts.
Cost: one decode per clip; MIL ~50-100 ms per frame, the colour model ~5 ms per tracker; 8-9
minutes for the five developer clips on a loaded 2-core machine. A missing or unreadable clip raises ``SourceError``.
"""
from __future__ import annotations

import csv
from collections import deque
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol, Sequence

import cv2
import numpy as np

from sensekit.errors import ConfigError, SourceError
from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.extent import HISTORY_FRAMES

__all__ = ["TrackClip", "Score", "StartResult", "load_clip", "clip_names", "click_points", "iou", "score",
           "CamShiftTracker", "MILTracker", "SensekitTracker", "evaluate_clip", "evaluate", "format_table",
           "summary", "size_ok", "chosen_clips", "REFUSED", "add_clip_options", "tracker_settings",
           "first_frames", "start_frames", "history_before"]

#: the baselines, started from the true box
BASELINES = ("sensekit (true box)", "CamShift (true box)", "MIL (true box)")

Box = tuple[float, float, float, float]
#: a box as the scoring functions take it: x, y, w, h in a sequence or an array row (a clip's truth[k])
BoxLike = Sequence[float] | np.ndarray


@dataclass(frozen=True)
class TrackClip:
    name: str
    video: Path
    truth: np.ndarray          # (frames, 4) x, y, w, h; 0-based pixels


@dataclass(frozen=True)
class Score:
    success: float             # fraction of frames with IoU > 0.5
    centre_error_px: float     # median over frames
    frames: int


def clip_names(folder: Path) -> list[str]:
    """Every ``NAME`` of ``folder`` with both ``NAME.mp4`` and ``NAME_gt.csv``, sorted."""
    folder = Path(folder)
    if not folder.is_dir():
        raise SourceError(f"tracking clip folder not found: {folder}")
    return sorted(p.name[:-len("_gt.csv")] for p in folder.glob("*_gt.csv")
                  if (folder / (p.name[:-len("_gt.csv")] + ".mp4")).is_file())


def chosen_clips(folder: Path, only: str | None = None) -> list[str]:
    """The clips of ``folder`` to run (``clip_names``), or those named in ``only`` (comma
    separated), each checked to be there: a bad folder or name raises ``SourceError`` naming it."""
    names = clip_names(folder)
    if not only:
        return names
    wanted = [n.strip() for n in only.split(",") if n.strip()]
    missing = [n for n in wanted if n not in names]
    if missing:
        raise SourceError(f"no clip {', '.join(map(repr, missing))} in {folder}; clips: {', '.join(names)}")
    return wanted


#: what a clip benchmark's ``main`` returns when it refuses its clips (``clip_check.clips_to_run``)
REFUSED = 2


def add_clip_options(parser: Any, default: Path, *, frames: bool = True) -> None:
    """The options every clip benchmark takes (``parser``: an ``argparse.ArgumentParser``):
    ``--clips`` (a folder of ``NAME.mp4`` + ``NAME_gt.csv``), ``--only`` and, unless ``frames``
    is false (a benchmark that looks at single frames, not tracked runs), ``--frames``."""
    parser.add_argument("--clips", type=Path, default=default,
                        help="folder of NAME.mp4 + NAME_gt.csv (frame,x,y,w,h)")
    parser.add_argument("--only", help="comma-separated clip names (default: every clip in the folder)")
    if frames:
        parser.add_argument("--frames", type=int, default=100, help="frames per start (default 100)")


def load_clip(folder: Path, name: str, *, one_based: bool | None = None) -> TrackClip:
    """``folder/NAME.mp4`` and ``folder/NAME_gt.csv`` (columns ``frame,x,y,w,h``). Boxes are
    0-based unless ``one_based`` (default: when OTB's ``NAME_groundtruth_rect_original.txt``
    is beside them: x - 1, y - 1)."""
    video, gt = Path(folder) / f"{name}.mp4", Path(folder) / f"{name}_gt.csv"
    for p in (video, gt):
        if not p.is_file():
            raise SourceError(f"tracking clip file not found: {p}")
    if one_based is None:
        one_based = (Path(folder) / f"{name}_groundtruth_rect_original.txt").is_file()
    with gt.open(encoding="utf-8-sig", newline="") as fh:        # a spreadsheet's BOM, ", " separators
        rows = list(csv.DictReader(fh, skipinitialspace=True))
    try:
        d = 1.0 if one_based else 0.0
        truth = np.array([(float(r["x"]) - d, float(r["y"]) - d, float(r["w"]), float(r["h"])) for r in rows])
    except (KeyError, TypeError, ValueError):
        raise SourceError(f"{gt} needs columns frame,x,y,w,h with numbers on every row") from None
    if len(truth) == 0:
        raise SourceError(f"{gt} has no rows")
    return TrackClip(name, video, truth.reshape(-1, 4))


def frames_of(clip: TrackClip) -> Iterator[np.ndarray]:
    """The clip's frames (BGR), read by sensekit's own media source."""
    from sensekit.capture.base import VideoFrame
    from sensekit.capture.spec import open_source

    with open_source(f"file:{clip.video}") as source:
        for item in source:
            if isinstance(item, VideoFrame):
                yield item.image


def first_frames(clip: TrackClip, n: int) -> list[np.ndarray]:
    """The clip's first ``n`` frames (fewer if it is shorter), decoded once."""
    return list(islice(frames_of(clip), n))


def click_points(box: BoxLike, offset: float = 0.25) -> dict[str, tuple[float, float]]:
    """The centre of ``box`` and 4 clicks moved by ``offset`` of its width or height."""
    x, y, w, h = (float(v) for v in box)
    cx, cy = x + w / 2, y + h / 2
    return {"centre": (cx, cy), "left": (cx - offset * w, cy), "right": (cx + offset * w, cy),
            "up": (cx, cy - offset * h), "down": (cx, cy + offset * h)}


def iou(a: BoxLike, b: BoxLike) -> float:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    ix = max(0.0, min(ax + aw, bx + bw) - max(ax, bx))
    iy = max(0.0, min(ay + ah, by + bh) - max(ay, by))
    inter = ix * iy
    union = aw * ah + bw * bh - inter
    return inter / union if union > 0 else 0.0


def score(boxes: Sequence[Sequence[float]], truth: np.ndarray) -> Score:
    n = min(len(boxes), len(truth))
    ious = np.array([iou(b, g) for b, g in zip(boxes[:n], truth[:n])])
    b = np.asarray(boxes[:n], np.float64)
    g = truth[:n]
    ce = np.hypot(b[:, 0] + b[:, 2] / 2 - g[:, 0] - g[:, 2] / 2, b[:, 1] + b[:, 3] / 2 - g[:, 1] - g[:, 3] / 2)
    return Score(float(np.mean(ious > 0.5)), float(np.median(ce)), n)


class Tracker(Protocol):
    box: Box

    def update(self, frame: np.ndarray) -> Box: ...


class CamShiftTracker:
    """OpenCV's CamShift on a hue histogram of the start box (the usual recipe)."""

    def __init__(self, frame: np.ndarray, box: Sequence[float]) -> None:
        x, y, w, h = (int(round(v)) for v in box)
        hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
        roi = hsv[y:y + h, x:x + w]
        mask = cv2.inRange(roi, (0, 60, 32), (180, 255, 255))
        self.hist = cv2.calcHist([roi], [0], mask, [180], [0, 180])
        cv2.normalize(self.hist, self.hist, 0, 255, cv2.NORM_MINMAX)
        self.box: Box = (x, y, w, h)
        self._start = self.box

    def update(self, frame: np.ndarray) -> Box:
        hsv = cv2.cvtColor(frame, cv2.COLOR_BGR2HSV)
        bp = cv2.calcBackProject([hsv], [0], self.hist, [0, 180], 1)
        cv2.bitwise_and(bp, cv2.inRange(hsv, (0, 60, 32), (180, 255, 255)), dst=bp)
        crit = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 10, 1)
        _, window = cv2.CamShift(bp, tuple(int(v) for v in self.box), crit)
        if window[2] <= 0 or window[3] <= 0:
            window = self._start
        self.box = tuple(float(v) for v in window)  # type: ignore[assignment]
        return self.box


class MILTracker:
    """OpenCV's MIL tracker (``cv2.TrackerMIL``, in the headless build) from the start box."""

    def __init__(self, frame: np.ndarray, box: Sequence[float]) -> None:
        self.box: Box = tuple(float(v) for v in box)  # type: ignore[assignment]
        self._t = cv2.TrackerMIL.create()
        self._t.init(frame, tuple(int(round(v)) for v in box))

    def update(self, frame: np.ndarray) -> Box:
        ok, b = self._t.update(frame)
        if ok and b[2] > 0 and b[3] > 0:
            self.box = tuple(float(v) for v in b)  # type: ignore[assignment]
        return self.box


class SensekitTracker:
    """A ``ColorTracker`` started by a click (``click``) or a box (``box``); keeps its last box
    on a frame without a match. ``union`` reports the union box (the book's bounds)."""

    def __init__(self, frame: np.ndarray, *, click: tuple[float, float] | None = None,
                 box: Sequence[float] | None = None,
                 make: Callable[[], ColorTracker] = ColorTracker, fps: float = 30.0,
                 union: bool = False, history: Sequence[np.ndarray] = ()) -> None:
        self.tracker = make()
        self.union = union
        if click is not None:
            self.tracker.pick(frame, *click, history=history)
            picked = self.tracker.picked
            if picked is not None:
                self.box: Box = tuple(float(v) for v in picked.box)  # type: ignore[assignment]
            else:                                  # colour methods: what the colour matches now
                r = self.tracker.update(frame, 0.0)
                self.box = tuple(float(v) for v in (r.union_box if union else r.box))  # type: ignore[assignment]
        elif box is not None:
            self.tracker.pick_box(frame, box)
            self.box = tuple(float(v) for v in box)  # type: ignore[assignment]
        else:
            raise ValueError("SensekitTracker needs a click or a box")
        self._dt = 1.0 / fps
        self._k = 0

    def update(self, frame: np.ndarray) -> Box:
        self._k += 1
        r = self.tracker.update(frame, self._k * self._dt)
        box = r.union_box if self.union else r.box
        if r.found and box[2] > 0:
            self.box = tuple(float(v) for v in box)  # type: ignore[assignment]
        return self.box


def size_ok(box: BoxLike, truth: BoxLike, tolerance: float = 0.25) -> bool:
    """Is ``box``'s width and height each within ``tolerance`` of ``truth``'s?"""
    return bool(abs(box[2] / truth[2] - 1) <= tolerance and abs(box[3] / truth[3] - 1) <= tolerance)


@dataclass(frozen=True)
class StartResult:
    """One start frame of a clip: the scores by tracker name (``"click centre"``...,
    ``BASELINES``), and the first box each click picked with the true box."""
    start: int
    scores: dict[str, Score]
    first_boxes: dict[str, Box]
    truth: Box


def start_frames(n: int, starts: int | Sequence[int] = 3) -> list[int]:
    """The frames a run on a clip of ``n`` frames starts on: ``starts`` of them spread over it
    (``k n / starts``, the first moved to ``max(HISTORY_FRAMES)`` so that a click has the frames
    it looks back on, as it has live), or the frames ``starts`` names. On a short clip (20 frames
    or fewer for 3 starts) two spread starts can fall on the same frame: it is run once."""
    if isinstance(starts, int):
        return list(dict.fromkeys(max(min(n - 1, max(HISTORY_FRAMES)), k * n // starts) for k in range(starts)))
    return [int(s) for s in starts]


def history_before(frames: Sequence[np.ndarray], start: int) -> Sequence[np.ndarray]:
    """What a live click on ``frames[start]`` looks back on: up to ``max(HISTORY_FRAMES)``
    frames before it."""
    return frames[max(0, start - max(HISTORY_FRAMES)):start]


def _check_starts(first: list[int], n: int, name: str) -> None:
    if any(not 0 <= s < n for s in first):
        raise SourceError(f"start frames {first} must lie in the {n} frames of {name}")


def _start_trackers(frame: np.ndarray, start: Box, offset: float, make: Callable[[], ColorTracker],
                    baselines: Sequence[str], *, history: Sequence[np.ndarray] = (),
                    ) -> tuple[dict[str, Tracker], dict[str, Box]]:
    """The trackers started on ``frame``: the five clicks around the true box ``start`` (each
    given the frames before it, ``history``), and the ``baselines`` given the true box; and the
    clicks' first boxes."""
    ts: dict[str, Tracker] = {f"click {name}": SensekitTracker(frame, click=xy, make=make, history=history)
                              for name, xy in click_points(start, offset).items()}
    picked = {name: t.box for name, t in ts.items()}
    if "sensekit (true box)" in baselines:
        ts["sensekit (true box)"] = SensekitTracker(frame, box=start, make=make)
    if "CamShift (true box)" in baselines:
        ts["CamShift (true box)"] = CamShiftTracker(frame, start)
    if "MIL (true box)" in baselines:
        ts["MIL (true box)"] = MILTracker(frame, start)
    return ts, picked


def evaluate_clip(clip: TrackClip, *, starts: int | Sequence[int] = 3, frames: int | None = 100,
                  offset: float = 0.25, make: Callable[[], ColorTracker] = ColorTracker,
                  baselines: Sequence[str] = BASELINES, look_back: bool = True) -> list[StartResult]:
    """Every click and baseline from each start frame (``starts``: a count spread over the
    clip, or the frames), ``frames`` frames long (``None``: to the end), in one decode.
    ``look_back``: each click is given the frames before it (as a live click); ``False``: none
    (a click on a still picture, or on a camera's first frame)."""
    n = len(clip.truth)
    first = start_frames(n, starts)
    _check_starts(first, n, clip.name)
    ends = [n if frames is None else min(n, s + frames) for s in first]
    running: dict[int, dict[str, Tracker]] = {}
    boxes: dict[int, dict[str, list[Box]]] = {}
    picked: dict[int, dict[str, Box]] = {}
    k = -1
    recent: deque[np.ndarray] = deque(maxlen=max(HISTORY_FRAMES))   # what a live click looks back on
    for k, frame in enumerate(frames_of(clip)):
        if k >= n:
            break
        for i, s in enumerate(first):
            if k == s:
                ts, picked[i] = _start_trackers(frame, clip.truth[s], offset, make, baselines,
                                                history=list(recent) if look_back else [])
                running[i] = ts
                boxes[i] = {name: [t.box] for name, t in ts.items()}
            elif s < k < ends[i]:
                for name, t in running[i].items():
                    boxes[i][name].append(t.update(frame))
            elif k == ends[i]:
                running.pop(i, None)
        recent.append(frame)
    if k < max(first):
        raise SourceError(f"{clip.video} has {k + 1} frames, fewer than its {n} boxes")
    out = []
    for i, s in enumerate(first):
        truth = clip.truth[s:ends[i]]
        out.append(StartResult(s, {name: score(b, truth) for name, b in boxes[i].items()}, picked[i],
                               tuple(float(v) for v in clip.truth[s])))  # type: ignore[arg-type]
    return out


def evaluate(folder: Path, clips: Sequence[str] | None = None, **kwargs: Any) -> dict[str, list[StartResult]]:
    """``evaluate_clip`` on each clip of ``folder`` (default: every clip in it)."""
    names = clip_names(folder) if clips is None else list(clips)
    return {name: evaluate_clip(load_clip(folder, name), **kwargs) for name in names}


def summary(runs: Sequence[StartResult]) -> dict[str, float]:
    """Means over starts: ``clicks`` (success of the 5 clicks), ``clicks error px``, each
    baseline's success and error, and ``size ok`` (share of first boxes within 25 %)."""
    out: dict[str, float] = {}
    clicks = [r.scores[k] for r in runs for k in r.scores if k.startswith("click ")]
    out["clicks"] = float(np.mean([s.success for s in clicks]))
    out["clicks error px"] = float(np.mean([s.centre_error_px for s in clicks]))
    for name in runs[0].scores:
        if not name.startswith("click "):
            out[name] = float(np.mean([r.scores[name].success for r in runs]))
            out[name + " error px"] = float(np.mean([r.scores[name].centre_error_px for r in runs]))
    out["size ok"] = float(np.mean([size_ok(b, r.truth) for r in runs for b in r.first_boxes.values()]))
    return out


def format_table(results: dict[str, list[StartResult]]) -> str:
    """One row per clip: mean success (median centre error px) of the clicks and of each
    baseline over the start frames, the clicks' success over the same tracker's from the true
    box, and the share of clicks whose first box is within 25 % of the true width and height."""
    names = [b for b in BASELINES if all(b in r[0].scores for r in results.values())]
    head = f"{'clip':24s} {'starts':>6s}  {'5 clicks':>14s}" + "".join(f" {b:>20s}" for b in names)
    lines = [head + "   clicks/box   size ok"]
    for clip, runs in results.items():
        s = summary(runs)
        row = f"{clip:24s} {len(runs):6d}  {s['clicks']:6.3f} ({s['clicks error px']:5.1f})"
        row += "".join(f" {s[b]:11.3f} ({s[b + ' error px']:5.1f})" for b in names)
        box = s.get("sensekit (true box)")
        ratio = f"{s['clicks'] / box:10.2f}" if box else f"{'-':>10s}"
        lines.append(f"{row}   {ratio}   {s['size ok']:7.2f}")
    return "\n".join(lines)


def tracker_settings(texts: list[str]) -> dict[str, Any]:
    """``--tracker KEY=VALUE`` texts -> ``ColorTracker`` settings (``ConfigError`` naming a bad one)."""
    out: dict[str, object] = {}
    for text in texts:
        key, eq, value = text.partition("=")
        if not eq:
            raise ConfigError(f"--tracker wants KEY=VALUE, got {text!r}")
        out[key.strip()] = ColorTracker.SETTINGS[key.strip()].parse(value)
    return out
