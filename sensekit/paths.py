"""Where the bundled recordings live.

The recordings are kept in the repository's ``recordings/`` folder next to the
package (the README installs with ``pip install -e .``, so they are found from
any working directory). ``SENSEKIT_RECORDINGS`` overrides the folder.

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


def recordings_dir() -> Path:
    """The folder holding the bundled ``*.skrec`` clips and their ``*.truth.json``."""
    override = os.environ.get("SENSEKIT_RECORDINGS")
    return Path(override) if override else REPO_DIR / "recordings"


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


def bundled_truth(name: str = "demo") -> Path:
    """Path of a bundled recording's ground truth, e.g. ``recordings/demo.truth.json``."""
    path = recordings_dir() / f"{name}.truth.json"
    if not path.is_file():
        raise RecordingError(f"no ground truth for bundled recording {name!r} at {path}; "
                             "run `python -m sensekit.synth` to generate it")
    return path
