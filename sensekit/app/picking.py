"""Picking what an app tracks: a click or a dragged box on the camera view starts a colour-model
tracker on the object, and the app shows what was taken.

``TrackerPicking`` is a mixin for apps whose ``self.vision`` is a ``VisionStage`` with a tracker
(color_ball, steer, collide). It implements the host's hooks:

- ``pick_color(bgr, xy)``: a click - ``VisionStage.track(Target.click(...))``: on the next
  frame a new tracker (the run's tracker settings kept) segments the object under the pointer
  (``sensekit.vision.segment``; the colour model, unless ``tracker.method`` names another:
  ``Target.method``) and replaces the old one;
- ``pick_region(box)``: a dragged box - the same with ``Target.region`` (GrabCut inside the box);
- after a click, the mouse wheel and ``+``/``-`` (``App.resize_pick``) step to the click's next
  larger or smaller box, and a click on the same spot to its next guess of another size
  (``sensekit.vision.click_pool``, no new segmentation); the outline shows the new box at once;

and ``draw_picked(screen)``, which outlines the segmented mask (yellow on black) for
``PICK_SHOWN_S`` seconds of simulation time after a pick, so the player sees what was taken,
and after a click says how to change it (``RESIZE_HINT``).
Coordinates are camera pixels of the mirrored image, as the host passes them.

``start_tracking(stages, track_color=..., track_box=...)`` applies ``sensekit run``'s
``--track-color X,Y|#RRGGBB`` / ``--track-box X,Y,W,H`` to an app's tracking stage (picked on
the first frame, in the mirrored picture's pixels, as shown on screen), through the same door.
Cost: one segmentation per pick (10-150 ms); drawing is a few polygon outlines.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import pygame

from sensekit.app import draw as D
from sensekit.app.base import RESIZE_HINT
from sensekit.app.convert import camera_to_view
from sensekit.errors import ConfigError
from sensekit.vision.segment import Segment
from sensekit.vision.targets import Target, target_from_text

if TYPE_CHECKING:
    from sensekit.app.base import Host
    from sensekit.vision.pipeline import VisionStage

__all__ = ["TrackerPicking", "PICK_SHOWN_S", "start_tracking"]

#: how long the outline of a fresh pick stays on screen (simulation seconds)
PICK_SHOWN_S = 2.0
#: the "picked" label: this far under the outline; its size, roughly, at 18 px type; the resize
#: hint's strip at the view's bottom it keeps clear of
PICKED_GAP_PX, PICKED_LABEL_W_PX, PICKED_LABEL_H_PX, PICKED_HINT_H_PX = 8, 64, 22, 30


class TrackerPicking:
    """Mixin: click or drag on ``camera_view`` to choose what ``self.vision`` tracks."""

    host: Host
    vision: VisionStage
    camera_view: pygame.Rect | None
    picked: Segment | None = None
    picked_at_s: float = -1e9

    def _start(self, target: Target) -> str | None:
        if self.host.runner.latest_frame is None:
            return None
        try:
            self.vision.track(target)                 # the next frame is picked; settings stay
        except ConfigError as e:                       # a box while `tracker.method` is a colour's
            return str(e)
        if target.box is not None:
            x, y, w, h = (int(v) for v in target.box)
            return f"tracking the object in {w}x{h} px at {x},{y}"
        assert target.point is not None
        return f"tracking the object under {int(target.point[0])},{int(target.point[1])}"

    def pick_color(self, bgr: tuple[int, int, int], xy: tuple[int, int]) -> str | None:
        """A click: track the object under it."""
        return self._start(Target.click(xy[0], xy[1], bgr))

    def pick_region(self, box: tuple[int, int, int, int]) -> str | None:
        """A dragged box: track the object inside it."""
        return self._start(Target.region(box))

    def draw_picked(self, screen: pygame.Surface) -> None:
        """Outline what the last pick took (by a click, a drag or ``--track-box``), for
        ``PICK_SHOWN_S`` after it."""
        fresh = getattr(self.vision.tracker, "picked", None)
        if fresh is not None and fresh is not self.picked:
            self.picked, self.picked_at_s = fresh, self.host.sim_t
        view, size, picked = self.camera_view, self.host.frame_size, self.picked
        if picked is None or view is None or size is None or self.host.sim_t - self.picked_at_s > PICK_SHOWN_S:
            return
        for contour in picked.outline():
            if len(contour) < 2:
                continue
            pts = [camera_to_view(float(x) + 0.5, float(y) + 0.5, size, view) for x, y in contour]
            pygame.draw.lines(screen, D.BLACK, True, pts, 4)
            pygame.draw.lines(screen, D.ACCENT, True, pts, 2)
        bx, by, bw, bh = picked.box
        x0, y0 = camera_to_view(bx, by, size, view)
        _, y1 = camera_to_view(bx + bw, by + bh, size, view)
        # under the outline, on a backing: above it the tracker's own label ("tracking") sits
        # and the two ran into each other; above only when there is no room below
        below = y1 + PICKED_GAP_PX + PICKED_LABEL_H_PX <= view.bottom - PICKED_HINT_H_PX
        x = min(max(x0, view.x), view.right - PICKED_LABEL_W_PX)
        D.label(screen, "picked", (x, y1 + PICKED_GAP_PX) if below else (x, y0 - PICKED_GAP_PX - PICKED_LABEL_H_PX),
                size=18, color=D.ACCENT, anchor="topleft" if below else "bottomleft", pad_px=(4, 1))
        if getattr(self.vision.tracker, "pool", None) is not None:     # a click's box: it can be resized
            D.label(screen, RESIZE_HINT, (view.centerx, view.bottom - 6), size=18, color=D.ACCENT,
                    anchor="midbottom", pad_px=(6, 2))


def start_tracking(stages: Sequence[object], *, track_color: str | None = None,
                   track_box: str | None = None, frame_size: tuple[int, int] | None = None,
                   app_name: str = "this app") -> bool:
    """Point the first stage with a tracker at a click or colour (``track_color``) or a box
    (``track_box``); ``False`` if nothing was asked. ``ConfigError`` if the app tracks nothing
    or the values are bad (a click or box outside ``frame_size``, when the source knows it,
    before anything runs)."""
    target = target_from_text(track_color, track_box)
    if target is None:
        return False
    stage = next((s for s in stages if getattr(s, "tracker", None) is not None), None)
    if stage is None or not callable(getattr(stage, "track", None)):
        raise ConfigError(f"{app_name} does not track anything; --track-color and --track-box need an "
                          f"app that tracks a coloured object")
    target.check_inside(frame_size)
    stage.track(target)  # type: ignore[attr-defined]
    return True
