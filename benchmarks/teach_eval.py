#!/usr/bin/env python3
"""Taught gestures on the developer hand clips: teach on one part, test on another (needs the extra).

The hand stage (default settings) runs once over each clip; every ``hand`` event gives one
example (``sensekit.vision.taught.hand_features``). Labels are the human ones:

- v04 (an ASL signer, four signs, two hands; ``annotations/v04_*_segments.csv``): four classes,
  book, learn, school, walk. Teach on the first half of each sign's frames, test on the second
  half, then the other way round;
- v02 (a hand flipping, pinching twice, labels ~95-105 and ~140-150): two classes, pinch
  (frames 95-105 and 140-150) and other. Teach on frames 0-122 (the first pinch), test on
  123-214 (the second), then the other way round.

No two developer clips share a gesture, so there is no leave-one-clip-out split here; and no
class has 5 s of examples (the signs last 2.0-3.6 s, a pinch 0.3 s): every class is taught on
what its half holds. Prints per split the accuracy over the test hands: of the gesture the hand
stage with the taught model reports (what a user gets: a change holds 100 ms) and of the
model's frame-by-frame answer; and what the stage got wrong.

    .venv-hands/bin/python benchmarks/teach_eval.py
"""
from __future__ import annotations

import csv
import sys
from collections import Counter
from pathlib import Path

from _reference import SHARED_DATA
from hands_eval import frames_of  # the developer hand clips as frames, one reader for both

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.capture.base import VideoFrame
from sensekit.vision.hands import HandStage
from sensekit.vision.taught import TaughtGestures, hand_features

DATA = SHARED_DATA / "video" / "hands"


def hands_of(frames: list[VideoFrame], taught: TaughtGestures | None = None) -> list[tuple[int, np.ndarray, str]]:
    """(frame index, features, the stage's gesture) for every hand the stage reports."""
    stage = HandStage(taught=taught)
    out = [(f.index, hand_features(np.array(e.landmarks)), e.gesture)
           for f in frames for e in stage.process(f) if e.name == "hand"]
    stage.close()
    return out


def report(title: str, frames: list[VideoFrame], teach: dict[str, list[np.ndarray]],
           truth: dict[int, str]) -> tuple[float, float]:
    """Accuracy on the test frames (``truth``: frame -> label) of each hand's frame-by-frame
    prediction, and of the gesture the stage with the model reports (held 100 ms)."""
    model = TaughtGestures().fit(teach)
    seen = hands_of(frames, model)
    test = [(truth[k], x, g) for k, x, g in seen if k in truth]
    raw = np.mean([model.predict(x)[0] == t for t, x, _ in test])
    held = np.mean([g == t for t, _, g in test])
    confusion = Counter((t, g) for t, _, g in test if g != t)
    sizes = ", ".join(f"{k} {len(v)}" for k, v in sorted(teach.items()))
    wrong = ", ".join(f"{t}->{p} {n}" for (t, p), n in sorted(confusion.items())) or "-"
    print(f"  {title}: stage {held:.3f}, per frame {raw:.3f} on {len(test)} test hands (taught: {sizes}); "
          f"stage wrong: {wrong}")
    return float(held), float(raw)


def v04() -> list[tuple[float, float]]:
    rows = list(csv.DictReader(next((DATA / "annotations").glob("v04_*segments.csv")).open()))
    signs = [(r["label"].split('"')[1], int(r["start_frame"]), int(r["end_frame"])) for r in rows]
    frames = frames_of("v04")
    hands = hands_of(frames)
    halves: list[dict[str, list[np.ndarray]]] = [{}, {}]
    labels: list[dict[int, str]] = [{}, {}]
    for name, a, b in signs:
        mid = (a + b) // 2
        halves[0][name] = [x for k, x, _ in hands if a <= k <= mid]
        halves[1][name] = [x for k, x, _ in hands if mid < k <= b]
        labels[0].update({k: name for k in range(a, mid + 1)})
        labels[1].update({k: name for k in range(mid + 1, b + 1)})
    return [report(f"v04 teach {'first' if i == 0 else 'second'} halves", frames, halves[i], labels[1 - i])
            for i in (0, 1)]


def v02() -> list[tuple[float, float]]:
    frames = frames_of("v02")
    hands = hands_of(frames)
    pinch = set(range(95, 106)) | set(range(140, 151))
    bounds = [(0, 123), (123, 215)]

    def label(k: int) -> str:
        return "pinch" if k in pinch else "other"

    parts = [{"pinch": [x for k, x, _ in hands if lo <= k < hi and k in pinch],
              "other": [x for k, x, _ in hands if lo <= k < hi and k not in pinch]} for lo, hi in bounds]
    return [report(f"v02 teach frames {bounds[i][0]}-{bounds[i][1] - 1}", frames, parts[i],
                   {k: label(k) for k in range(*bounds[1 - i])}) for i in (0, 1)]


def main() -> int:
    if not (DATA / "videos").is_dir():
        print(f"hand clips not found at {DATA}", file=sys.stderr)
        return 2
    print("taught gestures, teach on one part, test on the other")
    accs = np.array(v04() + v02())
    print(f"mean accuracy over the four splits: stage {accs[:, 0].mean():.3f}, per frame {accs[:, 1].mean():.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
