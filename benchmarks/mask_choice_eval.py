#!/usr/bin/env python3
"""A choice among MobileSAM's three masks and the shipped box, learnt leave one clip out (branch ``click25``).

Reads the cache of ``point_prompt_eval.py --cache`` (every click case: the true box, the shipped
first box, SAM's three masks as (box, predicted IoU, area, holds the click)); runs no model.
Declared before the first figure:

- candidates of a click: SAM's 3 masks' boxes and the shipped box (a 4th);
- features of a candidate (``features``): SAM's predicted IoU (the shipped box: 0) and its rank
  among the 3 (0 the highest; the shipped box: 3), is it the shipped box, log of its area over
  the frame's, its size against the shipped box (|log w / ws| + |log h / hs|), its mean IoU with
  the other 3 candidates, does it hold the click (the shipped box: the click inside it), does it
  touch the frame's edge (within 2 px);
- label: size ok (width and height within 25 % of the true box's);
- the model (``--model logistic``, the rule): sklearn's ``LogisticRegression`` (C = 1, on
  standardised features), fitted on every candidate of the other 4 clips' clicks (the 3 scales
  pooled); a click takes its candidate of highest probability. ``--model tree``, printed beside
  it: ``DecisionTreeClassifier(max_depth=2, random_state=0)`` the same way;
- compared with ``best`` (SAM's highest predicted IoU, ``click24``'s rule) and the shipped box.

    .venv/bin/python benchmarks/mask_choice_eval.py --cache /tmp/point_prompt.pkl
"""
from __future__ import annotations

import argparse
import pickle
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.evaluation.vision.evaluate import iou, size_ok

Box = tuple[float, float, float, float]
#: a box touches the frame's edge within this many pixels
EDGE_PX = 2.0
NAMES = ["pred iou", "rank", "shipped", "log area", "size vs shipped", "agreement", "holds click", "edge"]
#: what a candidate is called in the printout (index 3: the shipped box)
CANDIDATES = ["mask 0", "mask 1", "mask 2", "shipped"]


def candidates(row: dict[str, Any]) -> list[Box | None]:
    """SAM's three masks' boxes (None for an empty mask) and the shipped box."""
    return [m[0] for m in row["masks"]] + [tuple(row["shipped"])]


def features(row: dict[str, Any]) -> np.ndarray:
    """One row of ``NAMES`` per candidate (4 x 8); an empty mask's row is NaN (never chosen)."""
    boxes = candidates(row)
    fw, fh = row["frame"]
    _sx, _sy, sw, sh = row["shipped"]
    cx, cy = _click(row)
    scores = [m[1] for m in row["masks"]]
    order = list(np.argsort(-np.asarray(scores), kind="stable"))
    out = np.full((4, len(NAMES)), np.nan)
    for k, b in enumerate(boxes):
        if b is None or b[2] <= 0 or b[3] <= 0:
            continue
        x, y, w, h = b
        others = [o for j, o in enumerate(boxes) if j != k and o is not None]
        agree = float(np.mean([iou(b, o) for o in others])) if others else 0.0
        if k < 3:
            pred, rank, holds = scores[k], float(order.index(k)), float(row["masks"][k][3])
        else:
            pred, rank, holds = 0.0, 3.0, float(x <= cx <= x + w and y <= cy <= y + h)
        edge = float(x <= EDGE_PX or y <= EDGE_PX or x + w >= fw - EDGE_PX or y + h >= fh - EDGE_PX)
        out[k] = [pred, rank, float(k == 3), np.log(w * h / (fw * fh)),
                  abs(np.log(w / sw)) + abs(np.log(h / sh)), agree, holds, edge]
    return out


def _click(row: dict[str, Any]) -> tuple[float, float]:
    """The click of a cached case: ``click`` names the point of ``click_points`` on the true box."""
    from sensekit.evaluation.vision.evaluate import click_points

    return click_points(row["truth"])[row["click"]]


def labels(row: dict[str, Any]) -> np.ndarray:
    """Is each candidate right-sized (0 for an empty mask)?"""
    return np.array([float(b is not None and size_ok(b, row["truth"])) for b in candidates(row)])


def make_model(kind: str) -> Any:
    """The declared model (``logistic``) or the one printed beside it (``tree``)."""
    if kind == "logistic":
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        return make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=1000))
    if kind == "tree":
        from sklearn.tree import DecisionTreeClassifier

        return DecisionTreeClassifier(max_depth=2, random_state=0)
    raise ValueError(f"unknown model {kind!r}: logistic or tree")


def fit(rows: list[dict[str, Any]], kind: str) -> Any:
    """The model fitted on every non-empty candidate of ``rows``."""
    xs, ys = [], []
    for r in rows:
        f, y = features(r), labels(r)
        keep = ~np.isnan(f).any(axis=1)
        xs.append(f[keep])
        ys.append(y[keep])
    return make_model(kind).fit(np.vstack(xs), np.concatenate(ys))


def choose(model: Any, row: dict[str, Any]) -> int:
    """The candidate (0-2 SAM's masks, 3 the shipped box) of highest probability of being right."""
    f = features(row)
    keep = np.flatnonzero(~np.isnan(f).any(axis=1))
    p = model.predict_proba(f[keep])
    right = p[:, list(model.classes_).index(1.0)] if 1.0 in model.classes_ else np.zeros(len(keep))
    return int(keep[int(np.argmax(right))])


def leave_one_clip_out(rows: list[dict[str, Any]], kind: str) -> list[int]:
    """Each case's chosen candidate, by the model fitted on the other clips' cases."""
    chosen = [0] * len(rows)
    for clip in dict.fromkeys(r["clip"] for r in rows):
        model = fit([r for r in rows if r["clip"] != clip], kind)
        for i, r in enumerate(rows):
            if r["clip"] == clip:
                chosen[i] = choose(model, r)
    return chosen


def best_index(row: dict[str, Any]) -> int:
    """``best``: SAM's highest predicted-IoU mask (the shipped box where it is empty)."""
    k = int(np.argmax([m[1] for m in row["masks"]]))
    return k if row["masks"][k][0] is not None else 3


def table(rows: list[dict[str, Any]], picks: dict[str, list[int]]) -> str:
    """Size ok / IoU > 0.5 per clip and scale for each way of picking, and what each picked."""
    lines = []
    clips = list(dict.fromkeys(r["clip"] for r in rows))
    for factor in sorted({r["scale"] for r in rows}):
        lines.append(f"\nx{factor:g}: size ok / IoU > 0.5")
        lines.append(f"{'choice':10s} " + " ".join(f"{c[:16]:>16s}" for c in clips) + f" {'mean':>12s}")
        for how, chosen in picks.items():
            cells, means = [], []
            for c in clips:
                at = [(r, chosen[i]) for i, r in enumerate(rows) if r["clip"] == c and r["scale"] == factor]
                boxes = [(candidates(r)[k], r["truth"]) for r, k in at]
                ok = np.mean([b is not None and size_ok(b, t) for b, t in boxes])
                right = np.mean([b is not None and iou(b, t) > 0.5 for b, t in boxes])
                cells.append(f"{ok:.2f} / {right:.2f}")
                means.append((ok, right))
            m = np.mean(means, axis=0)
            lines.append(f"{how:10s} " + " ".join(f"{v:>16s}" for v in cells) + f" {m[0]:5.2f} / {m[1]:4.2f}")
    for how, chosen in picks.items():
        lines.append(f"\n{how}: chosen per clip (all scales)")
        for c in clips:
            n = Counter(CANDIDATES[chosen[i]] for i, r in enumerate(rows) if r["clip"] == c)
            lines.append(f"  {c}: " + ", ".join(f"{k} {v}" for k, v in sorted(n.items())))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, required=True, help="point_prompt_eval.py --cache's file")
    args = ap.parse_args(argv)
    if not args.cache.is_file():
        print(f"no cache at {args.cache}: write one with point_prompt_eval.py --cache", file=sys.stderr)
        return 2
    rows: list[dict[str, Any]] = pickle.loads(args.cache.read_bytes())
    picks = {"shipped": [3] * len(rows), "best": [best_index(r) for r in rows],
             "logistic": leave_one_clip_out(rows, "logistic"), "tree": leave_one_clip_out(rows, "tree")}
    print(table(rows, picks))
    for kind in ("logistic", "tree"):
        model = fit(rows, kind)
        if kind == "logistic":
            w = model[-1].coef_[0]
            print("\nlogistic on all clips (standardised weights): "
                  + ", ".join(f"{n} {v:+.2f}" for n, v in zip(NAMES, w)))
        else:
            from sklearn.tree import export_text

            print("\ntree on all clips:\n" + export_text(model, feature_names=NAMES))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
