"""Let the frames after a click choose its box: follow a few candidate extents, keep the one that
stays an object.

A measured click (``extent.ranked_extent``) has several plausible boxes: the object, a part of
it, the object with the hand that holds it. The tracker starts from the best-scored one at once
(the app shows it). ``ClickChoice`` also starts a colour model (``color_model.ColorModel``, the
tracker's own) from each of the next ``k - 1`` distinct boxes, follows them for
``after_frames`` frames, and then scores every candidate by how well it stayed an object
(``FEATURES``): the click's own consensus value, the followers' confidence and appearance
match, how often they were found, how much their size changed, and, on the last frame, the
colour separation of the followed box from its ring and how differently from its ring it moved
(``extent.motion_separation``, 2 and 6 frames back). The weights (``click_choice_model.py``)
are fitted by ``benchmarks/train_click_choice.py``; the tracker takes the chosen follower's
model, once.

Cost: ``k - 1`` model starts at the click (~3-5 ms each at 640x480), ``k - 1`` model updates
per frame until the choice (~2-8 ms each, growing with the box), and at the choice two optical
flows at 320 px (~15 ms) and the cues. Failure modes: a candidate that is a part of a rigid
object moves, and keeps its colours, like the whole; then the click's own value decides.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from sensekit.vision import click_choice_model
from sensekit.vision.color_model import ColorModel, MaskMatch, ModelSettings
from sensekit.vision.extent import HISTORY_FRAMES, _colour_sep, _lab_bins, _rects, _small, motion_separation
from sensekit.vision.segment import Segment

__all__ = ["ClickChoice", "FEATURES", "choice_scores"]

FEATURES = ("value", "confidence", "appearance", "found", "size_change", "colour_sep", "motion_sep")


class _Follow:
    """One candidate's running statistics over the frames since the click."""

    def __init__(self, box: Sequence[float]) -> None:
        self.start_box = tuple(float(v) for v in box)
        self.box = self.start_box
        self.frames = self.found = 0
        self.confidence = self.appearance = 0.0

    def add(self, match: MaskMatch, appearance: float) -> None:
        self.frames += 1
        found, box, conf = match[0], match[1], match[6]
        self.appearance += appearance
        if found and box[2] > 0 and box[3] > 0:
            self.found += 1
            self.confidence += conf
            self.box = tuple(float(v) for v in box)

    def cues(self) -> tuple[float, float, float, float]:
        n = max(1, self.frames)
        w0, h0 = self.start_box[2:]
        w, h = self.box[2:]
        size = abs(float(np.log(max(w, 1.0) / max(w0, 1.0)))) + abs(float(np.log(max(h, 1.0) / max(h0, 1.0))))
        return self.confidence / n, self.appearance / n, self.found / n, size


def choice_scores(cues: np.ndarray) -> np.ndarray:
    """The weighted sum of the standardised cues (``click_choice_model.ACTIVE``); another
    candidate is kept only when it scores ``margin`` more than the first."""
    m = click_choice_model.ACTIVE
    s: np.ndarray = ((cues - np.asarray(m["mean"])) / np.asarray(m["std"])) @ np.asarray(m["weights"])
    return s


class ClickChoice:
    """The candidates of one click: ``add`` each tracked frame, then ``decide`` once.

    ``candidates``: the click's segments, best first (the tracker follows the first with its
    own model); ``values``: their consensus values (``extent.ranked_extent``)."""

    def __init__(self, frame: np.ndarray, candidates: Sequence[Segment], values: Sequence[float],
                 settings: ModelSettings, after_frames: int) -> None:
        self.after_frames = max(after_frames, max(HISTORY_FRAMES))
        self.candidates = list(candidates)
        self.values = np.asarray(values, np.float64)
        self.models: list[ColorModel | None] = [None]
        for seg in self.candidates[1:]:
            m = ColorModel(settings)
            m.start(frame, seg)
            self.models.append(m)
        self.follow = [_Follow(seg.box) for seg in self.candidates]
        self.seen = 0
        #: the frames the motion cue compares the last one with (2 and 6 frames back)
        self.back: dict[int, np.ndarray] = {k: frame.copy() for k in HISTORY_FRAMES if k == self.after_frames}
        #: what was decided: ``None`` before, then each candidate's cues (``FEATURES``)
        self.cues: np.ndarray | None = None

    @property
    def due(self) -> bool:
        return self.seen >= self.after_frames

    def add(self, frame: np.ndarray, match: MaskMatch, appearance: float) -> None:
        """One more frame: the tracker's own ``match`` (and its appearance) for the first
        candidate; the other candidates' models follow them."""
        self.seen += 1
        for k in HISTORY_FRAMES:
            if self.seen == self.after_frames - k:
                self.back[k] = frame.copy()
        self.follow[0].add(match, appearance)
        for m, f in zip(self.models[1:], self.follow[1:]):
            assert m is not None
            f.add(m.update(frame, search_all=False, lost=False), m.appearance)

    def features(self, frame: np.ndarray, history: Sequence[np.ndarray]) -> np.ndarray:
        """Every candidate's cues (``FEATURES``) on ``frame``, the last one followed;
        ``history``: frames before it, oldest first (at least 6)."""
        small, f = _small(frame)
        h, w = small.shape[:2]
        bins = _lab_bins(small)
        boxes = [fl.box for fl in self.follow]
        motion = motion_separation(frame, boxes, history)
        out = np.zeros((len(boxes), len(FEATURES)))
        top = max(float(self.values[0]), 1e-9)
        for i, fl in enumerate(self.follow):
            out[i] = (float(self.values[i]) / top, *fl.cues(), _colour_sep(bins, *_rects(fl.box, f, w, h)),
                      motion[i])
        return out

    def decide(self, frame: np.ndarray) -> int:
        """The candidate to keep (0: the one the tracker follows already)."""
        far, near = (self.back.get(k, frame) for k in (max(HISTORY_FRAMES), min(HISTORY_FRAMES)))
        seq = [far] + [near] * (max(HISTORY_FRAMES) - 1)      # what motion_separation reads: [-6], [-2]
        self.cues = self.features(frame, seq)
        s = choice_scores(self.cues)
        best = int(np.argmax(s))
        return best if s[best] - s[0] > float(click_choice_model.ACTIVE.get("margin", 0.0)) else 0

    def reseed(self, i: int, frame: np.ndarray) -> tuple[ColorModel, Segment]:
        """Candidate ``i``'s model and its box on ``frame`` as a segment (for drawing)."""
        m = self.models[i]
        assert m is not None
        x, y, bw, bh = (int(round(v)) for v in self.follow[i].box)
        mask = np.zeros(frame.shape[:2], bool)
        mask[max(0, y):y + bh, max(0, x):x + bw] = True
        return m, Segment((x, y, bw, bh), mask, "proposal")

