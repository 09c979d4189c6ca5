"""The bundled demo recording replayed in a thread behind a browser panel on a free port: what
the fault matrix (``benchmarks/_fault_panel.py``, ``benchmarks/_fault_fuzz.py``) and the fuzz
sweep (``benchmarks/_fuzz_net.py``) send their requests to.
"""
from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import Any, NamedTuple


class ReplayPanel(NamedTuple):
    panel: Any
    runner: Any
    thread: threading.Thread
    stop: threading.Event
    source: Any


def start_replay_panel(profile: Path, *, speed: float, title: str) -> ReplayPanel:
    """The demo replayed in a loop at ``speed`` times recorded speed (colour tracking of its red
    ball, motion, claps) with a started panel on 127.0.0.1 (no token) whose saves go to
    ``profile``; the run stops at the next item once ``stop`` is set (``thread`` then ends). The
    caller closes the panel and the source."""
    from sensekit.audio.clap import ClapDetector
    from sensekit.audio.pipeline import AudioStage
    from sensekit.capture.replay import ReplaySource
    from sensekit.clock import ScaledClock
    from sensekit.panel import Panel, parse_panel_address
    from sensekit.panel.control import StagesControl
    from sensekit.paths import recordings_dir
    from sensekit.runner import Runner
    from sensekit.settings.live import Tuning
    from sensekit.vision.color_tracker import ColorTracker
    from sensekit.vision.motion import MotionDetector
    from sensekit.vision.pipeline import VisionStage

    source = ReplaySource(recordings_dir() / "demo.skrec", realtime=True, loop=True, clock=ScaledClock(speed))
    source.open()
    runner = Runner(source, [VisionStage(tracker=ColorTracker("#eb2d14"), motion=MotionDetector()),
                             AudioStage(clap=ClapDetector())])
    tuning = Tuning(lambda: runner.stages)
    panel = Panel(parse_panel_address("127.0.0.1:0", None), runner,
                  StagesControl(runner, tuning, None, profile), info={"title": title})
    panel.start()
    stop = threading.Event()

    class Stop(Exception):
        pass

    def until_stopped(_item: Any) -> None:
        if stop.is_set():
            raise Stop

    def run() -> None:
        with contextlib.suppress(Stop):
            runner.run(on_item=until_stopped)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return ReplayPanel(panel, runner, thread, stop, source)
