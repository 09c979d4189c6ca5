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
model's frame-by-frame answer; the stage's balanced accuracy (the mean over the true classes
of the share named right: v02's test parts are 11 pinch frames in ~100, so a model that never
names a pinch has accuracy ~0.9 there and balanced 0.5); and what the stage got wrong.
``teach_variants.py`` scores variants of the model on the same splits.

    .venv-hands/bin/python benchmarks/teach_eval.py
"""
from __future__ import annotations

import csv
import sys
from collections import Counter
from typing import NamedTuple
from pathlib import Path

from _reference import SHARED_DATA
from hands_eval import frames_of  # the developer hand clips as frames, one reader for both

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.capture.base import VideoFrame
from sensekit.events import Hand
from sensekit.vision.hands import HandStage
from sensekit.vision.taught import TaughtGestures, hand_features

DATA = SHARED_DATA / "video" / "hands"


def have_hand_clips() -> bool:
    """Whether the hand clips are there (else a one-line message on stderr): the teach benchmarks
    exit with status 2 without them."""
    if (DATA / "videos").is_dir():
        return True
    print(f"hand clips not found at {DATA}", file=sys.stderr)
    return False


class Seen(NamedTuple):
    """One hand the stage reported on one frame (``frame``: its index; ``index`` would hide the tuple's method)."""

    frame: int
    t: float
    id: int
    handedness: str
    points: np.ndarray
    gesture: str


Split = tuple[str, str, dict[str, list[Seen]], dict[int, str]]   # title, clip, taught hands, truth


def hands_of(frames: list[VideoFrame], taught: TaughtGestures | None = None) -> list[Seen]:
    """Every hand the stage reports, with the gesture it reports."""
    stage = HandStage(taught=taught)
    out = [Seen(f.index, f.t, e.id, e.handedness, np.array(e.landmarks), e.gesture)
           for f in frames for e in stage.process(f) if isinstance(e, Hand)]
    stage.close()
    return out


def balanced(pairs: list[tuple[str, str]]) -> float:
    """Mean over the true classes of the share named right (a model that never names a rare
    class scores 1/classes on it, however rare)."""
    truths = sorted({t for t, _ in pairs})
    return float(np.mean([np.mean([g == t for t2, g in pairs if t2 == t]) for t in truths]))


def report(split: Split, frames: list[VideoFrame]) -> tuple[float, float, float]:
    """Accuracy on the test frames of the gesture the stage with the model reports (held
    100 ms), of each hand's frame-by-frame prediction, and the stage's balanced accuracy."""
    title, _, teach, truth = split
    model = TaughtGestures().fit({name: [hand_features(h.points) for h in rows] for name, rows in teach.items()})
    test = [(truth[h.frame], hand_features(h.points), h.gesture) for h in hands_of(frames, model) if h.frame in truth]
    raw = np.mean([model.predict(x)[0] == t for t, x, _ in test])
    held = np.mean([g == t for t, _, g in test])
    fair = balanced([(t, g) for t, _, g in test])
    confusion = Counter((t, g) for t, _, g in test if g != t)
    sizes = ", ".join(f"{k} {len(v)}" for k, v in sorted(teach.items()))
    wrong = ", ".join(f"{t}->{p} {n}" for (t, p), n in sorted(confusion.items())) or "-"
    print(f"  {title}: stage {held:.3f} (balanced {fair:.3f}), per frame {raw:.3f} on {len(test)} test hands "
          f"(taught: {sizes}); stage wrong: {wrong}")
    return float(held), float(raw), fair


def v04_splits(hands: list[Seen]) -> list[Split]:
    """Teach on the first half of each sign's frames, test on the second; and the other way."""
    rows = list(csv.DictReader(next((DATA / "annotations").glob("v04_*segments.csv")).open()))
    signs = [(r["label"].split('"')[1], int(r["start_frame"]), int(r["end_frame"])) for r in rows]
    halves: list[dict[str, list[Seen]]] = [{}, {}]
    labels: list[dict[int, str]] = [{}, {}]
    for name, a, b in signs:
        mid = (a + b) // 2
        halves[0][name] = [h for h in hands if a <= h.frame <= mid]
        halves[1][name] = [h for h in hands if mid < h.frame <= b]
        labels[0].update({k: name for k in range(a, mid + 1)})
        labels[1].update({k: name for k in range(mid + 1, b + 1)})
    return [(f"v04 teach {'first' if i == 0 else 'second'} halves", "v04", halves[i], labels[1 - i]) for i in (0, 1)]


def v02_splits(hands: list[Seen]) -> list[Split]:
    """Teach on frames 0-122 (the first pinch), test on 123-214 (the second); and the other way."""
    pinch = set(range(95, 106)) | set(range(140, 151))
    bounds = [(0, 123), (123, 215)]

    def label(k: int) -> str:
        return "pinch" if k in pinch else "other"

    parts = [{"pinch": [h for h in hands if lo <= h.frame < hi and h.frame in pinch],
              "other": [h for h in hands if lo <= h.frame < hi and h.frame not in pinch]} for lo, hi in bounds]
    return [(f"v02 teach frames {bounds[i][0]}-{bounds[i][1] - 1}", "v02", parts[i],
             {k: label(k) for k in range(*bounds[1 - i])}) for i in (0, 1)]


SPLITS = {"v04": v04_splits, "v02": v02_splits}


def main() -> int:
    if not have_hand_clips():
        return 2
    print("taught gestures, teach on one part, test on the other")
    accs = []
    for clip, splits in SPLITS.items():
        frames = frames_of(clip)
        accs += [report(split, frames) for split in splits(hands_of(frames))]
    a = np.array(accs)
    print(f"mean accuracy over the four splits: stage {a[:, 0].mean():.3f} (balanced {a[:, 2].mean():.3f}), "
          f"per frame {a[:, 1].mean():.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
