"""The other boxes a click could have meant: its proposal pool, kept for one more gesture.

A click's first box is often the wrong size (a part of the object, or the object with the hand
that holds it), while a right-sized box is among the click's proposals (docs/tracking.md,
"The first box's size: where it is lost"). The pool is kept from the click, so the user can
fix the box with one gesture and no new segmentation:

- **grow / shrink** (``ClickPool.step(+1 / -1)``; the mouse wheel, ``+`` / ``-``): the next
  larger / smaller rung of the click's **size ladder** (``size_ladder``): the proposals ordered
  by area, those of the same size (width and height within ``SAME_SIZE``, 25 %, of each other,
  and overlapping, IoU > 0.5) merged into one rung shown by its best-valued member. All hold the
  click: the rungs are nested around it.
- **click again on the same spot** (``ClickPool.again()``): the best-valued proposal whose size
  differs from every box shown so far for this click (``next_guess``), so two clicks reach the
  second guess, three the third.

The values are the consensus values of ``extent.measure_pool`` (the first box is the highest).
A click whose first box was the clean colour region measures its pool at the first gesture
(the cost of a click, ~40-70 ms, once), so keeping the pool costs a click nothing.

The boxes are those of the proposals' masks (``segment.proposal_segment``, what a gesture shows
and tracks; the proposal's own box, the one scored, to a pixel: ``proposals.work_mask``), made
at the first gesture (~10 ms).
The ordering is pure (``same_size``, ``size_ladder``, ``ladder_step``, ``next_guess``, on
``(n, 4)`` boxes x, y, w, h); ``ClickPool`` holds the click's frame (a copy), its history and
what has been shown. Failure modes: when no proposal holds just the object (the sprinter with
the track around him) no gesture gives the right size; on a pool with many rungs between the
first box and the right one, more than three steps are needed (measured by
``benchmarks/click_steps.py``).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from sensekit.vision.extent import ExtentExperiment, box_ious, measure_pool
from sensekit.vision.proposals import Proposal
from sensekit.vision.segment import Segment, proposal_segment

__all__ = ["SAME_SIZE", "same_size", "size_ladder", "ladder_step", "next_guess", "ClickPool"]

#: two boxes are the same size when each of width and height is within this share of the other's
SAME_SIZE = 0.25

BoxLike = Sequence[float]


def same_size(a: BoxLike, b: BoxLike, *, tolerance: float = SAME_SIZE) -> bool:
    """Whether boxes ``a`` and ``b`` (x, y, w, h) have widths and heights within ``tolerance``
    of each other (the larger over the smaller at most ``1 + tolerance``)."""
    if min(a[2], a[3], b[2], b[3]) <= 0:
        return False
    rw = max(a[2], b[2]) / min(a[2], b[2])
    rh = max(a[3], b[3]) / min(a[3], b[3])
    return rw <= 1 + tolerance and rh <= 1 + tolerance


def size_ladder(boxes: np.ndarray, values: np.ndarray, *, tolerance: float = SAME_SIZE) -> list[int]:
    """The rungs of a click's pool: indices into ``boxes`` ``(n, 4)``, smallest area first.

    Boxes are taken by area (the higher ``values`` first at equal area); one joins the rung
    started by the first box of its group when it is the same size as it (``same_size``) and
    overlaps it (IoU > 0.5), else starts a new rung. Each rung is shown by its highest-valued
    member."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    v = np.asarray(values, np.float64).reshape(-1)
    if len(b) != len(v):
        raise ValueError(f"boxes and values must match, got {len(b)} boxes and {len(v)} values")
    if len(b) == 0:
        return []
    area = b[:, 2] * b[:, 3]
    order = sorted(range(len(b)), key=lambda i: (area[i], -v[i]))
    iou = box_ious(b)
    heads: list[int] = []
    best: list[int] = []
    for i in order:
        for k in range(len(heads) - 1, -1, -1):
            h = heads[k]
            if same_size(b[i], b[h], tolerance=tolerance) and iou[i, h] > 0.5:
                if v[i] > v[best[k]]:
                    best[k] = i
                break
        else:
            heads.append(i)
            best.append(i)
    return sorted(best, key=lambda i: (area[i], i))


def ladder_step(rungs: np.ndarray, current: BoxLike, direction: int, *, tolerance: float = SAME_SIZE) -> int | None:
    """The rung (index into ``rungs``, ``(n, 4)`` smallest area first) one step from the box
    ``current``: ``direction`` +1 the smallest rung larger in area and not the same size,
    -1 the largest smaller one; ``None`` at the end of the ladder."""
    if direction not in (1, -1):
        raise ValueError(f"direction must be +1 (grow) or -1 (shrink), got {direction!r}")
    r = np.asarray(rungs, np.float64).reshape(-1, 4)
    a0 = float(current[2]) * float(current[3])
    idx = range(len(r)) if direction > 0 else range(len(r) - 1, -1, -1)
    for i in idx:
        a = r[i, 2] * r[i, 3]
        if (a > a0 if direction > 0 else a < a0) and not same_size(r[i], current, tolerance=tolerance):
            return i
    return None


def next_guess(boxes: np.ndarray, values: np.ndarray, shown: Sequence[BoxLike], *,
               tolerance: float = SAME_SIZE) -> int | None:
    """The highest-valued box (index into ``boxes``) whose size differs from every box in
    ``shown`` (``same_size``); ``None`` when every size has been shown."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    v = np.asarray(values, np.float64).reshape(-1)
    for i in sorted(range(len(b)), key=lambda i: (-v[i], i)):
        if not any(same_size(b[i], s, tolerance=tolerance) for s in shown):
            return i
    return None


class ClickPool:
    """A click's other guesses: built by ``ColorTracker.pick`` from the click's frame (copied),
    point, history and first box; ``proposals`` and ``values`` when the click measured them
    (else measured at the first gesture); ``tolerance``: what counts as the same size
    (``SAME_SIZE``). ``step`` and ``again`` return the next box as a
    ``Segment`` of the click's frame (``None``: no other size that way) and make it current."""

    def __init__(self, frame: np.ndarray, point: tuple[float, float], first: Segment, *,
                 history: Sequence[np.ndarray] = (), proposals: Sequence[Proposal] | None = None,
                 values: np.ndarray | None = None, tolerance: float = SAME_SIZE,
                 experiment: ExtentExperiment | None = None) -> None:
        self.frame = frame.copy()
        self.experiment = experiment          # the measured pool's (``extent.ExtentExperiment``; None: shipped)
        self.tolerance = tolerance
        self.point = (float(point[0]), float(point[1]))
        self.history = tuple(history)
        self.first = first
        self.current = first
        #: the boxes shown for this click, the first one first
        self.shown: list[tuple[int, int, int, int]] = [first.box]
        self._props: list[Proposal] | None = list(proposals) if proposals is not None else None
        self._values = None if values is None else np.asarray(values, np.float64)
        self._rungs: list[int] | None = None
        self._segments: list[Segment] | None = None

    def _pool(self) -> tuple[list[Proposal], np.ndarray]:
        if self._props is None or self._values is None:
            self._props, self._values = measure_pool(self.frame, *self.point, self.history,
                                                     experiment=self.experiment)
            self.history = ()                          # not needed any more
        return self._props, self._values

    def segments(self) -> list[Segment]:
        """Each proposal as the ``Segment`` a gesture gives (its mask's box: what is shown and
        tracked; measured now if the click did not)."""
        if self._segments is None:
            props, _ = self._pool()
            self._segments = [proposal_segment(p, self.frame.shape[:2]) for p in props]
        return self._segments

    @property
    def boxes(self) -> np.ndarray:
        """The pool's boxes ``(n, 4)``, as its segments have them."""
        return np.array([s.box for s in self.segments()], np.float64).reshape(-1, 4)

    def rungs(self) -> list[int]:
        """The size ladder (``size_ladder``) as indices into the pool."""
        if self._rungs is None:
            _, values = self._pool()
            self._rungs = size_ladder(self.boxes, values, tolerance=self.tolerance)
        return self._rungs

    def _take(self, i: int) -> Segment:
        seg = self.segments()[i]
        self.current = seg
        self.shown.append(seg.box)
        return seg

    def step(self, direction: int, current: BoxLike | None = None) -> Segment | None:
        """The next larger (+1) or smaller (-1) rung than ``current`` (a box's size; default
        the last box this pool gave) (``ladder_step``)."""
        rungs = self.rungs()
        boxes = self.boxes
        k = ladder_step(boxes[rungs], self.current.box if current is None else current, direction,
                        tolerance=self.tolerance)
        return None if k is None else self._take(rungs[k])

    def again(self) -> Segment | None:
        """The best guess of a size not shown yet for this click (``next_guess``)."""
        _, values = self._pool()
        i = next_guess(self.boxes, values, self.shown, tolerance=self.tolerance)
        return None if i is None else self._take(i)
