"""``Controls``: the keys, clicks and drags every app gets from its host.

Keys: ``space`` pause, ``c`` recalibrate, ``s`` screenshot, ``Shift+S`` save the venue
profile, ``+``/``-`` grow or shrink the box of a clicked object (``App.resize_pick``, as the
mouse wheel does), else move the app's ``plus_minus`` setting by its declared step, ``r``
restart, ``esc``/``q`` quit, ``m``/``e``/``p`` the overlays (``overlay_view.py``); any other
key goes to ``app.key`` (``h``, hand input on/off, in the apps that take it; the others say they
take none, as ``c`` and a click say what an app does not do). A left click on
``app.camera_view`` picks what is under the pointer (``App.pick_color``); pressing, dragging at
least ``DRAG_MIN_PX`` and releasing picks what is inside the box (``App.pick_region``), with a
rubber band shown while dragging. Scripted input (``--pick``, ``--keys``) goes through the same
``press`` and ``pick_at``.
"""
from __future__ import annotations

from typing import Callable

import pygame

from sensekit.app import draw as D
from sensekit.app.base import Host
from sensekit.app.convert import view_to_camera
from sensekit.app.overlay_view import OVERLAY_KEYS, OverlayView
from sensekit.settings.registry import lookup

__all__ = ["Controls", "DRAG_MIN_PX"]

#: a press and release further apart than this (window pixels) is a drag, not a click
DRAG_MIN_PX = 6


class Controls:
    def __init__(self, host: Host, overlays: OverlayView, *, screenshot: Callable[[], str],
                 save_profile: Callable[[], object]) -> None:
        self.host = host
        self.overlays = overlays
        self._screenshot = screenshot
        self._save_profile = save_profile
        self.paused = False
        self.quit = False
        #: the left button's press position and the pointer, while it is held
        self.drag_band: tuple[tuple[int, int], tuple[int, int]] | None = None

    # -- keys ----------------------------------------------------------------
    def press(self, key: int, mod: int = 0) -> None:
        """Act on a key exactly as if it were pressed (tests use this too)."""
        app, say = self.host.app, self.host.say
        if key == pygame.K_SPACE:
            self.paused = not self.paused
        elif key == pygame.K_c:
            say(app.recalibrate() or "nothing to recalibrate")
        elif key == pygame.K_s and mod & pygame.KMOD_SHIFT:
            self._save_profile()
        elif key == pygame.K_s:
            say(self._screenshot())
        elif key in (pygame.K_PLUS, pygame.K_EQUALS, pygame.K_KP_PLUS):
            say(app.resize_pick(+1) or self.adjust(+1))
        elif key in (pygame.K_MINUS, pygame.K_KP_MINUS):
            say(app.resize_pick(-1) or self.adjust(-1))
        elif key == pygame.K_r:
            say(app.restart())
        elif key in (pygame.K_ESCAPE, pygame.K_q):
            self.quit = True
        elif key in OVERLAY_KEYS:
            say(self.overlays.toggle(OVERLAY_KEYS[key]))
        else:
            say(self._app_key(key))

    def _app_key(self, key: int) -> str | None:
        """A key for the app itself; ``h`` in an app that takes no hand input says so."""
        app = self.host.app
        said = app.key(key)
        if said is None and key == pygame.K_h:
            said = (f"{app.name or 'this app'} takes no hand input (h switches it in the apps "
                    "that follow a hand: `sensekit apps`)")
        return said

    def adjust(self, steps: int) -> str | None:
        """Keys ``+``/``-``: move the app's ``plus_minus`` setting by ``steps`` declared steps."""
        app, tuning = self.host.app, self.host.tuning
        target = app.plus_minus_setting()
        if target is None:
            return app.adjust_sensitivity(steps)
        key, direction = target
        s = lookup(key)
        current = tuning.settings().get(key)
        if current is None:
            return f"{key} is not set in this run"
        value = s.stepped(current, steps * direction)
        tuning.apply_now({key: value})        # the loop's own thread, between steps
        return f"{key} = {s.show(value)}"

    # -- the pointer ---------------------------------------------------------
    def wheel(self, steps: int) -> None:
        """The mouse wheel (up: ``steps`` > 0): the clicked object's next larger or smaller box."""
        if steps:
            self.host.say(self.host.app.resize_pick(steps) or "click an object first: the wheel then grows "
                                                              "or shrinks its box")

    def click(self, pos: tuple[int, int]) -> None:
        """A left click at window pixel ``pos``: picks the colour under it on the camera view."""
        view, frame = self.host.app.camera_view, self.host.runner.latest_frame
        if view is None or frame is None:
            return
        h, w = frame.image.shape[:2]
        xy = view_to_camera(pos[0], pos[1], (w, h), view)
        if xy is None:
            return
        if self.pick_at(xy) is None:
            self._tracks_nothing()

    def _tracks_nothing(self) -> None:
        """A click or drag in an app that tracks nothing says so (it did nothing, silently)."""
        self.host.say(f"{self.host.app.name or 'this app'} tracks no object: a click or a drag picks "
                      f"only in an app that does")

    def pick_at(self, xy: tuple[int, int]) -> str | None:
        """Pick the colour at pixel ``xy`` of the latest (mirrored) frame, as a click there does;
        returns the app's message (``None``: the app tracks no colour)."""
        frame = self.host.runner.latest_frame
        if frame is None:
            return None
        b, g, r = (int(v) for v in frame.image[xy[1], xy[0]])
        message = self.host.app.pick_color((b, g, r), xy)
        self.host.say(message)
        return message

    def drag(self, start: tuple[int, int], end: tuple[int, int]) -> None:
        """A left-button drag from window pixel ``start`` to ``end``: picks what is inside the
        box on the camera view (corners clamped to the view)."""
        view, frame = self.host.app.camera_view, self.host.runner.latest_frame
        if view is None or frame is None or not view.collidepoint(start):
            return
        h, w = frame.image.shape[:2]
        corners = []
        for x, y in (start, end):
            x = min(max(x, view.left), view.right - 1)
            y = min(max(y, view.top), view.bottom - 1)
            xy = view_to_camera(x, y, (w, h), view)
            if xy is None:
                return
            corners.append(xy)
        (x0, y0), (x1, y1) = corners
        box = (min(x0, x1), min(y0, y1), abs(x1 - x0) + 1, abs(y1 - y0) + 1)
        if box[2] >= 2 and box[3] >= 2:
            message = self.host.app.pick_region(box)
            if message is None:
                self._tracks_nothing()
            else:
                self.host.say(message)

    def handle_events(self) -> None:
        """Everything pygame queued since the last step."""
        for ev in pygame.event.get():
            if ev.type == pygame.QUIT:
                self.quit = True
            elif ev.type == pygame.KEYDOWN:
                self.press(ev.key, ev.mod)
            elif ev.type == pygame.MOUSEWHEEL:
                self.wheel(int(ev.y))
            elif ev.type == pygame.MOUSEBUTTONDOWN and ev.button == 1:
                self.drag_band = (ev.pos, ev.pos)
            elif ev.type == pygame.MOUSEMOTION and self.drag_band is not None:
                self.drag_band = (self.drag_band[0], ev.pos)
            elif ev.type == pygame.MOUSEBUTTONUP and ev.button == 1 and self.drag_band is not None:
                start = self.drag_band[0]
                self.drag_band = None
                if max(abs(ev.pos[0] - start[0]), abs(ev.pos[1] - start[1])) < DRAG_MIN_PX:
                    self.click(start)
                else:
                    self.drag(start, ev.pos)

    def draw(self, screen: pygame.Surface) -> None:
        """The rubber band of a drag in progress."""
        if self.drag_band is not None and self.drag_band[0] != self.drag_band[1]:
            (x0, y0), (x1, y1) = self.drag_band
            band = pygame.Rect(min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0))
            pygame.draw.rect(screen, D.BLACK, band, 3)
            pygame.draw.rect(screen, D.ACCENT, band, 1)
