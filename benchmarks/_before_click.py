"""The image embedding computed before the click (``track_eval.py --point-prompt SAM_ROOT
--point-prompt-before K``, branch ``click27``; evaluation only, not shipped).

The design measured, declared before any figure: a live app runs MobileSAM's image encoder all
the time off the frame loop, on the newest frame, one embedding every E frames (E = the
encoder's cost at 30 fps: ONNX int8 at 1024 px, 930 ms, E = 28, ``click26``). A click on frame
t then pays only the decoder, on the newest finished embedding: that of an older frame t - k,
k between E and 2E. ``track_eval`` runs one k for every click, ``K`` (the runs of ``click27``:
K = 42, the mean 1.5E, and K = 56, the worst 2E); a start with fewer than K frames before it
(the first start of a clip, frame 6) uses all it has, k = t (``frames_back``), which is told
apart in the tables.

The box at the click (``before_point_prompt_tracker``): SAM's decoder prompted with the click
point, in frame t's coordinates, on frame t - k's embedding; the mask of highest predicted IoU
(the rule ``point_prompt_eval.py`` declared first); its box on frame t - k starts a second
tracker that runs over frames t - k + 1 .. t (a live app keeps them in a ring buffer:
``ring_megabytes``) and on from there. The click starts the shipped tracker as live; the second
tracker's answers replace it from ``DECODER_FRAMES`` frames after the click (the decoder's
120 ms at 30 fps). Where SAM's mask is empty or the shipped click picked nothing, the shipped
tracker goes on alone. The point moved back to frame t - k (the shipped tracker run backwards)
was not tried by ``click27``.

``--carry-back`` (branch ``click28``, declared before any figure): the click point is carried back
to frame t - k before SAM is prompted. A tracker of the shipped kind (``ExperimentTracker`` with the
run's settings) started from the shipped click's box on frame t (``pick_box``; where the shipped
click picked nothing, nothing is carried and the shipped tracker goes on alone, as before) runs
backwards over the ring buffer's frames t - 1, t - 2 .. t - k (its clock forward, 1/30 s a frame).
The point on t - k is the click point moved by the displacement of the tracked box's centre from
the first box's centre (``carry_point``: the click's offset from the box's centre kept in pixels),
clamped inside the frame. Where the backward tracker reports lost, the displacement of its last
found box is kept (the point stops where it was last seen; a loss on t - 1 leaves the raw point).
SAM's decoder is then prompted there on t - k's embedding and ``click27``'s catch-up runs as
before. Recorded per click: the carried point (``ClipFrames.points``, scored against the true box
of t - k by ``points_on_object``) and the CPU ms of the backward pass and of the catch-up
(``ClipFrames.cpu_ms``; the decoder's 120 ms is ``click26``'s figure).

``--carry-back --carry-box`` (branch ``click29``, declared before any figure): as ``--carry-back``, but
SAM's decoder is prompted with the carried point **and the backward tracker's box on t - k**
(``backward_box``: its last found box where it reports lost, the shipped click's box for a loss on
t - 1, clamped inside the frame by ``clamp_box``), SAM's box prompt giving one mask. Recorded per
click beside the carried point: that box (``ClipFrames.back_boxes``, scored against the true box of
t - k by ``track_eval``).

``ClipFrames`` gives the tracker the frames before each start of one clip (``evaluate_clip``
hands a click only the 6 frames the shipped click looks back on) and keeps each click's caught-up
box at the click, so ``track_eval`` prints its size ok beside the tracked success.
"""
from __future__ import annotations

import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from _first_box_hooks import Box, ShadowedTracker, frame_key, mask_box

from sensekit.errors import ConfigError
from sensekit.evaluation.vision.evaluate import iou

if TYPE_CHECKING:
    from sensekit.evaluation.vision.extent_experiment import ExperimentTracker

ENCODER_MS = 930.0        # ONNX Runtime int8 at 1024 px, one thread (click26)
DECODER_MS = 120.0        # SAM's prompt encoder and mask decoder at 1024 px (click26)
FPS = 30.0


def frames_in(ms: float, fps: float = FPS) -> int:
    """The frames ``ms`` of work take at ``fps`` (rounded, at least 1); ``ValueError`` for a
    negative or non-finite cost."""
    if not math.isfinite(ms) or ms < 0 or fps <= 0:
        raise ValueError(f"a cost must be a finite non-negative ms at a positive fps, got {ms} ms at {fps} fps")
    return max(1, int(round(ms * fps / 1000.0)))


ENCODER_FRAMES = frames_in(ENCODER_MS)       # E = 28
DECODER_FRAMES = frames_in(DECODER_MS)       # 4


def frames_back(t: int, k: int) -> int:
    """The frame whose embedding a click on frame ``t`` is answered from, ``k`` frames back (the
    clip's first frame where there are fewer); ``ConfigError`` for k below 1 or a negative t."""
    if k < 1:
        raise ConfigError(f"--point-prompt-before must be at least 1 frame, got {k}")
    if t < 0:
        raise ValueError(f"a frame index is not negative, got {t}")
    return max(0, t - k)


def ring_megabytes(k: int, width: int = 640, height: int = 480, channels: int = 3) -> float:
    """The memory (MB, 10^6 bytes) of a ring buffer that holds the ``k`` frames since the oldest
    embedding a click may be answered from and the click's frame (k + 1 frames, uint8)."""
    if k < 1 or width < 1 or height < 1 or channels < 1:
        raise ValueError(f"a ring buffer needs k, width, height, channels of at least 1, got "
                         f"{k}, {width}, {height}, {channels}")
    return (k + 1) * width * height * channels / 1e6


@dataclass
class ClipFrames:
    """The frames ``k`` back from each start of one clip (by index), the starts' frame keys, and
    each click's caught-up box at the click (``boxes``: start index -> boxes, None for none); with
    ``--carry-back``, each click's raw and carried point (``points``: start -> [(raw, carried)])
    and its CPU ms of the backward pass and of the catch-up (``cpu_ms``); with ``--carry-box``, each
    click's back-tracked box on t - k (``back_boxes``: start -> boxes)."""

    k: int
    frames: dict[int, np.ndarray]
    starts: dict[tuple[tuple[int, ...], str], int]
    boxes: dict[int, list[Box | None]] = field(default_factory=dict)
    points: dict[int, list[tuple[tuple[float, float], tuple[float, float]]]] = field(default_factory=dict)
    cpu_ms: list[tuple[float, float]] = field(default_factory=list)
    back_boxes: dict[int, list[Box]] = field(default_factory=dict)

    @classmethod
    def of(cls, frames: Iterable[np.ndarray], starts: Sequence[int], k: int) -> ClipFrames:
        """Kept from the clip's ``frames`` (read once, in order): frames ``frames_back(s, k)`` ..
        ``s`` of every start ``s``. ``ValueError`` when the clip ends before a start."""
        want = {j for s in starts for j in range(frames_back(s, k), s + 1)}
        kept: dict[int, np.ndarray] = {}
        for i, frame in enumerate(frames):
            if i in want:
                kept[i] = frame
            if i >= max(want):
                break
        if missing := sorted(set(starts) - set(kept)):
            raise ValueError(f"the clip ends before its start frames {missing}")
        return cls(k, kept, {frame_key(kept[s]): s for s in starts})

    def before(self, frame: np.ndarray) -> tuple[int, list[np.ndarray]]:
        """For a click on ``frame`` (a start's): its index t and frames t - k .. t - 1, oldest first
        (fewer at the clip's start); ``KeyError`` naming the problem for a frame of no start."""
        t = self.starts.get(frame_key(frame))
        if t is None:
            raise KeyError("--point-prompt-before: a click on a frame that is none of the clip's start frames")
        return t, [self.frames[j] for j in range(frames_back(t, self.k), t)]


def _box(b: Sequence[float]) -> Box:
    return float(b[0]), float(b[1]), float(b[2]), float(b[3])


def carry_point(x: float, y: float, first: Box, last: Box, frame_wh: tuple[int, int]) -> tuple[float, float]:
    """The click point ``(x, y)`` moved by the displacement of a tracked box's centre from its first
    box's centre (``first`` -> ``last``, each ``(x, y, w, h)``), clamped inside the frame
    (``frame_wh``): the click's offset from the box's centre kept in pixels (``--carry-back``)."""
    dx = last[0] + last[2] / 2 - first[0] - first[2] / 2
    dy = last[1] + last[3] / 2 - first[1] - first[3] / 2
    fw, fh = frame_wh
    return min(max(0.0, x + dx), fw - 1.0), min(max(0.0, y + dy), fh - 1.0)


def backward_box(tracker: Any, frame: np.ndarray, box: Box, back: Sequence[np.ndarray]) -> Box:
    """``tracker`` (a fresh one) started from ``box`` on the click's ``frame`` and run over ``back``
    (oldest first) newest first, its clock forward: its last found box (``box`` where it finds none)."""
    tracker.pick_box(frame, box)
    last = box
    for m, f in enumerate(reversed(back), 1):
        r = tracker.update(f, m / FPS)
        if not r.found or r.box[2] <= 0:
            break
        last = _box(r.box)
    return last


def clamp_box(box: Box, frame_wh: tuple[int, int]) -> Box:
    """``box`` ``(x, y, w, h)`` cut to the frame (``frame_wh``), at least 1 px a side inside it."""
    fw, fh = frame_wh
    x0 = min(max(0.0, box[0]), fw - 1.0)
    y0 = min(max(0.0, box[1]), fh - 1.0)
    x1 = min(max(x0 + 1.0, box[0] + box[2]), float(fw))
    y1 = min(max(y0 + 1.0, box[1] + box[3]), float(fh))
    return x0, y0, x1 - x0, y1 - y0


def carried_back(tracker: Any, frame: np.ndarray, box: Box, back: Sequence[np.ndarray], x: float, y: float
                 ) -> tuple[float, float]:
    """``--carry-back``: the click point carried by the displacement of ``backward_box``'s box from
    ``box`` (the raw point where the backward tracker finds none)."""
    last = backward_box(tracker, frame, box, back)
    return carry_point(x, y, box, last, (frame.shape[1], frame.shape[0]))


def before_point_prompt_tracker(model: Any, ring: ClipFrames, delay: int = DECODER_FRAMES, carry: bool = False,
                                carry_box: bool = False) -> type[ExperimentTracker]:
    """The tracker class (``make_tracker``'s ``tracker_class``) of the module's design: started by a
    click as shipped, its answers replaced from ``delay`` frames after the click on by a tracker
    started from SAM's box on the frame k back (``ring``) and caught up over the frames since, its
    clock at 1/30 s a frame with the click's frame at 0 (the caller's clock from there, as
    ``SensekitTracker`` counts: a tracker's default clock would run the caught-up frames twice).
    With ``carry`` (``--carry-back``), SAM is prompted at the click point carried back to the frame
    k back (``carried_back``); with ``carry_box`` as well (``--carry-box``), SAM is also given the
    backward tracker's box there as its box prompt (``backward_box``, ``clamp_box``)."""
    if delay < 1:
        raise ConfigError(f"the decoder's delay must be at least 1 frame, got {delay}")
    if carry_box and not carry:
        raise ConfigError("--carry-box needs --carry-back")

    class Before(ShadowedTracker):
        shadow_delay = delay

        def pick(self, frame: np.ndarray, x: float, y: float, **kw: Any) -> None:
            super().pick(frame, x, y, **kw)
            t, back = ring.before(frame)
            old = back[0] if back else frame
            px, py, back_ms = x, y, 0.0
            prompt_box: Box | None = None
            if carry and self.picked is not None and back:
                c0 = time.process_time()
                first = _box(self.picked.box)
                last = backward_box(self.fresh(), frame, first, back)
                px, py = carry_point(x, y, first, last, (frame.shape[1], frame.shape[0]))
                back_ms = 1000 * (time.process_time() - c0)
                ring.points.setdefault(t, []).append(((x, y), (px, py)))
                if carry_box:
                    prompt_box = clamp_box(last, (frame.shape[1], frame.shape[0]))
                    ring.back_boxes.setdefault(t, []).append(prompt_box)
            if prompt_box is None:
                masks, scores = model.masks(old, px, py, key=frame_key(old))
            else:
                masks, scores = model.masks(old, px, py, key=frame_key(old), box=prompt_box)
            best = masks[int(np.argmax(scores))]
            got: Box | None = None if self.picked is None else _box(self.picked.box)     # shipped
            if self.picked is not None and best.any():
                c0 = time.process_time()
                self._shadow = self.fresh()
                self._shadow.pick_box(old, mask_box(best))
                for m, f in enumerate([*back[1:], frame], 1 - len(back)):
                    r = self._shadow.update(f, m / FPS)      # the click's frame at 0, as the live clock
                got = _box(r.box) if r.found else None
                if carry:
                    ring.cpu_ms.append((back_ms, 1000 * (time.process_time() - c0)))
            ring.boxes.setdefault(t, []).append(got)

    return Before


@dataclass(frozen=True)
class BeforeHook:
    """``--point-prompt-before K [--carry-back [--carry-box]]``: called with one clip's frames, the
    tracker class of the design (``before_point_prompt_tracker``)."""

    model: Any
    k: int
    carry: bool = False
    carry_box: bool = False

    def __call__(self, ring: ClipFrames) -> type[ExperimentTracker]:
        return before_point_prompt_tracker(self.model, ring, carry=self.carry, carry_box=self.carry_box)


def before_hook(model: Any, k: int, carry: bool = False, carry_box: bool = False) -> BeforeHook:
    """``--point-prompt-before K [--carry-back [--carry-box]]``: the tracker class for one clip's frames
    (``ConfigError`` for K below 1 or ``carry_box`` without ``carry``, before any clip is read)."""
    frames_back(0, k)
    if carry_box and not carry:
        raise ConfigError("--carry-box needs --carry-back")
    return BeforeHook(model, k, carry, carry_box)


def boxes_on_object(boxes: Sequence[Box], truth: Sequence[float], iou_min: float = 0.5) -> tuple[int, int]:
    """(boxes with IoU > ``iou_min`` with the true box ``(x, y, w, h)``, boxes with each side within
    25 % of the true box's): how many back-tracked boxes on t - k are the object there."""
    true_box = tuple(float(v) for v in truth)
    tw, th = true_box[2], true_box[3]
    hit = sized = 0
    for box in boxes:
        hit += iou(box, true_box) > iou_min
        sized += abs(box[2] / tw - 1) <= 0.25 and abs(box[3] / th - 1) <= 0.25
    return hit, sized


def size_ok_share(boxes: dict[int, list[Box | None]], truth: np.ndarray, tolerance: float = 0.25
                  ) -> tuple[int, int]:
    """(clicks whose caught-up box at the click has each side within ``tolerance`` of the true
    box on that frame, clicks): a click with no box counts as not ok."""
    ok = n = 0
    for t, got in boxes.items():
        tw, th = float(truth[t][2]), float(truth[t][3])
        for b in got:
            n += 1
            ok += b is not None and abs(b[2] / tw - 1) <= tolerance and abs(b[3] / th - 1) <= tolerance
    return ok, n


def full_k_success(per_click: dict[str, dict[str, list[Any]]], k: int, scale: str = "1"
                   ) -> dict[str, tuple[float, int]]:
    """From ``track_eval.py --per-click``'s JSON: per clip, the clicks' mean success over the starts
    with at least ``k`` frames before them (those a K = k run answered from the full k back), and
    how many such starts; a clip with none is left out."""
    out: dict[str, tuple[float, int]] = {}
    for clip, runs in per_click[scale].items():
        kept = [[v for name, v in scores.items() if name.startswith("click ")]
                for start, scores in runs if start >= k]
        if kept:
            out[clip] = (float(np.mean([v for r in kept for v in r])), len(kept))
    return out


def points_on_object(points: Sequence[tuple[float, float]], box: Sequence[float]) -> int:
    """How many of the click ``points`` (in frame t's coordinates) lie inside the true box
    ``(x, y, w, h)`` of the older frame: where the prompt lands on the object at t - k."""
    x, y, w, h = (float(v) for v in box)
    return sum(x <= px < x + w and y <= py < y + h for px, py in points)


def on_object_table(folder: Path, ks: Sequence[int], starts: int = 3) -> str:
    """``python benchmarks/_before_click.py on-object K...``: per K, the click points of every clip's
    starts (``track_eval``'s) that land inside the true box k frames back, per clip, over all starts
    and over the starts with the full K before them. Ground truth only (no model)."""
    from sensekit.evaluation.vision.evaluate import click_points, clip_names, load_clip, start_frames

    names = clip_names(folder)
    lines = ["K    " + " ".join(f"{n[:12]:>12s}" for n in names) + "    all starts   full K"]
    for k in ks:
        per, full = [], [0, 0]
        for name in names:
            truth = load_clip(folder, name).truth
            on = n = 0
            for t in start_frames(len(truth), starts):
                pts = list(click_points(truth[t]).values())
                m = points_on_object(pts, truth[frames_back(t, k)])
                on, n = on + m, n + len(pts)
                if t >= k:
                    full = [full[0] + m, full[1] + len(pts)]
            per.append((on, n))
        total = (sum(a for a, _ in per), sum(b for _, b in per))
        lines.append(f"{k:<4d} " + " ".join(f"{f'{a}/{b}':>12s}" for a, b in per)
                     + f"  {total[0]:>5d}/{total[1]:<5d}  {full[0]:>3d}/{full[1]}")
    return "\n".join(lines)


if __name__ == "__main__":
    import json
    import sys

    if sys.argv[1] == "on-object":
        from _reference import SHARED_DATA

        print(on_object_table(SHARED_DATA / "video" / "tracking", [int(v) for v in sys.argv[2:]]))
        raise SystemExit(0)
    k = int(sys.argv[2])
    for clip, (s, n) in full_k_success(json.loads(Path(sys.argv[1]).read_text()), k).items():
        print(f"{clip:24s} {s:.3f} over {n} starts with {k} frames before them")
