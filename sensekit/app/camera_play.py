"""``CameraPlay``: the declaration the apps played over the camera picture share (steer, collide).

Those apps draw a 640x480 camera view under the title, track a coloured object the player
clicks or drags (``TrackerPicking``) and take the index fingertip instead with ``--hands`` or
key h (``HandInput``, which the app makes in ``stages()`` as ``self.hand``); a pinch is key c
(the next mode: ``recalibrate``). An app declares ``class Steer(CameraPlay, App, ...)`` and sets
``camera_view`` in ``setup()`` (annotated ``pygame.Rect`` in the app: ``App``'s may be None);
every other hook is its own. These are the lines each of the two apps wrote, word for word.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import pygame

from sensekit.app import draw as D
from sensekit.app.picking import TrackerPicking

if TYPE_CHECKING:
    from sensekit.app.hand_input import HandInput

__all__ = ["CameraPlay"]


class CameraPlay(TrackerPicking):
    """Mixin (before ``App``): the camera view's window and rectangle, hand input on a switch,
    key h to turn it on or off and a pinch as key c."""

    window_size: ClassVar[tuple[int, int]] = (640, D.TITLE_H + 480 + D.FOOTER_H)
    hands: ClassVar[str] = "switch"
    hand: HandInput

    if TYPE_CHECKING:
        def recalibrate(self) -> str | None: ...      # App's (key c), the app's own

    def key(self, key: int) -> str | None:
        """Key h: hand input on or off (``HandInput.toggle``)."""
        return self.hand.toggle() if key == pygame.K_h else None

    def _on_pinch(self, started: bool, xy: tuple[float, float]) -> None:
        """A pinch is key c (the next mode)."""
        if started:
            self.host.say(self.recalibrate())
