"""Clapper: clap to switch the lamp on and off; clap twice quickly to change its colour.

Every clap toggles the lamp (the classic "clap on, clap off"); a double clap
(two claps within 0.6 s) also moves to the next colour and leaves the lamp on in it, so the change
shows (its two claps switched the lamp twice: from off, it was off again when the colour changed). The strip at the
bottom shows the last few seconds of sound with a mark at every clap.
``--preset book`` (or ``--set clapper.method=activity``) switches the lamp the book's way: on
every activating ``activity`` event, with ``setSilenceLevel(25, 500)``: any sound loud enough,
claps or not.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import numpy as np
import pygame

from sensekit.app import App
from sensekit.app import draw as D
from sensekit.audio.activity import ActivityDetector
from sensekit.audio.clap import ClapDetector, ClapPatternTracker
from sensekit.audio.pipeline import AudioStage
from sensekit.events import Activity, Clap, ClapPattern, Level
from sensekit.settings import Setting, setting

COLORS = [("warm white", (255, 214, 150)), ("red", (255, 70, 60)), ("green", (90, 240, 110)),
          ("blue", (80, 150, 255)), ("violet", (200, 110, 255)), ("gold", (255, 190, 40))]
HISTORY_S = 6.0


def glow(radius: int, color: tuple[int, int, int]) -> pygame.Surface:
    """A radial glow (alpha falls off with distance), built once per colour with NumPy."""
    size = radius * 2
    yy, xx = np.mgrid[0:size, 0:size]
    d = np.hypot(xx - radius + 0.5, yy - radius + 0.5) / radius
    alpha = (np.clip(1 - d, 0, 1) ** 2 * 200).astype(np.uint8)
    surf = pygame.Surface((size, size), pygame.SRCALPHA)
    pygame.surfarray.pixels3d(surf)[:] = color
    pygame.surfarray.pixels_alpha(surf)[:] = alpha.T
    return surf


class Clapper(App, section="clapper",
              title="clapper: clap the lamp on and off"):
    title = "Clapper"
    instructions = "clap: lamp on/off    double clap: new colour    +/- clap sensitivity"
    BOOK_INSTRUCTIONS = "make a noise: lamp on/off (the book's setSilenceLevel)    +/- threshold"
    needs = frozenset({"audio"})
    mirror = False
    method: Setting[Literal["clap", "activity"]] = setting(
        "clap", "clap: recognised claps toggle the lamp, double claps change its colour; "
        "activity: every activating activity event toggles it (the book)", choices=("clap", "activity"))

    def stages(self) -> list[AudioStage]:
        self.audio = AudioStage(clap=ClapDetector(), pattern=ClapPatternTracker(count=2),
                                activity=ActivityDetector())
        return [self.audio]

    def setup(self) -> None:
        self.lamp_on = False
        self.color_index = 0
        self.toggles = 0
        self.claps: list[float] = []
        self.doubles = 0
        self.level = 0.0
        self.levels_seen: list[tuple[float, float]] = []
        self.flash_until = -1.0
        self.glows = [glow(190, c) for _, c in COLORS]
        self.on("level", self._on_level)
        self._listen()

    def _listen(self) -> None:
        self.instructions = self.BOOK_INSTRUCTIONS if self.method == "activity" else type(self).instructions
        if self.method == "activity":
            self._listening = [("activity", self.on("activity", self._on_activity))]
        else:
            self._listening = [("clap", self.on("clap", self._on_clap)),
                               ("clap_pattern", self.on("clap_pattern", self._on_pattern))]

    def settings_changed(self, changed: Mapping[str, Any]) -> None:
        if "method" in changed:                       # listen to claps or to activity
            for name, handler in self._listening:
                self.host.dispatcher.off(name, handler)
            self._listen()

    def plus_minus_setting(self) -> tuple[str, int] | None:
        """+/- : the activity threshold (the book's way), or the claps' minimum level (+ accepts
        quieter claps)."""
        return ("activity.silence_level", -1) if self.method == "activity" else ("clap.min_level", -1)

    def _on_activity(self, event: Activity) -> None:
        if event.activating:                          # the book: loud enough toggles the lamp
            self._toggle(event.t)

    def _toggle(self, t: float) -> None:
        self.lamp_on = not self.lamp_on
        self.toggles += 1
        self.claps.append(t)
        self.flash_until = t + 0.15

    def _on_clap(self, event: Clap) -> None:
        self._toggle(event.t)

    def _on_pattern(self, event: ClapPattern) -> None:
        if event.count == 2:
            self.color_index = (self.color_index + 1) % len(COLORS)
            self.doubles += 1
            self.lamp_on = True                       # the new colour shows, whatever the two claps did
            self.host.say(f"double clap: {COLORS[self.color_index][0]}")

    def _on_level(self, event: Level) -> None:
        self.level = event.level
        self.levels_seen.append((event.t, event.level))

    def update(self, dt: float) -> None:
        cutoff = self.t - HISTORY_S
        if self.levels_seen and self.levels_seen[0][0] < cutoff - 1:
            self.levels_seen = [p for p in self.levels_seen if p[0] >= cutoff]

    def levels(self) -> dict[str, float]:
        return {"level": self.level}

    def state(self) -> dict[str, Any]:
        return {"lamp_on": self.lamp_on, "toggles": self.toggles, "claps": list(self.claps),
                "color": COLORS[self.color_index][0], "double_claps": self.doubles}

    # -- drawing -------------------------------------------------------------
    def draw(self, screen: pygame.Surface) -> None:
        area = D.content_rect(screen)
        color = COLORS[self.color_index][1]
        bg = tuple(int(30 + c * 0.18) for c in color) if self.lamp_on else (14, 14, 22)
        screen.fill(bg, area)
        cx, cy = area.centerx, area.y + 150
        pygame.draw.line(screen, (70, 70, 80), (cx, area.y), (cx, cy - 70), 4)      # cord
        if self.lamp_on:
            g = self.glows[self.color_index]
            screen.blit(g, g.get_rect(center=(cx, cy + 10)))
        shade = [(cx - 40, cy - 70), (cx + 40, cy - 70), (cx + 95, cy - 5), (cx - 95, cy - 5)]
        pygame.draw.polygon(screen, (60, 60, 72), shade)
        pygame.draw.polygon(screen, (120, 120, 135), shade, 3)
        bulb = color if self.lamp_on else (55, 55, 62)
        pygame.draw.circle(screen, bulb, (cx, cy + 14), 30)
        pygame.draw.circle(screen, (200, 200, 200) if self.lamp_on else (90, 90, 98), (cx, cy + 14), 30, 2)
        word = "ON" if self.lamp_on else "OFF"
        D.text(screen, word, (cx, cy + 70), size=56, bold=True,
               color=(20, 20, 20) if self.lamp_on else (110, 110, 125), anchor="midtop")
        if self.t <= self.flash_until:
            D.text(screen, "CLAP!", (cx + 150, cy - 30), size=44, color=D.ACCENT, bold=True, anchor="center")
        self._draw_strip(screen, pygame.Rect(area.x + 20, area.bottom - 100, area.w - 40, 90))
        self.draw_frame(screen, f"claps {len(self.claps)}   doubles {self.doubles}")

    def _draw_strip(self, screen: pygame.Surface, rect: pygame.Rect) -> None:
        pygame.draw.rect(screen, D.PANEL, rect, border_radius=6)
        label = D.text(screen, "sound, last 6 s  (| = clap)", (rect.x + 8, rect.y + 3), size=16, color=D.GREY)
        plot = pygame.Rect(rect.x, label.bottom + 2, rect.w, rect.bottom - label.bottom - 2)   # under the label
        t0 = self.t - HISTORY_S
        pts = [(plot.x + (t - t0) / HISTORY_S * plot.w, plot.bottom - 4 - lv / 100 * (plot.h - 8))
               for t, lv in self.levels_seen if t >= t0]
        if len(pts) > 1:
            pygame.draw.lines(screen, D.CYAN, False, pts, 2)
        for t in self.claps:
            if t >= t0:
                x = plot.x + (t - t0) / HISTORY_S * plot.w
                pygame.draw.line(screen, D.ACCENT, (x, plot.y + 2), (x, plot.bottom - 4), 2)
