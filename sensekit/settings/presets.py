"""Presets: named sets of values in the settings table (``--preset book``).

A preset is a plain mapping of keys to values; applying it is ``Tuning.apply(preset.values)``,
exactly like a profile or ``--set``. Keys of groups that are not running are ignored, so one
preset covers every app and ``sensekit events``. ``tests/test_settings.py`` checks every value
against the table.

"The book" is Keith Peters, *AdvancED ActionScript 3.0 Animation* (``THE_BOOK``; docs/book.md names
its chapters); "Flash" is the Flash Player API it programs.

``book``: the methods and constants of the book's chapter 5, where sensekit's defaults differ:

- sound flier: gravity 0.4 px per frame, lift = activity level x 0.02, friction 0.9 (velocity
  kept per frame);
- clapper: the lamp toggles on ``activity`` events with ``setSilenceLevel(25, 500)``
  semantics (level 25, 500 ms timeout), not on recognised claps;
- colour tracking: the exact colour after a 10-pixel box blur and 4 palette levels (the
  tracker's own pre-filter, so the target colour is quantized the same way);
- motion: the frame difference (sensekit's default is the background model) on the red
  channel, threshold 0x33, after a 10-pixel blur; the
  paddle moves 20 px toward the side of the motion box;
- edges: the ``[0, 4, -4]`` kernel, a 4-pixel box blur (Flash's ``BlurFilter()`` default) and
  threshold 0x22 on the red channel (edge snow).
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

from sensekit.errors import ConfigError

__all__ = ["Preset", "PRESETS", "preset", "get_preset", "BOOK", "THE_BOOK", "the_book"]


def the_book() -> str:
    """What "the book" and "Flash" are, and where docs/book.md is (``sensekit.paths.doc``: a wheel
    install has no docs/ folder)."""
    from sensekit.paths import doc
    return ('"the book" is Keith Peters, AdvancED ActionScript 3.0 Animation (chapters 1, 2 and 5); '
            f'"Flash" is the Flash Player API it uses: see {doc("book.md")}')


THE_BOOK = the_book()


@dataclass(frozen=True)
class Preset:
    """A named set of settings (``--preset NAME``): ``values`` by key, ``help`` one line."""
    name: str
    help: str
    values: Mapping[str, Any]


PRESETS: dict[str, Preset] = {}


def preset(name: str, help: str, values: Mapping[str, Any]) -> Preset:
    """Declare a preset (values are checked against the table when it is applied)."""
    p = Preset(name, help, MappingProxyType(dict(values)))
    PRESETS[name] = p
    return p


def get_preset(name: str) -> Preset:
    """The preset called ``name``; an unknown name is a ``ConfigError`` listing the presets."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ConfigError(f"unknown preset {name!r}; presets: {', '.join(sorted(PRESETS))}") from None


BOOK = preset("book", "the book's chapter 5: its constants and methods in every app and in `events`", {
    "sound_flier.gravity": 0.4,
    "sound_flier.lift": "linear",
    "sound_flier.lift_per_level": 0.02,
    "sound_flier.friction": 0.9,
    "clapper.method": "activity",
    "activity.silence_level": 25.0,
    "activity.timeout_ms": 500.0,
    "tracker.method": "exact",
    "vision.levels": 4,
    "vision.blur_px": 10,
    "motion.method": "difference",
    "motion.channel": "red",
    "motion.threshold": 0x33,
    "motion_paddle.steer": "book",
    "steer.keep_up": 0.0,
    "vision.edge_direction": "horizontal",
    "vision.edge_blur_px": 4,
    "vision.edge_threshold": 0x22,
    "edge_snow.edge_channel": "red",
})
