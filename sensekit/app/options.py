"""``RunOptions``: how the app host runs an app (headless, frames, outputs, script, pacing).

Plain data, filled by ``sensekit run`` (``sensekit.cli.run``) or by your own code, and read by
the host and its helpers (``sensekit.app.script``, ``sensekit.app.hand_input``) through the
``Host`` protocol of ``sensekit.app.base``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sensekit.paths import DEFAULT_PROFILE

__all__ = ["RunOptions"]


@dataclass
class RunOptions:
    """How the host runs an app; every field has the default of a plain ``sensekit run``."""
    #: no window (SDL's dummy driver); a replay then runs as fast as it can
    headless: bool = False
    #: stop after this many steps (``None``: at the end of the source, or never when live)
    frames: int | None = None
    #: write the last picture here at the end (``--screenshot``)
    screenshot: Path | None = None
    #: record the window to this video file (``--video``)
    video: Path | None = None
    #: write every event as JSON lines here (``--events``)
    events: Path | None = None
    #: where key ``s`` saves pictures
    screenshot_dir: Path = field(default_factory=Path.cwd)
    #: where ``Shift+S`` saves the venue profile (the current tuning of the stages)
    profile_path: Path = DEFAULT_PROFILE
    #: the profile the run started from; saving keeps what the stages do not know (zones)
    profile: Any = None
    #: draw the HUD line (tests of pure game pictures may switch it off)
    hud: bool = True
    #: scripted picks, mode and key presses (``sensekit.app.script.Script``)
    script: Any = None
    #: start with hand input (``--hands``; apps whose ``hands`` is "switch" or "always")
    hands: bool = False
    #: a person mask per frame (``--silhouette``; the hands extra): apps that use one build a
    #: ``SilhouetteStage`` (``edge_snow`` piles snow on it), others get one for the overlays and panel
    silhouette: bool = False
    #: pace a replay or file at recorded speed even headless (``--panel``)
    realtime: bool = False
