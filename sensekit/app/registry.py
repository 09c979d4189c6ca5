"""Finds the mini-apps: every ``*.py`` file in the repository's ``apps/`` folder.

An app is the file's stem (``apps/sound_flier.py`` -> ``sound_flier``). Listing
reads each file's module docstring with ``ast`` (nothing is imported, so a
broken app cannot break ``sensekit apps``); ``load(name)`` imports the file by
path and returns the single ``App`` subclass it defines. Files starting with
``_`` are skipped.

The folder is ``$SENSEKIT_APPS_DIR`` when set, else ``apps/`` next to the
``sensekit`` package. Errors: ``ConfigError`` for an unknown app (the message
lists the apps) or a file that defines no ``App`` subclass or several.
"""
from __future__ import annotations

import ast
import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from sensekit.app.base import App
from sensekit.errors import ConfigError


@dataclass(frozen=True)
class AppInfo:
    name: str
    path: Path
    description: str


def apps_dir() -> Path:
    env = os.environ.get("SENSEKIT_APPS_DIR")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "apps"


def discover(folder: Path | None = None) -> dict[str, AppInfo]:
    """``{name: AppInfo}`` for every app file, sorted by name."""
    folder = folder or apps_dir()
    found: dict[str, AppInfo] = {}
    for path in sorted(folder.glob("*.py")) if folder.is_dir() else []:
        if path.name.startswith("_"):
            continue
        found[path.stem] = AppInfo(path.stem, path, _first_doc_line(path))
    return found


def _first_doc_line(path: Path) -> str:
    try:
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    except (SyntaxError, UnicodeDecodeError, OSError) as exc:
        return f"(cannot read: {exc.__class__.__name__})"
    return doc.strip().splitlines()[0] if doc and doc.strip() else "(no description)"


def unknown_app_message(name: str, apps: dict[str, AppInfo]) -> str:
    listing = "\n".join(f"  {a.name:<16} {a.description}" for a in apps.values()) or "  (none)"
    return f"no app named {name!r}; the apps are:\n{listing}"


def load(name: str, folder: Path | None = None) -> type[App]:
    """Import ``apps/<name>.py`` and return its ``App`` subclass (with ``name`` set)."""
    apps = discover(folder)
    info = apps.get(name)
    if info is None:
        raise ConfigError(unknown_app_message(name, apps))
    return load_path(info.path)


def load_path(path: Path) -> type[App]:
    module_name = f"sensekit_apps.{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ConfigError(f"cannot load app file {str(path)!r}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    classes = [v for v in vars(module).values()
               if isinstance(v, type) and issubclass(v, App) and v is not App
               and v.__module__ == module_name]
    if len(classes) != 1:
        names = ", ".join(c.__name__ for c in classes) or "none"
        raise ConfigError(f"app file {str(path)!r} must define exactly one App subclass, found {names}")
    cls = classes[0]
    cls.name = path.stem
    return cls
