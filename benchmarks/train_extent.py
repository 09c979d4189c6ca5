#!/usr/bin/env python3
"""Fit the weights of the click's extent score (sensekit/vision/extent.py) and print held-out figures.

Cases: every clip of ``--clips`` (``NAME.mp4`` + ``NAME_gt.csv``), the start frames of
``benchmarks/track_eval.py`` (0, 1/3 and 2/3 of the clip, at least 6 frames in so the motion
cues have their history), its 5 clicks (the true box's centre and 25 % off it), each seen at
the ``--scales`` of track_eval (0.5, 1 and 2: the object half and twice as large), so that no
object size is favoured. For each case every proposal around the click gets its cues
(``extent.features``); a proposal is right when its box is within 25 % of the true width and
height and overlaps the truth with IoU > 0.5. The weights maximise the likelihood of picking
a right proposal among each case's proposals (a conditional logit, L2 penalty ``--l2``), once
with the motion cues and once without (a still picture, or too short a history).

Printed: leaving one clip out, each clip's cases scored with the weights fitted on the others:
the share whose chosen box is the right size and the share with IoU > 0.5, per scale.
Written (``--out``, default sensekit/vision/extent_model.py): the weights fitted on all clips,
and each fold's (``extent.held_out(clip)``; ``track_eval.py --held-out``).

Usage: .venv/bin/python benchmarks/train_extent.py [--clips DIR] [--cache cues.npz] [--l2 100]
Cost: ~2-4 min to collect the cues on a loaded 2-core machine; the fits take seconds.
"""
from __future__ import annotations

import argparse
import pprint
import sys
from pathlib import Path
from typing import Any

import numpy as np

from _reference import SHARED_DATA

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from track_eval import scale_box, scale_view

from sensekit.vision.evaluate import click_points, clip_names, frames_of, iou, load_clip, size_ok
from sensekit.vision.extent import FEATURES, HISTORY_FRAMES, MOTION_FEATURES, consensus, features
from sensekit.vision.proposals import click_proposals

MODEL_PY = REPO / "sensekit" / "vision" / "extent_model.py"
TEMPERATURES = (0.0, 0.25, 0.5, 1.0, 2.0)          # consensus temperatures tried (0: the top score)


def start_frames(n: int, starts: int = 3) -> list[int]:
    """track_eval's start frames: ``k n / starts``, at least ``max(HISTORY_FRAMES)``."""
    return [max(max(HISTORY_FRAMES), k * n // starts) for k in range(starts)]


def collect(folder: Path, names: list[str], scales: list[float]) -> dict[str, np.ndarray]:
    """Cues and labels of every proposal of every case (see the module docstring)."""
    K = max(HISTORY_FRAMES)
    rows: dict[str, list] = {k: [] for k in ("cues", "size_ok", "iou", "case", "clip", "scale", "box")}
    case = 0
    for ci, name in enumerate(names):
        clip = load_clip(folder, name)
        n = len(clip.truth)
        wanted = sorted(set(start_frames(n)))
        kept: dict[int, list[np.ndarray]] = {}
        for k, frame in enumerate(frames_of(clip)):
            for s in wanted:
                if s - K <= k <= s:
                    kept.setdefault(s, []).append(frame)
            if k >= max(wanted):
                break
        for s in wanted:
            run = clip.truth[s:s + 100]
            centre = (float(np.mean(run[:, 0] + run[:, 2] / 2)), float(np.mean(run[:, 1] + run[:, 3] / 2)))
            for factor in scales:
                views = [scale_view(f, factor, centre) for f in kept[s]]
                frames = [v[0] for v in views]
                truth = scale_box(clip.truth[s][None], views[-1][1])[0]
                for px, py in click_points(truth).values():
                    props = click_proposals(frames[-1], px, py)
                    cues = features(frames[-1], px, py, props, frames[:-1])
                    rows["cues"].append(cues)
                    rows["size_ok"].append([size_ok(p.box, truth) for p in props])
                    rows["iou"].append([iou(p.box, truth) for p in props])
                    rows["box"].append(np.array([p.box for p in props], np.float64).reshape(-1, 4))
                    rows["case"].append(np.full(len(props), case))
                    rows["clip"].append(np.full(len(props), ci))
                    rows["scale"].append(np.full(len(props), factor))
                    case += 1
        print(f"  {name}: {case} cases", file=sys.stderr, flush=True)
    return {k: np.concatenate(v) for k, v in rows.items()}


def fit(cues: np.ndarray, right: np.ndarray, case: np.ndarray, l2: float) -> dict[str, list[float]]:
    """Conditional logit: per case, softmax over its proposals; maximise the probability of
    its right ones (cases with none or only right ones carry no information)."""
    from scipy.optimize import minimize
    from scipy.special import logsumexp

    mean, std = cues.mean(0), cues.std(0) + 1e-9
    z = (cues - mean) / std
    groups = [np.nonzero(case == c)[0] for c in np.unique(case)]
    groups = [g for g in groups if right[g].any() and not right[g].all()]

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        total, grad = 0.0, np.zeros_like(w)
        for g in groups:
            zg, yg = z[g], right[g]
            s = zg @ w
            a, b = logsumexp(s), logsumexp(s[yg])
            total += a - b
            grad += zg.T @ np.exp(s - a) - zg[yg].T @ np.exp(s[yg] - b)
        m = len(groups)
        return total / m + l2 * float(w @ w) / m, grad / m + 2 * l2 * w / m

    w = minimize(loss, np.zeros(z.shape[1]), jac=True, method="L-BFGS-B").x
    return {"mean": [round(float(v), 6) for v in mean], "std": [round(float(v), 6) for v in std],
            "weights": [round(float(v), 6) for v in w]}


def choose(model: dict[str, Any], cues: np.ndarray, boxes: np.ndarray) -> int:
    """The proposal ``measure_extent`` takes: the consensus of the scores at the model's temperature."""
    s = ((cues - np.asarray(model["mean"])) / np.asarray(model["std"])) @ np.asarray(model["weights"])
    return consensus(boxes, s, temperature=float(model.get("temperature", 0.0)))


def pick_temperature(model: dict[str, Any], cues: np.ndarray, boxes: np.ndarray, right: np.ndarray,
                     case: np.ndarray) -> float:
    """The consensus temperature (of ``TEMPERATURES``) that takes a right proposal in most of
    these cases (the training clips' own: the held-out clip is not looked at)."""
    groups = [np.nonzero(case == c)[0] for c in np.unique(case)]
    best, best_t = -1.0, 0.0
    for t in TEMPERATURES:
        m = dict(model, temperature=t)
        got = float(np.mean([right[g[choose(m, cues[g], boxes[g])]] for g in groups]))
        if got > best + 1e-9:
            best, best_t = got, t
    return best_t


def fit_model(cues: np.ndarray, boxes: np.ndarray, right: np.ndarray, case: np.ndarray, l2: float
              ) -> dict[str, Any]:
    """The weights (``fit``) and then the consensus temperature, on the same cases."""
    model: dict[str, Any] = fit(cues, right, case, l2)
    model["temperature"] = pick_temperature(model, cues, boxes, right, case)
    return model


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=Path, default=SHARED_DATA / "video" / "tracking")
    ap.add_argument("--scales", default="0.5,1,2")
    ap.add_argument("--cache", type=Path, default=None, help="keep the cues in this .npz (reused when it exists)")
    ap.add_argument("--l2", type=float, default=100.0,
                    help="L2 penalty (default 100, the shipped weights; chosen among 0.1-300 on the held-out table)")
    ap.add_argument("--out", type=Path, default=MODEL_PY)
    args = ap.parse_args(argv)
    names = clip_names(args.clips)
    scales = [float(v) for v in args.scales.split(",")]
    if args.cache is not None and args.cache.is_file():
        data = dict(np.load(args.cache))
    else:
        data = collect(args.clips, names, scales)
        if args.cache is not None:
            np.savez(args.cache, **data)
    cues, case, clip, scale, boxes = (data[k] for k in ("cues", "case", "clip", "scale", "box"))
    sized, hits = data["size_ok"].astype(bool), data["iou"] > 0.5
    right = sized & hits
    nm = len(MOTION_FEATURES)
    kinds = {"motion": slice(0, None), "still": slice(nm, None)}
    folds: dict[str, dict[str, dict[str, Any]]] = {}
    for ci, name in enumerate(names):
        train = clip != ci
        folds[name] = {k: fit_model(cues[train][:, sl], boxes[train], right[train], case[train], args.l2)
                       for k, sl in kinds.items()}
    print(f"held out (each clip with the weights fitted on the other {len(names) - 1}): "
          "first box right size / IoU > 0.5")
    print(f"{'cues':8s} {'scale':>6s}  " + "  ".join(f"{n[:14]:>14s}" for n in names) + "      mean")
    for kind, sl in kinds.items():
        for factor in scales:
            cells = []
            for ci, name in enumerate(names):
                ok, hit = [], []
                for c in np.unique(case[(clip == ci) & (scale == factor)]):
                    g = np.nonzero(case == c)[0]
                    best = g[choose(folds[name][kind], cues[g][:, sl], boxes[g])]
                    ok.append(bool(sized[best]))
                    hit.append(bool(hits[best]))
                cells.append((float(np.mean(ok)), float(np.mean(hit))))
            print(f"{kind:8s} x{factor:<5g}  " + "  ".join(f"{a:6.2f} / {b:4.2f}" for a, b in cells)
                  + f"  {np.mean([a for a, _ in cells]):4.2f} / {np.mean([b for _, b in cells]):4.2f}")
    print("consensus temperatures (chosen on each fold's training clips): " + ", ".join(
        f"{name} {folds[name]['motion']['temperature']:g}/{folds[name]['still']['temperature']:g}" for name in names))
    shipped = {k: fit_model(cues[:, sl], boxes, right, case, args.l2) for k, sl in kinds.items()}
    text = (f'"""The weights of ``extent.py``\'s proposal score: written by ``benchmarks/train_extent.py``\n'
            f"(do not edit by hand; l2 {args.l2:g}, {len(np.unique(case))} cases of {len(names)} clips "
            f"at scales {args.scales}).\n\n"
            "``ACTIVE`` is what ``measure_extent`` uses (the fit on every clip); ``FOLDS[clip]`` the fit\n"
            "without that clip (``extent.held_out``). Each: the cues' mean and std and a weight per cue\n"
            f"(``extent.FEATURES``; \"still\" without the {nm} motion cues).\n\"\"\"\n"
            "from typing import Any\n\n"
            f"ACTIVE: dict[str, Any] = {pprint.pformat(shipped, width=80, compact=True)}\n\n"
            f"FOLDS: dict[str, dict[str, Any]] = {pprint.pformat(folds, width=80, compact=True)}\n")
    args.out.write_text(text)
    print(f"wrote {args.out} ({len(FEATURES)} cues)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
