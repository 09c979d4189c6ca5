"""HandInput: the index fingertip as an app's pointer and a pinch as its click.

Apps that follow a point (``color_ball``, ``steer``, ``collide``) and the hand apps use it:

    def stages(self):
        self.hand = HandInput(self)                 # on with --hands, or for hands = "always"
        return [self.vision, *self.hand.stages()]

    def setup(self):
        self.hand.setup(on_pinch=self._on_pinch)    # on_pinch(started, (x, y) window pixels)

    def key(self, key):
        return self.hand.toggle() if key == pygame.K_h else None

While active it follows one hand (the first one seen, until it is lost) and exposes, in
window pixels of ``app.camera_view``: ``point`` (the index fingertip, or the pinch point
while pinching; ``None`` with no hand), ``box`` (the hand's box), ``pinching`` and
``velocity`` (pixels per second of ``point``, over the last ~0.1 s, for throwing).
``draw(screen)`` marks the fingertip (a filled disc while pinching).

The hand stage is created on first use, so an app that never switches to hands never
imports MediaPipe (a 2-5 s import). Without the extra, switching says so in one line and
the app goes on with its other input. Handedness is reported for the mirrored view the
apps show (``HandStage(input_mirrored=app.mirror)``).
"""
from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any, Callable

import pygame

from sensekit.app import draw as D
from sensekit.app.stage_input import StageInput
from sensekit.events import Event, Hand, HandLost, Pinch

if TYPE_CHECKING:
    from sensekit.app.base import App

PinchHandler = Callable[[bool, tuple[float, float]], Any]
VELOCITY_WINDOW_S = 0.1
HINT = "hand input: point with your index finger, pinch to click"


class HandInput(StageInput):
    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.hand_id: int | None = None
        self.point: tuple[float, float] | None = None
        self.box: tuple[float, float, float, float] | None = None     # x0, y0, x1, y1 window px
        self.pinching = False
        self.gesture = "none"
        self._tip: tuple[float, float] | None = None
        self._trail: deque[tuple[float, float, float]] = deque(maxlen=16)
        self._on_pinch: PinchHandler | None = None
        want = app.hands == "always" or (app.hands == "switch" and app.host.options.hands)
        if want:
            self.active = self._make_stage()

    # -- wiring -----------------------------------------------------------------------
    def _build(self) -> Any:
        from sensekit.vision.hands import HandStage
        return HandStage(input_mirrored=self.app.mirror)

    def handlers(self) -> dict[str, Callable[[Event], None]]:
        return {"hand": self._hand, "pinch": self._pinch, "hand_lost": self._lost}

    def stages(self) -> list[Any]:
        """The hand stage, if hand input is on from the start."""
        return [self.stage] if self.stage is not None else []

    def setup(self, on_pinch: PinchHandler | None = None) -> None:
        self._on_pinch = on_pinch
        if self.active:
            self._listen(True)
            self.app.host.say(HINT)

    def toggle(self) -> str:
        """Key ``h``: hand input on or off (a message for the host to show)."""
        error = self._turn(not self.active)
        return error or (HINT if self.active else "hand input off")

    @property
    def status(self) -> str:
        """One line for the screen: what the hand input is doing."""
        if self.error and not self.active:
            return self.error
        if not self.active:
            return "h: hand input"
        return "hand: pinching" if self.pinching else ("hand: " + self.gesture if self.point else "show a hand")

    # -- events -----------------------------------------------------------------------
    def _hand(self, e: Event) -> None:
        assert isinstance(e, Hand)
        if self.hand_id is None:
            self.hand_id = e.id
        if e.id != self.hand_id:
            return
        tip = e.landmarks[8]
        thumb = e.landmarks[4]
        self._tip = self._view(tip[0], tip[1])
        self.point = self._view((tip[0] + thumb[0]) / 2, (tip[1] + thumb[1]) / 2) if self.pinching else self._tip
        bx, by, bw, bh = e.box
        a, b = self._view(bx, by), self._view(bx + bw, by + bh)
        self.box = (a[0], a[1], b[0], b[1]) if a and b else None
        self.gesture = e.gesture
        if self.point is not None:
            self._trail.append((e.t, *self.point))

    def _pinch(self, e: Event) -> None:
        assert isinstance(e, Pinch)
        if e.id != self.hand_id:
            return
        self.pinching = e.pinching
        xy = self._view(e.x, e.y)
        if xy is not None:
            self.point = xy if e.pinching else self._tip
            if self._on_pinch is not None:
                self._on_pinch(e.pinching, xy)

    def _lost(self, e: Event) -> None:
        assert isinstance(e, HandLost)
        if e.id == self.hand_id:
            self._forget()

    def _forget(self) -> None:
        self.hand_id, self.point, self.box, self.pinching, self.gesture = None, None, None, False, "none"
        self._trail.clear()

    @property
    def rect(self) -> pygame.Rect | None:
        """The hand's box as a ``pygame.Rect`` in window pixels."""
        if self.box is None:
            return None
        x0, y0, x1, y1 = self.box
        return pygame.Rect(int(x0), int(y0), max(1, int(x1 - x0)), max(1, int(y1 - y0)))

    @property
    def velocity(self) -> tuple[float, float]:
        """Speed of ``point`` over the last ~0.1 s, window pixels per second."""
        if len(self._trail) < 2:
            return (0.0, 0.0)
        t1, x1, y1 = self._trail[-1]
        older = [p for p in self._trail if t1 - p[0] >= VELOCITY_WINDOW_S] or [self._trail[0]]
        t0, x0, y0 = older[-1]
        dt = t1 - t0
        return ((x1 - x0) / dt, (y1 - y0) / dt) if dt > 0 else (0.0, 0.0)

    # -- drawing ----------------------------------------------------------------------
    def draw(self, screen: pygame.Surface, *, hint: bool = True) -> None:
        """The fingertip marker (filled while pinching); with ``hint``, the status line at the
        top of the view while there is no hand to show (or no hand tracking)."""
        if not self.active and not self.error:
            return
        view = self.app.camera_view
        if self.point is not None:
            x, y = int(self.point[0]), int(self.point[1])
            pygame.draw.circle(screen, D.BLACK, (x, y), 13, 5)
            pygame.draw.circle(screen, D.CYAN, (x, y), 12 if not self.pinching else 10, 0 if self.pinching else 3)
        elif hint and view is not None:
            D.text(screen, self.status, (view.centerx, view.y + 34), size=20, color=D.CYAN,
                   anchor="midtop", bold=True)
