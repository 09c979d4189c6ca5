"""What the detector sees, over an app's camera view: keys ``m`` mask, ``e`` edges, ``p`` palette,
``b`` the body's silhouette (when the run has one: ``--silhouette``).

``OverlayView`` belongs to the app host. Each key switches one overlay on or off (they
combine); the host draws them after the app, over ``app.camera_view``, from the stages' own
intermediate results of the latest frame (``sensekit.vision.layers``: the motion detector's
mask, the edge sub-stage's map, the palette-mapped frame), computing only what no stage of
the app makes. An app without a camera view says so instead.

Cost while an overlay is on: one ``compose`` and one scaled blit per new camera frame (~1-2 ms
at 320x240); nothing while all are off.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from sensekit.app import draw as D
from sensekit.app.convert import array_to_surface
from sensekit.vision.layers import LayerGrabber, compose, offered

if TYPE_CHECKING:
    from sensekit.app.base import Host

__all__ = ["OVERLAY_KEYS", "OverlayView"]

OVERLAY_KEYS: dict[int, str] = {pygame.K_m: "mask", pygame.K_e: "edges", pygame.K_p: "palette",
                                 pygame.K_b: "silhouette"}
_KEY_OF = {"mask": "m", "edges": "e", "palette": "p", "silhouette": "b"}
#: opacity of the overlay picture over the app's drawing (the game stays faintly visible)
ALPHA = 215


class OverlayView:
    def __init__(self, host: Host) -> None:
        self.host = host
        self.shown: set[str] = set()
        self._grabber = LayerGrabber()
        self._cache: tuple[int, tuple[int, int], frozenset[str], pygame.Surface] | None = None

    def toggle(self, name: str) -> str:
        """Switch ``name`` on or off; returns the message the host shows."""
        if self.host.app.camera_view is None:
            return f"{self.host.app.name or 'this app'} shows no camera picture to draw the {name} over"
        if name not in self.shown and name not in offered(self.host.runner.stages):
            return f"no {name} in this run (sensekit run APP --{name}, with the hands extra)"
        self.shown ^= {name}
        state = "on" if name in self.shown else "off"
        return f"{name} overlay {state} ({_KEY_OF[name]})"

    def draw(self, screen: pygame.Surface) -> None:
        view, frame = self.host.app.camera_view, self.host.runner.latest_frame
        if not self.shown or view is None or frame is None:
            return
        key = (frame.index, view.size, frozenset(self.shown))
        cache = self._cache
        if cache is None or cache[:3] != key:
            layers = self._grabber.grab(frame.image, self.host.runner.stages, index=frame.index,
                                        t=frame.t, keep_previous="mask" in self.shown)
            surface = array_to_surface(compose(layers, self.shown), view.size)
            surface.set_alpha(ALPHA)
            cache = self._cache = (*key, surface)
        screen.blit(cache[3], view)
        label = " + ".join(f"{n} ({_KEY_OF[n]})" for n in sorted(self.shown))
        D.text(screen, label, (view.x + 6, view.y + 4), size=16, color=D.ACCENT)
