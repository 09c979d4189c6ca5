"""Activity graph: a scrolling trace of how loud it is, with the threshold, the noise floor and events.

The trace scrolls left one step at a time (10 s across the window). The yellow
line is the activity threshold (+/- moves it): crossing it upwards fires an
"activity on" event (green mark), dropping below it for the silence timeout
fires "activity off" (red mark). The grey band is the room's noise floor
(c re-measures it); claps get a star.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pygame

from sensekit.app import App, draw as D
from sensekit.audio.activity import ActivityDetector
from sensekit.audio.clap import ClapDetector
from sensekit.audio.noise_floor import NoiseFloor
from sensekit.audio.pipeline import AudioStage
from sensekit.events import Activity, Level
from sensekit.settings import setting

SILENCE_LEVEL = 30.0     # this app's setSilenceLevel(level, timeout): the activity settings it starts with
TIMEOUT_MS = 300.0
MARK_COLORS = {"on": D.GREEN, "off": D.RED, "clap": D.ACCENT}
PLOT_BG: D.Color = (10, 12, 18)


class ActivityGraph(App, section="activity_graph",
                    title="activity graph: the level over time with the threshold and events"):
    title = "Activity Graph"
    instructions = "talk, sing, clap - watch the trace    +/- threshold    c measure noise floor"
    needs = frozenset({"audio"})
    mirror = False
    seconds = setting(10.0, "how much time the trace shows", unit="s", lo=2, hi=120)
    plus_minus = ("activity.silence_level", -1)

    def stages(self) -> list[AudioStage]:
        self.activity = ActivityDetector(SILENCE_LEVEL, TIMEOUT_MS)
        self.floor = NoiseFloor(learn_ms=1000.0)
        self.audio = AudioStage(activity=self.activity, noise_floor=self.floor, clap=ClapDetector())
        return [self.audio]

    def setup(self) -> None:
        # per step, newest last; NaN before the run started (no data: nothing is drawn there)
        self.trace = np.full(int(round(self.seconds / self.step_s)), np.nan, np.float32)
        self.level = 0.0
        self.peak_since_step = 0.0
        self.active = False
        self.marks: list[tuple[float, str]] = []      # (time, kind)
        self.counts = {"on": 0, "off": 0, "clap": 0}
        self.on("level", self._on_level)
        self.on("activity", self._on_activity)
        self.on("clap", lambda e: self._mark(e.t, "clap"))

    def settings_changed(self, changed: Mapping[str, Any]) -> None:
        if "seconds" in changed:                      # keep the newest part of the trace
            n = int(round(self.seconds / self.step_s))
            old = self.trace[-n:]
            self.trace = np.full(n, np.nan, np.float32)
            self.trace[n - len(old):] = old

    def _on_level(self, event: Level) -> None:
        self.level = event.level
        self.peak_since_step = max(self.peak_since_step, event.level)

    def _on_activity(self, event: Activity) -> None:
        self.active = bool(event.activating)
        self._mark(event.t, "on" if event.activating else "off")

    def _mark(self, t: float, kind: str) -> None:
        self.marks.append((t, kind))
        self.counts[kind] += 1

    def update(self, dt: float) -> None:
        self.trace[:-1] = self.trace[1:]
        self.trace[-1] = self.peak_since_step          # the loudest block of this step
        self.peak_since_step = self.level
        self.marks = [m for m in self.marks if m[0] > self.t - self.seconds]

    @property
    def threshold(self) -> float:
        return self.activity.on_level

    def recalibrate(self) -> str:
        self.floor.recalibrate()
        return "measuring the noise floor - stay quiet for a second"

    def levels(self) -> dict[str, float]:
        return {"level": self.level, "floor": self.floor.level_in_use}

    def state(self) -> dict[str, Any]:
        return {"trace": self.trace.copy(), "active": self.active, "counts": dict(self.counts),
                "threshold": self.threshold, "floor": self.floor.level_in_use}

    # -- drawing -------------------------------------------------------------
    def draw(self, screen: pygame.Surface) -> None:
        area = D.content_rect(screen)
        screen.fill(D.DARK, area)
        plot = pygame.Rect(area.x + 44, area.y + 70, area.w - 64, area.h - 100)
        pygame.draw.rect(screen, PLOT_BG, plot)

        def y_of(level: float | np.ndarray) -> Any:
            return plot.bottom - np.clip(level, 0, 100) / 100.0 * plot.h

        for lv in (0, 25, 50, 75, 100):                                   # grid
            y = int(y_of(lv))
            pygame.draw.line(screen, (34, 38, 50), (plot.x, y), (plot.right, y))
            D.text(screen, str(lv), (plot.x - 6, y), size=16, color=D.GREY, anchor="midright")
        floor = self.floor.level_in_use
        pygame.draw.rect(screen, (60, 64, 78), (plot.x, int(y_of(floor)), plot.w, plot.bottom - int(y_of(floor))))

        xs = np.linspace(plot.x, plot.right, len(self.trace))
        known = ~np.isnan(self.trace)          # the steps since the run started (the newest ones)
        if known.sum() >= 2:
            pts = np.column_stack([xs[known], y_of(self.trace[known])]).tolist()
            pygame.draw.polygon(screen, (24, 70, 96), [(pts[0][0], plot.bottom), *pts,
                                                       (plot.right, plot.bottom)])
            pygame.draw.lines(screen, D.CYAN, False, pts, 2)

        thr = int(y_of(self.threshold))
        pygame.draw.line(screen, D.ACCENT, (plot.x, thr), (plot.right, thr), 2)

        for t, kind in self.marks:
            x = plot.right - (self.t - t) / self.seconds * plot.w
            color = MARK_COLORS[kind]
            if kind == "clap":
                pygame.draw.circle(screen, color, (int(x), plot.y + 10), 6)
                pygame.draw.line(screen, color, (x, plot.y + 16), (x, plot.bottom), 1)
            else:
                pygame.draw.line(screen, color, (x, plot.y), (x, plot.bottom), 2)
                tip = plot.y + (0 if kind == "on" else 12)
                pygame.draw.polygon(screen, color, [(x - 6, plot.y + 6), (x + 6, plot.y + 6),
                                                    (x, tip if kind == "off" else plot.y - 4)])
        # over the trace and the marks, on the plot's colour: they crossed "threshold 30"
        D.label(screen, f"threshold {self.threshold:.0f}", (plot.x + 2, thr - 1), size=18, color=D.ACCENT,
                anchor="bottomleft", backing=PLOT_BG, pad_px=(4, 1))

        state = "SOUND" if self.active else "quiet"
        D.text(screen, f"{self.level:3.0f}", (area.x + 20, area.y + 8), size=56, bold=True,
               color=D.GREEN if self.active else D.WHITE)
        D.text(screen, state, (area.x + 110, area.y + 16), size=34, bold=True,
               color=D.GREEN if self.active else D.GREY)
        D.text(screen, f"noise floor {self.floor.level_in_use:.0f}" + (" (measuring)" if self.floor.learning else ""),
               (area.x + 220, area.y + 22), size=18, color=(170, 170, 185))
        legend = [("activity on", D.GREEN), ("activity off", D.RED), ("clap", D.ACCENT)]
        x = area.right - 20
        for label, color in reversed(legend):
            r = D.text(screen, label, (x, area.y + 22), size=18, color=color, anchor="topright")
            x = r.x - 18
        D.text(screen, f"{self.seconds:g} s ago", (plot.x, plot.bottom + 4), size=16, color=D.GREY)
        D.text(screen, "now", (plot.right, plot.bottom + 4), size=16, color=D.GREY, anchor="topright")
        self.draw_frame(screen, self.counts_said())

    def counts_said(self) -> str:
        """The title bar's counts; the activations with the threshold and timeout that counted them
        (``sensekit plot`` on the same demo says "1 activation at threshold 10, timeout 2000 ms",
        the table's; this app starts at 30 and 300 ms and counts 10)."""
        return (f"activations {self.counts['on']} (threshold {self.threshold:.0f}, "
                f"{self.activity.timeout_ms:g} ms)  claps {self.counts['clap']}")
