"""A piece that has run for three weeks: stream clocks near 1.8e6 s and ~1e11 samples, and a wall
clock that NTP steps while it runs.

The bundled demo is replayed through the audio chain (level, activity, claps, clap patterns,
pitch) and the vision chain (colour tracker, motion, blobs and zones, edges) twice: from ``t = 0``
and with every item's ``t`` moved 21 days on and its index moved by the blocks (frames) three
weeks hold. The events must be the same, at the same times relative to the start, to the 1e-6 s
the JSON lines keep (values to 1e-5: the One-Euro smoothing divides by frame intervals that are
differences of large times). The voice stage's word spotting is checked alike on theo's spoken
digits. Then ``time.time`` is stepped back and forth by an hour on every
call (``time.monotonic`` untouched): the log rate limit, the OSC reader's CPU pace, the panel's
command budget and frame rate, and OSC bundle timetags must behave as with a steady clock.
"""
from __future__ import annotations

import dataclasses
import itertools
import logging
import math
import threading
import time
from typing import Any

import numpy as np
import pytest

from sensekit.audio.activity import ActivityDetector
from sensekit.audio.clap import ClapDetector, ClapPatternTracker
from sensekit.audio.pipeline import AudioStage
from sensekit.audio.pitch import PitchTracker
from sensekit.capture.base import AudioBlock
from sensekit.capture.replay import ReplaySource
from sensekit.paths import bundled_recording
from sensekit.vision.blob_tracker import BlobTracker
from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.motion import MotionDetector
from sensekit.vision.pipeline import VisionStage

WEEKS_S = 21 * 86400.0
BLOCKS_3W = int(WEEKS_S * 48000) // 512          # ~1.7e8 blocks, ~8.7e10 samples
FRAMES_3W = int(WEEKS_S * 30)


def run_shifted(offset_s: float, blocks: int, frames: int) -> list[dict[str, Any]]:
    """The demo's events with every item ``offset_s`` later (index moved by blocks / frames);
    times (and a pattern's clap times) given relative to the shifted start."""
    audio = AudioStage(activity=ActivityDetector(), clap=ClapDetector(), pattern=ClapPatternTracker(),
                       pitch=PitchTracker())
    vision = VisionStage(mirror=True, blur_px=3, levels=4, tracker=ColorTracker("#eb2d14"),
                         motion=MotionDetector(), blobs=BlobTracker(), edges=True, bounds_color=0xEB2D14)
    for stage in (audio, vision):
        stage.listen(stage.emits)
    out: list[dict[str, Any]] = []
    with ReplaySource(bundled_recording()) as src:
        for item in src:
            is_audio = isinstance(item, AudioBlock)
            moved = dataclasses.replace(item, t=item.t + offset_s,
                                        index=item.index + (blocks if is_audio else frames))
            for e in (audio if is_audio else vision).process(moved):
                d = dataclasses.asdict(e)
                d["name"], d["t"] = e.name, e.t - offset_s
                if "times" in d:
                    d["times"] = [x - offset_s for x in d["times"]]
                out.append(d)
    return out


def worst_difference(a: Any, b: Any) -> float:
    """The largest difference between two events' numbers (inf where anything else differs)."""
    if isinstance(a, float) or isinstance(b, float):
        return abs(float(a) - float(b))
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        return max([worst_difference(a[k], b[k]) for k in a], default=0.0)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
        return max([worst_difference(x, y) for x, y in zip(a, b)], default=0.0)
    return 0.0 if a == b else math.inf


def test_chains_three_weeks_in_give_the_events_of_a_fresh_start():
    fresh = run_shifted(0.0, 0, 0)
    late = run_shifted(WEEKS_S, BLOCKS_3W, FRAMES_3W)
    names = [e["name"] for e in fresh]
    assert {"clap", "clap_pattern", "activity", "pitch", "color_tracked", "motion", "blob_enter",
            "zone_enter"} <= set(names)
    assert [e["name"] for e in late] == names
    for a, b in zip(fresh, late):
        assert abs(a["t"] - b["t"]) <= 1e-6, (a, b)
        assert worst_difference(a, b) <= 1e-5, (a, b)


def test_word_spotting_three_weeks_in_hears_the_words_of_a_fresh_start(shared_data):
    pytest.importorskip("pocketsphinx")
    pytest.importorskip("webrtcvad")
    pytest.importorskip("soxr")
    import soundfile as sf

    from sensekit.audio.voice import VoiceStage

    parts, rate = [], 8000
    for k in range(2):
        for digit in range(10):
            x, rate = sf.read(str(shared_data / "words" / f"{digit}_theo_{k}.wav"), dtype="float32")
            parts += [np.zeros(rate // 2, np.float32), x, np.zeros(int(0.6 * rate), np.float32)]
    x = np.concatenate(parts)

    def heard(offset_s: float, blocks: int) -> list[tuple[str, float, float, float]]:
        stage, events = VoiceStage({"words": ("one", "nine")}), []
        for i in range(0, len(x), 512):
            events += stage.process(AudioBlock(i // 512 + blocks, offset_s + i / rate, x[i:i + 512], rate))
        events += stage.finish()
        return [(e.word, e.t - offset_s, e.start - offset_s, e.end - offset_s) for e in events]

    fresh = heard(0.0, 0)
    assert fresh and {w for w, *_ in fresh} <= {"one", "nine"}
    late = heard(WEEKS_S, BLOCKS_3W)
    assert [w for w, *_ in late] == [w for w, *_ in fresh]
    assert np.allclose([v for _, *v in late], [v for _, *v in fresh], atol=1e-6)


# --- a wall clock that NTP steps ------------------------------------------------------------------

@pytest.fixture
def stepping_wall_clock(monkeypatch):
    """``time.time`` an hour ahead, then an hour behind, on alternate calls."""
    real = time.time
    steps = itertools.cycle((3600.0, -3600.0))
    monkeypatch.setattr(time, "time", lambda: real() + next(steps))


def test_log_rate_limit_holds_when_the_wall_clock_steps(stepping_wall_clock):
    from sensekit.ratelimit import RateLimitFilter

    f = RateLimitFilter(burst=5, interval_s=10.0)
    shown = sum(f.filter(logging.LogRecord("x", logging.WARNING, __file__, 1, "flood", None, None))
                for _ in range(200))
    assert shown == 5 and f.suppressed_total == 195


def test_osc_pace_neither_stalls_nor_bursts_when_the_wall_clock_steps(stepping_wall_clock):
    from sensekit.osc.pace import CpuPace

    pace = CpuPace(share=0.05, burst=0.05)
    used: list[float] = []

    def busy() -> None:                   # a reader whose every datagram costs ~1 ms of CPU
        start, end = time.thread_time(), time.monotonic() + 1.0
        while time.monotonic() < end:
            pace.wait()
            t = time.thread_time()
            while time.thread_time() - t < 0.001:
                pass
        used.append(time.thread_time() - start)

    thread = threading.Thread(target=busy)
    begun = time.monotonic()
    thread.start()
    thread.join(5.0)
    assert not thread.is_alive(), "the pace stalled"
    wall = time.monotonic() - begun
    assert used and used[0] <= 0.05 + 0.05 * wall + 0.03, f"{used[0]:.3f} s of CPU in {wall:.2f} s"


def test_panel_budget_and_frame_rate_hold_when_the_wall_clock_steps(stepping_wall_clock):
    from sensekit.budget import TimeBudget
    from sensekit.panel.commands import CommandQueue
    from sensekit.panel.frames import FrameHub
    from sensekit.vision.layers import Layers

    q = CommandQueue(TimeBudget(share=0.1, burst_s=0.25), min_cost_s=0.05)
    for _ in range(20):
        q.submit(lambda: None)
    assert q.run_pending() in (5, 6)      # the banked 0.25 s at 0.05 s each (and what refilled)
    hub = FrameHub(max_fps=10.0)
    hub.watch(1, set())
    published = 0
    end = time.monotonic() + 0.5
    while time.monotonic() < end:
        if hub.due():
            hub.publish(Layers(image=np.zeros((4, 4, 3), np.uint8)), {"t": 0.0})
            published += 1
        time.sleep(0.005)
    assert 4 <= published <= 8            # 10 a second (a frame 25 % early is let through)


def test_osc_bundle_timetags_follow_the_stream_not_the_stepping_wall_clock(stepping_wall_clock):
    import socket
    import struct

    from sensekit.events import Level
    from sensekit.osc.sender import OscSender

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as rx:
        rx.bind(("127.0.0.1", 0))
        rx.settimeout(2.0)
        sender = OscSender("127.0.0.1", rx.getsockname()[1], bundle=True)
        try:
            for k in range(5):
                sender(Level(t=WEEKS_S + k * 0.5, level=10.0))
            tags = []
            for _ in range(5):
                sec, frac = struct.unpack(">II", rx.recv(4096)[8:16])     # after "#bundle\0"
                tags.append(sec + frac / 2**32)
        finally:
            sender.close()
    assert [round(b - a, 6) for a, b in itertools.pairwise(tags)] == [0.5] * 4
