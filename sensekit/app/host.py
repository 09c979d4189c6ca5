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
image pixels, the way they appear on screen. This is the one flip of an app: the host tells
every stage that can mirror (``runner.MirrorsInput``: the vision stage; the hand stage is made
with ``input_mirrored``), so ``vision.mirror`` true from ``--set`` or a profile asks for what the
picture already is and flips nothing again. ``vision.mirror`` is ``fixed`` in the run's table
(``Tuning.fixed``): false is refused with the reason, the same line through every door (the
panel's API, OSC's log line, a warning for ``--set`` and a profile; the run goes on).

The host is this loop and its pacing; each other job has its own small class:
``Controls`` (``controls.py``: keys, clicks, drags, scripted input), ``Hud`` (``hud.py``: the
status line, banners, messages), ``RunOutputs`` (``outputs.py``: events file, video,
screenshots, venue profile) and ``OverlayView`` (``overlay_view.py``: keys ``m``/``e``/``p``).
The host keeps thin methods for them (``press``, ``pick_at``, ``say``, ``save_profile``, ...)
because apps, scripts and the panel reach them through the host.

Settings: ``host.tuning`` is the run's table (the app and every stage,
``sensekit.settings.live.Tuning``); the command line, OSC and the keys change settings
through it, and they take effect on the next frame, block or step.

When the source reports ``source_lost`` the app says so in a red banner and
keeps running; ``source_restored`` removes it.

Headless runs need SDL's dummy drivers, chosen before pygame initialises its display: the
``sensekit run`` entry does it (``sensekit.cli.run.use_headless_drivers``); a script sets
``SDL_VIDEODRIVER=dummy`` itself. The host never writes the environment.

Failure modes: ``ConfigError`` naming ``SDL_VIDEODRIVER`` if no display is available (windowed, or
headless without the dummy driver);
``ConfigError`` for an unwritable ``--video`` path, and for ``App.stages()`` returning anything
but a list of stages (a bare stage, a detector); a warning when the run starts if the app
listens to an event no stage of the run emits (a detector left out of its stage).
"""
from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Collection

import pygame

from sensekit.app.base import App
from sensekit.app.controls import Controls
from sensekit.app.convert import array_to_surface
from sensekit.app.hud import Hud
from sensekit.app.options import RunOptions as RunOptions  # the host's options, imported from here too
from sensekit.app.outputs import RunOutputs, save_screenshot
from sensekit.app.overlay_view import OverlayView
from sensekit.app.profile_saver import ProfileSaver
from sensekit.capture.base import Source
from sensekit.clock import Clock, MonotonicClock
from sensekit.errors import ConfigError, SensekitError
from sensekit.settings.live import budget_for_thread
from sensekit.events import Dispatcher, Event, SourceLost, SourceRestored
from sensekit.runner import MirrorsInput, Runner
from sensekit.settings.live import Tuning
from sensekit.vision.stages import mirror

log = logging.getLogger("sensekit")

#: events the host sends itself, and the voice stage's (added by ``--words`` / ``--sounds``)
NOT_FROM_APP_STAGES = frozenset({"source_lost", "source_restored", "word", "sound"})


@dataclass
class RunResult:
    """What ``AppHost.run`` did: steps, game and wall time, events, whether the source ended,
    and the app's ``state()`` at the end."""
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
        """Steps per wall-clock second."""
        return self.frames / self.wall_s if self.wall_s > 0 else float("inf")


class AppHost:
    """Runs one ``App`` class on one opened ``Source``."""

    def __init__(self, app_cls: type[App], source: Source, options: RunOptions | None = None,
                 *, clock: Clock | None = None) -> None:
        self.options = options or RunOptions()
        _init_display(self.options.headless)
        pygame.font.init()
        self.source = source
        self.live = bool(source.is_live)
        self.deterministic = not self.live and self.options.headless and not self.options.realtime
        self.clock: Clock = clock or MonotonicClock()
        self.dispatcher = Dispatcher()
        self.sim_t = 0.0
        self.frame_no = 0
        self.steps = 0
        self._cam_cache: tuple[int, tuple[int, int], pygame.Surface] | None = None
        #: called once per loop iteration, on this thread (a browser panel's requests)
        self.step_hooks: list[Callable[[], None]] = []
        self.hud = Hud(self, deterministic=self.deterministic)
        #: what the detector sees, drawn over ``app.camera_view`` (keys ``m``, ``e``, ``p``)
        self.overlays = OverlayView(self)
        self.controls = Controls(self, self.overlays, screenshot=self._key_screenshot,
                                 save_profile=self.save_profile)

        self.screen = pygame.display.set_mode(app_cls.window_size)
        pygame.display.set_caption(f"sensekit - {app_cls.title}")
        self.app = app_cls(self)
        transforms = [mirror] if app_cls.mirror else []
        self.runner = Runner(source, _stages_of(self.app), self.dispatcher,
                             frame_transforms=transforms)
        self.tuning = Tuning(lambda: [self.app, *self.runner.stages])
        if app_cls.mirror:                         # mirrored here, once: no stage flips it back
            for stage in self.runner.stages:
                if isinstance(stage, MirrorsInput):
                    stage.input_is_mirrored()
            self.tuning.fixed["vision.mirror"] = (
                True, f"{self.app.name or 'this app'} mirrors the camera picture itself")
        self.dispatcher.on(SourceLost.name, self._on_lost)
        self.dispatcher.on(SourceRestored.name, self._on_restored)
        self.outputs = RunOutputs(self.options, self.dispatcher, self.tuning, step_s=app_cls.step_s)
        self._saver = ProfileSaver(RunOutputs.write_values)       # Shift+S: the file written off this thread
        try:               # the events file and the video are open: an app or script that fails closes them
            self.app.setup()
            self.tuning.baseline()                 # what the app starts with; Shift+S saves changes
            if self.options.script is not None:
                self.options.script.start(self)
        except BaseException:
            self.close()
            raise

    # -- source status -------------------------------------------------------
    def _on_lost(self, event: Event) -> None:
        assert isinstance(event, SourceLost)
        what = event.source or self.source.description
        self.hud.lost = f"{what} lost" + (f": {event.reason}" if event.reason else "") + " - reconnecting"

    def _on_restored(self, event: Event) -> None:
        self.hud.lost = None
        self.say(f"{getattr(event, 'source', '') or self.source.description} is back")

    # -- what apps, scripts and the panel use ----------------------------------
    def say(self, message: str | None) -> None:
        """Show ``message`` above the instruction line for a couple of seconds."""
        self.hud.say(message)

    @property
    def toast(self) -> tuple[str, float] | None:
        """The message shown now and the game time it goes away."""
        return self.hud.toast

    @property
    def lost(self) -> str | None:
        """The source-lost banner's text, ``None`` while the source is there."""
        return self.hud.lost

    @property
    def paused(self) -> bool:
        """Space paused the game."""
        return self.controls.paused

    @paused.setter
    def paused(self, on: bool) -> None:
        """Pause or resume as the key does (``/sensekit/pause`` over OSC sets it from its thread:
        the loop reads it at its next step)."""
        self.controls.paused = bool(on)

    @property
    def quit(self) -> bool:
        """Esc or q (or closing the window) asked the run to end."""
        return self.controls.quit

    def camera_surface(self, size: tuple[int, int]) -> pygame.Surface | None:
        """The latest (mirrored) frame scaled to ``size`` (made once per frame and size)."""
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
        """The latest frame's (w, h), else the source's."""
        frame = self.runner.latest_frame
        if frame is None:
            return self.source.frame_size
        h, w = frame.image.shape[:2]
        return (w, h)

    def press(self, key: int, mod: int = 0) -> None:
        """Act on a key exactly as if it were pressed (``Controls.press``)."""
        self.controls.press(key, mod)

    def adjust(self, steps: int) -> str | None:
        """Keys ``+``/``-`` (``Controls.adjust``)."""
        return self.controls.adjust(steps)

    def click(self, pos: tuple[int, int]) -> None:
        """A left click at window pixel ``pos`` (``Controls.click``)."""
        self.controls.click(pos)

    def pick_at(self, xy: tuple[int, int]) -> str | None:
        """Pick at pixel ``xy`` of the latest (mirrored) frame, as a click there does."""
        return self.controls.pick_at(xy)

    def drag(self, start: tuple[int, int], end: tuple[int, int]) -> None:
        """A left-button drag between window pixels (``Controls.drag``)."""
        self.controls.drag(start, end)

    def hud_line(self, *, leave_out: Collection[str] = ()) -> str:
        """The HUD's status line as drawn now: fps, the source, latency or lag, the app's levels
        (but those named in ``leave_out``)."""
        return self.hud.line(leave_out=leave_out)

    def profile_values(self) -> dict[str, Any]:
        """What ``Shift+S`` saves (``RunOutputs.profile_values``)."""
        return self.outputs.profile_values()

    def write_profile(self) -> Path:
        """Write the venue profile on this thread; raises on failure."""
        return self.outputs.write_profile()

    def save_profile(self) -> None:
        """Save the run's settings as a venue profile, so the piece comes back tuned next time
        (``--profile``). The values are read here, on the run's thread; the file is written on a
        thread of its own (a large profile takes seconds), one save at a time; what happened is
        said when it is written (``wait_for_save`` waits for it)."""
        if self._saver.busy:
            self.say("the venue profile is being saved; try again when that is done")
            return
        try:
            values = self.profile_values()
        except SensekitError as exc:
            self._said_save((None, exc))
            return
        self._saver.start(values, self.options.profile_path)
        self.say(f"saving venue profile {self.options.profile_path} ...")    # a large one takes seconds

    def wait_for_save(self, timeout: float | None = None) -> Path | None:
        """Wait until a save ``Shift+S`` started is written (``close`` does) and say what
        happened; the path written, or None (no save in hand, it failed, or ``timeout`` s passed)."""
        return self._said_save(self._saver.wait(timeout))

    def _said_save(self, outcome: tuple[Path | None, Exception | None] | None) -> Path | None:
        if outcome is None:
            return None
        path, exc = outcome
        if exc is not None and not isinstance(exc, (OSError, SensekitError)):
            raise exc                                  # a bug: not a message
        if exc is not None or path is None:
            self.say(f"could not save the profile: {exc}")
            log.warning("could not save the venue profile: %s", exc)
            return None
        self.say(f"saved venue profile {path}")
        # also on the terminal (headless, no one sees the toast), by its full path as screenshots are;
        # a run started without --profile does not read it: say how a later one does
        later = "" if self.options.profile is not None else f" (a later run starts from it with --profile {path})"
        log.info("saved venue profile %s%s", path.absolute(), later)
        return path

    def save_screenshot(self, path: str | Path) -> Path:
        return save_screenshot(self.screen, path)

    def _key_screenshot(self) -> str:
        path = self.options.screenshot_dir / f"{self.app.name or 'app'}-{self.frame_no:05d}.png"
        try:
            self.save_screenshot(path)
        except OSError as exc:                    # a full disk must not end the piece
            log.warning("could not save the screenshot %s: %s", path, exc.strerror)
            return f"could not save the screenshot: {exc.strerror}"
        log.info("saved screenshot %s", path)        # the toast names the file, the terminal where it is
        return f"saved {path.name}"

    # -- one iteration -------------------------------------------------------
    def step(self) -> None:
        """One fixed simulation step (unless paused) and one drawing."""
        self.controls.handle_events()
        self._said_save(self._saver.result())
        for hook in self.step_hooks:
            hook()
        script = self.options.script
        if script is not None:
            script.before_step(self)
        if not self.paused:
            if self.app._pending:
                with budget_for_thread(self.runner.settings_budget):
                    self.app.apply_pending()
            self.steps += 1
            self.sim_t = self.steps * self.app.step_s
            self.runner.pump(None if self.live else self.sim_t)
            if script is not None:
                script.after_pump(self)
            self.hud.stepped()
            self.app.update(self.app.step_s)
        self.frame_no += 1
        self.hud.drawn()
        self.render()

    def render(self) -> None:
        screen = self.screen
        self.app.draw(screen)
        self.overlays.draw(screen)
        self.controls.draw(screen)
        self.hud.draw(screen, status_line=self.options.hud, paused=self.paused,
                      ended=self.runner.ended and not self.live)
        pygame.display.flip()
        self.outputs.drawn(screen)

    # -- whole runs ----------------------------------------------------------
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
                self.runner.finish()         # what the stages still hold (a held clap), then ended
                return
            if item is None:                 # nothing came before ``due``
                self.clock.sleep_until(due)  # (a no-op on the wall clock; moves a test clock)
                return
            self.runner.process(item)

    def _say_unheard(self) -> None:
        """An app that listens to an event no stage of the run emits hears nothing, silently
        (the tutorial's ``self.on("clap", ...)`` with ``AudioStage()`` and no ``ClapDetector``):
        a warning when the run starts. The host's own events, and the voice stage's that
        ``--words`` / ``--sounds`` add, are not counted."""
        emitted = set().union(*(set(stage.emits) for stage in self.runner.stages))
        unheard = sorted(self.app.subscribed() - emitted - NOT_FROM_APP_STAGES)
        if unheard:
            log.warning("%s listens to %s, which no stage of this run emits: give a stage its detector "
                        "(e.g. AudioStage(clap=ClapDetector()), VisionStage(motion=MotionDetector()))",
                        type(self.app).name or type(self.app).__name__, ", ".join(unheard))

    def run(self) -> RunResult:
        """Loop until quit, Ctrl-C, ``--frames``, or (headless, no ``--frames``) the end of a replay;
        then the events the stages still hold are dispatched (``Runner.stop``, a no-op after the end).

        A live source paces the loop by its own clock, windowed or headless: between
        steps the loop waits on the source and handles each item as it arrives, so game
        time follows real time and an idle run costs almost no CPU. ``--frames`` then
        counts the frames that arrived (``arrived()``), not steps. A replay or file is
        paced to wall time with a window and runs flat out headless. The screenshot is
        written however the loop ends, Ctrl-C included (``RunResult.interrupted``).
        """
        self._say_unheard()
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
            try:
                self.runner.stop()       # stopped before the end: what the stages still hold (a held clap)
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
        try:
            self.wait_for_save()                       # a save Shift+S started is finished first
        finally:
            self.outputs.close()


def _init_display(headless: bool) -> None:
    """``pygame.display.init()``, or one line saying which display is missing."""
    try:
        pygame.display.init()
    except pygame.error as exc:
        hint = ("set SDL_VIDEODRIVER=dummy before the host starts (the CLI does for --headless)" if headless
                else "run headless (--headless) or on a machine with a display")
        raise ConfigError(f"pygame found no display ({exc}): {hint}") from None


def run_app(app_cls: type[App], source: Source, options: RunOptions | None = None) -> RunResult:
    """Open ``source``, run ``app_cls`` in it, close the source."""
    with source:
        return AppHost(app_cls, source, options).run()


def _is_stage(thing: object) -> bool:
    return all(hasattr(thing, a) for a in ("consumes", "emits", "process"))


def _stages_of(app: App) -> list[Any]:
    """``app.stages()`` as a list of runner stages (each with ``consumes``, ``emits`` and
    ``process``); else a ``ConfigError`` naming the app and what it returned: a bare stage
    (``return AudioStage()``) or a detector (``return [ClapDetector()]``) was a ``TypeError`` or an
    ``AttributeError`` traceback from the runner."""
    name = type(app).__name__
    made = app.stages()
    if _is_stage(made) or not isinstance(made, Iterable) or isinstance(made, (str, bytes)):
        hint = f" (return [{type(made).__name__}(...)])" if _is_stage(made) else ""
        raise ConfigError(f"{name}.stages() must return a list of stages, got {type(made).__name__}{hint}")
    stages = list(made)
    for stage in stages:
        if not _is_stage(stage):
            raise ConfigError(f"{name}.stages() returned {type(stage).__name__}, which is not a stage; "
                              f"detectors go inside one: AudioStage(clap=ClapDetector()), "
                              f"VisionStage(motion=MotionDetector())")
    return stages
