"""Scripted input for an app run: ``--pick X,Y``, ``--mode NAME``, ``--keys "c@2.0,space@5"``.

What a player does with the mouse and keys, given on the command line instead, so
a headless run (a test, CI, a screenshot for the docs) can pick a colour, start
in a mode or press keys at known times. Every app gets these, through the host:

- ``--pick X,Y``: once the first video frame is in, pick the colour at pixel
  (X, Y) of the camera picture *as shown* (mirrored), exactly as a click on it
  would: the stages saw that frame with the app's starting colour, and track the
  picked one from the next frame on. Apps with a colour tracker pick with it
  (``App.pick_color``).
- ``--mode NAME``: start in this mode, for apps whose key ``c`` cycles modes
  (``App.modes``: steer's behaviours, collide's scenes). Case, ``-`` and ``_``
  do not matter: ``--mode flock-flees-hand``.
- ``--keys LIST``: comma-separated ``KEY@SECONDS`` presses. The time is the run's
  clock (steps x ``App.step_s`` from the start, so it keeps going while paused:
  ``space@5,space@6`` pauses for one second); a press fires before the first
  step at or after its time. Keys: the host's (``space c s S + - r q esc``;
  ``S`` is Shift+S), the overlays' (``m e p b``) and ``h`` (hand input).

Validation: ``ConfigError`` with one line naming the option and the value, raised
before the run for malformed values, unknown keys or modes, a key after the end
of a ``--frames`` run, a ``--mode`` for an app without modes; and when the run
starts for a ``--pick`` outside the picture, on a source without video, or for an
app that tracks no colour, and for keys that leave a headless run without
``--frames`` paused (it would never end). Cost: nothing per step beyond a comparison.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pygame

from sensekit.app.base import App
from sensekit.errors import ConfigError
from sensekit.suggest import close_matches, did_you_mean
from sensekit.vision.targets import parse_pixel

if TYPE_CHECKING:
    from sensekit.app.base import Host

#: key names accepted by ``--keys`` -> (pygame key, modifier), as ``Host.press`` takes them
KEYS: dict[str, tuple[int, int]] = {
    "space": (pygame.K_SPACE, 0), "c": (pygame.K_c, 0), "s": (pygame.K_s, 0),
    "S": (pygame.K_s, pygame.KMOD_SHIFT), "shift+s": (pygame.K_s, pygame.KMOD_SHIFT),
    "+": (pygame.K_PLUS, 0), "-": (pygame.K_MINUS, 0), "r": (pygame.K_r, 0),
    "q": (pygame.K_q, 0), "esc": (pygame.K_ESCAPE, 0), "escape": (pygame.K_ESCAPE, 0),
    "m": (pygame.K_m, 0), "e": (pygame.K_e, 0), "p": (pygame.K_p, 0),          # overlays
    "b": (pygame.K_b, 0),                      # the silhouette overlay (with --silhouette)
    "h": (pygame.K_h, 0),                      # hand input on/off (apps that follow a hand)
}
EPS_S = 1e-9


@dataclass(frozen=True)
class KeyPress:
    """One scripted press: ``key`` (a name in ``KEYS``) at ``t_s`` seconds of the run."""

    t_s: float
    key: str


def parse_pick(text: str) -> tuple[int, int]:
    """``"X,Y"`` -> ``(X, Y)``, whole non-negative pixels (``--pick``)."""
    return parse_pixel(text, option="--pick")


def parse_keys(text: str) -> tuple[KeyPress, ...]:
    """``"c@2.0,space@5"`` -> the presses sorted by time (ties keep their order)."""
    presses = []
    for item in text.split(","):
        item = item.strip()
        key, at, when = item.rpartition("@")
        if not at or not key:
            raise ConfigError(f"--keys entries must be KEY@SECONDS (e.g. c@2.0), got {item!r}")
        name = key if key in KEYS else key.lower()
        if name not in KEYS:
            raise ConfigError(f"--keys: unknown key {key!r} in {item!r}; keys: {' '.join(KEY_NAMES)}")
        try:
            t_s = float(when)
        except ValueError:
            t_s = math.nan
        if not math.isfinite(t_s) or t_s < 0:
            raise ConfigError(f"--keys: the time in {item!r} must be seconds >= 0, got {when!r}")
        presses.append(KeyPress(t_s, name))
    return tuple(sorted(presses, key=lambda p: p.t_s))


KEY_NAMES = ("space", "c", "s", "S", "+", "-", "r", "q", "esc", "m", "e", "p", "b", "h")


def _norm(mode: str) -> str:
    return " ".join(mode.replace("-", " ").replace("_", " ").lower().split())


def check_mode(app_cls: type[App], mode: str) -> str:
    """The app's mode called ``mode`` (forgiving case, ``-`` and ``_``), or ``ConfigError``."""
    name = app_cls.name or app_cls.title
    if not app_cls.modes:
        raise ConfigError(f"--mode: {name} has no modes")
    for candidate in app_cls.modes:
        if _norm(candidate) == _norm(mode):
            return candidate
    typed = [_norm(m).replace(" ", "-") for m in app_cls.modes]      # as a shell takes them unquoted
    hint = did_you_mean(close_matches(_norm(mode).replace(" ", "-"), typed), quote=str)
    hint = f"{hint} " if hint else ""
    raise ConfigError(f"--mode {mode!r}: {hint}{name}'s modes are {', '.join(typed)}")


class Script:
    """The scripted input of one run; the host calls ``start``, ``before_step`` and ``after_pump``."""

    def __init__(self, *, pick: tuple[int, int] | None = None, mode: str | None = None,
                 keys: tuple[KeyPress, ...] = ()) -> None:
        self.pick = pick
        self.mode = mode
        self.keys = tuple(keys)
        self._next_key = 0
        self._picked = False

    def __bool__(self) -> bool:
        return self.pick is not None or self.mode is not None or bool(self.keys)

    def start(self, host: Host) -> None:
        """Check ``--pick`` against the source and the app; switch to ``--mode``."""
        pauses = sum(1 for k in self.keys if k.key == "space")
        if pauses % 2 and host.options.headless and host.options.frames is None:
            raise ConfigError(f"--keys leaves the app paused ({pauses} x space), so a headless run "
                              "without --frames would never end: add --frames N or another space")
        if self.pick is not None:
            _check_pick(host, self.pick)
        if self.mode is not None:
            host.say(host.app.set_mode(check_mode(type(host.app), self.mode)))

    def before_step(self, host: Host) -> None:
        """Press every scripted key that is due at the run time of the coming step."""
        now_s = host.frame_no * host.app.step_s
        while self._next_key < len(self.keys) and self.keys[self._next_key].t_s <= now_s + EPS_S:
            key, mod = KEYS[self.keys[self._next_key].key]
            self._next_key += 1
            host.press(key, mod)

    def after_pump(self, host: Host) -> None:
        """Pick the colour once the first frame is in."""
        if self.pick is not None and not self._picked and host.runner.latest_frame is not None:
            self._picked = True
            h, w = host.runner.latest_frame.image.shape[:2]
            if not (self.pick[0] < w and self.pick[1] < h):
                raise ConfigError(f"--pick {self.pick[0]},{self.pick[1]} is outside the {w}x{h} picture")
            host.pick_at(self.pick)


def _check_pick(host: Host, xy: tuple[int, int]) -> None:
    app = host.app
    name = app.name or app.title
    if not host.source.has_video:
        raise ConfigError(f"--pick needs video, but {host.source.description!r} has none")
    tracks = type(app).pick_color is not App.pick_color or app.color_tracker() is not None
    if not tracks:
        raise ConfigError(f"--pick: {name} tracks no colour")
    size = host.frame_size
    if size is not None and not (xy[0] < size[0] and xy[1] < size[1]):
        raise ConfigError(f"--pick {xy[0]},{xy[1]} is outside the {size[0]}x{size[1]} picture")
