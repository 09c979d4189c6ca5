#!/usr/bin/env python3
"""The weights of ``click_choice`` (which of a click's candidate boxes to keep after following
them), fitted and scored leaving one clip out.

Cases: the 5 clicks of ``track_eval.py`` on its 3 start frames of every developer clip, each
with the 6 frames before it, the objects seen at 0.5, 1 and 2 times their size (the views of
``track_eval.py --scales``), the extent scored with the weights fitted without the clip
(``extent.held_out``). For each measured click (not a clean colour region) ``ColorTracker``
keeps ``--k`` distinct candidates and follows them; the cues (``click_choice.FEATURES``) are
read after 6, 9 and 12 frames. A candidate is right when its box at the click is within 25 %
of the true width and height and overlaps the truth with IoU > 0.5.

Fit: a conditional logit (``train_extent.fit``) on the right candidates. For each clip, the
number of frames (6, 9, 12), the number of candidates (2..k) and the penalty are chosen by
leaving each of the other clips out in turn, then fitted on the other four and scored on the
clip. Printed: per clip and scale the share of clicks whose kept box is right: the first
candidate (the box taken at the click), the choice held out, and some candidate right.
``--out`` writes ``sensekit/vision/click_choice_model.py`` (the shipped weights: all five
clips, the settings most folds chose; ``FOLDS``: each clip's held-out weights).

    .venv/bin/python benchmarks/train_click_choice.py [--cache /tmp/choice.npz] [--out PATH] [--k 6]
"""
from __future__ import annotations

import argparse
import pprint
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from _reference import SHARED_DATA

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.evaluate import click_points, clip_names, frames_of, iou, load_clip, size_ok
from sensekit.vision.extent import HISTORY_FRAMES, held_out

from track_eval import rescaled_runs
from train_extent import fit

BACK = max(HISTORY_FRAMES)
AFTER = (6, 9, 12)
SCALES = (0.5, 1.0, 2.0)
L2 = (1.0, 10.0)
#: how much more than the first candidate's score another needs to be kept
MARGINS = (0.0, 0.5, 1.0, 2.0, 4.0)


def _run_cases(frames: list[np.ndarray], truth: np.ndarray, s: int, k: int) -> list[dict[str, Any]]:
    """The 5 clicks on frame ``s`` (``frames`` from ``s - 6``... indexable by clip frame)."""
    out = []
    for name, (x, y) in click_points(truth[s]).items():
        t = ColorTracker(choose_candidates=k, choose_after_frames=1000)
        t.pick(frames[s], x, y, history=frames[s - BACK:s])
        case: dict[str, Any] = {"click": name}
        choice = t.choice
        if choice is None:
            case["cues"] = None
            out.append(case)
            continue
        boxes = [seg.box for seg in choice.candidates]
        case["right"] = np.array([size_ok(b, truth[s]) and iou(b, truth[s]) > 0.5 for b in boxes])
        case["iou"] = np.array([iou(b, truth[s]) for b in boxes])
        case["cues"] = {}
        for j in range(1, max(AFTER) + 1):
            t.update(frames[s + j], j / 30)
            if j in AFTER:
                case["cues"][j] = choice.features(frames[s + j], frames[s + j - BACK:s + j])
        out.append(case)
    return out


def _runs(folder: Path, name: str, factor: float, tmp: Path) -> list[tuple[list[Any], np.ndarray, int]]:
    """The frames (indexable by frame number; only those needed), truth and start of each run."""
    if factor != 1:
        runs = []
        for c in rescaled_runs(folder, name, factor, 3, 100, tmp):
            fr: list[Any] = []
            for f in frames_of(c):
                if len(fr) > BACK + max(AFTER):
                    break
                fr.append(f)
            runs.append((fr, c.truth, BACK))
        return runs
    clip = load_clip(folder, name)
    n = len(clip.truth)
    starts = [max(BACK, j * n // 3) for j in range(3)]
    wanted = {j for s in starts for j in range(s - BACK, s + max(AFTER) + 1)}
    kept: dict[int, np.ndarray] = {}
    for j, f in enumerate(frames_of(clip)):
        if j > max(wanted):
            break
        if j in wanted:
            kept[j] = f
    return [([kept.get(j) for j in range(max(wanted) + 1)], clip.truth, s) for s in starts]


def collect(folder: Path, names: list[str], k: int) -> list[dict[str, Any]]:
    """Every case (see the module docstring), as dicts with clip, scale, start, click, cues."""
    cases = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            with held_out(name):
                for factor in SCALES:
                    for frames, truth, s in _runs(folder, name, factor, Path(tmp)):
                        for case in _run_cases(frames, truth, s, k):
                            case.update(clip=name, scale=factor, start=s)
                            cases.append(case)
                    print(f"  {name} x{factor:g}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    return cases


def _stack(cases: list[dict[str, Any]], after: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    cues, right, case = [], [], []
    for i, c in enumerate(cases):
        m = min(k, len(c["right"]))
        cues.append(c["cues"][after][:m])
        right.append(c["right"][:m])
        case.append(np.full(m, i))
    return np.vstack(cues), np.concatenate(right), np.concatenate(case)


def chosen(model: dict[str, Any], c: dict[str, Any], after: int, k: int) -> int:
    m = min(k, len(c["right"]))
    z = (c["cues"][after][:m] - np.asarray(model["mean"])) / np.asarray(model["std"])
    s = z @ np.asarray(model["weights"])
    best = int(np.argmax(s))
    return best if s[best] - s[0] > model.get("margin", 0.0) else 0


def fit_on(cases: list[dict[str, Any]], after: int, k: int, l2: float) -> dict[str, Any]:
    cues, right, case = _stack(cases, after, k)
    return dict(fit(cues, right, case, l2), after=after, k=k, l2=l2)


def right_share(model: dict[str, Any], cases: list[dict[str, Any]]) -> float:
    return float(np.mean([c["right"][chosen(model, c, model["after"], model["k"])] for c in cases]))


def settings_for(train: list[dict[str, Any]], clips: list[str], kmax: int) -> tuple[int, int, float, float]:
    """(after, k, l2, margin) with the best mean right share leaving each of ``clips`` out of ``train``."""
    best, best_s = -1.0, (9, 2, 1.0, 0.0)
    for after in AFTER:
        for k in range(2, kmax + 1):
            for l2 in L2:
                models = {c: fit_on([x for x in train if x["clip"] != c], after, k, l2) for c in clips}
                for margin in MARGINS:
                    got = [right_share(dict(models[c], margin=margin), [x for x in train if x["clip"] == c])
                           for c in clips]
                    if np.mean(got) > best + 1e-9:
                        best, best_s = float(np.mean(got)), (after, k, l2, margin)
    return best_s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=Path, default=SHARED_DATA / "video" / "tracking")
    ap.add_argument("--k", type=int, default=6, help="candidates followed per click (default 6)")
    ap.add_argument("--cache", type=Path, help="keep the cases here between runs (pickle)")
    ap.add_argument("--out", type=Path, help="write the weights module here")
    ap.add_argument("--only", help="comma-separated clip names (a quick look; the fit needs them all)")
    args = ap.parse_args(argv)
    import pickle

    names = clip_names(args.clips)
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    if args.cache is not None and args.cache.is_file():
        cases = pickle.loads(args.cache.read_bytes())
    else:
        cases = collect(args.clips, names, args.k)
        if args.cache is not None:
            args.cache.write_bytes(pickle.dumps(cases))
    measured = [c for c in cases if c["cues"] is not None]
    print(f"{len(cases)} clicks, {len(measured)} measured (the rest a clean colour region, no choice)")
    folds: dict[str, dict[str, Any]] = {}
    print("| clip | scale | clicks | first box right | chosen, held out | some candidate right | settings |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    rows = []
    for name in names:
        train = [c for c in measured if c["clip"] != name]
        after, k, l2, margin = settings_for(train, [n for n in names if n != name], args.k)
        model = dict(fit_on(train, after, k, l2), margin=margin)
        folds[name] = model
        for factor in SCALES:
            test = [c for c in measured if c["clip"] == name and c["scale"] == factor]
            first = np.mean([c["right"][0] for c in test])
            got = right_share(model, test)
            oracle = np.mean([c["right"][:k].any() for c in test])
            rows.append((factor, first, got, oracle))
            print(f"| {name} | x{factor:g} | {len(test)} | {first:.2f} | {got:.2f} | {oracle:.2f} |"
                  f" {after} frames, k {k}, l2 {l2:g}, margin {margin:g} |")
    for factor in SCALES:
        r = np.array([x[1:] for x in rows if x[0] == factor])
        print(f"| mean | x{factor:g} | | {r[:, 0].mean():.2f} | {r[:, 1].mean():.2f} | {r[:, 2].mean():.2f} | |")
    if args.out is not None:
        votes = Counter((m["after"], m["k"], m["l2"], m["margin"]) for m in folds.values())
        after, k, l2, margin = votes.most_common(1)[0][0]
        shipped = dict(fit_on(measured, after, k, l2), margin=margin)
        text = (f'"""The weights of ``click_choice`` (written by ``benchmarks/train_click_choice.py``; do not edit by'
                f' hand).\n\n``ACTIVE``: the weights in use; ``FOLDS``: each developer clip\'s weights fitted without'
                f' it\n(for held-out figures, ``extent.held_out``). ``after``: frames followed; ``k``: candidates."""\n'
                f"from typing import Any\n\nSHIPPED: dict[str, Any] = {pprint.pformat(shipped, width=110)}\n"
                f"FOLDS: dict[str, dict[str, Any]] = {pprint.pformat(folds, width=110)}\n"
                f"ACTIVE: dict[str, Any] = SHIPPED\n")
        args.out.write_text(text)
        print(f"wrote {args.out} (shipped: {after} frames, k {k}, l2 {l2:g}, margin {margin:g})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
