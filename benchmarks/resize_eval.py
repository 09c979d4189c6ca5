#!/usr/bin/env python3
"""Re-sizing the tracked box in the first second after a click: what moves with it, or its colour.

Issue 20's lever 3: a click's first box is often a part of the object (the tiger's face, the
player's shirt) or the object with the hand that holds it. Once the tracker has followed the
box for a while, what moves with it, or what the tracker's colour model calls the object over
those frames, might give the whole object. This script measures that on the developer clips
before any of it goes into ``ColorTracker`` (none of it did: docs/tracking.md, "Re-sizing in
the first second after a click"):

1. every click of ``track_eval.py`` (5 clicks x 3 starts x each clip, the 6 frames before the
   click as history, the extent weights fitted without the clip: ``sensekit.evaluation.vision.held_out``; a start
   whose ``max(--at)`` frames run past the clip is left out), at ``--scales`` (views made in
   memory, as ``extent_diagnose.py``), is followed by the shipped ``ColorTracker`` (its second
   look included), its box kept per frame;
2. at each frame ``k`` of ``--at``, three maps of a window ``WINDOW`` times the box at ``k``
   (``GRID`` x ``GRID`` cells), over frames ``k - SPAN .. k`` (``--span``; after the second
   look at frame 9): **motion**, how much each cell moves with the box (its Lab spread cut at
   each frame's tracked centre against its spread cut at a fixed place, ``spread_map``);
   **colour**, the tracker's colour model at ``k`` (P(object | colour)) averaged over the
   frames cut at the tracked centres (``colour_map``); **flow**, how far each cell's path,
   followed back through DIS optical flow, strays from the path of the box's core
   (``flow_map``). ``--cache`` keeps them;
3. the rules: a map cut at a threshold, the 8-connected part holding the box's core gives the
   new box (kept within 1/3..3 times the tracked box's size), with a gate that keeps the
   tracked box (the core did not move against its surround; the ring's paths did not stray);
   for the colour map also a level chosen per click (the most stable part's box, as MSER, or
   the most contrasted against a ring), with only the gate as setting.

The settings are chosen for each clip on the other four (the most right-sized boxes and IoU >
0.5 at frame ``k`` over their clicks at every scale; ties to the larger gate, inf never
re-sizes) and the clip is scored at its fold's choice: size ok (within 25 % of the true w and h)
and IoU > 0.5 at frame ``k``, tracked against re-sized, click by click. ``--grid`` also prints
every setting on all clips (not held out), and each map's ceiling (the best threshold per
click) is printed first.

    .venv/bin/python benchmarks/resize_eval.py [--scales 0.5,1,2] [--at 20,30] [--span 10] [--grid]
                                               [--cache /tmp/resize.pkl]

Cost: one tracker per click (~3-8 ms a frame), 30 DIS flows per start and view, the cutting;
~3-4 minutes for the three scales on a loaded 2-core machine, seconds from ``--cache``.
"""
from __future__ import annotations

import argparse
import itertools
import pickle
import sys
import time
from functools import partial
from pathlib import Path
from collections.abc import Sequence
from typing import Any, Callable

import cv2
import numpy as np

from _reference import SHARED_DATA

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from track_eval import scale_box, scale_view

from sensekit.evaluation.vision.clip_check import clips_to_run
from sensekit.evaluation.vision.evaluate import (REFUSED, SensekitTracker, click_points, frames_of, iou,
                                                 load_clip, size_ok, start_frames)
from sensekit.vision.color_model import _bin_index
from sensekit.evaluation.vision.extent_experiment import ExperimentTracker
from sensekit.evaluation.vision.held_out import unseen_by_fit
from sensekit.vision.extent import HISTORY_FRAMES, ExtentExperiment, _small

BACK = max(HISTORY_FRAMES)
SPAN = 10          # frames looked at before frame k (after the second look at frame 9); --span
WINDOW = 4.0       # the window cut around the tracked box, in box sizes
GRID = 48          # cells a side of that window
EPS = 4.0          # Lab units: a cell whose spread is below this either way counts as plain
THETAS = (0.0, 0.1, 0.2, 0.35, 0.5)
GAMMAS = (0.0, 0.1, 0.2, 0.35, np.inf)   # inf: never re-size
COLOUR_LEVELS = (0.4, 0.5, 0.6, 0.7, 0.8)    # P(object) levels of the colour consensus
GATES = (0.0, 0.5, 0.6, 0.7, np.inf)           # its core's median at least this, else no re-size
TAUS = (0.05, 0.1, 0.15, 0.25)                 # how far (box sizes) a path may stray from the core's
FLOW_GATES = (0.0, 0.1, 0.2, 0.4, np.inf)      # the ring must stray at least this, else no re-size
RIGID = (0.03, 0.05, 0.1, 0.2)                 # the box's own cells may stray at most this


def _crop(frame: np.ndarray, centre: tuple[float, float], size: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """The window ``size`` (w, h) centred on ``centre`` as GRID x GRID Lab cells, and its valid cells."""
    sx, sy = GRID / size[0], GRID / size[1]
    M = np.array([[sx, 0, GRID / 2 - centre[0] * sx], [0, sy, GRID / 2 - centre[1] * sy]])
    img = cv2.warpAffine(frame, M, (GRID, GRID), flags=cv2.INTER_AREA if sx < 1 else cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE)
    ones = np.full(frame.shape[:2], 255, np.uint8)
    valid = cv2.warpAffine(ones, M, (GRID, GRID), flags=cv2.INTER_NEAREST, borderValue=0) > 0
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2Lab).astype(np.float32)
    return lab, valid


def spread_map(views: list[np.ndarray], boxes: Sequence[tuple[float, ...]], k: int) -> tuple[np.ndarray, np.ndarray]:
    """How much each cell moves with the box over frames ``k - SPAN .. k`` (window of the box
    at ``k``): ``(fixed - aligned) / (fixed + aligned + EPS)``, where *aligned* is the cell's
    spread in the box's coordinates (each frame cut at its tracked centre) and *fixed* in the
    frame's (every frame cut where the box is at ``k``): near 1 for what moves with the box,
    near -1 for what the box moves against, near 0 for plain cells and a still scene; and the
    cells valid on every frame."""
    w, h = boxes[k][2] * WINDOW, boxes[k][3] * WINDOW
    bk = boxes[k]
    here = (bk[0] + bk[2] / 2, bk[1] + bk[3] / 2)
    aligned, fixed, valid = [], [], np.ones((GRID, GRID), bool)
    for j in range(max(0, k - SPAN), k + 1):
        b = boxes[j]
        lab, ok = _crop(views[j], (b[0] + b[2] / 2, b[1] + b[3] / 2), (w, h))
        aligned.append(lab)
        valid &= ok
        lab, ok = _crop(views[j], here, (w, h))
        fixed.append(lab)
        valid &= ok
    sa = cv2.GaussianBlur(np.stack(aligned).std(axis=0).mean(axis=2), (0, 0), 1.0)
    sf = cv2.GaussianBlur(np.stack(fixed).std(axis=0).mean(axis=2), (0, 0), 1.0)
    return (sf - sa) / (sf + sa + EPS), valid


def colour_map(views: list[np.ndarray], boxes: Sequence[tuple[float, ...]], k: int, lut: np.ndarray) -> np.ndarray:
    """The tracker's colour model at ``k`` (P(object | colour), ``ColorModel.prob_lut``) on each
    cell, averaged over frames ``k - SPAN .. k`` in the box's coordinates: the colour consensus."""
    w, h = boxes[k][2] * WINDOW, boxes[k][3] * WINDOW
    probs = []
    for j in range(max(0, k - SPAN), k + 1):
        b = boxes[j]
        cx, cy = b[0] + b[2] / 2, b[1] + b[3] / 2
        sx, sy = GRID / w, GRID / h
        M = np.array([[sx, 0, GRID / 2 - cx * sx], [0, sy, GRID / 2 - cy * sy]])
        img = cv2.warpAffine(views[j], M, (GRID, GRID), flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_REPLICATE)
        probs.append(lut[_bin_index(img)])
    out: np.ndarray = cv2.GaussianBlur(np.mean(probs, axis=0).astype(np.float32), (0, 0), 1.0)
    return out


def back_flows(views: list[np.ndarray]) -> tuple[list[np.ndarray], float]:
    """``flows[j]``: for j >= 1 the flow from frame j back to frame j - 1 (DIS, medium preset, on
    grey frames at ``extent``'s 320 px), and the scale of those frames."""
    f = _small(views[0])[1]
    greys = [cv2.cvtColor(_small(v)[0], cv2.COLOR_BGR2GRAY) for v in views]
    dis = cv2.DISOpticalFlow.create(cv2.DISOPTICAL_FLOW_PRESET_MEDIUM)
    zero = np.zeros(greys[0].shape + (2,), np.float32)
    return [zero] + [np.asarray(dis.calc(greys[j], greys[j - 1], zero.copy())) for j in range(1, len(greys))], f


def flow_map(flows: list[np.ndarray], f: float, box: tuple[float, ...], k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each cell of the window (``WINDOW`` times the box at ``k``, centred on it): how far its
    path over frames ``k - SPAN .. k`` (followed back through ``flows``) strays from the path of
    the box's core (the median of the core cells' paths), at most over those frames, in box
    sizes (the larger of w, h); and the cells whose path stayed in the frame."""
    cx, cy = (box[0] + box[2] / 2) * f, (box[1] + box[3] / 2) * f
    w, h = box[2] * WINDOW * f, box[3] * WINDOW * f
    u = (np.arange(GRID) + 0.5) / GRID - 0.5
    px, py = np.meshgrid(cx + u * w, cy + u * h)
    H, W = flows[0].shape[:2]
    valid = (px >= 0) & (px < W) & (py >= 0) & (py < H)
    r = GRID / (2 * WINDOW)
    dx, dy = np.abs(px - cx) / (w / GRID) / r, np.abs(py - cy) / (h / GRID) / r
    core = (dx < 0.5) & (dy < 0.5)
    stray = np.zeros((GRID, GRID), np.float32)
    x, y = px.astype(np.float32), py.astype(np.float32)
    for j in range(k, max(0, k - SPAN), -1):
        d = cv2.remap(flows[j], x, y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        x, y = x + d[..., 0], y + d[..., 1]
        valid &= (x >= 0) & (x < W) & (y >= 0) & (y < H)
        ox, oy = x - px, y - py
        mx, my = np.median(ox[core]), np.median(oy[core])
        stray = np.maximum(stray, np.hypot(ox - mx, oy - my))
    return stray / max(box[2] * f, box[3] * f), valid


def flow_resized(stray: np.ndarray, valid: np.ndarray, box: tuple[float, ...], tau: float, gate: float,
                 rigid: float = np.inf) -> tuple[float, float, float, float]:
    """The cells whose path stays within ``tau`` box sizes of the core's are the object; their
    8-connected part holding the core gives the box, when the ring (1-2 box sizes out) strayed
    by at least ``gate`` (the object moved against its surround; inf: never re-size) and the
    box's own cells strayed by at most ``rigid`` (their 75th percentile: a rigid object, not a
    runner's arms and legs; inf: no such condition)."""
    if not np.isfinite(gate):
        return tuple(box)  # type: ignore[return-value]
    c = GRID / 2
    r = GRID / (2 * WINDOW)
    yy, xx = np.mgrid[0:GRID, 0:GRID] + 0.5
    dx, dy = np.abs(xx - c) / r, np.abs(yy - c) / r
    core = (dx < 0.5) & (dy < 0.5) & valid
    ring = (np.maximum(dx, dy) > 1.0) & (np.maximum(dx, dy) < 2.0) & valid
    if core.sum() < 4 or ring.sum() < 8 or float(np.median(stray[ring])) < gate:
        return tuple(box)  # type: ignore[return-value]
    inside = (np.maximum(dx, dy) < 1.0) & valid
    if float(np.percentile(stray[inside], 75)) > rigid:
        return tuple(box)  # type: ignore[return-value]
    p = _component((stray < tau) & valid, core)
    if p is None:
        return tuple(box)  # type: ignore[return-value]
    cell_w, cell_h = box[2] * WINDOW / GRID, box[3] * WINDOW / GRID
    nw, nh = (p[2] - p[0]) * cell_w, (p[3] - p[1]) * cell_h
    if not (1 / 3 <= nw / box[2] <= 3 and 1 / 3 <= nh / box[3] <= 3):
        return tuple(box)  # type: ignore[return-value]
    return (float(box[0] + box[2] / 2 + (p[0] - c) * cell_w), float(box[1] + box[3] / 2 + (p[1] - c) * cell_h),
            float(nw), float(nh))


def resized(moves: np.ndarray, valid: np.ndarray, box: tuple[float, ...], theta: float, gamma: float
            ) -> tuple[float, float, float, float]:
    """The rule (module docstring) on one map of ``spread_map``; ``box`` is the tracked box at that frame."""
    if not np.isfinite(gamma):
        return tuple(box)  # type: ignore[return-value]
    c = GRID / 2
    r = GRID / (2 * WINDOW)                       # half the box, in cells
    yy, xx = np.mgrid[0:GRID, 0:GRID] + 0.5
    dx, dy = np.abs(xx - c) / r, np.abs(yy - c) / r
    core = (dx < 0.5) & (dy < 0.5) & valid
    if core.sum() < 4:
        return tuple(box)  # type: ignore[return-value]
    if float(np.median(moves[core])) < gamma:      # the box did not move against its surround / is unlike the model
        return tuple(box)  # type: ignore[return-value]
    obj = ((moves > theta) & valid).astype(np.uint8)
    n, labels = cv2.connectedComponents(obj, connectivity=8)
    held = np.bincount(labels[core], minlength=n)
    held[0] = 0
    if held.max() == 0:
        return tuple(box)  # type: ignore[return-value]
    ys, xs = np.nonzero(labels == int(np.argmax(held)))
    cell_w, cell_h = box[2] * WINDOW / GRID, box[3] * WINDOW / GRID
    nw = (xs.max() + 1 - xs.min()) * cell_w
    nh = (ys.max() + 1 - ys.min()) * cell_h
    if not (1 / 3 <= nw / box[2] <= 3 and 1 / 3 <= nh / box[3] <= 3):
        return tuple(box)  # type: ignore[return-value]
    x0 = box[0] + box[2] / 2 + (xs.min() - c) * cell_w
    y0 = box[1] + box[3] / 2 + (ys.min() - c) * cell_h
    return (float(x0), float(y0), float(nw), float(nh))


LEVELS = tuple(np.round(np.linspace(0.3, 0.85, 12), 3))   # thresholds the chooser looks at


def _component(obj: np.ndarray, core: np.ndarray) -> tuple[int, int, int, int] | None:
    """Cell box (x0, y0, x1, y1) of the 8-connected part of ``obj`` holding most of ``core``."""
    n, labels = cv2.connectedComponents(obj.astype(np.uint8), connectivity=8)
    held = np.bincount(labels[core], minlength=n)
    held[0] = 0
    if held.max() == 0:
        return None
    ys, xs = np.nonzero(labels == int(np.argmax(held)))
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def _level_value(colour: np.ndarray, valid: np.ndarray, box: tuple[float, ...],
                 parts: list[tuple[int, int, int, int] | None], i: int, how: str) -> float:
    """How good level ``i``'s part is by ``how`` (see ``chosen_level``); -inf when it cannot be taken."""
    p = parts[i]
    if p is None:
        return -np.inf
    pw, ph = (p[2] - p[0]) * box[2] / GRID * WINDOW, (p[3] - p[1]) * box[3] / GRID * WINDOW
    if not (1 / 3 <= pw / box[2] <= 3 and 1 / 3 <= ph / box[3] <= 3):
        return -np.inf
    if how == "stable":
        if i == 0 or i == len(parts) - 1:
            return -np.inf
        area = [0.0 if q is None else float((q[2] - q[0]) * (q[3] - q[1])) for q in (parts[i - 1], p, parts[i + 1])]
        return -abs(area[2] - area[0]) / area[1]
    mx, my = max(1, (p[2] - p[0]) // 4), max(1, (p[3] - p[1]) // 4)
    inner = np.zeros_like(valid)
    inner[p[1]:p[3], p[0]:p[2]] = True
    outer = np.zeros_like(valid)
    outer[max(0, p[1] - my):p[3] + my, max(0, p[0] - mx):p[2] + mx] = True
    ring = outer & ~inner & valid
    if ring.sum() == 0:
        return -np.inf
    return float(colour[inner & valid].mean() - colour[ring].mean())


def chosen_level(colour: np.ndarray, valid: np.ndarray, box: tuple[float, ...], how: str, gate: float
                 ) -> tuple[float, float, float, float]:
    """The colour consensus cut at the level chosen for this click alone, among ``LEVELS``:
    ``"stable"``, where the part's box changes least between the levels either side (as MSER
    chooses), or ``"contrast"``, where the map is most higher inside the box than in a ring of a
    quarter of its size around it. Kept within 1/3..3 times the tracked box, else the tracked
    box; the tracked box also when the core's median is below ``gate`` (inf: never re-size)."""
    if not np.isfinite(gate):
        return tuple(box)  # type: ignore[return-value]
    c = GRID / 2
    r = GRID / (2 * WINDOW)
    yy, xx = np.mgrid[0:GRID, 0:GRID] + 0.5
    core = (np.abs(xx - c) / r < 0.5) & (np.abs(yy - c) / r < 0.5) & valid
    if core.sum() < 4 or float(np.median(colour[core])) < gate:
        return tuple(box)  # type: ignore[return-value]
    parts = [_component((colour > t) & valid, core) for t in LEVELS]
    best, best_v = None, -np.inf
    for i, p in enumerate(parts):
        v = _level_value(colour, valid, box, parts, i, how)
        if p is not None and v > best_v:
            best, best_v = p, v
    if best is None:
        return tuple(box)  # type: ignore[return-value]
    cell_w, cell_h = box[2] * WINDOW / GRID, box[3] * WINDOW / GRID
    return (float(box[0] + box[2] / 2 + (best[0] - c) * cell_w), float(box[1] + box[3] / 2 + (best[1] - c) * cell_h),
            float((best[2] - best[0]) * cell_w), float((best[3] - best[1]) * cell_h))


def _kept_frames(clip: Any, starts: list[int], K: int) -> dict[int, list[np.ndarray]]:
    """The frames ``s - BACK .. s + K`` of each start ``s``."""
    kept: dict[int, list[np.ndarray]] = {s: [] for s in starts}
    for f, frame in enumerate(frames_of(clip)):
        for s in starts:
            if s - BACK <= f <= s + K:
                kept[s].append(frame)
        if f >= max(starts) + K:
            break
    return kept


def _click_rows(views: list[np.ndarray], truth: np.ndarray, at: list[int],
                experiment: ExtentExperiment | None = None) -> list[dict[str, Any]]:
    """The 5 clicks on ``views[BACK]`` (the frames before it as history), each followed by the
    shipped tracker (its clicks' extent scored by ``experiment``'s weights: the held-out fold) to
    ``max(at)``; their rows (without clip, scale, start)."""
    rows = []
    flows, f = back_flows(views[BACK:])
    make = partial(ExperimentTracker, extent_experiment=experiment)
    for click, xy in click_points(truth[BACK]).items():
        t = SensekitTracker(views[BACK], click=xy, history=views[:BACK], make=make)
        boxes, luts = [t.box], dict[int, np.ndarray]()
        for j, v in enumerate(views[BACK + 1:], 1):
            boxes.append(t.update(v))
            if j in at:
                lut = t.tracker.model.prob_lut
                assert lut is not None, "a picked tracker has its colour table"
                luts[j] = lut.copy()
        row: dict[str, Any] = {"click": click, "first": (tuple(boxes[0]), tuple(truth[BACK])), "at": {}}
        for k in at:
            spread, valid = spread_map(views[BACK:], boxes, k)
            row["at"][k] = {"box": tuple(boxes[k]), "truth": tuple(truth[BACK + k]), "spread": spread,
                            "valid": valid, "colour": colour_map(views[BACK:], boxes, k, luts[k]),
                            "flow": flow_map(flows, f, boxes[k], k)}
        rows.append(row)
    return rows


def collect(clips: Path, names: list[str], scales: list[float], at: list[int]) -> list[dict[str, Any]]:
    """One row per click: clip, scale, start, click, the first box and the truth then, and at
    each ``at`` frame the tracked box, the truth and the two maps."""
    rows = []
    K = max(at)
    t0 = time.perf_counter()
    for name in names:
        clip = load_clip(clips, name)
        starts = [s for s in start_frames(len(clip.truth)) if s + K < len(clip.truth)]
        if not starts:
            print(f"  {name}: {len(clip.truth)} frames, no start has {K} frames after it (--at); left out",
                  file=sys.stderr)
            continue
        kept = _kept_frames(clip, starts, K)
        exp = unseen_by_fit(name)
        for s in starts:
            run = clip.truth[s:s + 100]
            centre = (float(np.mean(run[:, 0] + run[:, 2] / 2)), float(np.mean(run[:, 1] + run[:, 3] / 2)))
            for factor in scales:
                views, truth = kept[s], clip.truth[s - BACK:s + K + 1]
                if factor != 1:
                    made = [scale_view(v, factor, centre) for v in views]
                    views, truth = [m[0] for m in made], scale_box(truth, made[0][1])
                rows += [{"clip": name, "scale": factor, "start": s, **r}
                         for r in _click_rows(views, truth, at, exp)]
        print(f"  {name}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return rows


def _right(box: tuple[float, ...], truth: tuple[float, ...]) -> tuple[bool, bool]:
    return size_ok(box, truth), iou(box, truth) > 0.5


Rule = Callable[..., tuple[float, float, float, float]]


def _rules() -> dict[str, tuple[Rule, Sequence[tuple[float, ...]]]]:
    """Each rule: what it does to one click's maps at frame k, and its settings (the last
    element of each is a gate; inf never re-sizes)."""
    return {
        "motion": (lambda a, t, g: resized(a["spread"], a["valid"], a["box"], t, g),
                   list(itertools.product(THETAS, GAMMAS))),
        "colour": (lambda a, t, g: resized(a["colour"], a["valid"], a["box"], t, g),
                   list(itertools.product(COLOUR_LEVELS, GATES))),
        "flow": (lambda a, t, g: flow_resized(a["flow"][0], a["flow"][1], a["box"], t, g),
                 list(itertools.product(TAUS, FLOW_GATES))),
        "flow, rigid box": (lambda a, t, g, q: flow_resized(a["flow"][0], a["flow"][1], a["box"], t, g, q),
                            list(itertools.product(TAUS, FLOW_GATES[:-1], RIGID)) + [(0.15, np.inf, np.inf)]),
        "colour, stable level": (lambda a, g: chosen_level(a["colour"], a["valid"], a["box"], "stable", g),
                                 [(g,) for g in GATES]),
        "colour, contrast level": (lambda a, g: chosen_level(a["colour"], a["valid"], a["box"], "contrast", g),
                                   [(g,) for g in GATES]),
    }


def held_out_table(rows: list[dict[str, Any]], k: int, rule: str) -> str:
    """Each clip scored at the settings chosen on the other clips (the most right-sized boxes and
    IoU > 0.5 at frame k over their clicks at every scale); tracked vs re-sized at frame k."""
    fn, grid = _rules()[rule]
    names = sorted({r["clip"] for r in rows})
    boxes = {(id(r), tg): fn(r["at"][k], *tg) for r in rows for tg in grid}
    right = {key: _right(b, rows_by_id[key[0]]["at"][k]["truth"])
             for rows_by_id in [{id(r): r for r in rows}] for key, b in boxes.items()}
    chosen = {}
    for name in names:
        train = [r for r in rows if r["clip"] != name]
        # ties go to the larger gate (re-size less often; inf: never)
        chosen[name] = max(grid, key=lambda tg: (sum(right[id(r), tg][0] + right[id(r), tg][1] for r in train), tg[-1]))
    lines = [f"rule {rule!r}, frame {k} after the click: size ok / IoU > 0.5, tracked -> re-sized (held out); "
             "changed: clicks whose box changed; better / worse: size ok",
             "| scale | clip | settings | first box size ok | tracked | re-sized | changed | better | worse |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for scale in sorted({r["scale"] for r in rows}):
        tot = np.zeros(7)
        for name in names:
            sub = [r for r in rows if r["clip"] == name and r["scale"] == scale]
            tg = chosen[name]
            first = np.mean([size_ok(*r["first"]) for r in sub])
            tr = np.array([_right(r["at"][k]["box"], r["at"][k]["truth"]) for r in sub], float)
            rs = np.array([right[id(r), tg] for r in sub], float)
            changed = sum(boxes[id(r), tg] != tuple(r["at"][k]["box"]) for r in sub)
            better = int(np.sum(rs[:, 0] > tr[:, 0]))
            worse = int(np.sum(rs[:, 0] < tr[:, 0]))
            lines.append(f"| x{scale:g} | {name} | {', '.join(f'{v:g}' for v in tg)} | {first:.2f} | "
                         f"{tr[:, 0].mean():.2f} / {tr[:, 1].mean():.2f} | {rs[:, 0].mean():.2f} / "
                         f"{rs[:, 1].mean():.2f} | {changed} | {better} | {worse} |")
            tot += [first, *tr.mean(0), *rs.mean(0), better, worse]
        m = tot / len(names)
        lines.append(f"| x{scale:g} | **mean** | | {m[0]:.2f} | {m[1]:.2f} / {m[2]:.2f} | {m[3]:.2f} / {m[4]:.2f} | "
                     f"| {int(tot[5])} | {int(tot[6])} |")
    return "\n".join(lines)


def grid_table(rows: list[dict[str, Any]], k: int, rule: str) -> str:
    """Every setting of ``rule`` on every clip at once (not held out: what the rule can do)."""
    fn, grid = _rules()[rule]
    scales = sorted({r["scale"] for r in rows})
    names = sorted({r["clip"] for r in rows})
    lines = [f"rule {rule!r}, frame {k}, every setting on all clips (not held out): size ok / IoU > 0.5, "
             "mean over the clips", "| settings | " + " | ".join(f"x{s:g}" for s in scales) + " |"]
    for tg in grid:
        cells = []
        for scale in scales:
            per = [np.mean([_right(fn(r["at"][k], *tg), r["at"][k]["truth"])
                            for r in rows if r["clip"] == name and r["scale"] == scale], axis=0) for name in names]
            m = np.mean(per, axis=0)
            cells.append(f"{m[0]:.2f} / {m[1]:.2f}")
        lines.append(f"| {', '.join(f'{v:g}' for v in tg)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def ceiling(rows: list[dict[str, Any]], k: int) -> str:
    """Clicks whose box at frame k is right-sized as tracked, or at the best threshold of each map
    for that click alone (a fine grid, no gate: an upper bound no rule reaches)."""
    tries: dict[str, tuple[Rule, np.ndarray]] = {
        "motion": (lambda a, t: resized(a["spread"], a["valid"], a["box"], t, -1e9), np.linspace(-0.3, 0.8, 23)),
        "colour": (lambda a, t: resized(a["colour"], a["valid"], a["box"], t, -1e9), np.linspace(0.2, 0.9, 15)),
        "flow": (lambda a, t: flow_resized(a["flow"][0], a["flow"][1], a["box"], t, 0.0), np.linspace(0.02, 0.4, 20)),
    }
    lines = [f"frame {k}: right-sized boxes, tracked / at the best threshold of each map per click"]
    for scale in sorted({r["scale"] for r in rows}):
        sub = [r for r in rows if r["scale"] == scale]
        tr = [size_ok(r["at"][k]["box"], r["at"][k]["truth"]) for r in sub]
        cells = [f"tracked {sum(tr)}"]
        for name, (fn, ths) in tries.items():
            best = sum(t or any(size_ok(fn(r["at"][k], th), r["at"][k]["truth"]) for th in ths)
                       for t, r in zip(tr, sub))
            cells.append(f"{name} {best}")
        lines.append(f"x{scale:g}: " + ", ".join(cells) + f" of {len(sub)}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    global SPAN
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clips", type=Path, default=SHARED_DATA / "video" / "tracking")
    ap.add_argument("--only", help="comma-separated clip names")
    ap.add_argument("--scales", default="0.5,1,2")
    ap.add_argument("--at", default="20,30", help="frames after the click where the box is re-sized")
    ap.add_argument("--span", type=int, default=SPAN, help="frames before k the maps look at (a new --cache)")
    ap.add_argument("--grid", action="store_true", help="also every setting on all clips (not held out)")
    ap.add_argument("--cache", type=Path, help="keep the tracked boxes and spread maps here (re-used)")
    args = ap.parse_args(argv)
    SPAN = args.span
    at = [int(v) for v in args.at.split(",")]
    if args.cache is not None and args.cache.exists():
        rows = pickle.loads(args.cache.read_bytes())
    else:
        if (names := clips_to_run(args.clips, args.only)) is None:
            return REFUSED
        rows = collect(args.clips, names, [float(v) for v in args.scales.split(",")], at)
        if args.cache is not None:
            args.cache.write_bytes(pickle.dumps(rows))
    for k in at:
        print(ceiling(rows, k))
        print()
        for rule in _rules():
            print(held_out_table(rows, k, rule))
            print()
            if args.grid:
                print(grid_table(rows, k, rule))
                print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
