"""``App``: the class a mini-app subclasses. The host (``host.py``) runs it.

A mini-app is one file in ``apps/`` that defines one ``App`` subclass. It says
what it is (``title``, ``instructions``, ``needs``), builds its sensing stages,
subscribes to events, and implements a fixed-step ``update(dt)`` and a
``draw(screen)``. Everything else (the pygame loop, the fixed step driven by
source time on replay, pausing, the HUD, screenshots, video, event logs, the
mirror, keys and clicks, the source-lost banner) is the host's job.

Minimal example::

    class Blinker(App):
        title = "Blinker"
        instructions = "make a noise"
        needs = frozenset({"audio"})

        def stages(self):
            return [AudioStage()]

        def setup(self):
            self.loud = False
            self.on("level", lambda e: setattr(self, "loud", e.level > 30))

        def draw(self, screen):
            screen.fill((255, 255, 255) if self.loud else (0, 0, 0))

Hooks the host calls (all optional except ``draw``):

- ``stages()`` -> the runner stages (built once, before ``setup``);
- ``setup()`` -> subscribe with ``self.on(name, handler)``, build the game state;
- ``update(dt)`` -> advance the game by exactly ``dt`` seconds (the fixed step);
- ``draw(screen)`` -> draw the whole window (``self.draw_frame`` helps);
- ``levels()`` -> numbers for the HUD (``{"level": 42.0}``);
- ``level_lines()`` -> the levels (0..100) the app judges the audio level by, drawn as lines on
  the browser panel's level graph beside the stages' own (``{"climbs above": 62.0}``);
- ``recalibrate()`` (key ``c``), ``adjust_sensitivity(step)`` (keys ``+``/``-``, for an app
  that declares no ``plus_minus`` setting),
  ``pick_color(bgr, xy)`` (click on ``camera_view``, or ``--pick``; by default the
  stage's colour tracker picks), ``pick_region(box)`` (a box dragged on ``camera_view``,
  camera pixels ``x, y, w, h``), ``restart()`` (key ``r``), ``set_mode(name)``
  (``--mode``, for apps that declare ``modes``), ``key(key)`` (any other key):
  each may return a short message that the host shows for a moment;
- ``state()`` -> a dict of what the player sees, for tests and benchmarks.

Settings: an app declares each of its tunable constants once, like a detector, as a class
attribute (``gravity = setting(0.4, "pull per step", lo=0, hi=20)``) with the section on the
class line (``class MyApp(App, section="my_app", title="what it is")``); they are then typed
attributes of the app (``self.gravity``), in ``sensekit settings``, ``--set my_app.gravity=0.5``,
profiles, OSC and Shift+S, and ``settings_changed(changed)`` sees changes (applied before the
next step). ``plus_minus = ("clap.min_level", -1)`` binds the ``+``/``-`` keys to any setting
of the run (its own or a stage's), one declared ``step`` per press (-1: ``+`` lowers it).

Randomness: use ``self.rng`` (a ``numpy.random.Generator`` seeded from
``seed``), never the global generators, so every run is the same game.
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Iterator, Protocol

import numpy as np
import pygame

from sensekit.app import draw as D
from sensekit.app.convert import bgr_to_packed_rgb
from sensekit.app.options import RunOptions
from sensekit.app.subscribe import Subscriber
from sensekit.capture.base import Source
from sensekit.events import Dispatcher
from sensekit.runner import Runner, Stage
from sensekit.settings.live import Tunable, Tuning

if TYPE_CHECKING:
    from sensekit.vision.color_tracker import ColorTracker


class Host(Protocol):
    """What an app, and the host's helpers (picking, script, overlays, hand input), use of the
    host that runs it. ``sensekit.app.host.AppHost`` is the implementation; naming this
    protocol instead keeps the arrows pointing one way (the host imports the app, never back).
    """

    app: App
    source: Source
    options: RunOptions
    runner: Runner
    dispatcher: Dispatcher
    tuning: Tuning
    screen: pygame.Surface
    #: simulation time, seconds (a fixed step per ``step()``)
    sim_t: float
    frame_no: int

    @property
    def frame_size(self) -> tuple[int, int] | None:
        """The camera picture's (w, h): the last frame's, else the source's (``None``: unknown)."""
        ...

    def say(self, message: str | None) -> None:
        """Show ``message`` for a moment (``None`` or empty: nothing)."""
        ...

    def camera_surface(self, size: tuple[int, int]) -> pygame.Surface | None:
        """The latest (mirrored) camera picture scaled to ``size``; ``None`` before the first frame."""
        ...

    def press(self, key: int, mod: int = 0) -> None:
        """Act as if the player pressed ``key`` (a pygame key code) with modifiers ``mod``."""
        ...

    def pick_at(self, xy: tuple[int, int]) -> str | None:
        """Pick what is under camera pixel ``xy``, as a click there does; the message to show."""
        ...


#: what the picked outline says after a click (``resize_pick``; a click on the same spot: ``click_pool``)
RESIZE_HINT = "wheel or +/-: larger/smaller, click again: another box"


class App(Subscriber, Tunable):
    """A mini-app: what it is, its stages, its game (``update``) and its picture (``draw``);
    the hooks and the class attributes are described in the module docstring."""

    #: set from the file name by the registry (``apps/clapper.py`` -> ``"clapper"``)
    name: ClassVar[str] = ""
    title: ClassVar[str] = "sensekit app"
    #: the instruction line at the bottom of the window (an app may change it while it runs)
    instructions: str = ""
    #: inputs the app cannot work without: ``"video"``, ``"audio"``
    needs: ClassVar[frozenset[str]] = frozenset({"video"})
    #: bundled recording used when no live device exists (``sensekit.paths``)
    recording: ClassVar[str] = "demo"
    window_size: ClassVar[tuple[int, int]] = (640, 480)
    #: the fixed simulation step, seconds
    step_s: ClassVar[float] = 1.0 / 30.0
    #: mirror the camera image (and every vision stage's input) left-right
    mirror: ClassVar[bool] = True
    seed: ClassVar[int] = 1
    #: named modes (e.g. steer's behaviours) that ``set_mode`` switches to (``--mode NAME``)
    modes: ClassVar[tuple[str, ...]] = ()
    #: hand input (``sensekit.app.hand_input``): "no", "switch" (``--hands`` or key ``h``), "always"
    hands: ClassVar[str] = "no"
    #: the setting the ``+``/``-`` keys move, and which way ``+`` moves it (1 up, -1 down)
    plus_minus: ClassVar[tuple[str, int] | None] = None

    def __init_subclass__(cls, *, main: str = "", **kwargs: Any) -> None:
        """``class MyApp(App, main=__name__)``: the file run by Python itself (``python my_app.py
        ARGS``) runs as ``sensekit run my_app.py ARGS`` (``as_script``); imported, nothing."""
        super().__init_subclass__(**kwargs)
        if main == "__main__":
            from sensekit.app.as_script import run_file_as_command

            path = getattr(sys.modules.get(cls.__module__), "__file__", None) or sys.argv[0]
            sys.exit(run_file_as_command(path, sys.argv[1:]))

    def __init__(self, host: Host) -> None:
        if getattr(type(self), "SETTINGS", None) is not None:
            self.init_settings()
        self.host = host
        self.rng = np.random.default_rng(self.seed)
        #: where the camera image is drawn; clicks inside it pick colours
        self.camera_view: pygame.Rect | None = None

    # -- hooks ---------------------------------------------------------------
    def stages(self) -> Iterable[Stage]:
        """The runner stages the app senses with (built once, before ``setup``)."""
        return []

    def setup(self) -> None:
        """Subscribe to events (``self.on``) and build the game state."""
        pass

    def update(self, dt: float) -> None:
        """Advance the game by exactly ``dt`` seconds (the fixed step)."""
        pass

    def draw(self, screen: pygame.Surface) -> None:
        """Draw the whole window (the one hook an app must have)."""
        raise NotImplementedError

    def levels(self) -> dict[str, float]:
        """Numbers for the HUD line (``{"level": 42.0}``)."""
        return {}

    def level_lines(self) -> dict[str, float]:
        """Levels (0..100) the app judges the audio level by, for the panel's level graph."""
        return {}

    def recalibrate(self) -> str | None:
        """Key ``c``: learn the room again; a message to show."""
        return None

    def adjust_sensitivity(self, step: int) -> str | None:
        """Keys ``+``/``-`` for an app without a ``plus_minus`` setting."""
        return None

    def plus_minus_setting(self) -> tuple[str, int] | None:
        """The setting ``+``/``-`` move now and which way (default: ``plus_minus``; an app
        with modes may choose per mode)."""
        return self.plus_minus

    def tunables(self) -> Iterator[Tunable]:
        """The app itself when it declares settings (its stages' are the runner's)."""
        if getattr(type(self), "SETTINGS", None) is not None:
            yield self

    def pick_color(self, bgr: tuple[int, int, int], xy: tuple[int, int]) -> str | None:
        """A click at camera pixel ``xy`` (colour ``bgr``): the colour tracker of the app's
        stages (``color_tracker()``), if any, learns what is under the click - through
        ``VisionStage.track`` at the next frame: the object (model) unless the ``tracker.method``
        setting asks for the exact or hsv colour."""
        from sensekit.vision.targets import Target

        tracker, frame = self.color_tracker(), self.host.runner.latest_frame
        if tracker is None or frame is None:
            return None
        from sensekit.vision.pipeline import VisionStage

        stage = next(s for s in self.host.runner.stages if getattr(s, "tracker", None) is tracker)
        color = f"#{bgr_to_packed_rgb(bgr):06x}"
        if isinstance(stage, VisionStage):              # the vision stage: picked on its next frame
            target = Target.click(xy[0], xy[1], bgr)
            stage.track(target)                         # the one rule: ``Target.method``
            if target.method(tracker.method) == "model":
                return f"tracking the object under {xy[0]},{xy[1]} (colour {color})"
        else:
            tracker.pick(frame.image, *xy)
        return f"tracking colour {color} at {xy[0]},{xy[1]}"

    def color_tracker(self) -> ColorTracker | None:
        """The ``ColorTracker`` of the first of the app's stages that has one, or ``None``."""
        from sensekit.vision.color_tracker import ColorTracker

        return next((t for s in self.host.runner.stages
                     if isinstance(t := getattr(s, "tracker", None), ColorTracker)), None)

    def set_mode(self, name: str) -> str | None:
        """Switch to the mode ``name`` (one of ``modes``; the host checks the name)."""
        return None

    def pick_region(self, box: tuple[int, int, int, int]) -> str | None:
        """A box ``x, y, w, h`` (camera pixels) dragged on ``camera_view``; a message to show."""
        return None

    def resize_pick(self, steps: int) -> str | None:
        """The mouse wheel or ``+``/``-`` after a click: the click's next larger (``steps`` > 0)
        or smaller box (``sensekit.vision.click_pool``), through ``VisionStage.track`` at the
        next frame; ``None`` when no stage tracks a click's box (``+``/``-`` then move the
        app's ``plus_minus`` setting)."""
        from sensekit.vision.pipeline import VisionStage
        from sensekit.vision.targets import Target

        stage = next((s for s in self.host.runner.stages if isinstance(s, VisionStage)
                      and s.tracker is not None and s.tracker.pool is not None), None)
        if stage is None:
            return None
        stage.track(Target.grow() if steps > 0 else Target.shrink())
        return "a larger box around the click" if steps > 0 else "a smaller box around the click"

    def restart(self) -> str | None:
        """Key ``r``: start the game again; a message to show."""
        return None

    def key(self, key: int) -> str | None:
        """Any key the host does not handle itself (a pygame key code)."""
        return None

    def state(self) -> dict[str, Any]:
        """What the player sees, as plain data (for tests, benchmarks and the run's result)."""
        return {}

    # -- helpers for subclasses ----------------------------------------------
    def _dispatcher(self) -> Dispatcher:
        return self.host.dispatcher

    @property
    def t(self) -> float:
        """Simulation time in seconds (advances by ``step_s`` per update)."""
        return self.host.sim_t

    def camera_surface(self, size: tuple[int, int]) -> pygame.Surface | None:
        """The latest (mirrored) camera image scaled to ``size``; ``None`` before the first frame."""
        return self.host.camera_surface(size)

    def draw_camera(self, screen: pygame.Surface, rect: pygame.Rect,
                    dim: tuple[int, int, int, int] | None = None) -> None:
        """Blit the mirrored camera image into ``rect``, optionally under a translucent
        ``dim`` colour (RGBA) so game objects stand out; a dark fill before the first frame."""
        cam = self.camera_surface(rect.size)
        if cam is None:
            screen.fill(D.DARK, rect)
            return
        screen.blit(cam, rect)
        if dim is not None:
            key = (rect.size, dim)
            if getattr(self, "_dim_key", None) != key:
                self._dim_surface = pygame.Surface(rect.size, pygame.SRCALPHA)
                self._dim_surface.fill(dim)
                self._dim_key = key
            screen.blit(self._dim_surface, rect)

    def draw_frame(self, screen: pygame.Surface, score: str = "") -> None:
        """The title bar (title, score) and the instruction line; call at the end of ``draw``."""
        D.title_bar(screen, self.title, score)
        D.footer(screen, self.instructions)
