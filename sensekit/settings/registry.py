"""The table: every declared group of settings, by section, and lookups by key.

``group(...)`` (``sensekit.settings.declare``) registers a group here when its module is
imported. ``load_table()`` imports every module that declares settings (the detectors and,
unless ``apps=False``, every app ``sensekit apps`` lists), so the table is complete; the
adapters call it before they list or check keys. ``lookup("motion.threshold")`` returns one
``Setting``; an unknown key is a ``ConfigError`` that suggests the nearest known keys.

Re-registering a section with the same settings (an app file loaded twice) is allowed; a
different declaration under a section that exists is a ``ConfigError``. Cost: the imports,
once; lookups are dictionary reads.
"""
from __future__ import annotations

import difflib
import importlib
import logging
from typing import TYPE_CHECKING, Any

from sensekit.errors import ConfigError

if TYPE_CHECKING:
    from sensekit.settings.declare import Group, Setting

__all__ = ["REGISTRY", "register", "lookup", "groups", "load_table", "DECLARING_MODULES",
           "split_key", "describe_table", "library_sections"]

log = logging.getLogger(__name__)

#: section -> group, filled as declaring modules are imported
REGISTRY: dict[str, Group] = {}

#: the library modules that declare settings (apps are found by ``sensekit.app.registry``)
DECLARING_MODULES: tuple[str, ...] = (
    "sensekit.vision.pipeline", "sensekit.vision.motion", "sensekit.vision.background",
    "sensekit.vision.color_tracker", "sensekit.vision.hands",
    "sensekit.audio.pipeline", "sensekit.audio.noise_floor", "sensekit.audio.activity",
    "sensekit.audio.clap", "sensekit.audio.pitch", "sensekit.audio.voice",
)


def register(group: Group) -> Group:
    old = REGISTRY.get(group.section)
    if old is not None and old.items != group.items:
        raise ConfigError(f"settings section `{group.section}` is declared twice, differently "
                          f"({old.title!r} and {group.title!r})")
    REGISTRY[group.section] = group
    return group


def split_key(key: str) -> tuple[str, str]:
    """``"motion.threshold"`` -> ``("motion", "threshold")``; anything else is a ``ConfigError``."""
    section, dot, name = str(key).partition(".")
    if not dot or not section or not name or "." in name:
        raise ConfigError(f"a setting key is SECTION.NAME (e.g. motion.threshold), got {key!r}")
    return section, name


def _all_keys() -> list[str]:
    return [s.key for g in REGISTRY.values() for s in g.items]


def lookup(key: str) -> Setting:
    """The declared setting called ``key`` (``section.name``); the table is completed on
    demand (library modules, then the apps) before a key counts as unknown."""
    section, name = split_key(key)
    group = REGISTRY.get(section)
    for apps in (False, True):
        if group is not None and name in group:
            break
        load_table(apps=apps)
        group = REGISTRY.get(section)
    if group is None or name not in group:
        near = difflib.get_close_matches(key, _all_keys(), n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(near)}?" if near else "; `sensekit settings` lists them all"
        raise ConfigError(f"unknown setting `{key}`{hint}")
    return group[name]


def library_sections() -> list[str]:
    """The sections declared by sensekit's own detectors and stages (not by apps)."""
    load_table(apps=False)
    return sorted(s for s, g in REGISTRY.items() if g.module in DECLARING_MODULES)


def groups() -> list[Group]:
    """Every registered group, in section order."""
    return [REGISTRY[s] for s in sorted(REGISTRY)]


_loaded = {"library": False, "apps": False}


def load_table(*, apps: bool = True) -> dict[str, Group]:
    """Import every declaring module (and the apps, unless ``apps=False``); returns the table.

    An app that fails to import is logged and skipped, so one broken app of your own does
    not hide the others' settings.
    """
    if not _loaded["library"]:
        for module in DECLARING_MODULES:
            importlib.import_module(module)
        _loaded["library"] = True
    if apps and not _loaded["apps"]:
        from sensekit.app.registry import discover, load

        for name in discover():
            try:
                load(name)
            except Exception as exc:  # noqa: BLE001 - a broken user app must not hide the table
                log.warning("settings: could not load app %r: %s", name, exc)
        _loaded["apps"] = True
    return REGISTRY


def describe_table() -> dict[str, Any]:
    """Groups, settings and presets as JSON-ready data (``sensekit settings --json``)."""
    from sensekit.settings.presets import PRESETS

    return {
        "groups": [{"section": g.section, "title": g.title, "module": g.module,
                    "settings": [s.describe() for s in g.items]}
                   for g in groups()],
        "presets": {name: {"help": p.help, "values": dict(p.values)} for name, p in sorted(PRESETS.items())},
    }
