"""OSC from the commands: a replayed recording through the real stages over UDP, ``sensekit events`` and
``sensekit run`` sending what they print, settings and the pause over ``--osc-control`` (split from
test_osc.py, whose helpers these use).

Everything goes over real UDP sockets on 127.0.0.1 with real python-osc servers and clients; nothing is mocked.
"""
from __future__ import annotations

import argparse
import dataclasses
import re
import socket
import threading
import time
from pathlib import Path

import pytest
from pythonosc.dispatcher import Dispatcher as OscDispatcher
from pythonosc.osc_server import BlockingOSCUDPServer
from pythonosc.udp_client import SimpleUDPClient

from sensekit.cli.osc_args import add_osc_arguments, attach_osc
from sensekit.osc import OscSender, address_for, decode
from sensekit.settings import Tuning
from tests.test_osc import _wait, expected_tags


# --- end to end: a replayed recording over UDP ----------------------------------------

def _demo_stages(source, argv: list[str]) -> list:
    """Stages built the way `sensekit events` builds them (the STAGE_PROVIDERS contract)."""
    from sensekit.cli import audio_options, events, vision_options

    parser = argparse.ArgumentParser()
    vision_options.add_arguments(parser)
    audio_options.add_arguments(parser)
    args = parser.parse_args(argv)
    stages, _ = events.build(args, source, providers=[vision_options, audio_options])
    return stages


def _assert_flat_arguments(event, args) -> None:
    """Every argument in declared order, with the flattening rules (dicts as key, value
    pairs, tuples spread, bools as ints; floats as float32)."""
    expected = [event.t]
    for f in dataclasses.fields(event)[1:]:
        v = getattr(event, f.name)
        if isinstance(v, dict):
            for k, x in v.items():
                expected += [k, x]
        elif isinstance(v, tuple):
            expected += list(v)
        else:
            expected.append(int(v) if isinstance(v, bool) else v)
    assert len(args) == len(expected)
    for got, want in zip(args, expected):
        if isinstance(want, float):
            assert got == pytest.approx(want, rel=1e-6, abs=1e-4)
        else:
            assert got == want


@pytest.mark.parametrize("bundle", [False, True])
def test_replayed_recording_arrives_in_order_with_types(recordings_dir: Path, bundle: bool):
    from sensekit.capture.spec import open_source
    from sensekit.runner import Runner

    demo = recordings_dir / "demo.skrec"
    if not demo.is_dir():
        pytest.skip("recordings/demo.skrec not generated (python -m sensekit.synth)")
    received: list[tuple[str, str, tuple, float | None]] = []
    parsed: list[tuple[str, tuple]] = []              # what python-osc's dispatcher delivered
    disp = OscDispatcher(strict_timing=False)          # do not sleep until future timetags
    disp.set_default_handler(lambda address, *args: parsed.append((address, args)))
    server = BlockingOSCUDPServer(("127.0.0.1", 0), disp)
    server.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)

    # a real python-osc server; its datagrams are decoded again with type tags
    class Handler(server.RequestHandlerClass):  # type: ignore[misc, valid-type]
        def handle(self) -> None:
            received.extend((r.address, r.tags, r.args, r.timetag)
                            for r in decode(self.request[0]))
            super().handle()

    server.RequestHandlerClass = Handler
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    dispatched: list = []
    try:
        source = open_source(f"replay:{demo}")
        with source:
            stages = _demo_stages(source, ["--track-color", "#eb2d14", "--motion",
                                           "--activity", "25,500", "--clap"])
            runner = Runner(source, stages)
            sender = OscSender("127.0.0.1", server.server_address[1], bundle=bundle,
                               start_wall=1_800_000_000.0)
            runner.dispatcher.on("*", dispatched.append)

            def send(event) -> None:
                sender(event)
                deadline = time.monotonic() + 2
                while sender.sent - len(received) > 200 and time.monotonic() < deadline:
                    time.sleep(0.0005)            # UDP: never outrun the receiver

            runner.dispatcher.on("*", send)
            runner.run(max_items=1400)           # ~14 s of the demo: colour, motion, claps
            deadline = time.monotonic() + 10
            while len(received) < len(dispatched) and time.monotonic() < deadline:
                time.sleep(0.01)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(2)

    assert sender.errors == 0 and sender.sent == len(dispatched)
    assert len(received) == len(dispatched), "messages lost on 127.0.0.1"
    assert [(a, tuple(x)) for a, _, x, _ in received] == [(a, tuple(x)) for a, x in parsed]
    names = {e.name for e in dispatched}
    for wanted in ("clap", "activity", "color_tracked", "motion"):
        assert wanted in names, f"the demo should produce {wanted} events; got {sorted(names)}"
    for event, (address, tags, args, timetag) in zip(dispatched, received):
        assert address == address_for(event.name)
        assert tags == expected_tags(event), (event, tags)
        assert args[0] == pytest.approx(event.t, abs=1e-3)       # t first, float32
        if bundle:
            assert timetag == pytest.approx(1_800_000_000.0 + event.t, abs=1e-3)
        else:
            assert timetag is None
        _assert_flat_arguments(event, args)
    # in time order, except that a clap is stamped with its onset and decided once the clap
    # detector's look-ahead has arrived, so it may follow later-stamped events by that much
    from sensekit.audio.clap import ClapDetector

    late_s = ClapDetector().latency_ms / 1000.0 + 0.05
    latest = float("-inf")
    for e in dispatched:
        slack = late_s if e.name in ("clap", "clap_pattern") else 0.0
        assert e.t >= latest - slack, ("a replay's events are dispatched in time order", e)
        latest = max(latest, e.t)
    claps = [args for address, _, args, _ in received if address == "/sensekit/clap"]
    assert claps and all(0.0 <= a[1] <= 1.0 for a in claps)


# --- the commands -------------------------------------------------------------------

def _demo(recordings_dir: Path) -> Path:
    demo = recordings_dir / "demo.skrec"
    if not demo.is_dir():
        pytest.skip("recordings/demo.skrec not generated (python -m sensekit.synth)")
    return demo


def test_events_command_sends_what_it_prints(recordings_dir: Path, collector, capsys):
    import json

    from sensekit.cli import main

    demo = _demo(recordings_dir)
    code = main(["events", str(demo), "--clap", "--activity", "25,500", "--jsonl",
                 "--max-items", "700", "--osc", f"127.0.0.1:{collector.port}"])
    assert code == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()
               if line.startswith("{")]
    got = collector.wait_for(len(printed))
    assert printed and len(got) == len(printed)
    assert [r.address for r in got] == [address_for(d["event"]) for d in printed]
    assert [r.args[0] for r in got] == pytest.approx([d["t"] for d in printed], abs=1e-3)
    assert {"/sensekit/clap", "/sensekit/activity"} <= {r.address for r in got}


def test_run_command_sends_app_events(recordings_dir: Path, collector, capsys):
    from sensekit.cli import main

    demo = _demo(recordings_dir)
    code = main(["run", "clapper", "--headless", "--frames", "60", "--source", str(demo),
                 "--osc", f"127.0.0.1:{collector.port}", "--osc-bundle"])
    assert code == 0
    got = collector.wait_for(10)
    assert got and all(r.address.startswith("/sensekit/") and r.timetag for r in got)


def test_control_settings_reach_real_stages(recordings_dir: Path):
    """/sensekit/set/... over UDP changes the real vision and audio stages between items;
    bad values change nothing."""
    from sensekit.capture.spec import open_source
    from sensekit.runner import Runner

    demo = _demo(recordings_dir)
    source = open_source(f"replay:{demo}")
    paused: list[bool] = []
    with source:
        stages = _demo_stages(source, ["--track-color", "#eb2d14", "--activity", "25,500",
                                       "--clap"])
        runner = Runner(source, stages)
        runner.dispatcher.on("*", lambda e: None)          # someone listens: the stages run
        parser = argparse.ArgumentParser()
        add_osc_arguments(parser)
        att = attach_osc(runner.dispatcher, parser.parse_args(["--osc-control", "0"]),
                         tuning=Tuning(lambda: runner.stages), pause=paused.append)
        try:
            vision = next(s for s in stages if getattr(s, "tracker", None) is not None)
            audio = next(s for s in stages if getattr(s, "activity", None) is not None)
            runner.run(max_items=20)
            client = SimpleUDPClient("127.0.0.1", att.control.port)
            for address, value in [("/sensekit/set/threshold", 40.0),
                                   ("/sensekit/set/threshold", -3.0),       # rejected
                                   ("/sensekit/set/color", "#00FF00"),
                                   ("/sensekit/set/tolerance", 30.0),
                                   ("/sensekit/set/gain", 70.0),
                                   ("/sensekit/set/gain", "loud"),           # rejected
                                   ("/sensekit/set/motion/threshold", 9),      # no motion here
                                   ("/sensekit/pause", 1)]:
                client.send_message(address, value)
            _wait(lambda: att.control.accepted + att.control.rejected + att.control.unused >= 8)
            assert paused == [True]                  # pause is applied at once
            assert audio.activity.silence_level == 25.0   # others wait for the loop
            runner.run(max_items=5)
        finally:
            att.close()
    assert audio.activity.silence_level == 40.0
    assert vision.tracker.color_in_use == 0x00FF00
    assert vision.tracker.tolerance[0] == 30.0
    assert audio.meter.gain == 70.0
    assert att.control.rejected == 2 and att.control.unused == 1


def test_events_with_profile(recordings_dir: Path, tmp_path: Path, capsys):
    import json

    from sensekit.cli import main

    demo = _demo(recordings_dir)
    venue = tmp_path / "venue.toml"
    venue.write_text('[color]\ntarget = "#eb2d14"\n\n[motion]\nthreshold = 40\n\n'
                     '[motion.zones]\ndoor = [0.0, 0.0, 0.25, 1.0]\n')
    assert main(["events", str(demo), "--motion", "--jsonl", "--max-items", "120",
                 "--profile", str(venue)]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()
              if line.startswith("{")]
    names = {e["event"] for e in events}
    assert "color_tracked" in names                          # the profile's colour
    motion = [e for e in events if e["event"] == "motion"]
    assert motion and all("door" in e["zones"] for e in motion)   # the profile's zone
    venue.write_text("[color]\ntarget = '#eb2d14'\ntolerance = 500\n")
    assert main(["events", str(demo), "--max-items", "5", "--profile", str(venue)]) == 2
    assert f"{venue}:3: `tracker.hue_tolerance` must be a number 0..180 deg, got 500 (written as " \
           "`color.tolerance`)" in capsys.readouterr().err


def test_osc_pause_pauses_an_app_run(recordings_dir: Path, capsys):
    """`sensekit run APP --osc-control PORT`, then `/sensekit/pause 1`: since the app host was split
    up (issue 22) its `paused` had no setter, so the pause raised AttributeError on the OSC thread
    (a traceback on stderr) and the app never paused: all 60 steps simulated. Now the simulation
    stops where the pause lands (the steps go on drawing, as with the key)."""
    from sensekit.cli import main
    from sensekit.osc import free_udp_port

    demo = _demo(recordings_dir)
    port = free_udp_port()
    done: list[int] = []
    run = threading.Thread(target=lambda: done.append(main(
        ["run", "clapper", "--source", str(demo), "--headless", "--realtime", "--frames", "60",
         "--osc-control", str(port)])), daemon=True)
    run.start()
    client = SimpleUDPClient("127.0.0.1", port)
    while run.is_alive():                     # until it lands, however loaded the machine is
        client.send_message("/sensekit/pause", 1)
        run.join(0.02)
    captured = capsys.readouterr()
    assert done == [0] and "Traceback" not in captured.err and "AttributeError" not in captured.err, captured.err
    simulated = float(re.search(r"clapper: 60 frames, ([\d.]+) s simulated", captured.out).group(1))
    assert simulated < 60 / 30, captured.out
