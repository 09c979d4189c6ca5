"""BodyInput: one player's body (MediaPipe Pose) as an app's input - where they stand and how they lean.

    def setup(self):
        self.body = BodyInput(self)
        self.body.switch(True)          # builds the pose stage on first use (the hands extra)

    def update(self, dt):
        lean = self.body.lean_deg       # torso from vertical, + towards the screen's right; nan: nobody
        x = self.body.shoulders         # the shoulders' centre in window pixels, or None

It follows one person: the first one seen, or the one with the largest box when the player
is lost (``pose_lost``), so a passer-by behind the player does not take over. The pose stage
sees the mirrored picture the app shows (the host mirrors every stage's input), so "right"
is the player's screen right. ``draw(screen)`` draws the player's skeleton over
``app.camera_view``.

The stage is made on the first ``switch(True)``, so an app that never switches never imports
MediaPipe (a 2-5 s import). Without the extra, ``switch`` returns the one-line install message,
``error`` keeps it, and the app goes on with its other input. Cost: the pose stage (one
MediaPipe Pose call per frame for one person, ~30-90 ms at 640x480 on this machine).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import pygame

from sensekit.app import draw as D
from sensekit.app.stage_input import StageInput
from sensekit.events import Event, Pose, PoseLost
from sensekit.vision.body_events import BODY_LINES, body_shape

if TYPE_CHECKING:
    from sensekit.app.base import App

__all__ = ["BodyInput"]


class BodyInput(StageInput):
    def __init__(self, app: App, **pose_settings: Any) -> None:
        super().__init__(app)
        self.player: int | None = None
        #: the player's 33 landmarks in camera pixels (x, y, z, visibility), or None
        self.landmarks: np.ndarray | None = None
        self._seen: dict[int, Pose] = {}
        self._pose_settings = pose_settings

    def _build(self) -> Any:
        from sensekit.vision.pose import PoseStage
        return PoseStage(**self._pose_settings)

    def handlers(self) -> dict[str, Callable[[Event], None]]:
        return {"pose": self._pose, "pose_lost": self._lost}

    def switch(self, on: bool) -> str:
        """Body input on or off; a short message for the host to show."""
        if on == self.active:
            return "body input " + ("on" if on else "off")
        error = self._turn(on)
        return error or ("body input: stand in view, lean to steer" if on else "body input off")

    def _forget(self) -> None:
        self.player, self.landmarks = None, None
        self._seen.clear()

    # -- events -----------------------------------------------------------------------
    def _pose(self, e: Event) -> None:
        assert isinstance(e, Pose)
        self._seen[e.id] = e
        if self.player is None or self.player not in self._seen:
            self.player = max(self._seen.values(), key=lambda p: p.box[2] * p.box[3]).id
        if e.id == self.player:
            self.landmarks = np.asarray(e.landmarks, dtype=np.float64)

    def _lost(self, e: Event) -> None:
        assert isinstance(e, PoseLost)
        self._seen.pop(e.id, None)
        if e.id == self.player:
            self.player, self.landmarks = None, None

    # -- what the app reads -------------------------------------------------------------
    @property
    def lean_deg(self) -> float:
        """The player's torso from vertical in degrees, + towards the screen's right; nan with
        no player (or the torso not visible)."""
        return float("nan") if self.landmarks is None else body_shape(self.landmarks).lean_deg

    @property
    def shoulders(self) -> tuple[float, float] | None:
        """The centre of the player's shoulders in window pixels, or None."""
        if self.landmarks is None:
            return None
        x, y = (self.landmarks[11, :2] + self.landmarks[12, :2]) / 2.0
        return self._view(float(x), float(y))

    @property
    def status(self) -> str:
        if self.error and not self.active:
            return self.error
        if not self.active:
            return "body input off"
        if self.landmarks is None:
            return "step into view"
        lean = self.lean_deg
        return "body: lean " + ("?" if math.isnan(lean) else f"{lean:+.0f}°")

    def draw(self, screen: pygame.Surface, *, colour: tuple[int, int, int] = D.CYAN) -> None:
        """The player's skeleton (the lines between points MediaPipe sees at least half)."""
        if self.landmarks is None:
            return
        pts = self.landmarks
        for a, b in BODY_LINES:
            if pts[a, 3] < 0.5 or pts[b, 3] < 0.5:
                continue
            pa, pb = self._view(pts[a, 0], pts[a, 1]), self._view(pts[b, 0], pts[b, 1])
            if pa is not None and pb is not None:
                pygame.draw.line(screen, colour, pa, pb, 4)
