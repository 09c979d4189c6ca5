#!/usr/bin/env python3
"""Where is the first box's size lost: in the proposal pool, or in the choice? One table per scale.

For each click case of ``train_extent.py`` (every developer clip, its 3 start frames with the
6 frames before each, the 5 clicks of ``track_eval.py``; ``--scales`` views, default x1) the
first box is what ``segment_click`` takes with the weights fitted without the clip
(``sensekit.evaluation.vision.held_out``), and it is classified against the truth: **right** (width and height
within 25 %), **too big** (in w, h or both, none too small), **too small**, or **mixed** (one
too big, the other too small). What the box holds beyond the truth (too big) is named by its
pixels: **skin** (a hand or arm: more than a quarter of the excess is skin in YCrCb, Cr
133-173, Cb 77-127), **object-like** (its Lab histogram is closer to the object's than to the
truth's surround: a background of similar colour, or the object's shadow), or **background**.
A too-small box is **part of the object** when 80 % of it lies in the true box, else **off**.
Beside it: which path made the box (the clean colour region, or a measured proposal) and
whether the click's proposal pool (``extent.pool_proposals``; ``--motion-proposals``: with the
motion-coherent regions) holds a right-sized box at all, and one
that is also IoU > 0.5 with the truth (the pool's recall).

The x1 views are the clip's own frames (as ``track_eval.py`` at x1 sees them); at other
scales the views are made in memory (``track_eval.py`` re-encodes them as mp4, so its size-ok
figures there differ slightly).

    .venv/bin/python benchmarks/extent_diagnose.py [--clips DIR] [--only coke,tiger1] [--scales 1]
                                                   [--sheet out.png]

A clip with no held-out weights (your own footage) is scored with the shipped weights.

``--motion-edge MODEL_PY``: the motion-boundary cue (``evaluation/vision/motion_edge.py``) among
the motion cues, with the weights (and folds) of that ``train_extent.py --motion-edge`` model.

``--sheet`` writes a contact sheet of every case (truth green, first box red) to look at.
Cost: ~10-20 s per scale on a loaded 2-core machine.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from _first_box_hooks import extent_flags
from _reference import SHARED_DATA

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from track_eval import scale_box, scale_view
from train_extent import starts_of

from sensekit.errors import ConfigError
from sensekit.evaluation.vision.clip_check import clips_to_run
from sensekit.evaluation.vision.evaluate import REFUSED, add_clip_options, click_points, iou, load_clip, size_ok
from sensekit.evaluation.vision.held_out import unseen_by_fit
from sensekit.vision.extent import pool_proposals
from sensekit.vision.segment import segment_click


def _skin(img: np.ndarray) -> np.ndarray:
    ycc = cv2.cvtColor(img, cv2.COLOR_BGR2YCrCb)
    cr, cb = ycc[..., 1], ycc[..., 2]
    out: np.ndarray = (cr >= 133) & (cr <= 173) & (cb >= 77) & (cb <= 127)
    return out


def _hist(lab: np.ndarray) -> np.ndarray:
    h = np.bincount(((lab[:, 0] >> 6).astype(np.intp) * 64 + (lab[:, 1] >> 5) * 8 + (lab[:, 2] >> 5)),
                    minlength=256).astype(np.float64)
    share: np.ndarray = h / max(1.0, h.sum())
    return share


def _masks(shape: tuple[int, int], box: np.ndarray) -> np.ndarray:
    m = np.zeros(shape, bool)
    x, y, w, h = (int(round(v)) for v in box)
    m[max(0, y):max(0, y + h), max(0, x):max(0, x + w)] = True
    return m


def excess_kind(frame: np.ndarray, box: np.ndarray, truth: np.ndarray) -> str:
    """What a too-big box holds beyond the truth: skin / object-like / background."""
    shape = frame.shape[:2]
    inside, got = _masks(shape, truth), _masks(shape, box)
    excess = got & ~inside
    if excess.sum() < 4:
        return "background"
    if _skin(frame)[excess].mean() > 0.25:
        return "skin"
    x, y, w, h = truth
    m = 0.5 * max(w, h)
    ring = _masks(shape, np.array([x - m, y - m, w + 2 * m, h + 2 * m])) & ~inside & ~got
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2Lab)
    he, ho = _hist(lab[excess]), _hist(lab[inside])
    hr = _hist(lab[ring]) if ring.sum() > 16 else _hist(lab[~inside])
    return "object-like" if np.sqrt(he * ho).sum() > np.sqrt(he * hr).sum() else "background"


def classify(frame: np.ndarray, box: np.ndarray, truth: np.ndarray) -> tuple[str, str]:
    """(size class, what is extra or missing)."""
    rw, rh = box[2] / truth[2], box[3] / truth[3]
    big, small = (rw > 1.25, rh > 1.25), (rw < 0.75, rh < 0.75)
    if not any(big) and not any(small):
        return "right", ""
    if any(big) and any(small):
        return "mixed", excess_kind(frame, box, truth)
    if any(big):
        return "too big " + ("both" if all(big) else "w" if big[0] else "h"), excess_kind(frame, box, truth)
    x, y, w, h = box
    ix = max(0.0, min(x + w, truth[0] + truth[2]) - max(x, truth[0]))
    iy = max(0.0, min(y + h, truth[1] + truth[3]) - max(y, truth[1]))
    inside = ix * iy / max(1e-9, w * h)
    return "too small " + ("both" if all(small) else "w" if small[0] else "h"), \
        "part of the object" if inside >= 0.8 else "off"


def cases(folder: Path, names: list[str], factor: float) -> Iterator[tuple[Any, ...]]:
    """(clip, start, click name, frame, history, truth, click) for every case at ``factor``."""
    for name in names:
        clip = load_clip(folder, name)
        for s, history, centre in starts_of(clip):
            if factor == 1:
                frames, truth = history, clip.truth[s].astype(np.float64)
            else:
                views = [scale_view(f, factor, centre) for f in history]
                frames, truth = [v[0] for v in views], scale_box(clip.truth[s][None], views[-1][1])[0]
            for cname, (px, py) in click_points(truth).items():
                yield name, s, cname, frames[-1], frames[:-1], truth, (px, py)


def _thumb(frame: np.ndarray, box: np.ndarray, truth: np.ndarray, click: tuple[float, float], label: str
           ) -> np.ndarray:
    img = frame.copy()
    for b, colour in ((truth, (0, 255, 0)), (box, (0, 0, 255))):
        x, y, w, h = (int(round(v)) for v in b)
        cv2.rectangle(img, (x, y), (x + w, y + h), colour, 2)
    cv2.circle(img, (int(click[0]), int(click[1])), 4, (255, 255, 0), -1)
    img = cv2.resize(img, (320, 240))
    cv2.putText(img, label, (4, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1)
    return img


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_clip_options(ap, SHARED_DATA / "video" / "tracking", frames=False)   # one frame a click, no runs
    ap.add_argument("--scales", default="1")
    ap.add_argument("--sheet", type=Path, default=None, help="contact sheet of the cases (PNG)")
    ap.add_argument("--motion-proposals", action="store_true",
                    help="the motion-coherent regions in the pool (extent_experiment.py)")
    ap.add_argument("--motion-edge", type=Path, metavar="MODEL_PY", default=None,
                    help="the motion-boundary cue, with this train_extent.py --motion-edge model (not shipped)")
    args = ap.parse_args(argv)
    try:
        exp = extent_flags(args.motion_proposals, args.motion_edge)
    except ConfigError as e:
        print(e, file=sys.stderr)
        return 2
    if (names := clips_to_run(args.clips, args.only)) is None:
        return REFUSED
    thumbs = []
    for factor in (float(v) for v in args.scales.split(",")):
        rows = []
        for name, s, cname, frame, history, truth, (px, py) in cases(args.clips, names, factor):
            seg = segment_click(frame, px, py, history=history, experiment=unseen_by_fit(name, exp))
            box = np.array(seg.box, np.float64)
            props = pool_proposals(frame, px, py, history, experiment=exp)[0]
            pool_sized = any(size_ok(p.box, truth) for p in props)
            pool_right = any(size_ok(p.box, truth) and iou(p.box, truth) > 0.5 for p in props)
            kind, what = classify(frame, box, truth)
            rows.append((name, kind, what, seg.method, pool_sized, pool_right, iou(box, truth) > 0.5))
            if args.sheet is not None:
                thumbs.append(_thumb(frame, box, truth, (px, py),
                                     f"{name} x{factor:g} f{s} {cname}: {kind} {what} ({seg.method[:6]})"))
        print(f"\nobjects seen x{factor:g}: {len(rows)} clicks (every click is inside the true box)")
        print(f"{'clip':12s} {'right':>5s} {'big':>4s} {'small':>5s} {'mixed':>5s}  {'by region':>9s}"
              f"  {'pool sized':>10s} {'pool right':>10s}   what is wrong (count)")
        for name in names + ["all"]:
            r = [v for v in rows if v[0] == name or name == "all"]
            n = len(r)
            c = Counter(v[1].split(" ")[0] + (" " + v[1].split(" ")[1] if v[1].startswith("too") else "") for v in r)
            detail = Counter(f"{v[1]}: {v[2]}" for v in r if v[1] != "right")
            print(f"{name:12s} {c['right'] / n:5.2f} {c['too big'] / n:4.2f} {c['too small'] / n:5.2f}"
                  f" {c['mixed'] / n:5.2f}  {sum(v[3] == 'colour region' for v in r) / n:9.2f}"
                  f"  {sum(v[4] for v in r) / n:10.2f} {sum(v[5] for v in r) / n:10.2f}   "
                  + "; ".join(f"{k} {m}" for k, m in detail.most_common()))
        lost_in_pool = sum(1 for v in rows if v[1] != "right" and not v[4])
        lost_in_choice = sum(1 for v in rows if v[1] != "right" and v[4])
        region_wrong = sum(1 for v in rows if v[1] != "right" and v[3] == "colour region")
        print(f"wrong size: {lost_in_pool + lost_in_choice} of {len(rows)}; no right-sized proposal in the pool: "
              f"{lost_in_pool}; the pool had one but another was taken: {lost_in_choice} "
              f"(of which by the clean colour region: {region_wrong})")
    if args.sheet is not None and thumbs:
        cols = 5
        while len(thumbs) % cols:
            thumbs.append(np.zeros_like(thumbs[0]))
        sheet = np.vstack([np.hstack(thumbs[i:i + cols]) for i in range(0, len(thumbs), cols)])
        cv2.imwrite(str(args.sheet), sheet)
        print(f"wrote {args.sheet}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
