"""OSC bridge: address scheme, typed arguments, bundles, the control server, the CLI.

Everything goes over real UDP sockets on 127.0.0.1 with real python-osc servers
and clients; nothing is mocked. The end-to-end test and the commands' tests, which replay the
bundled recording through the real vision and audio stages, are in test_osc_commands.py; the
``collector`` fixture is tests/osc_collector.py's.
"""
from __future__ import annotations

import argparse
import dataclasses
import io
import logging
import re
import socket
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from pythonosc import osc_message_builder
from pythonosc.dispatcher import Dispatcher as OscDispatcher
from pythonosc.osc_server import BlockingOSCUDPServer
from pythonosc.udp_client import SimpleUDPClient

from sensekit.errors import ConfigError
from sensekit.events import (EVENT_TYPES, Activity, Clap, ClapPattern, ColorTracked, Dispatcher,
                             Motion, SourceLost)
from sensekit.cli.osc_args import add_osc_arguments, attach_osc
from sensekit.osc import (LEGACY_ADDRESSES, OscControl, OscSender, address_for, decode,
                          describe_addresses, encode, event_arguments, parse_target, setting_address,
                          signature)
from sensekit.settings import Tuning

REPO = Path(__file__).resolve().parents[1]


# --- helpers ----------------------------------------------------------------

def _leaves(v: tuple) -> list:
    """A tuple's scalars in order, nested tuples (hand landmarks) flattened."""
    return [y for x in v for y in (_leaves(x) if isinstance(x, tuple) else
                                   _leaves(_record(x)) if dataclasses.is_dataclass(x) else [x])]


def _record(x) -> tuple:
    """A nested record's (BlobInfo's) fields in order, as a tuple."""
    return tuple(getattr(x, f.name) for f in dataclasses.fields(x))


def expected_tags(event) -> str:
    """Type tags computed independently of sensekit.osc, from the event's values."""
    tags = "f"
    for f in dataclasses.fields(event)[1:]:
        v = getattr(event, f.name)
        if isinstance(v, (bool, int, np.integer)):
            tags += "i"
        elif isinstance(v, float):
            tags += "f"
        elif isinstance(v, str):
            tags += "s"
        elif isinstance(v, dict):
            tags += "sf" * len(v)
        elif isinstance(v, tuple):
            tags += "".join("i" if isinstance(x, int) else "f" for x in _leaves(v))
        elif v is None:
            tags += "N"
        else:
            raise AssertionError(f"unexpected field value {v!r}")
    return tags


# --- address scheme -----------------------------------------------------------

def test_addresses_follow_the_documented_rule():
    assert address_for("clap") == "/sensekit/clap"
    assert address_for("color_tracked") == "/sensekit/color/tracked"
    assert address_for("source_lost") == "/sensekit/source/lost"
    addresses = [address_for(n) for n in EVENT_TYPES]
    assert len(set(addresses)) == len(addresses)
    control = ("/sensekit/pause", "/sensekit/preset")
    assert not [a for a in addresses if a.startswith("/sensekit/set/") or a in control], \
        "an event address collides with a control address"
    for name in EVENT_TYPES:
        sig = signature(EVENT_TYPES[name])  # every declared event has an OSC mapping
        variable = [i for i, (_, tags, _) in enumerate(sig) if tags.endswith("*")]
        assert variable in ([], [len(sig) - 1]), \
            f"{name}: a variable-length field must be the last one (docs/OSC.md)"


@pytest.mark.parametrize("bad", ["", "Clap", "clap/x", "_x", "a__b", "x y"])
def test_bad_event_names_are_rejected(bad):
    with pytest.raises(ConfigError):
        address_for(bad)


def test_docs_table_matches_the_code():
    text = (REPO / "docs" / "OSC.md").read_text()
    m = re.search(r"<!-- BEGIN ADDRESSES -->\n(.*?)\n<!-- END ADDRESSES -->", text, re.S)
    assert m, "docs/OSC.md lost its address table markers"
    assert m.group(1).strip() == describe_addresses().strip(), \
        "docs/OSC.md is stale: regenerate the table with `python -m sensekit.osc`"


# --- encoding -----------------------------------------------------------------

def test_every_event_type_round_trips_with_documented_tags():
    for name, cls in EVENT_TYPES.items():
        event = cls(t=1.25)
        [r] = decode(encode(event))
        assert r.address == address_for(name)
        assert r.tags == expected_tags(event), name
        assert r.args[0] == pytest.approx(1.25)


def test_flattening_of_boxes_bools_zones_and_tuples():
    m = Motion(t=2.0, box=(10, 20, 30, 40), amount=0.25, zones={"right": 0.5, "left": 0.125})
    [r] = decode(encode(m))
    assert r.tags == "fiiiifsfsf"
    assert r.args == (2.0, 10, 20, 30, 40, 0.25, "right", 0.5, "left", 0.125)  # definition order

    [r] = decode(encode(Activity(t=0.5, activating=True, level=42.0)))
    assert (r.tags, r.args) == ("fif", (0.5, 1, 42.0))

    [r] = decode(encode(ClapPattern(t=3.0, count=3, times=(1.0, 1.5, 2.0))))
    assert (r.tags, r.args) == ("fifff", (3.0, 3, 1.0, 1.5, 2.0))

    c = ColorTracked(t=1.0, box=(np.int64(5), 6, 7, 8), union_box=(1, 2, 3, 4),
                     cx=np.float32(8.5), cy=10.0, nx=0.5, ny=0.25, area_px=np.int32(56),
                     confidence=0.75)
    [r] = decode(encode(c))
    assert r.tags == "fiiiiiiiiffffif"
    assert r.args == (1.0, 5, 6, 7, 8, 1, 2, 3, 4, 8.5, 10.0, 0.5, 0.25, 56, 0.75)
    assert event_arguments(Clap(t=1.0, strength=0.5)) == [("f", 1.0), ("f", 0.5)]


def test_huge_ints_are_clamped_to_int32_and_huge_floats_become_inf():
    [r] = decode(encode(Motion(t=0.0, box=(2 ** 40, -(2 ** 40), 0, 0), amount=1e300)))
    assert r.args[1:5] == (2 ** 31 - 1, -(2 ** 31), 0, 0)
    assert r.args[5] == float("inf")
    [r] = decode(encode(Clap(t=float("nan"), strength=-1e39)))
    assert r.args[0] != r.args[0] and r.args[1] == float("-inf")


def test_bundle_timetag_is_start_wall_plus_t(collector):
    sender = OscSender("127.0.0.1", collector.port, bundle=True, start_wall=1_700_000_000.0)
    sender(Clap(t=0.5, strength=1.0))
    sender(Clap(t=2.25, strength=0.5))
    got = collector.wait_for(2)
    sender.close()
    assert [r.timetag for r in got] == [pytest.approx(1_700_000_000.5, abs=1e-6),
                                        pytest.approx(1_700_000_002.25, abs=1e-6)]


def test_bundle_start_wall_defaults_to_first_event(collector):
    sender = OscSender("127.0.0.1", collector.port, bundle=True)
    before = time.time()
    sender(Clap(t=10.0, strength=1.0))
    sender(Clap(t=11.0, strength=1.0))
    got = collector.wait_for(2)
    sender.close()
    assert before - 0.01 <= got[0].timetag <= time.time() + 0.01
    assert got[1].timetag - got[0].timetag == pytest.approx(1.0, abs=1e-6)


# --- sender -------------------------------------------------------------------

def test_sender_reaches_a_python_osc_server():
    got: list[tuple] = []
    disp = OscDispatcher()
    disp.set_default_handler(lambda address, *args: got.append((address, args)))
    server = BlockingOSCUDPServer(("127.0.0.1", 0), disp)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        sender = OscSender("127.0.0.1", server.server_address[1])
        d = Dispatcher()
        d.on("*", sender)
        d.dispatch(Clap(t=1.0, strength=0.75))
        d.dispatch(SourceLost(t=2.0, source="camera:0", reason="stream ended"))
        deadline = time.monotonic() + 5
        while len(got) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(2)
    assert got == [("/sensekit/clap", (1.0, 0.75)),
                   ("/sensekit/source/lost", (2.0, "camera:0", "stream ended"))]
    assert sender.stats() == {"osc_sent": 2, "osc_errors": 0, "osc_refused": 0}


def test_sender_filters_by_event_name(collector):
    sender = OscSender("127.0.0.1", collector.port, events=["clap"])
    sender(Activity(t=0.0, activating=True, level=50.0))
    sender(Clap(t=0.1, strength=0.5))
    got = collector.wait_for(1)
    time.sleep(0.05)
    assert [r.address for r in collector.received] == ["/sensekit/clap"] == [r.address for r in got]
    with pytest.raises(ConfigError, match="nope"):
        OscSender("127.0.0.1", collector.port, events=["nope"])


def test_send_failures_are_counted_and_logged_never_raised(caplog):
    sender = OscSender("127.0.0.1", 9)
    sender._sock.close()  # the socket dies underneath (real OSError on send)
    with caplog.at_level(logging.WARNING, logger="sensekit.osc"):
        for i in range(3):
            sender(Clap(t=float(i), strength=0.5))
    assert sender.errors == 3 and sender.sent == 0
    assert len([r for r in caplog.records if "failed" in r.getMessage()]) == 1  # first only


@pytest.mark.parametrize("host,port", [("no-such-host.invalid", 9000), ("127.0.0.1", 0),
                                       ("127.0.0.1", 70000)])
def test_bad_targets_are_config_errors(host, port):
    with pytest.raises(ConfigError):
        OscSender(host, port)


@pytest.mark.parametrize("text,expected", [("127.0.0.1:9000", ("127.0.0.1", 9000)),
                                           ("localhost:1", ("localhost", 1)),
                                           ("[::1]:9000", ("::1", 9000))])
def test_parse_target(text, expected):
    assert parse_target(text) == expected


@pytest.mark.parametrize("text", ["9000", "host:", "host:abc", ":9000", "host:0", "host:65536"])
def test_parse_target_rejects(text):
    with pytest.raises(ConfigError):
        parse_target(text)
    assert parse_target("9001", default_host="127.0.0.1") == ("127.0.0.1", 9001)


# --- control ------------------------------------------------------------------

def _wait(predicate, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.005)


class _Knobs:
    """A real tunable object for the control tests: the activity detector and the audio stage."""

    def __init__(self) -> None:
        from sensekit.audio.activity import ActivityDetector
        from sensekit.audio.pipeline import AudioStage
        from sensekit.vision.color_tracker import ColorTracker
        from sensekit.vision.pipeline import VisionStage

        self.audio = AudioStage(activity=ActivityDetector(25, 500))
        self.vision = VisionStage(tracker=ColorTracker("#eb2d14"))
        self.tuning = Tuning(lambda: [self.audio, self.vision])

    def settle(self) -> dict:
        self.tuning.apply_now({})
        return self.tuning.settings()


def test_control_accepts_good_settings_in_order_and_ignores_bad_ones(caplog):
    knobs = _Knobs()
    paused: list[bool] = []
    with caplog.at_level(logging.WARNING, logger="sensekit.osc"), \
            OscControl("127.0.0.1", 0, tuning=knobs.tuning, pause=paused.append) as control:
        client = SimpleUDPClient("127.0.0.1", control.port)
        client.send_message("/sensekit/set/threshold", 30.0)          # the short address of before
        client.send_message("/sensekit/set/threshold", 300.0)         # out of range
        client.send_message("/sensekit/set/threshold", "loud")        # wrong type
        client.send_message("/sensekit/set/color", "#FF8800")
        client.send_message("/sensekit/set/color", "orange")          # not #RRGGBB
        client.send_message("/sensekit/set/tolerance", 12)            # int accepted
        client.send_message("/sensekit/set/tolerance", [1.0, 2.0])    # two arguments
        client.send_message("/sensekit/set/gain", float("nan"))       # not finite
        client.send_message("/sensekit/set/gain", 75.0)
        client.send_message("/sensekit/pause", 2)                     # not 0/1
        client.send_message("/sensekit/pause", 1)
        client.send_message("/sensekit/set/nothing", 1)               # unknown address
        client.send_message("/sensekit/set/activity/timeout_ms", 250)  # any setting, by key
        nil = osc_message_builder.OscMessageBuilder("/sensekit/set/activity/off_level")
        nil.add_arg(None, "N")
        client.send(nil.build())                                       # nil: none
        client.send_message("/sensekit/set/vision/mirror", True)       # T
        client.send_message("/sensekit/set/vision/levels", "none")     # "none" as a string
        client.send_message("/sensekit/set/pitch/fmin", 100.0)        # no pitch tracker here
        client.send_message("/sensekit/set/activity/silence_levl", 1.0)  # unknown key
        _wait(lambda: control.accepted + control.rejected + control.unused >= 18)
    values = knobs.settle()
    assert values["activity.silence_level"] == 30.0 and values["tracker.color"] == "#ff8800"
    assert values["tracker.hue_tolerance"] == 12.0 and values["audio.gain"] == 75.0
    assert values["activity.timeout_ms"] == 250.0 and values["activity.off_level"] is None
    assert values["vision.mirror"] is True and paused == [True]
    assert control.stats() == {"osc_accepted": 9, "osc_rejected": 8, "osc_unused": 1,
                               "osc_malformed": 0, "osc_oversized": 0, "osc_dropped": 0,
                               "osc_superseded": 0}
    warnings = " | ".join(r.getMessage() for r in caplog.records)
    for fragment in ["300.0", "'loud'", "'orange'", "/sensekit/set/nothing", "[2]", "silence_levl",
                     "no running stage uses pitch.fmin"]:
        assert fragment in warnings


def test_a_bad_value_changes_nothing_and_the_last_good_one_sticks():
    knobs = _Knobs()
    with OscControl("127.0.0.1", 0, tuning=knobs.tuning) as control:
        client = SimpleUDPClient("127.0.0.1", control.port)
        for g in range(10):
            client.send_message("/sensekit/set/audio/gain", float(g))
        client.send_message("/sensekit/set/activity/off_level", 99.0)   # above the silence level
        _wait(lambda: control.accepted + control.rejected >= 11)
    assert control.rejected == 1
    values = knobs.settle()
    assert values["audio.gain"] == 9.0 and values["activity.off_level"] is None


def test_every_setting_has_an_address_that_sets_it():
    """/sensekit/set/<section>/<name> for each declared setting, with its OSC type; and the old
    short addresses still work."""
    from sensekit.osc.control import value_from_args
    from sensekit.settings import load_table

    from .settings_values import other_value

    for group in load_table().values():
        for s in group.items:
            value = other_value(s)
            address = setting_address(s.key)
            assert address == f"/sensekit/set/{s.section}/{s.name}"
            arg = s.format(value) if s.kind in ("choice", "color", "zones", "words", "numbers") else value
            assert value_from_args(s.key, (arg,)) == s.check(value), s.key
    assert set(LEGACY_ADDRESSES.values()) == {"activity.silence_level", "tracker.color",
                                             "tracker.hue_tolerance", "audio.gain"}


def test_a_preset_over_osc():
    knobs = _Knobs()
    with OscControl("127.0.0.1", 0, tuning=knobs.tuning) as control:
        client = SimpleUDPClient("127.0.0.1", control.port)
        client.send_message("/sensekit/preset", "book")
        client.send_message("/sensekit/preset", "nope")
        _wait(lambda: control.accepted + control.rejected >= 2)
    values = knobs.settle()
    assert (values["activity.silence_level"], values["activity.timeout_ms"]) == (25.0, 500.0)
    assert values["tracker.method"] == "exact" and control.rejected == 1


def test_control_port_in_use_is_a_config_error():
    with OscControl("127.0.0.1", 0) as control, pytest.raises(ConfigError, match=str(control.port)):
        OscControl("127.0.0.1", control.port)


@pytest.mark.parametrize("door", ["control", "osc-listen"])
def test_a_failure_just_after_the_socket_binds_closes_it(door, monkeypatch):
    """``count_kernel_drops`` runs once the socket is bound (the control server) or made
    (osc-listen); if it raised, the bound socket stayed open and its port taken until the
    process ended: a program starting again got 'address in use'."""
    import sensekit.cli.osc_listen as osc_listen
    import sensekit.osc.control as control

    seen: list[socket.socket] = []

    def fails(sock: socket.socket) -> None:
        seen.append(sock)
        raise RuntimeError("setsockopt went wrong")

    monkeypatch.setattr(control if door == "control" else osc_listen, "count_kernel_drops", fails)
    with pytest.raises(RuntimeError, match="setsockopt went wrong"):
        if door == "control":
            OscControl("127.0.0.1", 0)
        else:
            osc_listen.listen(0, seconds=0.1, out=io.StringIO())
    assert len(seen) == 1 and seen[0].fileno() == -1


# --- CLI helpers --------------------------------------------------------------

def test_add_and_attach_osc(collector):
    parser = argparse.ArgumentParser()
    add_osc_arguments(parser)
    args = parser.parse_args(["--osc", f"127.0.0.1:{collector.port}", "--osc-bundle",
                              "--osc-control", "127.0.0.1:0"])
    d = Dispatcher()
    att = attach_osc(d, args)
    try:
        assert att.sender is not None and att.sender.bundle and att.control is not None
        d.dispatch(Clap(t=0.0, strength=0.5))
        [r] = collector.wait_for(1)
        assert r.address == "/sensekit/clap" and r.timetag is not None
        SimpleUDPClient("127.0.0.1", att.control.port).send_message("/sensekit/pause", 0)
        _wait(lambda: att.control.rejected >= 1)          # no pause handler given: refused
        assert att.stats()["osc_sent"] == 1
    finally:
        att.close()
    none = attach_osc(Dispatcher(), parser.parse_args([]))
    assert none.sender is None and none.control is None


def test_osc_listen_command_prints_messages(capsys):
    from sensekit.cli import main
    from sensekit.osc import free_udp_port

    port = free_udp_port()
    result: list[int] = []
    t = threading.Thread(target=lambda: result.append(
        main(["osc-listen", str(port), "--count", "2", "--seconds", "10"])))
    t.start()
    sender = OscSender("127.0.0.1", port)
    deadline = time.monotonic() + 10
    while t.is_alive() and time.monotonic() < deadline:  # resend until the listener is bound
        sender(Clap(t=1.0, strength=0.5))
        time.sleep(0.05)
    t.join(10)
    sender.close()
    assert result == [0]
    lines = [ln for ln in capsys.readouterr().out.splitlines() if not ln.startswith("pygame")]
    assert lines[-2:] == ["/sensekit/clap ,ff 1.0 0.5"] * 2


def test_osc_listen_jsonl_and_timetags():
    from sensekit.cli.osc_listen import listen

    out = io.StringIO()
    ports: list[int] = []
    ready = threading.Event()
    t = threading.Thread(target=lambda: listen(0, count=1, seconds=10, jsonl=True, out=out,
                                               ready=lambda p: (ports.append(p), ready.set())))
    t.start()
    assert ready.wait(5)
    sender = OscSender("127.0.0.1", ports[0], bundle=True, start_wall=1000.0)
    sender(SourceLost(t=1.5, source="mic", reason="xrun"))
    t.join(10)
    sender.close()
    assert out.getvalue().strip() == ('{"address": "/sensekit/source/lost", "tags": "fss", '
                                      '"args": [1.5, "mic", "xrun"], "timetag": 1001.5}')


# --- property: any field values round-trip ------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
import typing  # noqa: E402

_F32 = st.floats(width=32, allow_nan=False)


def _strategy(tp):
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is bool:
        return st.booleans()
    if tp is int:
        return st.integers(-(2 ** 31), 2 ** 31 - 1)
    if tp is float:
        return _F32
    if tp is str:
        return st.text(max_size=20)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return st.lists(_strategy(args[0]), max_size=5).map(tuple)
    if origin is tuple:
        return st.tuples(*(_strategy(a) for a in args))
    if origin is dict:
        return st.dictionaries(st.text(max_size=8), _F32, max_size=4)
    if dataclasses.is_dataclass(tp):                     # a nested record (BlobInfo)
        hints = typing.get_type_hints(tp)
        return st.builds(tp, **{f.name: _strategy(hints[f.name]) for f in dataclasses.fields(tp)})
    raise AssertionError(f"no strategy for {tp!r}")


@st.composite
def any_event(draw):
    cls = draw(st.sampled_from(sorted(EVENT_TYPES.values(), key=lambda c: c.name)))
    hints = typing.get_type_hints(cls)
    return cls(**{f.name: draw(_strategy(hints[f.name])) for f in dataclasses.fields(cls)})


def _flatten(event) -> list:
    out = []
    for f in dataclasses.fields(event):
        v = getattr(event, f.name)
        if isinstance(v, dict):
            for k, x in v.items():
                out += [k.replace("\x00", ""), x]
        elif isinstance(v, tuple):
            out += _leaves(v)
        elif isinstance(v, str):
            out.append(v.replace("\x00", ""))
        else:
            out.append(int(v) if isinstance(v, bool) else v)
    return out


@settings(max_examples=300, deadline=None)
@given(any_event(), st.booleans())
def test_any_event_round_trips(event, bundle):
    r, *per_blob = decode(encode(event, timetag=1.0e9 if bundle else None))
    assert r.address == address_for(event.name)
    assert r.tags == expected_tags(event)
    assert list(r.args) == _flatten(event)      # float32 values are exact here
    blobs = getattr(event, "blobs", ()) if event.name == "blobs" else ()
    assert [m.address for m in per_blob] == [f"/sensekit/blob/{b.id}" for b in blobs]
    assert [list(m.args) for m in per_blob] == [[event.t, *_leaves(_record(b))] for b in blobs]


def test_docs_say_how_every_kind_of_setting_is_sent():
    """docs/OSC.md's table of setting kinds covers every kind the table declares."""
    from sensekit.settings import load_table

    text = (REPO / "docs" / "OSC.md").read_text()
    section = text[text.index("## Settings in"):]
    kinds = {s.kind for g in load_table().values() for s in g.items}
    words = {"float": "`float`", "int": "`int`", "bool": "`bool`", "choice": "choice", "color": "colour",
             "zones": "zones", "words": "words (`voice.words`)", "numbers": "numbers (`clap.venue_model`)"}
    for kind in kinds:
        assert words[kind] in section, f"docs/OSC.md does not say how a {kind} setting is sent"
    assert "/sensekit/set/<section>/<name>" in section and "/sensekit/preset" in section


def test_a_handler_that_raises_is_one_log_line_and_the_next_setting_applies(capfd, caplog):
    """Anything but a ``ConfigError`` from acting on a message (the pause above, or any bug) went
    to socketserver's ``handle_error``: a 20-line traceback on stderr for every such datagram, as
    often as a sender liked. Now one rate-limited log line each, and the door goes on."""
    knobs = _Knobs()

    def broken_pause(on: bool) -> None:
        raise RuntimeError("the pause handler failed")

    with caplog.at_level(logging.WARNING, logger="sensekit.osc"), \
            OscControl("127.0.0.1", 0, tuning=knobs.tuning, pause=broken_pause) as control:
        client = SimpleUDPClient("127.0.0.1", control.port)
        for _ in range(3):
            client.send_message("/sensekit/pause", 1)
        client.send_message("/sensekit/set/gain", 64.0)
        _wait(lambda: control.accepted >= 1)
    assert knobs.settle()["audio.gain"] == 64.0
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Exception occurred" not in err, err
    lines = [r.getMessage() for r in caplog.records if "could not be handled" in r.getMessage()]
    assert len(lines) == 3 and all("RuntimeError: the pause handler failed" in m for m in lines), lines
