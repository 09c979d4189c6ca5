"""``Panel``: one browser panel attached to one run (server + tap + their shared parts).

    panel = Panel(address, runner, control, info={"title": "Clapper", "source": "demo"})
    url = panel.start()          # serves on its own thread; the tap joins the runner's stages
    ...                          # the run goes on; call panel.poll() between app steps
    panel.close()

``start`` appends the ``PanelTap`` to ``runner.stages`` and subscribes it to the events the
run already produces (``PanelTap.attach_events``); ``close`` stops the server and takes the tap
out again. The panel's commands are charged to the run's own budget (``Runner.settings_budget``,
taken when the panel is made), so they and the settings share one tenth of the run. Failure
modes: ``ConfigError`` from ``start`` when the address cannot be bound.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sensekit.panel.address import PanelAddress
from sensekit.panel.commands import CommandQueue
from sensekit.panel.control import PanelControl
from sensekit.panel.frames import FrameHub
from sensekit.panel.server import PanelServer
from sensekit.panel.tap import QUIET_EVENTS, PanelTap
from sensekit.panel.telemetry import Telemetry

__all__ = ["Panel"]


class Panel:
    def __init__(self, address: PanelAddress, runner: Any, control: PanelControl, *,
                 info: dict[str, Any] | None = None, hub: FrameHub | None = None,
                 app_lines: Callable[[], Mapping[str, float]] | None = None) -> None:
        self.address = address
        self.runner = runner
        self.hub = hub if hub is not None else FrameHub()
        self.telemetry = Telemetry()
        self.commands = CommandQueue(runner.settings_budget)    # one budget with the run's settings
        self.tap = PanelTap(self.hub, self.telemetry, self.commands, lambda: runner.stages,
                            app_lines=app_lines)
        self.server = PanelServer(address, self.hub, self.telemetry, self.commands, control,
                                  info=dict(info or {}))

    @property
    def url(self) -> str:
        return self.server.url

    def start(self) -> str:
        # the event kinds the run can emit (the level graph's legend lists only its marks among
        # them; the page adds any kind it then sees, e.g. a sound taught in the panel)
        emits: set[str] = set()
        for stage in self.runner.stages:
            emits.update(getattr(stage, "emits", ()))
        self.server.info.setdefault("emits", sorted(emits))
        self.server.info.setdefault("listed", sorted(emits - QUIET_EVENTS))   # what the log lists
        url = self.server.start()
        self.runner.stages.append(self.tap)
        self.tap.attach_events(self.runner.dispatcher)
        return url

    def poll(self) -> None:
        """Run waiting panel requests now (the app host calls this once per step)."""
        self.commands.run_pending()

    def close(self) -> None:
        self.server.close()
        if self.tap in self.runner.stages:
            self.runner.stages.remove(self.tap)
