#!/usr/bin/env python3
"""Taught gestures as movements: short-window sequence models on teach_eval's splits (needs the extra).

The signs of v04 are movements (the hands rise into them), which the stage's frame-by-frame
shape model cannot name. This scores, on the same four splits and the same way as
``teach_variants.py`` (each hand's answer held 100 ms, a variant chosen on one clip and scored
on the other), models of the last moments of each hand (same hand id):

- ``stack``: the stage's 57 shape numbers at frames t, t-3, t-6 of that hand (the earliest seen
  frame repeated when the hand is younger), k-NN k = 5, plain or standardised;
- ``dtw``: the hand's shape numbers over the last 0.3 or 0.6 s against windows of the same
  length ending at each taught hand, dynamic time warping (Euclidean frame cost, summed along
  the path, divided by the two lengths), k = 5 nearest windows;
- either with ``+move``: each frame's wrist position relative to the window's last wrist, in
  hand sizes (the rise into a sign), added to the shape numbers; ``+move5``: the same times 5
  (2 numbers among 57 weigh little in a Euclidean distance).

Windows never mix the parts of a split: a taught window holds only frames of its class's taught
range, a test window only frames outside the taught ranges (no test answer sees a taught frame).
Smoothing 0 or 0.2 s, gate 0 or 0.6, as in ``teach_variants.py``; the current model
(shape, knn5, no smoothing, gate 0.6) is scored beside.

    .venv-hands/bin/python benchmarks/teach_sequence.py [hands.pkl]

With a path, the hand stage's output is kept there the first time and read after.
"""
from __future__ import annotations

import itertools
import pickle
import sys
from pathlib import Path
from typing import Any

from hands_eval import frames_of
from teach_eval import SPLITS, Seen, Split, hands_of, have_hand_clips
from teach_variants import classifiers, held_out_choice, score

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.vision.taught import hand_features

Variant = tuple[str, str, float, float]     # features, model, smoothing s, gate


def load(cache: Path | None) -> dict[str, list[Seen]]:
    if cache is not None and cache.exists():
        with cache.open("rb") as f:
            return {c: [Seen(*row) for row in rows] for c, rows in pickle.load(f).items()}
    clips = {clip: hands_of(frames_of(clip)) for clip in SPLITS}
    if cache is not None:
        with cache.open("wb") as f:
            pickle.dump({c: [tuple(h) for h in hs] for c, hs in clips.items()}, f)
    return clips


def frame_rows(h: Seen, anchor: Seen, move: float) -> np.ndarray:
    """One frame of a window: shape numbers, and with ``move`` > 0 the wrist relative to the
    window's last wrist in that hand's sizes, times ``move``."""
    shape = hand_features(h.points)
    if not move:
        return shape
    size = max(float(np.linalg.norm(anchor.points[9, :2] - anchor.points[0, :2])), 1e-6)
    return np.concatenate([shape, move * (h.points[0, :2] - anchor.points[0, :2]) / size])


def history(hands: list[Seen], allowed: set[int], h: Seen, seconds: float) -> list[Seen]:
    """The frames of hand ``h.id`` within ``seconds`` before ``h`` (and ``h``), only of ``allowed`` frames."""
    return [g for g in hands if g.id == h.id and g.frame in allowed and h.t - seconds - 1e-9 <= g.t <= h.t]


class DTWNeighbours:
    """k-NN over window keys (an index into ``store``), DTW distance."""

    def __init__(self, store: list[np.ndarray], k: int = 5) -> None:
        self.store, self.k = store, k

    def fit(self, x: np.ndarray, y: np.ndarray) -> DTWNeighbours:
        self.keys = x[:, 0].astype(int)
        self.y = np.asarray(y)
        self.classes_ = np.unique(self.y)
        wins = [self.store[k] for k in self.keys]
        self.lengths = np.array([len(w) for w in wins])
        m, d = int(self.lengths.max()), wins[0].shape[1]
        self.padded = np.zeros((len(wins), m, d))
        for i, w in enumerate(wins):
            self.padded[i, :len(w)] = w
        return self

    def distances(self, q: np.ndarray) -> np.ndarray:
        n, m = len(q), self.padded.shape[1]
        cost = np.linalg.norm(self.padded[:, None, :, :] - q[None, :, None, :], axis=3)   # (N, n, m)
        acc = np.full((len(cost), n + 1, m + 1), np.inf)
        acc[:, 0, 0] = 0.0
        for i in range(1, n + 1):
            for j in range(1, m + 1):
                acc[:, i, j] = cost[:, i - 1, j - 1] + np.minimum(np.minimum(acc[:, i - 1, j], acc[:, i, j - 1]),
                                                                  acc[:, i - 1, j - 1])
        out: np.ndarray = acc[np.arange(len(cost)), n, self.lengths] / (n + self.lengths)
        return out

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        out = np.zeros((len(x), len(self.classes_)))
        for r, key in enumerate(x[:, 0].astype(int)):
            near = np.argsort(self.distances(self.store[key]), kind="stable")[:self.k]
            for lab in self.y[near]:
                out[r, int(np.searchsorted(self.classes_, lab))] += 1.0 / self.k
        return out


def split_feats(split: Split, hands: list[Seen], kind: str) -> tuple[dict[int, np.ndarray], list[np.ndarray]]:
    """Per hand (by ``id(h)``) the vector the model sees for this split; for DTW a key into the store."""
    _, _, teach, _ = split
    taught_frames = {name: {h.frame for h in rows} for name, rows in teach.items()}
    every_taught = set().union(*taught_frames.values())
    untaught = {h.frame for h in hands} - every_taught
    move = 5.0 if kind.endswith("+move5") else 1.0 if kind.endswith("+move") else 0.0
    feats: dict[int, np.ndarray] = {}
    store: list[np.ndarray] = []

    def window(h: Seen, allowed: set[int], seconds: float) -> np.ndarray:
        return np.array([frame_rows(g, h, move) for g in history(hands, allowed, h, seconds)])

    def allowed_for(h: Seen) -> set[int]:
        return next((s for s in taught_frames.values() if h.frame in s), untaught)

    for h in hands:
        allowed = allowed_for(h)
        if kind.startswith("stack"):
            w = window(h, allowed, 0.25)            # t-6 at 25-30 fps
            picks = [w[max(len(w) - 1 - lag, 0)] for lag in (0, 3, 6)]
            feats[id(h)] = np.concatenate(picks)
        else:
            seconds = float(kind.split("+")[0].split("-")[1])
            feats[id(h)] = np.array([float(len(store))])
            store.append(window(h, allowed, seconds))
    return feats, store


def main() -> int:
    if not have_hand_clips():
        return 2
    clips = load(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
    splits = {clip: make(clips[clip]) for clip, make in SPLITS.items()}
    knn = classifiers()
    models = {"stack": ["knn5", "knn5-std"], "stack+move": ["knn5", "knn5-std"],
              "dtw-0.3": ["dtw5"], "dtw-0.6": ["dtw5"], "dtw-0.3+move": ["dtw5"], "dtw-0.6+move": ["dtw5"],
              "stack+move5": ["knn5", "knn5-std"], "dtw-0.3+move5": ["dtw5"]}
    table: dict[Variant, dict[str, np.ndarray]] = {}
    current: Variant = ("shape", "knn5", 0.0, 0.6)
    shape = {id(h): hand_features(h.points) for hands in clips.values() for h in hands}
    table[current] = {clip: np.array([score(s, clips[clip], shape, knn["knn5"], 0.0, 0.6) for s in splits[clip]])
                      for clip in clips}
    print("variant (features, model, smoothing s, gate): stage accuracy per split | per clip (accuracy, balanced)")
    for kind, names in models.items():
        prepared = {clip: [split_feats(s, clips[clip], kind) for s in splits[clip]] for clip in clips}
        for mname, smooth_s, gate in itertools.product(names, (0.0, 0.2), (0.0, 0.6)):
            v: Variant = (kind, mname, smooth_s, gate)
            rows: dict[str, np.ndarray] = {}
            for clip in clips:
                out = []
                for s, (feats, store) in zip(splits[clip], prepared[clip]):
                    make: Any = (lambda st=store: DTWNeighbours(st)) if mname == "dtw5" else knn[mname]
                    out.append(score(s, clips[clip], feats, make, smooth_s, gate))
                rows[clip] = np.array(out)
            table[v] = rows
            per_split = " ".join(f"{a:.3f}" for clip in clips for a in rows[clip][:, 0])
            per_clip = "  ".join(f"{c} {rows[c][:, 0].mean():.3f} {rows[c][:, 1].mean():.3f}" for c in clips)
            print(f"  {kind:13s} {mname:8s} {smooth_s:.1f} {gate:.1f}: {per_split} | {per_clip}", flush=True)
    held_out_choice(table, [v for v in table if v != current], current, list(clips))
    return 0


if __name__ == "__main__":
    sys.exit(main())
