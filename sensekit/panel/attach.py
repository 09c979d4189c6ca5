"""Starting a panel on an app host (``sensekit run``) or on a bare runner (``sensekit events``).

``app_panel(host, address)`` and ``events_panel(runner, address, ...)`` build the control, start
the server, print nothing (the CLI prints ``panel.url``) and return the running ``Panel``; the
caller closes it. ``app_panel`` also hooks the host's loop: panel requests run between steps
(so a pick works while the app is paused) and the status line (the HUD: fps, source, latency)
is handed over twice a second. When the page draws the level graph, the status line leaves out
the app's levels the graph shows (``graph_levels``): the graph's "level 3" stood beside a
status "voice level 84" from up to half a second before, two readings of one sound.
"""
from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sensekit.panel.address import PanelAddress
from sensekit.panel.control import AppControl, StagesControl
from sensekit.vision.layers import offered
from sensekit.panel.session import Panel
from sensekit.panel.teach import TeachControl
from sensekit.panel.teach_sound import SoundTeachControl
from sensekit.profile import Profile
from sensekit.settings.live import Tuning
from sensekit.vision.taught_live import TakesTaught

if TYPE_CHECKING:
    from sensekit.app.host import AppHost

__all__ = ["STATUS_INTERVAL_S", "app_panel", "events_panel", "graph_levels"]

STATUS_INTERVAL_S = 0.5


def graph_levels(app: Any, inputs: list[str]) -> frozenset[str]:
    """The app's levels (``App.levels``) that the panel's level graph shows block by block, so
    the status line leaves them out: the sound level (named ``level`` or ``... level``; the
    graph's header says it) and the app's lines (``App.level_lines``; the legend says them).
    None without the audio card (no graph)."""
    if "audio" not in inputs:
        return frozenset()
    lines = set(app.level_lines())
    return frozenset(n for n in app.levels() if n == "level" or n.endswith(" level") or n in lines)


def _inputs(source: Any, stages: Any) -> list[str]:
    """What the page shows cards for: the inputs the source has *and* a stage of the piece uses
    (the clapper on the demo recording: audio only, though the recording has video too)."""
    used: set[str] = set()
    for stage in stages:
        consumes = getattr(stage, "consumes", "both")
        used.update(("video", "audio") if consumes == "both" else (consumes,))
    return [k for k, v in (("video", source.has_video), ("audio", source.has_audio)) if v and k in used]


def app_panel(host: AppHost, address: PanelAddress) -> Panel:
    """A started panel on ``host`` (its runner, app, settings table and Shift+S profile)."""
    app = host.app
    inputs = _inputs(host.source, host.runner.stages)
    panel = Panel(address, host.runner, AppControl(host),
                  info={"title": app.title, "app": app.name, "source": host.source.description,
                        "inputs": inputs, "mirrored": type(app).mirror,
                        "offered_overlays": offered(host.runner.stages),
                        "profile": str(host.options.profile_path)},
                  app_lines=app.level_lines)
    panel.start()
    last = [0.0]

    def between_steps() -> None:
        panel.poll()
        now = time.monotonic()
        if now - last[0] >= STATUS_INTERVAL_S:
            last[0] = now
            panel.telemetry.set_status(hud=host.hud_line(leave_out=graph_levels(app, inputs)), paused=host.paused,
                                       sim_t=round(host.sim_t, 2), steps=host.steps)

    host.step_hooks.append(between_steps)
    return panel


def events_panel(runner: Any, address: PanelAddress, *, tuning: Tuning,
                 profile: Mapping[str, Any] | None, profile_path: Path) -> Panel:
    """A started panel on the runner of ``sensekit events``."""
    control = StagesControl(runner, tuning, profile, profile_path)
    if any(isinstance(s, TakesTaught) for s in runner.stages):
        control.teaching = TeachControl(lambda: runner.stages, runner.dispatcher, profile_path,
                                        model=profile.taught_gestures if isinstance(profile, Profile) else None)
    if any(hasattr(s, "segment_hooks") for s in runner.stages):          # a VoiceStage
        control.sound_teaching = SoundTeachControl(lambda: runner.stages, profile_path)
    panel = Panel(address, runner, control,
                  info={"title": "sensekit events", "app": "", "source": runner.source.description,
                        "inputs": _inputs(runner.source, runner.stages),
                        "mirrored": bool(tuning.settings().get("vision.mirror", False)),   # --mirror
                        "offered_overlays": offered(runner.stages),
                        "profile": str(profile_path), "teach": control.teaching is not None,
                        "teach_sound": control.sound_teaching is not None})
    panel.start()
    return panel
