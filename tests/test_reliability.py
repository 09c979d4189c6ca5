"""Reliability under faults: a camera that vanishes and returns, a microphone stream that
dies, a producer faster than its consumer.

Real substitutes only: the camera is a local MJPEG server (``tests/capture/mjpeg_server.py``)
that is stopped mid-run and started again on the same port; the microphone is a real
sounddevice stream (ALSA file-microphone helper when available) whose PortAudio stream
is aborted underneath the source. Nothing is mocked.

The SIGKILLed recorder is covered by
``tests/capture/test_recording.py::test_sigkill_leaves_a_replayable_recording`` (readable
up to the last flushed second) and is not repeated here; corrupt recordings are covered by
``tests/test_recording_fuzz.py``. The soak (``benchmarks/soak.py``) has a short check here
and a 10,000-frame version marked ``slow``.
"""
from __future__ import annotations

import itertools
import re
import sys
import threading
import time
from typing import Callable

import pytest

from sensekit.capture.camera import CameraSource
from sensekit.events import Dispatcher, Event
from sensekit.runner import RecordStage, Runner
from tests.capture.mjpeg_server import MjpegServer


def wait_until(predicate: Callable[[], bool], timeout: float, step: Callable[[], None]) -> bool:
    """Call ``step`` until ``predicate`` holds or ``timeout`` seconds passed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        step()
        if predicate():
            return True
    return predicate()


class Log:
    """Every dispatched event with the wall time it arrived."""

    def __init__(self, dispatcher: Dispatcher) -> None:
        self.events: list[tuple[float, Event]] = []
        dispatcher.on("*", lambda e: self.events.append((time.monotonic(), e)))

    def names(self) -> list[str]:
        return [e.name for _, e in self.events]

    def count(self, name: str) -> int:
        return sum(1 for _, e in self.events if e.name == name)

    def first(self, name: str) -> tuple[float, Event] | None:
        return next(((w, e) for w, e in self.events if e.name == name), None)


# --- camera lost ----------------------------------------------------------------------

@pytest.fixture
def mjpeg():
    server = MjpegServer(size=(96, 72), fps=30).start()
    yield server
    server.stop()


def _camera(url: str) -> CameraSource:
    return CameraSource(url, backoff_initial_s=0.1, backoff_max_s=0.4,
                        open_timeout_ms=2000, read_timeout_ms=1000)


def test_camera_lost_reconnects_and_resumes_under_a_pumping_loop(mjpeg):
    """The app-style loop (``Runner.pump`` every step) keeps running while the camera is
    gone, sees ``source_lost`` while it is gone, and frames resume after it returns."""
    d = Dispatcher()
    log = Log(d)
    cam = _camera(mjpeg.url)
    cam.open()
    try:
        runner = Runner(cam, [RecordStage()], d)
        steps = [0]

        def step() -> None:            # one app step: pump whatever arrived, "draw", sleep
            runner.pump()
            steps[0] += 1
            time.sleep(0.01)

        assert wait_until(lambda: log.count("frame") >= 10, 10, step), "no frames at start"
        mjpeg.stop()
        stopped_at = time.monotonic()
        assert wait_until(lambda: log.count("source_lost") == 1, 10, step), \
            f"no source_lost within 10 s of the server stopping; events: {set(log.names())}"
        lost_at, lost = log.first("source_lost")
        assert lost.source == cam.description and lost.reason
        frames_when_lost = log.count("frame")
        steps_when_lost = steps[0]
        wait_until(lambda: False, 1.0, step)   # the server stays down for a second
        assert steps[0] > steps_when_lost + 20, "the loop stalled while the camera was lost"
        assert log.count("frame") == frames_when_lost, "frames while the server was down?"
        assert not runner.ended

        mjpeg.start()                          # same port: the camera comes back
        restarted_at = time.monotonic()
        assert wait_until(lambda: log.count("source_restored") == 1, 15, step), \
            f"not restored within 15 s; camera stats {cam.stats()}"
        assert wait_until(lambda: log.count("frame") >= frames_when_lost + 10, 10, step), \
            "frames did not resume after the restore"
        restored_at, restored = log.first("source_restored")
        assert restored.source == cam.description
        assert stopped_at <= lost_at < restarted_at <= restored_at
        # backoff is capped at 0.4 s: the return is noticed quickly (plus connect time)
        assert restored_at - restarted_at < 5.0
        names = log.names()
        assert names.index("source_lost") < names.index("source_restored")
        stats = cam.stats()
        assert stats["losses"] == 1 and stats["reconnects"] >= 1 and not stats["lost"]
        assert runner.stats.event_counts["source_lost"] == 1
    finally:
        cam.close()


def test_app_shows_camera_lost_keeps_drawing_and_resumes(mjpeg):
    """A real mini-app (motion_paddle, headless) on the MJPEG camera: when the server stops
    the host shows the "lost" banner and keeps stepping and drawing; when it returns the
    banner goes, frames flow into the app again, and no exception escapes."""
    from sensekit.app.host import AppHost, RunOptions
    from sensekit.app.registry import load

    app_cls = load("motion_paddle")
    cam = _camera(mjpeg.url)
    cam.open()
    host = AppHost(app_cls, cam, RunOptions(headless=True, hud=True))
    log = Log(host.dispatcher)
    try:
        def step() -> None:
            host.step()                       # input, pump, update, draw: one app frame
            time.sleep(0.005)

        assert wait_until(lambda: host.runner.stats.frames >= 10, 10, step)
        mjpeg.stop()
        assert wait_until(lambda: host.lost is not None, 10, step), "no lost banner"
        assert "lost" in host.lost and cam.description in host.lost
        drawn, frames = host.frame_no, host.runner.stats.frames
        wait_until(lambda: False, 0.7, step)
        assert host.frame_no > drawn + 20, "the app stopped drawing while the camera was lost"
        assert host.runner.stats.frames == frames
        mjpeg.start()
        assert wait_until(lambda: host.lost is None, 15, step), f"banner stayed: {host.lost}"
        assert wait_until(lambda: host.runner.stats.frames >= frames + 10, 10, step)
        assert log.names().count("source_lost") == 1 == log.names().count("source_restored")
    finally:
        host.close()
        cam.close()


def test_runner_run_reports_camera_lost_while_it_lasts(mjpeg):
    """``Runner.run()`` (what ``sensekit events`` uses) dispatches ``source_lost`` while the
    camera is gone, not only after it returns. (Found here: ``run()`` used to block in
    ``Source.__iter__``'s ``read()`` without a timeout; fixed by polling in runner.py.)"""
    d = Dispatcher()
    log = Log(d)
    cam = _camera(mjpeg.url)
    cam.open()
    runner = Runner(cam, [RecordStage()], d)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            runner.run()
        except BaseException as exc:  # noqa: BLE001 - any escape fails the test below
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        assert wait_until(lambda: log.count("frame") >= 5, 10, lambda: time.sleep(0.01))
        mjpeg.stop()
        seen = wait_until(lambda: log.count("source_lost") >= 1, 3, lambda: time.sleep(0.02))
        mjpeg.start()
        wait_until(lambda: log.count("source_restored") >= 1, 15, lambda: time.sleep(0.02))
        assert not errors
        assert seen, "source_lost was not dispatched while the camera was gone"
    finally:
        cam.close()
        thread.join(5)


# --- microphone stream errors -----------------------------------------------------------

def test_microphone_stream_dies_pipeline_keeps_running(tmp_path):
    """A real PortAudio stream (ALSA file microphone) aborted underneath the source while a
    pumping loop runs the pipeline: ``source_lost`` reaches the dispatcher while the device
    is gone, the loop keeps stepping, and blocks flow again after it returns.

    (Source-level behaviour is in ``tests/capture/test_microphone.py``; this is the
    same fault seen from the runner and its handlers.)"""
    import json

    from tests.capture.alsa_filemic import FileMic, known_samples, unavailable_reason

    reason = unavailable_reason()
    if reason is not None:
        pytest.skip(f"ALSA file microphone: {reason}")
    mic = FileMic(tmp_path, known_samples(48000), 48000)
    result = mic.run("""
        import json, os, time
        from sensekit.capture.microphone import MicrophoneSource
        from sensekit.events import Dispatcher
        from sensekit.runner import RecordStage, Runner

        seen = []
        d = Dispatcher()
        d.on("*", lambda e: seen.append(e.name))
        src = MicrophoneSource(sample_rate=48000, backoff_initial_s=0.05, backoff_max_s=0.2)
        src.open()
        runner = Runner(src, [RecordStage()], d)
        steps = 0
        errors = []

        def pump_for(seconds, until=None):
            global steps
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                try:
                    runner.pump(max_items=50)
                except BaseException as exc:
                    errors.append(repr(exc))
                    return
                steps += 1
                if until is not None and until():
                    return
                time.sleep(0.005)

        pump_for(5, lambda: seen.count("audio_block") >= 20)
        blocks_before = seen.count("audio_block")
        os.rename("clip.raw", "gone.raw")          # the device goes away ...
        src._stream.abort()                        # ... and its stream dies underneath us
        pump_for(5, lambda: "source_lost" in seen)
        lost_seen = "source_lost" in seen
        pump_for(0.3)                              # drain what was queued before the death
        blocks_while_lost = seen.count("audio_block")
        steps_before = steps
        pump_for(0.7)                              # gone for a while: reopening keeps failing
        gone_steps = steps - steps_before
        gone_blocks = seen.count("audio_block") - blocks_while_lost
        os.rename("gone.raw", "clip.raw")          # ... and comes back
        pump_for(10, lambda: "source_restored" in seen)
        restored_index = len(seen)
        pump_for(5, lambda: seen[restored_index:].count("audio_block") >= 20)
        src.close()
        print(json.dumps({"blocks_before": blocks_before, "lost_seen": lost_seen,
                          "gone_steps": gone_steps, "gone_blocks": gone_blocks,
                          "order": [n for n in seen if n.startswith("source_")],
                          "after": seen[restored_index:].count("audio_block"),
                          "errors": errors, "stats": src.stats()}))
    """, timeout=60)
    assert result.returncode == 0, f"snippet failed:\n{result.stdout}\n{result.stderr[-3000:]}"
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["errors"] == [], "an exception escaped the pipeline"
    assert out["blocks_before"] >= 20
    assert out["lost_seen"], "source_lost was not dispatched while the device was gone"
    assert out["gone_steps"] > 20, "the loop stalled while the microphone was gone"
    assert out["gone_blocks"] == 0
    assert out["order"] == ["source_lost", "source_restored"]
    assert out["after"] >= 20 and out["stats"]["lost"] is False


# --- producer faster than consumer ------------------------------------------------------
# This module is also a stage provider for `sensekit events` (add_arguments/build_stages,
# the documented STAGE_PROVIDERS contract), so the real command can be given a slow consumer.

class SlowStage:
    """A stage that takes ``delay_s`` per frame: a consumer slower than the camera."""

    consumes = "video"
    emits = frozenset({"frame"})
    always_run = True

    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s

    def process(self, item):
        time.sleep(self.delay_s)
        return []


def add_arguments(parser) -> None:
    parser.add_argument("--test-slow-ms", type=float, default=0.0)


def build_stages(args, source) -> list:
    ms = getattr(args, "test_slow_ms", 0.0)
    return [SlowStage(ms / 1000.0)] if ms else []


def test_slow_consumer_drops_oldest_frames_and_events_stats_shows_them(capsys, monkeypatch):
    """Camera at 60 fps, consumer at ~20 fps: the camera keeps only the newest frame, the
    rest are dropped and counted, and `sensekit events --stats` prints the count.
    (The microphone's bounded queue: tests/capture/test_microphone.py::
    test_slow_consumer_drops_oldest_blocks_and_counts_them.)"""
    import json

    from sensekit.cli import events as events_cli
    from sensekit.cli import main

    monkeypatch.setattr(events_cli, "STAGE_PROVIDERS",
                        [*events_cli.STAGE_PROVIDERS, "tests.test_reliability"])
    with MjpegServer(size=(96, 72), fps=60) as server:
        code = main(["events", f"camera:{server.url}", "--records", "--jsonl",
                     "--test-slow-ms", "50", "--max-items", "30", "--stats"])
    assert code == 0
    captured = capsys.readouterr()
    frames = [json.loads(line) for line in captured.out.splitlines() if line.startswith("{")]
    frames = [f for f in frames if f["event"] == "frame"]
    assert len(frames) == 30
    indices = [f["index"] for f in frames]
    assert indices == sorted(indices) and len(set(indices)) == 30
    gaps = sum(b - a - 1 for a, b in itertools.pairwise(indices))
    # 30 reads 50 ms apart span >= 1.45 s, in which a 60 fps server sends ~90 frames; allow
    # for a loaded machine, but a consumer this slow must have skipped many frames
    assert gaps >= 15, f"a 3x slower consumer should skip most frames; indices {indices}"
    m = re.search(r"dropped frames (\d+)", captured.err)
    assert m, f"--stats does not show drops: {captured.err!r}"
    assert int(m.group(1)) >= gaps       # every skipped index was counted as a drop


# --- soak -------------------------------------------------------------------------------

def _soak_module():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "soak.py"
    spec = importlib.util.spec_from_file_location("sensekit_soak", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module          # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


def _run_soak(frames: int, recordings_dir, **kw):
    soak = _soak_module()
    demo = recordings_dir / "demo.skrec"
    if not demo.is_dir():
        pytest.skip("recordings/demo.skrec not generated (python -m sensekit.synth)")
    lines: list[str] = []
    res = soak.soak(frames, recording=demo, out=lines.append, **kw)
    soak.report(res, out=lines.append)
    return res, lines


def test_short_soak_loses_nothing(recordings_dir):
    """The soak machinery itself (a pass and a half of the demo, with OSC): ten RSS marks,
    every event received, every OSC message arrived, identical passes."""
    res, lines = _run_soak(450, recordings_dir, osc=True)
    assert res.frames >= 450 and len(res.rss_marks) == 10
    assert res.events_counted == res.events_received > 0
    assert res.osc_sent == res.osc_received == res.events_received
    assert res.lost == 0 and res.dropped_frames == 0
    assert sum(1 for ln in lines if "% " in ln and "rss" in ln) == 10


@pytest.mark.slow
def test_soak_10000_frames(recordings_dir):
    """33 passes of the demo through the full pipeline and an app: RSS within 5% of the
    10% mark, zero events lost, every full pass after the first identical."""
    res, lines = _run_soak(10_000, recordings_dir)
    print("\n".join(lines))
    assert res.lost == 0, lines
    assert abs(res.rss_growth) <= 0.05, lines
    full = res.pass_events[1:-1]
    assert len(full) >= 30 and len(set(full)) == 1, res.pass_events


@pytest.mark.slow
def test_hostile_soak_loses_nothing_and_serves_no_5xx(recordings_dir):
    """``soak.py --hostile`` for 20 s: OSC flood, panel churn and junk from another process;
    every event reaches the events file, no request gets a 5xx, junk is counted."""
    soak = _soak_module()
    demo = recordings_dir / "demo.skrec"
    if not (demo / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")
    lines: list[str] = []
    res = soak.soak(10 ** 9, recording=demo, hostile=True, seconds=20.0, out=lines.append)
    soak.report(res, out=lines.append)
    assert res.lost == 0 and res.server_errors == 0, "\n".join(lines)
    assert res.event_file_lines == res.events_received > 0
    assert res.osc_stats["osc_malformed"] > 0 and res.osc_stats["osc_accepted"] > 0
    assert res.attacks.get("http_400", 0) > 0 and res.attacks.get("video_frames", 0) > 0
