"""Where the bundled apps and recordings live, and where a venue profile is saved by default.

The repository keeps them in the top-level ``apps/`` and ``recordings/`` folders.
A wheel installs those folders inside the package, as ``sensekit/apps/`` and
``sensekit/recordings/`` (``pyproject.toml`` maps them), so an installed
sensekit finds them from any working directory; a source checkout or an
editable install reads the top-level folders. ``bundled_dir(name)`` returns
whichever exists. ``SENSEKIT_RECORDINGS`` overrides the recordings folder.

Failure mode: asking for a clip that is not there raises ``RecordingError``
listing the clips that are, and how to regenerate them.
"""
from __future__ import annotations

import os
from pathlib import Path

from sensekit.errors import RecordingError

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_DIR = PACKAGE_DIR.parent
SUFFIX = ".skrec"
#: where an app's Shift+S and the panel's "save" write the venue profile when the run was
#: given no ``--profile`` (relative: in the working folder)
DEFAULT_PROFILE = Path("venue.toml")


def doc(name: str) -> str:
    """Where ``docs/<name>`` is, for a message or a ``--help``: its full path in a source checkout
    (or an editable install); a wheel holds no ``docs/``, so there it says where the file is
    (the repository, or the sdist) rather than send the reader to a file that is not there."""
    here = REPO_DIR / "docs" / name
    if here.is_file():
        return str(here)
    from sensekit import __version__
    return f"docs/{name} in sensekit's sources (its repository, or the sdist sensekit-{__version__}.tar.gz)"


def bundled_dir(name: str) -> Path:
    """``sensekit/<name>`` in an installed wheel, else the repository's top-level ``<name>/``."""
    installed = PACKAGE_DIR / name
    return installed if installed.is_dir() else REPO_DIR / name


def recordings_dir() -> Path:
    """The folder holding the bundled ``*.skrec`` clips and their ``*.truth.json``."""
    override = os.environ.get("SENSEKIT_RECORDINGS")
    return Path(override) if override else bundled_dir("recordings")


def list_bundled() -> list[str]:
    """Names of the bundled recordings (``"demo"`` for ``recordings/demo.skrec``)."""
    folder = recordings_dir()
    if not folder.is_dir():
        return []
    return sorted(p.name[: -len(SUFFIX)] for p in folder.glob(f"*{SUFFIX}") if p.is_dir())


def bundled_recording(name: str = "demo") -> Path:
    """Path of a bundled recording folder, e.g. ``recordings/demo.skrec``."""
    path = recordings_dir() / f"{name}{SUFFIX}"
    if not (path / "meta.json").is_file():
        have = ", ".join(list_bundled()) or "none"
        raise RecordingError(f"no bundled recording named {name!r} in {recordings_dir()} "
                             f"(available: {have}); run `python -m sensekit.synth` to generate them")
    return path
