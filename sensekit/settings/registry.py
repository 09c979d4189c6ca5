"""The table: every declared group of settings, by section, and lookups by key.

``group(...)`` (``sensekit.settings.declare``) registers a group in ``REGISTRY`` when its
module is imported: a stage registers itself (``class MotionDetector(Tunable, section=...)``).
``load_table()`` imports the modules of the stage packages (``STAGE_PACKAGES``: the detectors
in ``sensekit.vision`` and ``sensekit.audio``) that declare a group, so a new stage module is
found without being listed anywhere, and, unless ``apps=False``, runs the *finders* that the layers above added with
``add_finder`` (``sensekit.app.registry`` adds one that loads every app ``sensekit apps``
lists) or declared as ``sensekit.settings`` entry points (sensekit declares that same one in
pyproject.toml, so a program that imported only ``sensekit.profile`` knows the apps' tables
too), so the table is complete; the adapters call it before they list or check keys. This
module imports nothing above it: apps register, in code or in the package's metadata; settings
never go looking for them by name. ``lookup("motion.threshold")`` returns one ``Setting``; an
unknown key is a ``ConfigError`` that suggests the nearest known keys, and a key that moved
(``sensekit.settings.renames``) one that names where it went. Cost: the imports, once;
lookups are dictionary reads.
"""
from __future__ import annotations

import importlib
import importlib.util
import logging
import pkgutil
import re
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Callable

from sensekit.errors import ConfigError
from sensekit.safe_read import clip, short
from sensekit.settings.declare import REGISTRY, Group, Setting, register
from sensekit.settings.renames import moved
from sensekit.suggest import close_matches, did_you_mean

__all__ = ["REGISTRY", "register", "lookup", "groups", "load_table", "STAGE_PACKAGES",
           "import_stage_modules", "split_key", "describe_table", "library_sections", "add_finder"]

#: the packages whose modules hold the library's stages; every module in them is imported by
#: ``load_table`` and each stage declares its own group (apps register theirs through
#: ``add_finder``)
STAGE_PACKAGES: tuple[str, ...] = ("sensekit.vision", "sensekit.audio")

#: what a module that declares a group says (a false hit only costs an import)
_DECLARES = re.compile(rb"\bsection\s*=")

#: functions that import the declarations of the layers above (the apps), run once by
#: ``load_table(apps=True)``; added with ``add_finder``
_FINDERS: list[Callable[[], None]] = []

#: the entry-point group of finders a package declares in its metadata (sensekit's own:
#: ``apps = "sensekit.app.registry:load_app_settings"`` in pyproject.toml), so that the table
#: is complete in any program, whatever it imported first
FINDER_ENTRY_POINTS = "sensekit.settings"

log = logging.getLogger(__name__)


def add_finder(finder: Callable[[], None]) -> None:
    """Have ``load_table(apps=True)`` call ``finder`` to import more declaring modules (the
    apps); a finder added twice runs once. One added after the apps were loaded runs at once."""
    if finder in _FINDERS:
        return
    _FINDERS.append(finder)
    if _loaded["apps"]:
        finder()


def split_key(key: str) -> tuple[str, str]:
    """``"motion.threshold"`` -> ``("motion", "threshold")``; anything else is a ``ConfigError``."""
    section, dot, name = str(key).partition(".")
    if not dot or not section or not name or "." in name:
        raise ConfigError(f"a setting key is SECTION.NAME (e.g. motion.threshold), got {short(key)}")
    return section, name


def lookup(key: str) -> Setting[Any]:
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
        if (went := moved(key)) is not None:
            raise ConfigError(went)
        # a typo in the name is looked for among its section's keys, a typo in the section among
        # the keys of the sections it is close to
        sections = [section] if group is not None else close_matches(section, REGISTRY, n=3)
        keys = [s.key for name in sections for s in REGISTRY[name].items]
        near = did_you_mean(close_matches(key, keys, n=3), quote=str)
        hint = f"; {near}" if near else "; `sensekit settings` lists them all"
        raise ConfigError(f"unknown setting `{clip(key)}`{hint}")
    return group[name]


def library_sections() -> list[str]:
    """The sections declared by sensekit's own detectors and stages (not by apps)."""
    load_table(apps=False)
    return sorted(s for s, g in REGISTRY.items() if _in_packages(g.module, STAGE_PACKAGES))


def _in_packages(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def import_stage_modules(packages: tuple[str, ...] = STAGE_PACKAGES) -> list[str]:
    """Import every module of ``packages`` that declares a group (its text names a
    ``section=``: ``class MotionDetector(Tunable, section="motion", ...)``), so that each stage
    in them registers itself; returns the module names, in the order imported. The others are
    not imported (the clap models cost ~0.3 s each and load when a detector needs them). A
    module that fails to import raises: a broken stage must not leave a silent hole."""
    names: list[str] = []
    for package in packages:
        path = importlib.import_module(package).__path__
        for info in sorted(pkgutil.iter_modules(path, package + "."), key=lambda m: m.name):
            spec = None if info.ispkg else importlib.util.find_spec(info.name)
            if spec is None or not spec.origin or not _declares(Path(spec.origin).read_bytes()):
                continue
            importlib.import_module(info.name)
            names.append(info.name)
    return names


def _declares(text: bytes) -> bool:
    return b"section" in text and _DECLARES.search(text) is not None   # `in` first: ~1 MB models


def groups() -> list[Group]:
    """Every registered group, in section order."""
    return [REGISTRY[s] for s in sorted(REGISTRY)]


_loaded = {"library": False, "apps": False}


def load_table(*, apps: bool = True) -> dict[str, Group]:
    """Import every module of the stage packages (each stage registers itself) and, unless ``apps=False``, run the
    finders (``add_finder``: the apps); returns the table."""
    if not _loaded["library"]:
        import_stage_modules()
        _loaded["library"] = True
    if apps and not _loaded["apps"]:
        _loaded["apps"] = True
        for finder in list(_FINDERS):
            finder()
        _declared_finders()
    return REGISTRY


def _declared_finders() -> None:
    """Add (and so run) the finders packages declare as ``sensekit.settings`` entry points; one
    that fails to load is logged and skipped, so a broken package does not hide the table."""
    for ep in entry_points(group=FINDER_ENTRY_POINTS):
        try:
            finder = ep.load()
        except Exception as exc:  # noqa: BLE001 - a broken plug-in must not hide the table
            log.warning("settings: could not load the finder %s = %s: %s", ep.name, ep.value, exc)
            continue
        add_finder(finder)


def describe_table() -> dict[str, Any]:
    """Groups, settings and presets as JSON-ready data (``sensekit settings --json``)."""
    from sensekit.settings.presets import PRESETS

    return {
        "groups": [{"section": g.section, "title": g.title, "module": g.module,
                    "settings": [s.describe() for s in g.items]}
                   for g in groups()],
        "presets": {name: {"help": p.help, "values": dict(p.values)} for name, p in sorted(PRESETS.items())},
    }
