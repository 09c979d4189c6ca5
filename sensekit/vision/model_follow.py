"""ModelFollow: how the colour tracker's model method follows its object between frames.

A ``ColorTracker`` mixin holding the model method's state beyond the histograms
(``color_model.ColorModel``): a picture that changed at once (``view_change``: a cut, a camera
swung away) makes the box re-verify against the pick; a lost object is looked for again only
at ``refind_ratio`` of its typical similarity while tracked and, lost over the picture's
edge, near the edges it left by (``refind_edge``); a measured click gets its second look
(``click_refine``); another box of a click's pool restarts the model (``restart_on``). The
settings it reads are the tracker's (``tracker`` group); the tracker's module docstring has
the figures. Cost: the thumbnail of ``ViewChange`` per frame (~0.1 ms) on top of the model's.
"""
from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

import numpy as np

from sensekit.vision.click_pool import ClickPool
from sensekit.vision.click_refine import ClickRefiner
from sensekit.vision.color_model import ColorModel, MaskMatch
from sensekit.vision.segment import Segment, shifted
from sensekit.vision.view_change import ViewChange

if TYPE_CHECKING:
    from sensekit.vision.smoothing import OneEuro2D

__all__ = ["ModelFollow", "SIMILARITY_FRAMES", "NO_EDGE"]

#: tracked frames whose similarity to the pick make the typical one (``refind_ratio``)
SIMILARITY_FRAMES = 60
#: touched none of the picture's edges (left, right, top, bottom)
NO_EDGE = (False, False, False, False)


class ModelFollow:
    """The model method's following state and steps; mixed into ``ColorTracker``."""

    if TYPE_CHECKING:      # the tracker's settings and state this reads (``ColorTracker``)
        model: ColorModel
        method_in_use: str | None
        color_in_use: int | None
        lost: bool
        misses: int
        unconfirmed: bool
        last_mask: np.ndarray | None
        last_mask_origin: tuple[int, int]
        smoother: OneEuro2D | None
        lost_after_frames: int
        cut_above: float
        cut_margin: float
        refind_ratio: float
        refind_edge: float
        refine_after_frames: int
        refine_gain: float
        refine_looks: int

    def init_following(self) -> None:
        #: what the last model pick took (box and mask, for drawing); ``None`` before one
        self.picked: Segment | None = None
        #: the last click's other boxes (``click_pool``: grow, shrink, click again); ``None``
        #: before a click or after a box
        self.pool: ClickPool | None = None
        self._anchor = (0.0, 0.0)                  # the model's centre less the click's point
        #: a measured click waiting for its next look (``click_refine``)
        self.refiner: ClickRefiner | None = None
        #: looks taken since the last measured click
        self.looks = 0
        #: the cut / view-change cue (model method)
        self.view = ViewChange()
        #: the similarity to the pick of the last frame tracked (model)
        self.appearance_before = 0.0
        #: the similarity to the pick of the last ``SIMILARITY_FRAMES`` frames tracked (model)
        self.tracked_similarity: deque[float] = deque(maxlen=SIMILARITY_FRAMES)
        #: the picture's edges (left, right, top, bottom) the model's box touched when the object
        #: was lost (``refind_edge``)
        self.lost_over_edge = NO_EDGE
        #: the last frame's view changed at once (``view_change``, model)
        self.view_changed = False

    def click_point(self) -> tuple[float, float] | None:
        """Where the click's point is now (it moves with the tracked box); ``None`` without a
        click's pool."""
        if self.pool is None:
            return None
        return self.model.cx - self._anchor[0], self.model.cy - self._anchor[1]

    def restart_on(self, pool: ClickPool, segment: Segment, frame: np.ndarray,
                   moved: tuple[float, float] = (0.0, 0.0)) -> None:
        """Start the model on ``segment``, another box of ``pool``'s click (a grow, shrink or
        second click; ``click_pool``): learnt on the click's frame, placed ``moved`` px from
        where it was there (the click's point has moved with the object since), tracked from
        ``frame`` on. ``picked`` is the segment as placed now."""
        self.method_in_use = "model"
        self.unconfirmed = True
        self._start_model(pool.frame, segment)
        self.view.reset()
        self.view.update(frame)
        dx, dy = (int(round(v)) for v in moved)
        self.model.cx += dx
        self.model.cy += dy
        self.picked = shifted(segment, dx, dy)
        self.pool = pool
        px, py = pool.point
        self._anchor = (self.model.cx - px - dx, self.model.cy - py - dy)
        self.refiner = None            # the user chose this box: no second look replaces it
        self.looks = 0

    def _start_model(self, frame: np.ndarray, picked: Segment) -> None:
        """Learn the colour model from the picked segment (``ColorModel.start``)."""
        color = self.model.start(frame, picked)
        if color is not None:                  # the object's typical colour, for swatches
            self.color_in_use = color
        self.lost = False
        self.misses = 0
        self.appearance_before = 1.0
        self.tracked_similarity.clear()
        self.lost_over_edge = NO_EDGE
        self.view.reset()
        self.view.update(frame)
        if self.smoother is not None:
            self.smoother.reset()

    def _update_model(self, frame: np.ndarray) -> MaskMatch:
        cut = self.view.update(frame) > self.cut_above
        self.view_changed = cut
        if cut and not self.lost and self.misses == 0:
            # Most of the picture changed at once: the box must match the pick (searched for in
            # the whole frame, at the found bars) about as well as before, or it is lost now.
            at_least = self.appearance_before - self.cut_margin
            match = self.model.update(frame, search_all=True, lost=True, at_least=at_least)
            if not match[0]:
                self.misses = max(self.misses, self.lost_after_frames - 1)
        else:
            searching = self.lost or self.misses >= self.lost_after_frames
            at_least = 0.0
            if searching and self.refind_ratio > 0 and self.tracked_similarity:
                at_least = self.refind_ratio * float(np.median(self.tracked_similarity))
            if cut:
                self.lost_over_edge = NO_EDGE     # a new view: it may be anywhere
            band = self.refind_edge if searching and any(self.lost_over_edge) and self.refind_edge > 0 else None
            match = self.model.update(frame, search_all=searching, lost=self.lost, at_least=at_least,
                                      edge_band=band, edges=self.lost_over_edge)
        if match[0]:
            self.appearance_before = self.model.appearance
            self.tracked_similarity.append(self.model.appearance)
            self.last_mask = self.model.last_mask
            self.last_mask_origin = self.model.last_mask_origin
        if self.refiner is not None:
            self._second_look(frame, match)
        return match

    def _second_look(self, frame: np.ndarray, match: MaskMatch) -> None:
        """Keep the frame for the click's next look; when due, re-seed from the re-measured
        box if the motion supports it clearly better; after a look that re-seeded, look again
        ``refine_after_frames`` later, up to ``refine_looks`` looks (see ``click_refine``)."""
        refiner = self.refiner
        assert refiner is not None
        if not refiner.due:
            refiner.add(frame)
            return
        self.refiner = None
        found, box, _union, cx, cy = match[:5]
        if not found:
            return
        better = refiner.decide(frame, (cx, cy), box)
        self.looks += 1
        if better is not None:
            point = self.click_point()
            self.picked = better
            self.model.start(frame, better)
            if point is not None:
                self._anchor = (self.model.cx - point[0], self.model.cy - point[1])
            if self.looks < self.refine_looks:
                self.refiner = type(refiner)(frame, self.refine_after_frames, self.refine_gain,
                                             refiner.experiment)   # the first look's class

    def _edges(self, frame: np.ndarray) -> tuple[bool, bool, bool, bool]:
        """The frame's edges (left, right, top, bottom) the model's last box comes within a
        quarter of its size of."""
        m = self.model
        fh, fw = frame.shape[:2]
        return (bool(m.cx - 0.75 * m.w <= 0), bool(m.cx + 0.75 * m.w >= fw), bool(m.cy - 0.75 * m.h <= 0),
                bool(m.cy + 0.75 * m.h >= fh))
