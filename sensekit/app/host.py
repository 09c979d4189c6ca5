"""``AppHost``: the pygame loop every mini-app runs in.

One loop iteration is one **fixed simulation step** (``App.step_s``, 1/30 s by
default) followed by one drawing:

1. handle pygame input (keys, clicks, window close);
2. unless paused: advance the simulation clock by one step, feed the runner
   everything the source produced up to that time (``Runner.pump(sim_t)``), then
   ``app.update(step_s)``;
3. ``app.draw(screen)``, then the HUD, any banner (paused, source lost, recording
   ended) and a short message from the last key press; write the video frame.

On a replay or file the simulation clock *is* the source clock: the game sees
exactly the same items at the same steps on every run and on every machine, so
a run is reproducible down to the pixel. With a window the loop is paced to
wall-clock time; headless it runs as fast as it can. A live source paces the
loop by its own clock, with or without a window: between steps the host waits
on the source and handles each item the moment it arrives, so game time tracks
real time, CPU use stays low, and ``--frames`` counts the frames that arrived.

The camera image is mirrored (``App.mirror``) before any stage sees it, as
a mirror is what players expect; event coordinates are therefore in mirrored
image pixels, the way they appear on screen.

Keys: ``space`` pause, ``c`` recalibrate, ``s`` screenshot, ``Shift+S`` save the
venue profile (``--profile`` file, else ``venue.toml``: the settings this run changed, the
profile's own keys and what the detectors learned), ``+``/``-`` move the app's
``plus_minus`` setting by its declared step, ``r`` restart, ``esc``/``q`` quit, ``m``/``e``/``p`` the motion
mask, edge map and palette over the camera view (``overlay_view.py``); a click on ``app.camera_view``
picks what is under the pointer (``App.pick_color``), and pressing, dragging at least
``DRAG_MIN_PX`` and releasing there picks what is inside the box (``App.pick_region``; a
rubber band shows it while dragging); any other key goes to ``app.key`` (``h``: hand input).

Settings: ``host.tuning`` is the run's table (the app and every stage,
``sensekit.settings.live.Tuning``); the command line, OSC and the keys change settings
through it, and they take effect on the next frame, block or step.

Scripted input (``RunOptions.script``, from ``--pick``, ``--mode`` and ``--keys``;
see ``sensekit.app.script``) goes through the same ``press`` and ``pick_at`` as
the keyboard and the mouse.

HUD (second line of the title bar): fps, the source, the capture-to-event
latency and the app's levels. In deterministic runs (not live, headless) the fps
shown is the simulation rate and the latency is the source-time lag between an
item and the step that used it, so screenshots do not depend on machine speed.

When the source reports ``source_lost`` the app says so in a red banner and
keeps running; ``source_restored`` removes it.

Failure modes: ``pygame.error`` if no display is available and not headless;
``ConfigError`` for an unwritable ``--video`` path.
"""
from __future__ import annotations

import os
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import pygame

from sensekit.app import draw as D
from sensekit.app.base import App
from sensekit.app.convert import array_to_surface, view_to_camera
from sensekit.app.overlay_view import OVERLAY_KEYS, OverlayView
from sensekit.app.video import VideoRecorder
from sensekit.capture.base import Source
from sensekit.clock import Clock, MonotonicClock
from sensekit.errors import SensekitError
from sensekit.event_sink import EventSink
from sensekit.events import Dispatcher, Event, SourceLost, SourceRestored, to_jsonl
from sensekit.runner import Runner
from sensekit.settings.live import Tuning
from sensekit.settings.registry import lookup
from sensekit.vision.stages import mirror

TOAST_S = 2.0
#: a press and release further apart than this (window pixels) is a drag, not a click
DRAG_MIN_PX = 6


@dataclass
class RunOptions:
    headless: bool = False
    frames: int | None = None
    screenshot: Path | None = None
    video: Path | None = None
    events: Path | None = None
    #: where key ``s`` saves pictures
    screenshot_dir: Path = field(default_factory=Path.cwd)
    #: where ``Shift+S`` saves the venue profile (the current tuning of the stages)
    profile_path: Path = field(default_factory=lambda: Path("venue.toml"))
    #: the profile the run started from; saving keeps what the stages do not know (zones)
    profile: Any = None
    #: draw the HUD line (tests of pure game pictures may switch it off)
    hud: bool = True
    #: scripted picks, mode and key presses (``sensekit.app.script.Script``)
    script: Any = None
    #: start with hand input (``--hands``; apps whose ``hands`` is "switch" or "always")
    hands: bool = False
    #: pace a replay or file at recorded speed even headless (``--panel``)
    realtime: bool = False


@dataclass
class RunResult:
    frames: int
    sim_t: float
    wall_s: float
    events: int
    ended: bool
    state: dict[str, Any]
    #: live: camera frames (or audio blocks) that arrived; replay/file: steps, like ``frames``
    arrived: int = 0
    #: the run was stopped by Ctrl-C (the screenshot was still written)
    interrupted: bool = False
    #: CPU seconds the whole process used during the loop (every thread)
    cpu_s: float = 0.0

    @property
    def fps(self) -> float:
        return self.frames / self.wall_s if self.wall_s > 0 else float("inf")


class AppHost:
    """Runs one ``App`` class on one opened ``Source``."""

    def __init__(self, app_cls: type[App], source: Source, options: RunOptions | None = None,
                 *, clock: Clock | None = None) -> None:
        self.options = options or RunOptions()
        if self.options.headless:
            os.environ["SDL_VIDEODRIVER"] = "dummy"
            os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
        pygame.display.init()
        pygame.font.init()
        self.source = source
        self.live = bool(source.is_live)
        self.deterministic = not self.live and self.options.headless and not self.options.realtime
        self.clock: Clock = clock or MonotonicClock()
        self.dispatcher = Dispatcher()
        self.sim_t = 0.0
        self.frame_no = 0
        self.steps = 0
        self.paused = False
        self.quit = False
        self.lost: str | None = None
        self.toast: tuple[str, float] | None = None
        self._cam_cache: tuple[int, tuple[int, int], pygame.Surface] | None = None
        self._wall_times: deque[float] = deque(maxlen=30)
        self._last_item_t = 0.0
        self._events_file: EventSink | None = None
        self.video: VideoRecorder | None = None
        self._drag: tuple[tuple[int, int], tuple[int, int]] | None = None   # press, pointer
        #: called once per loop iteration, on this thread (a browser panel's requests)
        self.step_hooks: list[Callable[[], None]] = []
        #: what the detector sees, drawn over ``app.camera_view`` (keys ``m``, ``e``, ``p``)
        self.overlays = OverlayView(self)

        self.screen = pygame.display.set_mode(app_cls.window_size)
        pygame.display.set_caption(f"sensekit - {app_cls.title}")
        self.app = app_cls(self)
        transforms = [mirror] if app_cls.mirror else []
        self.runner = Runner(source, list(self.app.stages()), self.dispatcher,
                             frame_transforms=transforms)
        self.tuning = Tuning(lambda: [self.app, *self.runner.stages])
        self.dispatcher.on(SourceLost.name, self._on_lost)
        self.dispatcher.on(SourceRestored.name, self._on_restored)
        if self.options.events is not None:
            self.options.events.parent.mkdir(parents=True, exist_ok=True)
            sink = self._events_file = EventSink(self.options.events)   # a FIFO never blocks the run
            self.dispatcher.on("*", lambda e: sink.write(to_jsonl(e) + "\n"))
        if self.options.video is not None:
            self.video = VideoRecorder(self.options.video, fps=1.0 / app_cls.step_s)
        self.app.setup()
        self.tuning.baseline()                     # what the app starts with; Shift+S saves changes
        if self.options.script is not None:
            try:
                self.options.script.start(self)
            except BaseException:
                self.close()
                raise

    # -- source status -------------------------------------------------------
    def _on_lost(self, event: Event) -> None:
        assert isinstance(event, SourceLost)
        what = event.source or self.source.description
        self.lost = f"{what} lost" + (f": {event.reason}" if event.reason else "") + " - reconnecting"

    def _on_restored(self, event: Event) -> None:
        self.lost = None
        self.say(f"{getattr(event, 'source', '') or self.source.description} is back")

    # -- helpers for apps ----------------------------------------------------
    def say(self, message: str | None) -> None:
        """Show ``message`` above the instruction line for a couple of seconds."""
        if message:
            self.toast = (message, self.sim_t + TOAST_S)

    def camera_surface(self, size: tuple[int, int]) -> pygame.Surface | None:
        frame = self.runner.latest_frame
        if frame is None:
            return None
        size = (int(size[0]), int(size[1]))
        cache = self._cam_cache
        if cache is None or cache[0] != frame.index or cache[1] != size:
            cache = self._cam_cache = (frame.index, size, array_to_surface(frame.image, size))
        return cache[2]

    @property
    def frame_size(self) -> tuple[int, int] | None:
        frame = self.runner.latest_frame
        if frame is None:
            return self.source.frame_size
        h, w = frame.image.shape[:2]
        return (w, h)

    # -- input ---------------------------------------------------------------
    def press(self, key: int, mod: int = 0) -> None:
        """Act on a key exactly as if it were pressed (tests use this too)."""
        app = self.app
        if key == pygame.K_SPACE:
            self.paused = not self.paused
        elif key == pygame.K_c:
            self.say(app.recalibrate() or "nothing to recalibrate")
        elif key == pygame.K_s and mod & pygame.KMOD_SHIFT:
            self.save_profile()
        elif key == pygame.K_s:
            path = self.options.screenshot_dir / f"{app.name or 'app'}-{self.frame_no:05d}.png"
            self.save_screenshot(path)
            self.say(f"saved {path.name}")
        elif key in (pygame.K_PLUS, pygame.K_EQUALS, pygame.K_KP_PLUS):
            self.say(self.adjust(+1))
        elif key in (pygame.K_MINUS, pygame.K_KP_MINUS):
            self.say(self.adjust(-1))
        elif key == pygame.K_r:
            self.say(app.restart())
        elif key in (pygame.K_ESCAPE, pygame.K_q):
            self.quit = True
        elif key in OVERLAY_KEYS:
            self.say(self.overlays.toggle(OVERLAY_KEYS[key]))
        else:
            self.say(app.key(key))

    def adjust(self, steps: int) -> str | None:
        """Keys ``+``/``-``: move the app's ``plus_minus`` setting by ``steps`` declared steps."""
        target = self.app.plus_minus_setting()
        if target is None:
            return self.app.adjust_sensitivity(steps)
        key, direction = target
        s = lookup(key)
        current = self.tuning.settings().get(key)
        if current is None:
            return f"{key} is not set in this run"
        value = s.stepped(current, steps * direction)
        self.tuning.apply_now({key: value})        # the loop's own thread, between steps
        return f"{key} = {s.show(value)}"

    def profile_values(self) -> dict[str, Any]:
        """What ``Shift+S`` saves: the keys of the profile the run started from (at their
        current values), every setting this run changed, and what the detectors learned."""
        from sensekit.profile import run_values
        return run_values(self.tuning, self.options.profile)

    def save_profile(self) -> Path | None:
        """Save the run's settings as a venue profile (``profile_values``; an existing file is
        edited in place, comments kept), so the piece comes back tuned next time (``--profile``)."""
        try:
            path = self.write_profile()
        except (OSError, SensekitError) as exc:
            self.say(f"could not save the profile: {exc}")
            return None
        self.say(f"saved venue profile {path}")
        return path

    def write_profile(self) -> Path:
        """Write the venue profile (``save_profile`` without the message); raises on failure."""
        from sensekit.profile import save_profile
        return save_profile(self.profile_values(), self.options.profile_path)

    def click(self, pos: tuple[int, int]) -> None:
        """A left click at window pixel ``pos``: picks the colour under it on the camera view."""
        view, frame = self.app.camera_view, self.runner.latest_frame
        if view is None or frame is None:
            return
        h, w = frame.image.shape[:2]
        xy = view_to_camera(pos[0], pos[1], (w, h), view)
        if xy is None:
            return
        self.pick_at(xy)

    def pick_at(self, xy: tuple[int, int]) -> str | None:
        """Pick the colour at pixel ``xy`` of the latest (mirrored) frame, as a click there does;
        returns the app's message (``None``: the app tracks no colour)."""
        frame = self.runner.latest_frame
        if frame is None:
            return None
        b, g, r = (int(v) for v in frame.image[xy[1], xy[0]])
        message = self.app.pick_color((b, g, r), xy)
        self.say(message)
        return message

    def drag(self, start: tuple[int, int], end: tuple[int, int]) -> None:
        """A left-button drag from window pixel ``start`` to ``end``: picks what is inside the
        box on the camera view (corners clamped to the view)."""
        view, frame = self.app.camera_view, self.runner.latest_frame
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
            self.say(self.app.pick_region(box))

    def _handle_input(self) -> None:
        for ev in pygame.event.get():
            if ev.type == pygame.QUIT:
                self.quit = True
            elif ev.type == pygame.KEYDOWN:
                self.press(ev.key, ev.mod)
            elif ev.type == pygame.MOUSEBUTTONDOWN and ev.button == 1:
                self._drag = (ev.pos, ev.pos)
            elif ev.type == pygame.MOUSEMOTION and self._drag is not None:
                self._drag = (self._drag[0], ev.pos)
            elif ev.type == pygame.MOUSEBUTTONUP and ev.button == 1 and self._drag is not None:
                start = self._drag[0]
                self._drag = None
                if max(abs(ev.pos[0] - start[0]), abs(ev.pos[1] - start[1])) < DRAG_MIN_PX:
                    self.click(start)
                else:
                    self.drag(start, ev.pos)

    # -- one iteration -------------------------------------------------------
    def step(self) -> None:
        """One fixed simulation step (unless paused) and one drawing."""
        self._handle_input()
        for hook in self.step_hooks:
            hook()
        script = self.options.script
        if script is not None:
            script.before_step(self)
        if not self.paused:
            if self.app._pending:
                self.app.apply_pending()
            self.steps += 1
            self.sim_t = self.steps * self.app.step_s
            self.runner.pump(None if self.live else self.sim_t)
            if script is not None:
                script.after_pump(self)
            latest = [i.t for i in (self.runner.latest_frame, self.runner.latest_block) if i is not None]
            if latest:
                self._last_item_t = max(latest)
            self.app.update(self.app.step_s)
        self.frame_no += 1
        self._wall_times.append(time.perf_counter())
        self.render()

    def render(self) -> None:
        screen = self.screen
        self.app.draw(screen)
        self.overlays.draw(screen)
        if self._drag is not None and self._drag[0] != self._drag[1]:
            (x0, y0), (x1, y1) = self._drag
            band = pygame.Rect(min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0))
            pygame.draw.rect(screen, D.BLACK, band, 3)
            pygame.draw.rect(screen, D.ACCENT, band, 1)
        if self.options.hud:
            self._draw_hud(screen)
        content = D.content_rect(screen)
        if self.lost:
            D.banner(screen, self.lost, color=D.RED, y=content.y + 30, size=26)
        elif self.paused:
            D.banner(screen, "PAUSED - space to resume", color=(70, 70, 90))
        elif self.runner.ended and not self.live:
            D.text(screen, "recording ended", (content.right - 8, content.bottom - 6),
                   size=18, color=D.GREY, anchor="bottomright")
        if self.toast is not None:
            message, until = self.toast
            if self.sim_t <= until or self.paused:
                D.banner(screen, message, color=(40, 44, 60), y=content.y + 26, size=22)
            else:
                self.toast = None
        pygame.display.flip()
        if self.video is not None:
            self.video.write(screen)

    def hud_line(self) -> str:
        if self.deterministic:
            fps = f"{1.0 / self.app.step_s:.0f} fps (sim)"
            lag_ms = max(0.0, (self.sim_t - self._last_item_t) * 1000.0)
            latency = f"lag {lag_ms:.0f} ms"
        else:
            times = self._wall_times
            span = times[-1] - times[0] if len(times) > 1 else 0.0
            fps = f"{(len(times) - 1) / span:.0f} fps" if span > 0 else "-- fps"
            lat = self.runner.stats.latency_ms
            if lat is not None:
                latency = f"latency {lat:.0f} ms"
            else:
                latency = f"lag {max(0.0, (self.sim_t - self._last_item_t) * 1000.0):.0f} ms"
        levels = "  ".join(f"{k} {v:.0f}" for k, v in self.app.levels().items())
        return f"{fps} | {self.source.description} | {latency}" + (f" | {levels}" if levels else "")

    def _draw_hud(self, screen: pygame.Surface) -> None:
        D.text(screen, self.hud_line(), (10, D.TITLE_H - 3), size=17, color=D.GREY,
               anchor="bottomleft")

    # -- whole runs ----------------------------------------------------------
    def save_screenshot(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        pygame.image.save(self.screen, str(path))
        return path

    def arrived(self) -> int:
        """What ``--frames`` counts on a live source: camera frames that arrived (audio
        blocks for a source without video)."""
        stats = self.runner.stats
        return stats.frames if self.source.has_video else stats.blocks

    def _wait_for_source(self, due: float) -> None:
        """Live: process items as they arrive until wall time ``due`` (no busy loop).
        Paused, nothing is read: the game must not change while it is paused."""
        if self.paused:
            self.clock.sleep_until(due)
            return
        while not self.runner.ended:
            remaining = due - self.clock.now()
            if remaining <= 0:
                return
            try:
                item = self.source.read(timeout=remaining)
            except EOFError:
                self.runner.ended = True
                return
            if item is None:                 # nothing came before ``due``
                self.clock.sleep_until(due)  # (a no-op on the wall clock; moves a test clock)
                return
            self.runner.process(item)

    def run(self) -> RunResult:
        """Loop until quit, Ctrl-C, ``--frames``, or (headless, no ``--frames``) the end of a replay.

        A live source paces the loop by its own clock, windowed or headless: between
        steps the loop waits on the source and handles each item as it arrives, so game
        time follows real time and an idle run costs almost no CPU. ``--frames`` then
        counts the frames that arrived (``arrived()``), not steps. A replay or file is
        paced to wall time with a window and runs flat out headless. The screenshot is
        written however the loop ends, Ctrl-C included (``RunResult.interrupted``).
        """
        frames = self.options.frames
        pace = not self.options.headless or self.live or self.options.realtime
        start = time.perf_counter()
        cpu0 = time.process_time()
        t0 = self.clock.now()
        n = 0
        interrupted = False
        try:
            try:
                while not self.quit and (frames is None or
                                         (self.arrived() if self.live else n) < frames):
                    if frames is None and self.options.headless and self.runner.ended:
                        break
                    self.step()
                    n += 1
                    if pace:
                        due = t0 + n * self.app.step_s
                        if self.clock.now() - due > 0.25:      # far behind: do not try to catch up
                            t0 = self.clock.now() - n * self.app.step_s
                        if self.live:
                            self._wait_for_source(due)
                        else:
                            self.clock.sleep_until(due)
            except KeyboardInterrupt:
                interrupted = True
            if self.options.screenshot is not None:
                self.save_screenshot(self.options.screenshot)
        finally:
            self.close()
        return RunResult(frames=n, sim_t=self.sim_t, wall_s=time.perf_counter() - start,
                         events=self.runner.stats.events, ended=self.runner.ended,
                         state=self.app.state(), arrived=self.arrived() if self.live else n,
                         interrupted=interrupted, cpu_s=time.process_time() - cpu0)

    def close(self) -> None:
        if self.video is not None:
            self.video.close()
        if self._events_file is not None:
            self._events_file.close()
            self._events_file = None


def run_app(app_cls: type[App], source: Source, options: RunOptions | None = None) -> RunResult:
    """Open ``source``, run ``app_cls`` in it, close the source."""
    with source:
        return AppHost(app_cls, source, options).run()
