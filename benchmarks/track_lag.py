#!/usr/bin/env python3
"""Does the model tracker's box trail its object, and which step of its per-frame path makes it?

Every clip of ``--clips`` (default ``../shared/data/video/tracking``; ``NAME.mp4`` with
``NAME_gt.csv``) from frame 0's true box to its end. For each estimate of the object's centre,
against the true centre of the same frame and of the frame before (frames where the estimate
exists): the median distances, the share of frames nearer the same frame's truth, and the
**lag** in frames (``lag_frames``: the least-squares ``L`` of ``estimate - truth[k] = -L *
(truth[k] - truth[k-1])``; 0 on time, 1 a frame behind). The estimates, one per step:

- ``template``: OpenCV's ``matchTemplate`` of the frame with the previous frame's true box
  (nothing else carried over): is the ground truth aligned with the frames?
- ``colour, frame-0 model``: the box-sized window of highest mean object probability (the model
  method's search, ``color_model``) with the table learnt on frame 0 and never updated, searched
  around the previous frame's true centre at the true size: no state of the tracker but the
  first table.
- ``tracker raw``: ``ColorTracker`` (model method, ``pick_box`` on frame 0), ``raw_cx, raw_cy``
  (the box's centre), found frames only; ``tracker smoothed``: its One-Euro ``cx, cy``.

Then where the object's colour lies in each frame: the centroid of the frame-0 table's
probability above 0.5 within one box size of the true centre, its offset along the direction
of motion (``truth[k] - truth[k-1]``), by speed (px per frame), in px and in frames of motion.

``--tracker KEY=VALUE`` sets a tracker setting (e.g. ``learn_rate=0``, ``motion_sigma=100``).

    .venv/bin/python benchmarks/track_lag.py [--clips DIR] [--only tiger1] [--tracker KEY=VALUE]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from _reference import SHARED_DATA

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.evaluation.vision.clip_check import clips_and_tracker
from sensekit.evaluation.vision.evaluate import REFUSED, add_clip_options, frames_of, load_clip
from sensekit.vision.color_model import _bin_index, _clip_rect
from sensekit.vision.color_tracker import ColorTracker

#: the speed bins (px per frame) of the colour's offset along the motion
SPEEDS = ((0.0, 4.0), (4.0, 12.0), (12.0, float("inf")))


def lag_frames(est: np.ndarray, centres: np.ndarray, keep: np.ndarray) -> dict[str, float]:
    """``est`` (N, 2) against the true ``centres`` (N, 2) on the frames ``keep`` (from 1 on):
    median distance to the same frame's and the previous frame's truth, the share nearer the
    same frame's, and the lag in frames (least squares of ``est - c[k] = -L (c[k] - c[k-1])``)."""
    i = np.nonzero(np.asarray(keep, bool))[0]
    i = i[i >= 1]
    if len(i) == 0:
        return {"same": float("nan"), "prev": float("nan"), "nearer": float("nan"), "lag": float("nan"), "n": 0}
    d0 = np.linalg.norm(est[i] - centres[i], axis=1)
    d1 = np.linalg.norm(est[i] - centres[i - 1], axis=1)
    v = centres[i] - centres[i - 1]
    lag = -float(((est[i] - centres[i]) * v).sum() / max(1e-9, float((v * v).sum())))
    return {"same": float(np.median(d0)), "prev": float(np.median(d1)), "nearer": float(np.mean(d0 < d1)),
            "lag": lag, "n": len(i)}


def densest_window(frame: np.ndarray, lut: np.ndarray, centre: np.ndarray, size: np.ndarray,
                   search: float = 2.0) -> tuple[float, float]:
    """The model method's search without its state: the ``size`` window of highest mean
    probability (``lut``) within ``search`` box sizes of ``centre``; its centre."""
    fh, fw = frame.shape[:2]
    w, h = float(size[0]), float(size[1])
    X0, Y0, X1, Y1 = _clip_rect(float(centre[0]), float(centre[1]), w * (1 + 2 * search), h * (1 + 2 * search),
                                fw, fh)
    prob = np.take(lut, _bin_index(frame[Y0:Y1, X0:X1]))
    bw, bh = max(3, int(round(w))), max(3, int(round(h)))
    mean = cv2.boxFilter(prob, -1, (bw, bh), normalize=True, borderType=cv2.BORDER_CONSTANT)
    iy, ix = np.unravel_index(int(np.argmax(mean)), mean.shape)
    return X0 + int(ix) + (0.5 if bw % 2 == 0 else 0.0), Y0 + int(iy) + (0.5 if bh % 2 == 0 else 0.0)


def template_centre(frame: np.ndarray, before: np.ndarray, box: np.ndarray) -> tuple[float, float] | None:
    """Where the previous frame's true box (``before``, ``box``) matches ``frame`` best (its centre)."""
    x, y, w, h = (int(round(float(v))) for v in box)
    if w < 8 or h < 8 or x < 0 or y < 0 or y + h > before.shape[0] or x + w > before.shape[1]:
        return None
    res = cv2.matchTemplate(frame, before[y:y + h, x:x + w], cv2.TM_CCOEFF_NORMED)
    _, _, _, (mx, my) = cv2.minMaxLoc(res)
    return mx + w / 2, my + h / 2


def colour_offset(frame: np.ndarray, lut: np.ndarray, centre: np.ndarray, size: np.ndarray,
                  direction: np.ndarray) -> float | None:
    """The centroid of the probability above 0.5 within one box size of ``centre``: its offset
    from ``centre`` along the unit ``direction`` (px; negative: behind)."""
    fh, fw = frame.shape[:2]
    r = float(max(size))
    X0, Y0 = int(max(0.0, centre[0] - r)), int(max(0.0, centre[1] - r))
    X1, Y1 = int(min(fw, centre[0] + r)), int(min(fh, centre[1] + r))
    if X1 <= X0 or Y1 <= Y0:
        return None
    wgt = np.clip(np.take(lut, _bin_index(frame[Y0:Y1, X0:X1])).astype(np.float64) - 0.5, 0.0, None)
    total = float(wgt.sum())
    if total <= 0:
        return None
    yy, xx = np.mgrid[Y0:Y1, X0:X1] + 0.5
    along = (xx - centre[0]) * direction[0] + (yy - centre[1]) * direction[1]
    return float((along * wgt).sum() / total)


def measure(folder: Path, name: str, settings: dict[str, Any], frames: int | None = None) -> dict[str, Any]:
    """Every estimate of one clip (see the module docstring), over its first ``frames`` frames
    (``None``: all)."""
    clip = load_clip(folder, name)
    truth = clip.truth if frames is None else clip.truth[:frames]
    n = len(truth)
    centres = truth[:, :2] + truth[:, 2:] / 2
    est = {k: np.zeros((n, 2)) for k in ("template", "colour, frame-0 model", "tracker raw", "tracker smoothed")}
    have = {k: np.zeros(n, bool) for k in est}
    offsets: list[tuple[float, float]] = []
    tracker = ColorTracker(**settings)
    before: np.ndarray | None = None
    lut: np.ndarray | None = None
    for k, frame in enumerate(frames_of(clip)):
        if k >= n:
            break
        if before is None:
            tracker.pick_box(frame, truth[0])
            assert tracker.model.prob_lut is not None
            lut = tracker.model.prob_lut.copy()
            before = frame
            continue
        assert lut is not None
        t = template_centre(frame, before, truth[k - 1])
        if t is not None:
            est["template"][k], have["template"][k] = t, True
        est["colour, frame-0 model"][k] = densest_window(frame, lut, centres[k - 1], truth[k - 1, 2:])
        have["colour, frame-0 model"][k] = True
        r = tracker.update(frame, k / 30.0)
        if r.found:
            est["tracker raw"][k], est["tracker smoothed"][k] = (r.raw_cx, r.raw_cy), (r.cx, r.cy)
            have["tracker raw"][k] = have["tracker smoothed"][k] = True
        v = centres[k] - centres[k - 1]
        speed = float(np.linalg.norm(v))
        if speed > 0:
            off = colour_offset(frame, lut, centres[k], truth[k, 2:], v / speed)
            if off is not None:
                offsets.append((speed, off))
        before = frame
    return {"lags": {key: lag_frames(est[key], centres, have[key]) for key in est}, "offsets": offsets}


def table(name: str, result: dict[str, Any]) -> str:
    lines = [f"{name}", f"  {'estimate':24s} {'frames':>6s} {'px to same':>10s} {'px to prev':>10s} "
             f"{'nearer same':>11s} {'lag (frames)':>12s}"]
    for key, s in result["lags"].items():
        lines.append(f"  {key:24s} {s['n']:6d} {s['same']:10.1f} {s['prev']:10.1f} {s['nearer']:11.2f} "
                     f"{s['lag']:+12.2f}")
    off = np.array(result["offsets"]).reshape(-1, 2)
    for lo, hi in SPEEDS:
        sel = off[(off[:, 0] >= lo) & (off[:, 0] < hi)]
        if len(sel):
            lines.append(f"  colour centroid along the motion, speed {lo:g}-{hi:g} px/frame: {len(sel)} frames, "
                         f"median {np.median(sel[:, 1]):+.1f} px ({np.median(sel[:, 1] / sel[:, 0]):+.2f} "
                         f"frames of motion)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_clip_options(ap, SHARED_DATA / "video" / "tracking", frames=False)
    ap.add_argument("--tracker", action="append", default=[], metavar="KEY=VALUE",
                    help="a tracker setting, e.g. learn_rate=0 (repeatable)")
    args = ap.parse_args(argv)
    if (checked := clips_and_tracker(args)) is None:
        return REFUSED
    names, settings = checked
    for name in names:
        print(table(name, measure(args.clips, name, settings)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
