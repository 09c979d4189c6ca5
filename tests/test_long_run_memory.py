"""A piece that runs for weeks must not grow: the bundled demo replayed in a loop through the
audio chain, the vision chain and the panel (its event log, level ring and frame hub), with
Python's allocations traced (``tracemalloc``) over thousands of items after a warm-up long
enough to refill every ring with traced objects (the panel keeps 4,096 levels and 500 events).

What a leak looks like: a float kept per audio block (a handler appending to a list) reads
+43 kB over two passes of the demo (1,850 items); without it the audio chain reads +7.8 kB
(bound 24 kB). With the panel, the 500 events it keeps are dicts whose size follows what
happened (a ``blobs`` event with six people is larger than a ``level`` one), so the ring's
content moves by tens of kB between two moments of the same loop: 53 and 60 kB over 6,000
items in two runs, while ``sys.getallocatedblocks()``, read every 3,000 items over 42,000
items, stayed within 434,1xx..434,6xx following the ring's JSON size, and the peak RSS at
151.4 MB (bound 96 kB: one 24-byte float per item is 144 kB). On failure the lines that grew
are printed.
"""
from __future__ import annotations

import gc
import json
import tracemalloc
from pathlib import Path

import pytest

from sensekit.audio.activity import ActivityDetector
from sensekit.audio.clap import ClapDetector, ClapPatternTracker
from sensekit.audio.pipeline import AudioStage
from sensekit.audio.pitch import PitchTracker
from sensekit.capture.replay import ReplaySource
from sensekit.panel import Panel, parse_panel_address
from sensekit.panel.control import StagesControl
from sensekit.panel.telemetry import Telemetry
from sensekit.runner import Runner
from sensekit.settings.live import Tuning
from sensekit.vision.blob_tracker import BlobTracker
from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.motion import MotionDetector
from sensekit.vision.pipeline import VisionStage

BOUND_BYTES = 24 * 1024
PANEL_BOUND_BYTES = 96 * 1024


def audio_chain() -> AudioStage:
    return AudioStage(activity=ActivityDetector(), clap=ClapDetector(), pattern=ClapPatternTracker(),
                      pitch=PitchTracker())


def vision_chain() -> VisionStage:
    return VisionStage(mirror=True, blur_px=3, levels=4, tracker=ColorTracker("#eb2d14"),
                       motion=MotionDetector(), blobs=BlobTracker(), edges=True, bounds_color=0xEB2D14)


def traced_growth(runner: Runner, *, warm_items: int, turn_items: int, items: int) -> tuple[int, str]:
    """Bytes still allocated after ``items`` more items than before them, and what grew.

    Tracing starts after ``warm_items`` and the first reading is taken ``turn_items`` later, once
    every ring has been refilled with traced objects (until then a ring replacing untraced
    entries with traced ones looks like growth)."""
    runner.run(max_items=warm_items)
    tracemalloc.start(1)
    try:
        runner.run(max_items=turn_items)
        gc.collect()
        before_snap = tracemalloc.take_snapshot()
        before = tracemalloc.get_traced_memory()[0]
        runner.run(max_items=items)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
        top = tracemalloc.take_snapshot().compare_to(before_snap, "lineno")[:8]
    finally:
        tracemalloc.stop()
    return grown, "\n".join(str(s) for s in top)


def pass_items(demo: Path) -> int:
    """Items (frames + audio blocks) in one pass of the looped recording: readings are taken at
    the same point of the loop, so the replay's own buffers are in the same state each time."""
    meta = json.loads((demo / "meta.json").read_text())
    return int(meta["frames"]) + -(-int(meta["audio_samples"]) // int(meta["audio"]["block_size"]))


def looped_demo(demo: Path, stages: list) -> tuple[ReplaySource, Runner]:
    source = ReplaySource(demo, loop=True)
    source.open()
    runner = Runner(source, stages)
    runner.dispatcher.on("*", lambda e: None)          # every event is wanted, so every stage runs
    return source, runner


def test_audio_chain_does_not_grow(recordings_dir):
    demo = recordings_dir / "demo.skrec"
    source, runner = looped_demo(demo, [audio_chain()])
    p = pass_items(demo)                                   # 925: 300 frames, 625 blocks
    with source:
        grown, top = traced_growth(runner, warm_items=p, turn_items=p, items=2 * p)
    print(f"audio chain: {grown} bytes more after {2 * p} items")
    assert runner.stats.blocks == 4 * 625 and runner.stats.event_counts.get("clap", 0) == 4 * 6
    assert grown < BOUND_BYTES, f"{grown} bytes more after {2 * p} items:\n{top}"


def test_the_panels_event_log_and_level_ring_do_not_grow():
    telemetry = Telemetry()
    ev = {"event": "clap", "t": 0.0, "strength": 0.5}

    def feed(n: int, start: int) -> None:
        for k in range(start, start + n):
            telemetry.add_level(k / 100, 42.0)
            telemetry.add_event(dict(ev, t=k / 100))
            telemetry.set_status(frames=k)
            if k % 200 == 0:
                telemetry.since((0, 0))          # a client that asks for everything each time
    tracemalloc.start(1)
    try:
        feed(5000, 0)
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        feed(6000, 5000)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    print(f"panel log: {grown} bytes more after 6,000 levels and events")
    assert grown < BOUND_BYTES // 4, grown


@pytest.mark.slow
def test_vision_and_audio_chains_and_the_panel_do_not_grow(recordings_dir, tmp_path):
    """The full chain with a started panel (no client): ~3 minutes under tracemalloc."""
    demo = recordings_dir / "demo.skrec"
    source, runner = looped_demo(demo, [vision_chain(), audio_chain()])
    p = pass_items(demo)
    panel = Panel(parse_panel_address("127.0.0.1:0", None), runner,
                  StagesControl(runner, Tuning(lambda: runner.stages), None, tmp_path / "venue.toml"),
                  info={"title": "soak", "source": "demo", "inputs": ["video", "audio"]})
    panel.start()
    try:
        with source:
            grown, top = traced_growth(runner, warm_items=3 * p, turn_items=7 * p, items=6 * p)
    finally:
        panel.close()
    print(f"vision + audio + panel: {grown} bytes more after {6 * p} items")
    assert runner.stats.frames > 4500 and runner.stats.event_counts.get("blob_enter", 0) > 0
    assert grown < PANEL_BOUND_BYTES, f"{grown} bytes more after {6 * p} items:\n{top}"
