"""``PanelTap``: the runner stage that hands the panel what the piece sees and hears.

Appended after the run's own stages (``always_run``, emits nothing), it sees every item right
after the stages processed it, on the run's thread:

- a video frame: when a client watches (``FrameHub.due``), the stages' intermediate results
  are grabbed (``LayerGrabber``), copied and published; otherwise nothing is done;
- an audio block: the level the first audio stage that measured it shows (``trace(index)``,
  ``sensekit.audio.trace``: no ``level`` event is needed) goes to the graph, its thresholds
  and noise floor to the graph's lines, with the lines of ``app_lines`` (an app's own
  thresholds: ``App.level_lines``);
- every item: panel requests waiting for the run's thread run (``CommandQueue``);
- once a second (by ``clock``): the status line, the frame rate and what the stages that
  ``runner.Warns`` say (their typed ``warnings()``; nothing is looked up by attribute name).

Events reach the panel through ``attach_events(dispatcher)``: it listens only to the event
names some handler of the run already wants, so the panel never wakes a stage the piece does
not use. The event log leaves out the per-item ``frame``/``audio_block`` records and the
levels (they are the graph).

Cost on the run's loop with nobody watching: a few attribute reads per item. With a client
watching: one grab and copy per published frame (~0.1 ms at 320x240) and one lock per event.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from sensekit.audio.trace import TraceSource
from sensekit.capture.base import Item, VideoFrame
from sensekit.clock import Clock, MonotonicClock
from sensekit.events import EVENT_TYPES, Dispatcher, Event
from sensekit.panel.commands import CommandQueue
from sensekit.panel.frames import FrameHub
from sensekit.vision.layers import LayerGrabber
from sensekit.panel.telemetry import Telemetry
from sensekit.runner import stage_warnings

__all__ = ["PanelTap", "pose_meta"]

#: events the log leaves out: per-item records, and the levels the graph already draws
QUIET_EVENTS = frozenset({"frame", "audio_block", "level"})


def pose_meta(poses: Sequence[tuple[int, Any]]) -> list[dict[str, Any]]:
    """Each person's id and 33 ``[x_px, y_px, visibility]`` (rounded: 0.1 px, 0.01) for the
    frame header; the page draws the skeleton lines itself (``static/video.js``)."""
    return [{"id": int(pid), "points": [[round(float(x), 1), round(float(y), 1), round(float(v), 2)]
                                        for x, y, _, v in points]} for pid, points in poses]


class PanelTap:
    consumes: Literal["both"] = "both"
    emits: frozenset[str] = frozenset()
    always_run = True

    def __init__(self, hub: FrameHub, telemetry: Telemetry, commands: CommandQueue,
                 stages: Callable[[], Sequence[Any]], *, clock: Clock | None = None,
                 app_lines: Callable[[], Mapping[str, float]] | None = None) -> None:
        self.hub = hub
        self.telemetry = telemetry
        self.commands = commands
        self._stages = stages
        self._app_lines = app_lines
        self._grabber = LayerGrabber()
        #: what the once-a-second status (frame rate, warnings) is timed by
        self.clock: Clock = clock if clock is not None else MonotonicClock()
        self._frames = 0
        self._rate_t0 = self.clock.now()
        self._rate_frames = 0

    def attach_events(self, dispatcher: Dispatcher) -> list[str]:
        """Listen to the events the run already produces (see the module docstring)."""
        names = [n for n in sorted(EVENT_TYPES) if dispatcher.wants((n,)) and n not in QUIET_EVENTS]
        for name in names:
            dispatcher.on(name, self._on_event)
        return names

    def _others(self) -> list[Any]:
        return [s for s in self._stages() if s is not self]

    def _on_event(self, event: Event) -> None:
        self.telemetry.add_event(event.to_dict())

    def process(self, item: Item) -> tuple[Event, ...]:
        self.commands.run_pending()
        if isinstance(item, VideoFrame):
            self._frame(item)
        else:
            self._block(item.index)
        return ()

    def _block(self, index: int) -> None:
        """The level graph: what the first audio stage that measured this block shows of it
        (``TraceSource.trace``; a stage the runner skipped shows nothing)."""
        for stage in self._others():
            trace = stage.trace(index) if isinstance(stage, TraceSource) else None
            if trace is not None:
                self.telemetry.add_level(trace.t, trace.level)
                lines = trace.line_levels()
                if self._app_lines is not None:
                    lines.update(self._app_lines())
                self.telemetry.set_lines(lines)
                return

    def _frame(self, item: VideoFrame) -> None:
        self._frames += 1
        now = self.clock.now()
        if now - self._rate_t0 >= 1.0:
            fps = (self._frames - self._rate_frames) / (now - self._rate_t0)
            warnings = stage_warnings(self._others())        # the typed door: ``runner.Warns``
            self.telemetry.set_status(frames=self._frames, frame_fps=round(fps, 1),
                                      warning="; ".join(warnings) or None)
            self._rate_t0, self._rate_frames = now, self._frames
        hub = self.hub
        if not hub.due():
            return
        wanted = hub.wanted()
        layers = self._grabber.grab(item.image, self._others(), index=item.index, t=item.t,
                                    keep_previous="mask" in wanted)
        h, w = layers.image.shape[:2]
        meta = {"index": item.index, "t": round(item.t, 4), "w": w, "h": h,
                "tap_unix": time.time(), "box": layers.box,
                "zones": {k: list(v) for k, v in layers.zones.items()}}
        if layers.poses:
            meta["poses"] = pose_meta(layers.poses)
        hub.publish(layers.copy(wanted), meta)
