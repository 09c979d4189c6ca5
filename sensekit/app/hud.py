"""``Hud``: what the host draws over an app - the status line, the banners and short messages.

- the **status line** (second line of the title bar): fps, the source, the capture-to-event
  latency, what a live source has lost so far when anything (``lost: 3 dropped audio blocks,
  1 input overflow``, its ``stats()``: a microphone that hiccups says so during the show, not
  only when it ends) and the app's levels. In deterministic runs (a replay or file, headless) the fps is
  the simulation rate and the latency is the source-time lag between an item and the step that
  used it, so screenshots do not depend on machine speed;
- **banners**: the source is lost (red, until it is back), paused, the recording ended;
- a **message** (``say``) above the instruction line for ``TOAST_S`` seconds of game time.

Cost: a few text blits per drawing (the text cache of ``sensekit.app.draw``).
"""
from __future__ import annotations

import time
from collections import deque
from collections.abc import Collection

import pygame

from sensekit.app import draw as D
from sensekit.app.base import Host
from sensekit.capture.base import drop_counts, drops_text

__all__ = ["Hud", "TOAST_S"]

#: how long a message stays up, seconds of game time
TOAST_S = 2.0


def _level(name: str, value: float) -> str:
    """``level 42``; a name that ends in its unit puts the unit after the number: ``match 96 %``,
    ``gap to target 85 px``."""
    label, _, unit = name.rpartition(" ")
    if label and unit in ("%", "px"):
        return f"{label} {value:.0f} {unit}"
    return f"{name} {value:.0f}"


class Hud:
    """The status line, the banners and the messages of one host (see the module docstring)."""

    def __init__(self, host: Host, *, deterministic: bool) -> None:
        self.host = host
        self.deterministic = deterministic
        #: the red banner's text while the source is lost
        self.lost: str | None = None
        #: the message shown and the game time it goes away
        self.toast: tuple[str, float] | None = None
        self._wall_times: deque[float] = deque(maxlen=30)
        self._last_item_t = 0.0

    def say(self, message: str | None) -> None:
        """Show ``message`` for ``TOAST_S`` seconds of game time (``None`` or empty: nothing)."""
        if message:
            self.toast = (message, self.host.sim_t + TOAST_S)

    def stepped(self) -> None:
        """After a step: note the newest item's time (for the lag) and the wall time (fps)."""
        runner = self.host.runner
        latest = [i.t for i in (runner.latest_frame, runner.latest_block) if i is not None]
        if latest:
            self._last_item_t = max(latest)

    def drawn(self) -> None:
        """Note that a picture was drawn now (the live fps counts these)."""
        self._wall_times.append(time.perf_counter())

    def line(self, *, leave_out: Collection[str] = ()) -> str:
        """The status line: fps, the source, latency (live) or lag (deterministic), the app's
        levels; ``leave_out``: names of the app's levels to leave out (the panel's, whose level
        graph shows those fresher than a status handed over twice a second)."""
        host = self.host
        lag = f"lag {max(0.0, (host.sim_t - self._last_item_t) * 1000.0):.0f} ms"
        if self.deterministic:
            fps = f"{1.0 / host.app.step_s:.0f} fps (sim)"
            latency = lag
        else:
            times = self._wall_times
            span = times[-1] - times[0] if len(times) > 1 else 0.0
            fps = f"{(len(times) - 1) / span:.0f} fps" if span > 0 else "-- fps"
            ms = host.runner.stats.latency_ms
            latency = f"latency {ms:.0f} ms" if ms is not None else lag
        levels = "  ".join(_level(k, v) for k, v in host.app.levels().items() if k not in leave_out)
        lost = drops_text(drop_counts(host.source.stats() or {})).removeprefix("; ") if host.source.is_live else ""
        return (f"{fps} | {host.source.description} | {latency}" + (f" | {lost}" if lost else "")
                + (f" | {levels}" if levels else ""))

    def draw(self, screen: pygame.Surface, *, status_line: bool, paused: bool, ended: bool) -> None:
        """Draw the status line (if ``status_line``), the banner that applies and the message."""
        if status_line:
            D.text(screen, self.line(), (10, D.TITLE_H - 3), size=17, color=D.GREY, anchor="bottomleft")
        content = D.content_rect(screen)
        if self.lost:
            D.banner(screen, self.lost, color=D.RED, y=content.y + 30, size=26)
        elif paused:
            D.banner(screen, "PAUSED - space to resume", color=(70, 70, 90))
        elif ended:     # in the title bar, right of the status line: over the game it ran into
            D.label(screen, "recording ended", (content.right - 6, D.TITLE_H - 1), size=17,   # axes and traces
                    color=D.ACCENT, anchor="bottomright", pad_px=(4, 1))
        if self.toast is not None:
            message, until = self.toast
            if self.host.sim_t <= until or paused:
                D.banner(screen, message, color=(40, 44, 60), y=content.y + 26, size=22)
            else:
                self.toast = None
