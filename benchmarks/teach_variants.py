#!/usr/bin/env python3
"""Variants of the taught-gesture model, chosen on one clip and scored on the other (needs the extra).

The hand stage (default settings) runs once over v04 and v02; the splits are
``teach_eval.py``'s (teach on one part of a clip, test on another). Every variant of the
model is then fitted on each split's taught hands and named the test hands the way the
stage does (each hand's answer held 100 ms, ``GestureState`` per hand id; for the current
model this gives exactly ``teach_eval.py``'s stage figures). A variant is

- features: ``shape`` (what the stage uses: ``hand_features``, wrist-relative points in
  hand sizes and the wrist/fingertip distances), ``shape+angles`` (and the 15 finger-joint
  bend angles and 4 spreads between neighbouring fingers), ``angles`` (those 19 alone),
  ``upright`` (points rotated so the wrist-to-middle-knuckle axis points up, left hands
  mirrored onto right ones, the axis' direction kept as two numbers, distances, angles);
- classifier: ``knn5`` (the stage's: 5 neighbours, uniform votes), ``knn5-std`` (the same on
  standardised features), ``logreg`` (logistic regression, C = 0.1, standardised), ``svc``
  (RBF support vectors, standardised, ``random_state=0``);
- smoothing: each hand's class probabilities averaged over the last 0 or 0.2 s;
- gate: below 0 or 0.6 confidence the answer is ``none`` (counted wrong).

Printed per variant: stage accuracy per split, per clip, and the balanced accuracy (mean
over the true classes of the share named right: v02 is 11 pinch frames in ~100, so a model
that never names a pinch has accuracy ~0.90 there and balanced 0.50). Then the honest
figure: for each clip, the variant best on the *other* clip (mean of accuracy and balanced
accuracy), scored on this one, beside the current model.

    .venv-hands/bin/python benchmarks/teach_variants.py
"""
from __future__ import annotations

import itertools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hands_eval import frames_of
from teach_eval import SPLITS, Seen, Split, balanced, hands_of, have_hand_clips

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.vision.hand_gestures import FINGERS, GestureState
from sensekit.vision.taught import _spaced as spaced  # at most 60 per class, evenly spaced in time
from sensekit.vision.taught import MAX_EXAMPLES, hand_features

_CHAINS = [(0, *joints) for joints in FINGERS.values()]


def _angle(u: np.ndarray, v: np.ndarray) -> float:
    c = float(u @ v) / (float(np.linalg.norm(u) * np.linalg.norm(v)) + 1e-9)
    return float(np.arccos(np.clip(c, -1.0, 1.0)) / np.pi)


def angles(points: np.ndarray) -> np.ndarray:
    """15 bend angles (3 joints per finger) and 4 spreads between neighbouring fingers, 0..1."""
    p = points[:, :2]
    bends = [_angle(p[a] - p[b], p[c] - p[b]) for chain in _CHAINS for a, b, c in zip(chain, chain[1:], chain[2:])]
    dirs = [p[chain[-1]] - p[chain[1]] for chain in _CHAINS]
    spreads = [_angle(u, v) for u, v in itertools.pairwise(dirs)]
    return np.array(bends + spreads)


def upright(points: np.ndarray, handedness: str) -> np.ndarray:
    """Points relative to the wrist, left hands mirrored, rotated so the palm axis points up,
    in hand sizes; then the axis' direction (cos, sin)."""
    rel = points[:, :2] - points[0, :2]
    if handedness == "left":
        rel = rel * np.array([-1.0, 1.0])
    axis = rel[9]
    turn = float(np.arctan2(axis[0], -axis[1]))
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    out = (rel @ rot.T) / (float(np.linalg.norm(axis)) + 1e-9)
    return np.concatenate([out.ravel(), [np.cos(turn), np.sin(turn)]])


FEATURES: dict[str, Callable[[Seen], np.ndarray]] = {
    "shape": lambda h: hand_features(h.points),
    "shape+angles": lambda h: np.concatenate([hand_features(h.points), angles(h.points)]),
    "angles": lambda h: angles(h.points),
    "upright": lambda h: np.concatenate([upright(h.points, h.handedness), hand_features(h.points)[42:],
                                         angles(h.points)]),
}


def classifiers() -> dict[str, Callable[[], Any]]:
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC
    return {
        "knn5": lambda: KNeighborsClassifier(5, algorithm="brute"),
        "knn5-std": lambda: make_pipeline(StandardScaler(), KNeighborsClassifier(5, algorithm="brute")),
        "logreg": lambda: make_pipeline(StandardScaler(), LogisticRegression(C=0.1, max_iter=5000)),
        "svc": lambda: make_pipeline(StandardScaler(), SVC(probability=True, random_state=0)),
    }


def score(split: Split, hands: list[Seen], feats: dict[int, np.ndarray], make: Callable[[], Any],
          smooth_s: float, gate: float) -> tuple[float, float]:
    """(accuracy, balanced accuracy) of the held answer on the split's test hands."""
    _, _, teach, truth = split
    names = sorted(teach)
    kept = [spaced([feats[id(h)] for h in teach[name]], MAX_EXAMPLES) for name in names]
    x = [f for rows in kept for f in rows]
    y = [k for k, rows in enumerate(kept) for _ in rows]
    model = make().fit(np.array(x), np.array(y))
    proba = model.predict_proba(np.array([feats[id(h)] for h in hands]))
    recent: dict[int, list[tuple[float, np.ndarray]]] = {}
    states: dict[int, GestureState] = {}
    pairs = []
    for h, p in zip(hands, proba):
        window = [(t, q) for t, q in recent.get(h.id, []) if h.t - t <= smooth_s + 1e-9] + [(h.t, p)]
        recent[h.id] = window
        mean = np.mean([q for _, q in window], axis=0)
        best = int(np.argmax(mean))
        name = names[int(model.classes_[best])] if mean[best] >= gate else "none"
        state = states.setdefault(h.id, GestureState(0.1))
        state.update(name, h.t)
        if h.frame in truth:
            pairs.append((truth[h.frame], state.current or "none"))
    return float(np.mean([t == g for t, g in pairs])), balanced(pairs)


def held_out_choice(table: dict[Any, dict[str, np.ndarray]], variants: list[Any], current: Any, clips: list[str],
                    best_here: bool = False) -> None:
    """Print, for each clip, the variant best on the other clip (mean of accuracy and balanced
    accuracy) scored on this one, beside the current model (and, with ``best_here``, the best on
    this clip itself, not held out); then the means over the four splits."""
    def merit(v: Any, clip: str) -> float:
        return float(table[v][clip].mean())

    print("leave one clip out: the variant best on the other clip (mean of accuracy and balanced), "
          "scored on this one")
    held: list[np.ndarray] = []
    for clip in clips:
        other = next(c for c in clips if c != clip)
        chosen = max(variants, key=lambda v: merit(v, other))
        held.append(table[chosen][clip])
        acc, fair = table[chosen][clip].mean(axis=0)
        cur_acc, cur_fair = table[current][clip].mean(axis=0)
        line = (f"  {clip}: chosen on {other} {chosen}: accuracy {acc:.3f}, balanced {fair:.3f}; "
                f"current model {cur_acc:.3f}, {cur_fair:.3f}")
        if best_here:
            top = max(variants, key=lambda v: merit(v, clip))
            top_acc, top_fair = table[top][clip].mean(axis=0)
            line += f"; best on {clip} itself (not held out) {top}: {top_acc:.3f}, {top_fair:.3f}"
        print(line)
    h = np.vstack(held)
    c = np.vstack([table[current][clip] for clip in clips])
    print(f"mean over the four splits: held-out choice {h[:, 0].mean():.3f} (balanced {h[:, 1].mean():.3f}), "
          f"current model {c[:, 0].mean():.3f} (balanced {c[:, 1].mean():.3f})")


def main() -> int:
    if not have_hand_clips():
        return 2
    clips = {clip: hands_of(frames_of(clip)) for clip in SPLITS}
    splits = {clip: make(clips[clip]) for clip, make in SPLITS.items()}
    variants = list(itertools.product(FEATURES, classifiers(), (0.0, 0.2), (0.0, 0.6)))
    makers = classifiers()
    feats = {name: {id(h): f(h) for hands in clips.values() for h in hands} for name, f in FEATURES.items()}
    table: dict[tuple[str, str, float, float], dict[str, np.ndarray]] = {}
    print("variant (features, classifier, smoothing s, gate): stage accuracy per split | per clip "
          "(accuracy, balanced)")
    for v in variants:
        fname, cname, smooth_s, gate = v
        table[v] = {clip: np.array([score(s, clips[clip], feats[fname], makers[cname], smooth_s, gate)
                                    for s in splits[clip]]) for clip in clips}
        per_split = " ".join(f"{a:.3f}" for clip in clips for a in table[v][clip][:, 0])
        per_clip = "  ".join(f"{clip} {table[v][clip][:, 0].mean():.3f} {table[v][clip][:, 1].mean():.3f}"
                             for clip in clips)
        print(f"  {fname:12s} {cname:8s} {smooth_s:.1f} {gate:.1f}: {per_split} | {per_clip}", flush=True)

    held_out_choice(table, variants, ("shape", "knn5", 0.0, 0.6), list(clips), best_here=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
