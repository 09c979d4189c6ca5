"""What a panel may do to a running piece: pick a colour, track a box, set a zone, change a
setting, save the venue profile.

``PanelControl`` is the one place the web server reaches into the run. Two kinds of call:

- **on the run's thread** (the server sends them through ``CommandQueue``): ``pick(x, y)``,
  ``track_box(box)``, ``resize(step)`` (the last click's next larger or smaller box) and
  ``save()``, because they touch the stages and the app;
- **from any thread**: ``settings()`` and ``apply(values)``, which go through the run's settings
  table (its ``apply`` validates every value first, then queues them for the next frame or
  block, so this is thread-safe and a bad value changes nothing).

``AppControl`` drives an app host (a click goes to the app's ``pick_color``, the same as a
click in its window; save is Shift+S); ``StagesControl`` drives the bare stages of
``sensekit events`` (the first colour tracker picks; save writes the stages' tuning).

Coordinates are camera pixels of the picture the panel shows (mirrored when the app mirrors),
the same as in the events. Failure modes: ``ConfigError`` with a sentence for the user (no
tracker here, a box outside the picture, a bad value, a profile that cannot be written).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sensekit.errors import ConfigError
from sensekit.panel.teach import NO_HAND_STAGE, TeachControl
from sensekit.panel.teach_sound import NO_VOICE_STAGE, SoundTeachControl
from sensekit.profile import run_values, save_profile
from sensekit.settings.live import Tuning, parse_values
from sensekit.settings.registry import load_table
from sensekit.settings.registry import REGISTRY
from sensekit.vision.stages import bgr_to_packed_rgb
from sensekit.vision.targets import Target

if TYPE_CHECKING:
    from sensekit.app.host import AppHost
    from sensekit.runner import Runner

__all__ = ["AppControl", "PanelControl", "StagesControl"]

Box = tuple[int, int, int, int]
#: a grow or shrink with no click's box tracked
NO_CLICK = "click an object first: larger and smaller change the box a click took"
#: the setting a dragged zone goes to
ZONES_KEY = "motion.zones"


def _hex(rgb: int | None) -> str | None:
    return None if rgb is None else f"#{int(rgb) & 0xFFFFFF:06x}"


class PanelControl:
    """Shared parts: the stages, the frame, the run's settings table (``tuning``)."""

    #: the teach card's control (``sensekit events --hands --panel``); ``None``: nothing to teach
    teaching: TeachControl | None = None
    #: the sound card's control (a run with a voice stage); ``None``: no sounds to teach
    sound_teaching: SoundTeachControl | None = None

    def __init__(self, stages: Callable[[], Sequence[Any]], tuning: Tuning) -> None:
        self._stages = stages
        self.tuning = tuning
        load_table()        # as OscControl: no import on the server's thread for an unknown key

    def teach(self, action: str, name: Any = None, seconds: Any = None) -> dict[str, Any]:
        """A teach card request (on the run's thread; ``panel.teach``)."""
        return self._teaching().act(action, name, seconds)

    def save_taught(self) -> Path:
        """The learned gestures into the venue profile (any thread; ``panel.teach``)."""
        return self._teaching().save()

    def teach_sound(self, action: str, name: Any = None) -> dict[str, Any]:
        """A sound card request (on the run's thread; ``panel.teach_sound``)."""
        return self._sound_teaching().act(action, name)

    def save_sounds(self) -> Path:
        """The taught sounds into the venue profile (any thread; ``panel.teach_sound``)."""
        return self._sound_teaching().save()

    def _sound_teaching(self) -> SoundTeachControl:
        if self.sound_teaching is None:
            raise ConfigError(NO_VOICE_STAGE)
        return self.sound_teaching

    def _teaching(self) -> TeachControl:
        if self.teaching is None:
            raise ConfigError(NO_HAND_STAGE)
        return self.teaching

    # -- helpers -----------------------------------------------------------------------------
    def stages(self) -> list[Any]:
        return list(self._stages())

    def tracker_stage(self) -> Any:
        """The first stage with a colour tracker, or ``None``."""
        return next((s for s in self.stages() if getattr(s, "tracker", None) is not None), None)

    def picture(self) -> np.ndarray | None:
        """The latest picture the stages saw (``None`` before the first frame)."""
        raise NotImplementedError

    def _image(self) -> np.ndarray:
        image = self.picture()
        if image is None:
            raise ConfigError("no picture yet: the source has not delivered a frame")
        return image

    def _check_point(self, x: float, y: float) -> tuple[int, int]:
        h, w = self._image().shape[:2]
        xi, yi = int(x), int(y)
        if not (0 <= xi < w and 0 <= yi < h):
            raise ConfigError(f"point {x:g},{y:g} is outside the {w}x{h} picture")
        return xi, yi

    def _check_box(self, box: Sequence[float]) -> Box:
        x, y, w, h = (round(float(v)) for v in box)
        self._check_point(x, y)
        self._check_point(x + w - 1, y + h - 1)
        if w < 2 or h < 2:
            raise ConfigError(f"box {w}x{h} is too small (at least 2x2 pixels)")
        return x, y, w, h

    # -- on the run's thread -----------------------------------------------------------------
    def pick(self, x: float, y: float) -> dict[str, Any]:
        raise NotImplementedError

    def track_box(self, box: Sequence[float]) -> dict[str, Any]:
        raise NotImplementedError

    def resize(self, step: int) -> dict[str, Any]:
        """The last click's next larger (``step`` 1) or smaller (-1) box (``click_pool``), through
        ``VisionStage.track``; a second click on the same spot is a ``pick``."""
        if step not in (1, -1):
            raise ConfigError(f"`step` must be 1 (larger) or -1 (smaller), got {step!r}")
        stage = self.tracker_stage()
        if stage is None or getattr(stage.tracker, "pool", None) is None or not callable(getattr(stage, "track", None)):
            raise ConfigError(NO_CLICK)
        stage.track(Target.grow() if step > 0 else Target.shrink())
        return {"message": "a larger box around the click" if step > 0 else "a smaller box around the click"}

    def save_values(self) -> tuple[dict[str, Any], Path]:
        """What a save writes, and where (reads the run's settings)."""
        raise NotImplementedError

    def saved(self, path: Path) -> dict[str, Any]:
        """The answer to a save that wrote ``path``."""
        return {"path": str(path)}

    def save(self) -> dict[str, Any]:
        """The whole save on the caller's thread (the server writes on a thread of its own:
        ``save_values``, then ``write_profile`` there, then ``saved``)."""
        values, path = self.save_values()
        return self.saved(self.write_profile(values, path))

    # -- any thread -------------------------------------------------------------------------
    @staticmethod
    def write_profile(values: dict[str, Any], path: Path) -> Path:
        """Write the venue profile (editing a large one takes seconds: not on the run's thread)."""
        return save_profile(values, path)

    def fixed(self) -> dict[str, tuple[Any, str]]:
        """Settings this run holds at a value whatever they are set to: ``{key: (value, why)}``
        (an app that mirrors the camera itself: ``vision.mirror`` is true and changes nothing);
        the run's table keeps them (``Tuning.fixed``), for every door."""
        return dict(self.tuning.fixed)

    def _shown(self) -> dict[str, Any]:
        """The running settings' values, the fixed ones as they are in effect."""
        values = dict(self.tuning.settings())
        values.update({k: v for k, (v, _) in self.fixed().items() if k in values})
        return values

    def settings(self) -> dict[str, Any]:
        """The running groups of the settings table (as ``sensekit settings --json`` describes
        them), the value of each setting in this run, and the fixed ones with why
        (``fixed``: ``{key: reason}``)."""
        values = self._shown()
        groups = []
        for section in self.tuning.sections():
            group = REGISTRY.get(section)
            if group is not None:
                groups.append({"section": section, "title": group.title,
                               "settings": [st.describe() for st in group.items]})
        fixed = {k: why for k, (_, why) in self.fixed().items() if k in values}
        return {"groups": groups, "values": _plain(values), "fixed": fixed, "in_use": self.in_use()}

    def values(self) -> dict[str, Any]:
        """The value of each running setting (JSON-ready), for the live socket."""
        return _plain(self._shown())

    def in_use(self) -> dict[str, Any]:
        """The settings left empty to be learned: the value in use or "learning" (JSON-ready)."""
        return _plain(self.tuning.in_use())

    def apply(self, values: dict[str, Any] | None = None,
              texts: dict[str, str] | None = None) -> dict[str, Any]:
        """Check every value (native JSON values, or ``texts`` parsed as on the command line)
        against the table and the running objects, then apply them all for the next frame or
        block; on any error nothing changes and the ``ConfigError`` names the key and value."""
        wanted = {**(values or {}), **parse_values(texts or {})}
        done = self.tuning.apply(wanted)          # refuses a fixed setting's other value, with why
        if done.unused:
            raise ConfigError(f"nothing in this run uses {', '.join(f'`{k}`' for k in done.unused)}"
                              + ("; the other values were applied" if done.values else ""))
        return {"values": _plain(done.values)}

    def set_zone(self, name: str, box: Sequence[float]) -> dict[str, Any]:
        """Set the motion zone ``name`` to ``box`` (camera pixels) through the settings table
        (``motion.zones`` holds fractions of the frame)."""
        x, y, w, h = self._check_box(box)
        fh, fw = self._image().shape[:2]
        zones = dict(self.tuning.settings().get(ZONES_KEY) or {})
        zones[name.strip()] = (x / fw, y / fh, w / fw, h / fh)
        return self.apply({ZONES_KEY: zones})


def _plain(values: dict[str, Any]) -> dict[str, Any]:
    """Settings values as JSON (zones' tuples become lists)."""
    def plain(v: Any) -> Any:
        if isinstance(v, dict):
            return {str(k): plain(x) for k, x in v.items()}
        if isinstance(v, (tuple, list)):
            return [plain(x) for x in v]
        return v
    return {k: plain(v) for k, v in values.items()}


class AppControl(PanelControl):
    """A panel on ``sensekit run APP``: clicks and saves go through the app host."""

    def __init__(self, host: AppHost) -> None:
        super().__init__(lambda: host.runner.stages, host.tuning)
        self.host = host

    def picture(self) -> np.ndarray | None:
        frame = self.host.runner.latest_frame
        return None if frame is None else frame.image

    def pick(self, x: float, y: float) -> dict[str, Any]:
        xi, yi = self._check_point(x, y)
        under = bgr_to_packed_rgb(self._image()[yi, xi])
        message = self.host.pick_at((xi, yi))
        if message is None:
            raise ConfigError(f"{self.host.app.name or 'this app'} does not track a colour")
        stage = self.tracker_stage()
        color = _hex(getattr(stage.tracker, "color_in_use", None)) if stage is not None else None
        return {"message": message, "color": color, "under_pointer": _hex(under)}

    def track_box(self, box: Sequence[float]) -> dict[str, Any]:
        x, y, w, h = self._check_box(box)
        message = self.host.app.pick_region((x, y, w, h))
        if message is None:
            raise ConfigError(f"{self.host.app.name or 'this app'} does not track a box")
        self.host.say(message)
        return {"message": message}

    def save_values(self) -> tuple[dict[str, Any], Path]:
        return self.host.profile_values(), self.host.options.profile_path

    def saved(self, path: Path) -> dict[str, Any]:
        self.host.say(f"saved venue profile {path}")
        return {"path": str(path)}


class StagesControl(PanelControl):
    """A panel on ``sensekit events``: the stages themselves; save writes what ``run_values``
    gives (the ``--profile`` keys, what the run changed, what the detectors learned)."""

    def __init__(self, runner: Runner, tuning: Tuning, profile: Mapping[str, Any] | None,
                 profile_path: Path) -> None:
        super().__init__(lambda: runner.stages, tuning)
        self.runner = runner
        self.profile = profile
        self.profile_path = Path(profile_path)

    def picture(self) -> np.ndarray | None:
        stage = self.tracker_stage()
        frame = getattr(stage, "frame", None) if stage is not None else None
        if isinstance(frame, np.ndarray):
            return frame                       # mirrored when the stage mirrors (--mirror)
        latest = self.runner.latest_frame
        return None if latest is None else latest.image

    def _tracker(self) -> Any:
        stage = self.tracker_stage()
        if stage is None:
            raise ConfigError("nothing in this run tracks a colour (start it with --track-color "
                              "X,Y or --track-box X,Y,W,H)")
        return stage.tracker

    def pick(self, x: float, y: float) -> dict[str, Any]:
        self._tracker()                         # ConfigError when nothing tracks
        xi, yi = self._check_point(x, y)
        image = self._image()
        b, g, r = (int(v) for v in image[yi, xi])
        color = _hex(bgr_to_packed_rgb((b, g, r)))
        self._track(Target.click(xi, yi, (b, g, r)))
        return {"message": f"tracking the object under {xi},{yi} (colour {color})",
                "color": color, "under_pointer": color}

    def _track(self, target: Target) -> None:
        stage = self.tracker_stage()
        if not callable(getattr(stage, "track", None)):
            raise ConfigError("the tracking stage of this run takes no targets")
        stage.track(target)                      # how: the one rule, ``Target.method``

    def track_box(self, box: Sequence[float]) -> dict[str, Any]:
        self._tracker()
        x, y, w, h = self._check_box(box)
        self._track(Target.region((x, y, w, h)))
        return {"message": f"tracking the object in {w}x{h} px at {x},{y}"}

    def save_values(self) -> tuple[dict[str, Any], Path]:
        return run_values(self.tuning, self.profile), self.profile_path
