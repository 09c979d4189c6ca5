"""The panel's status line and its level graph never give two readings of one sound: the status
(handed over twice a second) leaves out the app's levels that the graph shows block by block."""
from __future__ import annotations

import pytest

from sensekit.capture.replay import ReplaySource
from sensekit.paths import recordings_dir

DEMO = recordings_dir() / "demo.skrec"


def _status_after(name: str, steps: int) -> tuple[str, dict[str, float], str]:
    from sensekit.app.host import AppHost, RunOptions
    from sensekit.app.registry import load
    from sensekit.panel import parse_panel_address
    from sensekit.panel.attach import app_panel

    with ReplaySource(DEMO) as source:
        host = AppHost(load(name), source, RunOptions(headless=True))
        panel = app_panel(host, parse_panel_address("127.0.0.1:0", None))
        try:
            for _ in range(steps):
                host.step()
        finally:
            panel.close()
            host.close()
    return panel.telemetry.status()["hud"], host.app.levels(), host.hud_line()


@pytest.fixture(autouse=True)
def _headless(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    if not (DEMO / "meta.json").is_file():
        pytest.skip("bundled recording recordings/demo.skrec not generated (python -m sensekit.synth)")


@pytest.mark.parametrize("name, graphed, kept", [
    ("sound_flier", {"voice level", "climbs above"}, set()),    # graph header + its dashed line
    ("clapper", {"level"}, set()),
    ("activity_graph", {"level"}, {"floor"}),
])
def test_the_status_line_leaves_out_what_the_level_graph_shows(name, graphed, kept):
    # the graph said "level 3" beside a status "voice level 84" from up to 0.5 s before
    hud, levels, window = _status_after(name, 60)
    assert graphed | kept == set(levels)
    for level in graphed:
        assert f"{level} " in window and f"{level} " not in hud, (level, hud)
    for level in kept:
        assert f"{level} " in hud, (level, hud)
    assert " fps" in hud and "demo" in hud


def test_an_app_without_the_level_graph_keeps_its_levels_in_the_status_line():
    from sensekit.app.registry import load
    from sensekit.panel.attach import graph_levels

    hud, levels, _ = _status_after("color_ball", 10)
    assert "match" in hud and set(levels) == {"match %"}
    assert graph_levels(load("color_ball"), ["video"]) == frozenset()
