"""Finds the mini-apps: the bundled ones, installed ones, your folders and your files.

Where apps come from, in this order (a later one with the same name wins, so your
own ``steer.py`` can stand in for the bundled one):

1. **bundled**: every ``*.py`` in the package's apps folder (``apps/`` in the
   repository, ``sensekit/apps/`` in an installed wheel; see ``sensekit.paths``);
2. **entry points**: packages that declare apps in the ``sensekit.apps`` group
   (``[project.entry-points."sensekit.apps"] my_app = "my_pkg.my_app:MyApp"``;
   the value may also name a module that defines one ``App`` subclass);
3. **SENSEKIT_APPS_DIR**: every ``*.py`` in these folders (separated by ``:``,
   ``;`` on Windows).

``sensekit run path/to/my_app.py`` runs a file without registering it
(``resolve``). An app's name is its file's stem or its entry point's name.

Listing reads each app's module docstring with ``ast`` (nothing is imported, so
a broken app cannot break ``sensekit apps``); ``load(name)`` imports the file by
path (or the entry point) and returns the single ``App`` subclass it defines.
Files starting with ``_`` are skipped.

Errors (``ConfigError``, one line unless noted): an unknown app (the message lists
the apps), a missing file, a file that defines no ``App`` subclass or several, a
syntax error or failed import in an app file, a ``SENSEKIT_APPS_DIR`` entry that
is not a folder.
"""
from __future__ import annotations

import ast
import importlib.metadata
import logging
import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from sensekit.app.base import App
from sensekit.errors import ConfigError
from sensekit.paths import doc
from sensekit.settings.declare import stand_in
from sensekit.settings.registry import add_finder, lookup
from sensekit.suggest import close_matches, did_you_mean

log = logging.getLogger(__name__)

#: the entry-point group third-party packages declare their apps in
ENTRY_POINT_GROUP = "sensekit.apps"
#: the environment variable naming folders of your own app files
APPS_DIR_ENV = "SENSEKIT_APPS_DIR"


@dataclass(frozen=True)
class AppInfo:
    """One app as listed: its name, file, first docstring line and where it was found."""

    name: str
    #: the app's file; ``None`` for an entry point whose module cannot be located
    path: Path | None
    description: str
    #: ``"bundled"``, ``"SENSEKIT_APPS_DIR"`` or ``"entry point (DIST)"``
    origin: str = "bundled"
    #: ``"module:Class"`` (or ``"module"``) for an entry-point app
    entry_point: str | None = None


def apps_dir() -> Path:
    """The folder of the bundled apps."""
    from sensekit.paths import bundled_dir

    return bundled_dir("apps")


def user_apps_dirs() -> list[Path]:
    """The folders named by ``SENSEKIT_APPS_DIR`` (``ConfigError`` for one that is not a folder)."""
    folders = []
    for entry in os.environ.get(APPS_DIR_ENV, "").split(os.pathsep):
        if not entry.strip():
            continue
        folder = Path(entry).expanduser()
        if not folder.is_dir():
            raise ConfigError(f"{APPS_DIR_ENV} names {entry!r}, which is not a folder")
        folders.append(folder)
    return folders


def _folder_apps(folder: Path, origin: str) -> dict[str, AppInfo]:
    found: dict[str, AppInfo] = {}
    for path in sorted(folder.glob("*.py")) if folder.is_dir() else []:
        if not path.name.startswith("_") and not _is_script(path):
            found[path.stem] = AppInfo(path.stem, path, _first_doc_line(path), origin)
    return found


def _entry_point_apps() -> dict[str, AppInfo]:
    found: dict[str, AppInfo] = {}
    for ep in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        dist = getattr(ep.dist, "name", None) or "?"
        module, _, attr = ep.value.partition(":")
        try:
            spec = importlib.util.find_spec(module.strip())
            path = Path(spec.origin) if spec is not None and spec.origin else None
        except (ImportError, ValueError) as exc:
            path, description = None, f"(cannot find module {module!r}: {exc.__class__.__name__})"
        else:
            description = (_first_doc_line(path, attr.strip() or None) if path is not None
                           else f"(cannot find module {module!r})")
        found[ep.name] = AppInfo(ep.name, path, description, f"entry point ({dist})", ep.value)
    return found


def discover(folder: Path | None = None) -> dict[str, AppInfo]:
    """``{name: AppInfo}`` for every app, sorted by name (only ``folder``'s apps if given)."""
    if folder is not None:
        return _folder_apps(folder, "bundled")
    found = _folder_apps(apps_dir(), "bundled")
    found.update(_entry_point_apps())
    for user_folder in user_apps_dirs():
        found.update(_folder_apps(user_folder, APPS_DIR_ENV))
    return dict(sorted(found.items()))


def _first_doc_line(path: Path, class_name: str | None = None) -> str:
    """The first line of the class's docstring (if named and documented), else the module's."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, OSError) as exc:
        return f"(cannot read: {exc.__class__.__name__})"
    doc = None
    if class_name:
        doc = next((ast.get_docstring(node) for node in tree.body
                    if isinstance(node, ast.ClassDef) and node.name == class_name), None)
    doc = doc or ast.get_docstring(tree)
    return doc.strip().splitlines()[0] if doc and doc.strip() else "(no description)"


def unknown_app_message(name: str, apps: dict[str, AppInfo]) -> str:
    listing = "\n".join(f"  {a.name:<16} {a.description}" for a in apps.values()) or "  (none)"
    hint = ""
    if Path(f"{name}.py").is_file():
        hint = f"\n(to run the file {name}.py, write: sensekit run ./{name}.py)"
    elif name and Path(name).is_dir():
        hint = f"\n('{name}' is a folder here: to list and run the apps in it, set {APPS_DIR_ENV}={name})"
    elif name and Path(name).is_file():
        hint = f"\n('{name}' is a file here, but an app file is Python, ending in .py)"
    close = did_you_mean(close_matches(name, apps))
    guess = f" ({close})" if close else ""
    return f"no app named {name!r}{guess}; the apps are:\n{listing}{hint}"


def load(name: str, folder: Path | None = None) -> type[App]:
    """The ``App`` subclass of the app called ``name`` (with ``name`` set)."""
    apps = discover(folder)
    info = apps.get(name)
    if info is None:
        raise ConfigError(unknown_app_message(name, apps))
    return _load_info(info)


def _load_info(info: AppInfo) -> type[App]:
    """The ``App`` subclass ``info`` (from ``discover``) names."""
    if info.entry_point is not None:
        return _load_entry_point(info)
    assert info.path is not None
    return load_path(info.path, add_to_path=info.origin != "bundled")


def resolve(text: str) -> type[App]:
    """An app by name (as ``sensekit apps`` lists it) or by file (``path/to/my_app.py``)."""
    if not (text.endswith(".py") or "/" in text or os.sep in text):
        return load(text)
    path = Path(text).expanduser()
    if path.is_dir():
        raise ConfigError(f"app file {text!r} is a folder; give a .py file "
                          f"(or set {APPS_DIR_ENV}={text} to list the apps in it)")
    if not path.is_file():
        raise ConfigError(f"app file {text!r} not found")
    return load_path(path, add_to_path=True, stands_in=True)


def load_path(path: Path, *, add_to_path: bool = False, stands_in: bool = False) -> type[App]:
    """Import the app file ``path`` and return its one ``App`` subclass (``name`` = the stem).

    ``add_to_path`` puts the file's folder on ``sys.path`` first, as ``python file.py`` does,
    so an app of your own can import modules that sit beside it. ``stands_in``: its settings
    replace those of an app that declared the same section (a copy of a bundled app, edited,
    run by path; without it ``--set`` of that section, which loads the table first, refused it).
    """
    path = Path(path).resolve()
    module_name = f"sensekit_apps.{path.stem}"
    if stands_in:
        stand_in(module_name)
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ConfigError(f"cannot load app file {str(path)!r}")
    _refuse_scripts(path)
    if add_to_path and str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise ConfigError(f"app file {str(path)!r} line {exc.lineno}: syntax error: {exc.msg}") from None
    except ImportError as exc:
        raise ConfigError(f"app file {str(path)!r} cannot import what it needs: {exc}") from None
    except ConfigError as exc:               # its settings' declarations: say which file
        raise ConfigError(f"app file {str(path)!r}: {exc}") from None
    cls = _the_app_class(module, f"app file {str(path)!r}")
    cls.name = path.stem
    return cls


def _is_script(path: Path) -> bool:
    """Whether the file defines no class, so no App (a script such as examples/osc_out.py); a
    file that cannot be parsed is not judged here (loading it names the problem)."""
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, ValueError, OSError):
        return False
    return not any(isinstance(node, ast.ClassDef) for node in ast.walk(tree))


def _refuse_scripts(path: Path) -> None:
    """A file that defines no class cannot hold an App: refuse it before running it (a script
    such as examples/osc_out.py would run its top level, read 'run' as its source, or send OSC)."""
    if _is_script(path):
        shown = path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path
        raise ConfigError(f"app file {str(shown)!r} must define exactly one App subclass, found none "
                          f"(it defines no class; a script runs with `python {shown}`)")


def _the_app_class(module: ModuleType, what: str) -> type[App]:
    classes = [v for v in vars(module).values()
               if isinstance(v, type) and issubclass(v, App) and v is not App
               and v.__module__ == module.__name__]
    if len(classes) != 1:
        names = ", ".join(c.__name__ for c in classes) or "none"
        raise ConfigError(f"{what} must define exactly one App subclass, found {names}")
    return _check_hooks(classes[0], what)


NEEDS = ("audio", "video")


def _check_hooks(cls: type[App], what: str) -> type[App]:
    """``draw`` is the one hook every app must write: without it the first frame would end the
    run with a traceback (``App.draw`` raises), so the load says so instead; and ``needs`` must
    name what the app cannot work without, ``"audio"``, ``"video"`` or both (``"sound"`` or a
    bare string was a ``KeyError`` when the source was chosen, an empty set "no  found"); and
    ``plus_minus`` must name a setting."""
    if cls.draw is App.draw:
        raise ConfigError(f"{what}: {cls.__name__} must define draw(self, screen), the one hook "
                          f"every app writes (the others are optional: {doc('tutorial.md')})")
    needs = cls.needs
    if not (isinstance(needs, (set, frozenset, list, tuple)) and needs and all(n in NEEDS for n in needs)):
        raise ConfigError(f"{what}: {cls.__name__}.needs must name what it cannot work without, "
                          f"frozenset({{\"audio\"}}), frozenset({{\"video\"}}) or both; got {needs!r}")
    cls.needs = frozenset(needs)
    if cls.plus_minus is not None:           # a typo was said only when + or - was pressed
        try:
            lookup(cls.plus_minus[0])
        except ConfigError as exc:
            raise ConfigError(f"{what}: {cls.__name__}.plus_minus: {exc}") from None
    return cls


def _load_entry_point(info: AppInfo) -> type[App]:
    what = f"app {info.name!r} (entry point {info.entry_point!r}, {info.origin})"
    eps = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
    ep = next(e for e in eps if e.name == info.name and e.value == info.entry_point)
    try:
        obj = ep.load()
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"{what} cannot be loaded: {exc}") from None
    if isinstance(obj, ModuleType):
        cls = _the_app_class(obj, what)
    elif isinstance(obj, type) and issubclass(obj, App):
        cls = _check_hooks(obj, what)
    else:
        raise ConfigError(f"{what} names {obj!r}, which is neither an App subclass nor a module")
    cls.name = info.name
    return cls


def load_app_settings() -> None:
    """Import every app ``sensekit apps`` lists, so that each registers its settings group.

    The settings table runs this (``sensekit.settings.registry.add_finder``, below) when it
    must be complete. An app that fails to import is logged and skipped, so one broken app of
    your own does not hide the others' settings.
    """
    # one discovery for them all: load(name) discovered every app again, parsing every file twice
    # per app (10 scans of apps/ and SENSEKIT_APPS_DIR: ~1.3 s of --panel's start)
    for name, info in discover().items():
        try:
            _load_info(info)
        except Exception as exc:  # noqa: BLE001 - a broken user app must not hide the table
            log.warning("settings: could not load app %r: %s", name, exc)


add_finder(load_app_settings)
