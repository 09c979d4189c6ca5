"""``PanelTap``'s level graph on the demo replay: it draws what the audio stage shows of each
block (``trace``), never what it finds in a stage's attributes."""
from __future__ import annotations

from typing import Any

import pytest

from sensekit.audio.activity import ActivityDetector
from sensekit.audio.clap import ClapDetector
from sensekit.audio.pipeline import AudioStage
from sensekit.capture.replay import ReplaySource
from sensekit.events import Dispatcher
from sensekit.panel.commands import CommandQueue
from sensekit.panel.frames import FrameHub
from sensekit.panel.tap import PanelTap
from sensekit.panel.telemetry import Telemetry
from sensekit.paths import recordings_dir
from sensekit.runner import Runner

DEMO = recordings_dir() / "demo.skrec"


class LevelAttributes:
    """Looks like an audio stage to ``getattr``: a ``level`` and detectors, but shows nothing."""
    consumes = "audio"
    emits = frozenset({"level"})
    always_run = True

    def __init__(self) -> None:
        self.level = 42.0
        self.activity = ActivityDetector(silence_level=33.0)

    def process(self, item: Any) -> tuple[()]:
        return ()


class BlockLog:
    """Notes the index of every audio block (and emits nothing)."""
    consumes = "audio"
    emits: frozenset[str] = frozenset()
    always_run = True

    def __init__(self, out: list[int]) -> None:
        self.out = out

    def process(self, item: Any) -> tuple[()]:
        self.out.append(item.index)
        return ()


def _run(stages: list[Any], *, listen: bool = True) -> tuple[Telemetry, list[int]]:
    """Replay the demo through ``stages`` and a panel tap; the telemetry and the blocks' indexes."""
    if not (DEMO / "meta.json").is_file():
        pytest.skip("bundled recording recordings/demo.skrec not generated (python -m sensekit.synth)")
    telemetry = Telemetry(max_levels=100_000)
    runner: Runner
    tap = PanelTap(FrameHub(), telemetry, CommandQueue(), lambda: runner.stages)
    blocks: list[int] = []
    d = Dispatcher()
    if listen:
        d.on("level", lambda e: None)
    with ReplaySource(DEMO) as src:
        runner = Runner(src, [BlockLog(blocks), *stages, tap], d)
        runner.run()
    return telemetry, blocks


def test_the_level_graph_is_what_the_audio_stage_shows():
    stage = AudioStage(activity=ActivityDetector(silence_level=25.0), clap=ClapDetector(min_level=30.0))
    telemetry, blocks = _run([stage])
    update = telemetry.since()
    assert len(update.levels) == len(blocks) > 100          # one point per block
    assert update.levels[-1][1] == round(stage.level, 2)
    assert stage.lines_offered() == {"activity threshold", "clap min level", "noise floor"}
    assert update.lines["activity threshold"] == 25.0 and update.lines["clap min level"] == 30.0
    assert update.lines["noise floor"] == round(stage.noise_floor.level_in_use, 2)


def test_attributes_that_look_like_a_level_are_not_drawn():
    telemetry, blocks = _run([LevelAttributes()])
    update = telemetry.since()
    assert blocks and update.levels == [] and update.lines == {}


def test_a_stage_the_runner_skipped_shows_no_level():
    stage = AudioStage(activity=ActivityDetector())
    telemetry, blocks = _run([stage], listen=False)        # nobody listens: the lazy stage is skipped
    assert blocks and telemetry.since().levels == []
    assert stage.trace(blocks[-1]) is None


class SaysSo:
    """A stage of the user's own that has something to say (``runner.Warns``)."""
    consumes = "video"
    emits: frozenset[str] = frozenset()
    always_run = True

    def __init__(self, said: list[str]) -> None:
        self.said = said

    def process(self, item: Any) -> tuple[()]:
        return ()

    def warnings(self) -> list[str]:
        return list(self.said)


def test_the_status_line_says_what_the_stages_warn_through_their_typed_method():
    """The panel's status line once a second (by the tap's clock) holds what each stage that
    ``Warns`` says, in stage order; a stage that does not has nothing read from it."""
    import ast
    import inspect

    import numpy as np

    from sensekit.capture.base import VideoFrame
    from sensekit.clock import ManualClock
    from sensekit.panel import tap as tap_module
    from sensekit.runner import Warns
    from sensekit.vision.pipeline import VisionStage

    first, second = SaysSo(["lamp is off"]), SaysSo([])
    assert isinstance(first, Warns) and isinstance(VisionStage(), Warns)
    assert not isinstance(LevelAttributes(), Warns)
    telemetry, clock = Telemetry(), ManualClock()
    tap = PanelTap(FrameHub(), telemetry, CommandQueue(),
                   lambda: [first, LevelAttributes(), second, tap], clock=clock)
    frame = VideoFrame(0, 0.0, np.zeros((4, 4, 3), np.uint8))
    tap.process(frame)
    assert "warning" not in telemetry.status()                # not a second yet
    clock.advance(1.0)
    second.said.append("camera is dark")
    tap.process(frame)
    assert telemetry.status()["warning"] == "lamp is off; camera is dark"
    first.said.clear()
    second.said.clear()
    clock.advance(1.0)
    tap.process(frame)
    assert telemetry.status()["warning"] is None
    reads = [n for n in ast.walk(ast.parse(inspect.getsource(tap_module)))
             if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "getattr"]
    assert reads == []                                        # no duck-typing by attribute name


def test_an_apps_own_threshold_is_a_line_of_the_level_graph(monkeypatch):
    # sound_flier's HUD said "climbs above 62" and the panel's graph had no such line
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    from sensekit.app.host import AppHost, RunOptions
    from sensekit.app.registry import load
    from sensekit.panel import parse_panel_address
    from sensekit.panel.attach import app_panel

    if not (DEMO / "meta.json").is_file():
        pytest.skip("bundled recording recordings/demo.skrec not generated (python -m sensekit.synth)")
    lines = {}
    for name in ("sound_flier", "clapper"):
        with ReplaySource(DEMO) as source:
            host = AppHost(load(name), source, RunOptions(headless=True))
            panel = app_panel(host, parse_panel_address("127.0.0.1:0", None))
            try:
                for _ in range(90):
                    host.step()
            finally:
                panel.close()
                host.close()
            lines[name] = panel.telemetry.since().lines
            if name == "sound_flier":
                assert host.app.levels()["climbs above"] == pytest.approx(lines[name]["climbs above"], abs=0.01)
                assert 60 <= lines[name]["climbs above"] <= 70
    assert lines["sound_flier"].keys() == {"noise floor", "climbs above"}
    assert "climbs above" not in lines["clapper"] and "clap min level" in lines["clapper"]
