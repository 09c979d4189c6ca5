"""The strict OSC reader (``sensekit.osc.wire``) and the servers that use it: a hostile datagram
is counted and dropped, later messages still work, and every server ends within a second."""
from __future__ import annotations

import io
import logging
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from pythonosc.osc_bundle_builder import OscBundleBuilder
from pythonosc.osc_message_builder import OscMessageBuilder

from sensekit.osc import OscControl, decode, free_udp_port
from sensekit.osc.wire import MAX_ARRAY_DEPTH, MAX_DEPTH, read_packet
from tests.hang_guard import returns

#: issue 21: a bundle element of size -4 sent python-osc's bundle parser into an endless loop
NEGATIVE_ELEMENT = b"#bundle\0" + struct.pack(">Qi", 1, -4) + b"/a\0\0,\0\0\0"


def _msg(address: str, *args: tuple[object, str]) -> bytes:
    b = OscMessageBuilder(address=address)
    for value, tag in args:
        b.add_arg(value, tag)
    return b.build().dgram


def _bundle(*contents: bytes, timetag: float = 1000.0) -> bytes:
    body = b"".join(struct.pack(">i", len(c)) + c for c in contents)
    return b"#bundle\0" + struct.pack(">Q", int((timetag + 2208988800) * 2 ** 32)) + body


def test_the_negative_element_bundle_is_refused_at_once():
    assert len(NEGATIVE_ELEMENT) == 28
    with pytest.raises(ValueError, match="bundle element at byte 16 has size -4"):
        returns(decode, NEGATIVE_ELEMENT, what="decoding the negative-element bundle")


@pytest.mark.parametrize("dgram, message", [
    (b"", "whole number of 4-byte words"),
    (b"/ab", "whole number of 4-byte words"),
    (b"/abc", "no terminating NUL"),
    (b"abc\0", "does not start with '/'"),
    (b"/a\0x", "non-zero padding"),
    (b"/a\0\0i\0\0\0", "do not start with ','"),
    (b"/a\0\0,i\0\0", "runs past the end"),
    (b"/a\0\0,b\0\0" + struct.pack(">i", -1), "blob at byte 8 has size -1"),
    (b"/a\0\0,b\0\0" + struct.pack(">i", 2 ** 31 - 1), "blob at byte 8 has size 2147483647"),
    (b"/a\0\0,x\0\0", "unknown type tag 'x'"),
    (b"/a\0\0,]\0\0", "']' without '['"),
    (b"/a\0\0,[\0\0", "'[' without ']'"),
    (b"/a\0\0,i\0\0" + b"\0" * 8, "4 bytes left after the arguments"),
    (b"/\xff\0\0", "not UTF-8"),
    (b"/a\nb\0\0\0\0", "holds control characters"),
    (b"#bundle\0" + b"\0" * 4, "shorter than its 16-byte header"),
    (b"#bundle\0" + bytes(8) + struct.pack(">i", 6) + b"/a\0\0,\0\0\0", "has size 6"),
    (b"#bundle\0" + bytes(8) + struct.pack(">i", 0) + b"/a\0\0", "has size 0"),
    (b"#bundle\0" + bytes(8) + struct.pack(">i", 400) + b"/a\0\0", "has size 400"),
])
def test_malformed_datagrams_are_one_line_errors(dgram, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")) as err:
        read_packet(dgram)
    assert "\n" not in str(err.value)


def test_nesting_is_bounded():
    ok = b"/a\0\0," + b"[" * MAX_ARRAY_DEPTH + b"]" * MAX_ARRAY_DEPTH
    ok += b"\0" * (-len(ok) % 4 or 4)
    [(_, tags, args, _)] = read_packet(ok)
    assert tags.count("[") == MAX_ARRAY_DEPTH
    depth, inner = 0, list(args)
    while inner:
        depth, inner = depth + 1, inner[0]
    assert depth == MAX_ARRAY_DEPTH
    deep = b"/a\0\0," + b"[" * 1000 + b"]" * 1000
    deep += b"\0" * (-len(deep) % 4 or 4)
    with pytest.raises(ValueError, match="arrays nested deeper than 8"):
        read_packet(deep)
    inner = _msg("/x", (1, "i"))
    for _ in range(MAX_DEPTH - 1):
        inner = _bundle(inner)
    assert [m[0] for m in read_packet(_bundle(inner))] == ["/x"]
    with pytest.raises(ValueError, match="bundles nested deeper than 8"):
        read_packet(_bundle(_bundle(inner)))


def test_well_formed_datagrams_read_as_python_osc_builds_them():
    dgram = _msg("/s", (1, "i"), (2 ** 40, "h"), (0.5, "f"), (0.25, "d"), ("hé", "s"), (b"xyz", "b"),
                 (True, "T"), (False, "F"), (None, "N"), ((1, 2, 3, 4), "m"), (0xFF00FF00, "r"))
    [(address, tags, args, timetag)] = read_packet(dgram)
    assert (address, tags, timetag) == ("/s", "ihfdsbTFNmr", None)
    assert args == (1, 2 ** 40, 0.5, 0.25, "hé", b"xyz", True, False, None, (1, 2, 3, 4), 0xFF00FF00)
    b = OscBundleBuilder(1234.5)
    b.add_content(OscMessageBuilder(address="/a").build())
    inner = OscBundleBuilder(99.0)
    inner.add_content(OscMessageBuilder(address="/b").build())
    b.add_content(inner.build())
    got = decode(b.build().dgram)
    assert [(r.address, r.timetag) for r in got] == [("/a", pytest.approx(1234.5)), ("/b", pytest.approx(99.0))]


def _wait(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.01)
    return predicate()


def test_osc_control_counts_the_hostile_datagram_and_keeps_working(caplog):
    from sensekit.audio.activity import ActivityDetector
    from sensekit.settings import Tuning

    detector = ActivityDetector()
    with caplog.at_level(logging.WARNING, logger="sensekit.osc"), \
            OscControl("127.0.0.1", 0, tuning=Tuning(lambda: [detector])) as control, \
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _ in range(3):
            s.sendto(NEGATIVE_ELEMENT, ("127.0.0.1", control.port))
        s.sendto(_msg("/sensekit/set/threshold", (31.0, "f")), ("127.0.0.1", control.port))
        assert _wait(lambda: control.accepted == 1)
        thread = control._thread
    assert thread is not None and not thread.is_alive()        # the server thread ended in close()'s join
    assert control.stats()["osc_malformed"] == 3
    assert control.last == {"activity.silence_level": 31.0}
    assert "size -4" in caplog.text


def test_non_scalar_arguments_are_rejected_not_raised():
    from sensekit.audio.activity import ActivityDetector
    from sensekit.settings import Tuning

    control = OscControl("127.0.0.1", 0, tuning=Tuning(lambda: [ActivityDetector()]))
    try:
        for args in ([1.0], b"\x01", (1, 2, 3, 4)):
            control.handle("/sensekit/set/threshold", args)
        assert control.rejected == 3 and control.accepted == 0
    finally:
        control.close()


def test_osc_control_closes_within_a_second_under_a_flood():
    control = OscControl("127.0.0.1", 0).start()
    stop = threading.Event()

    def flood() -> None:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            while not stop.is_set():
                s.sendto(NEGATIVE_ELEMENT, ("127.0.0.1", control.port))
                s.sendto(b"/a\0\0," + b"[" * 3000 + b"\0" * 3, ("127.0.0.1", control.port))

    t = threading.Thread(target=flood)
    t.start()
    try:
        assert _wait(lambda: control.malformed > 20)
        thread = control._thread
        returns(control.close, what="OscControl.close() under a flood")
        assert thread is not None and not thread.is_alive()    # ended in close()'s 1 s join
    finally:
        stop.set()
        t.join()


def test_osc_listen_counts_and_drops_the_hostile_datagram(capsys):
    from sensekit.cli.osc_listen import listen

    out = io.StringIO()
    ports: list[int] = []
    ready = threading.Event()
    got: list[int] = []
    t = threading.Thread(target=lambda: got.append(listen(
        0, count=1, seconds=10, jsonl=True, out=out, ready=lambda p: (ports.append(p), ready.set()))))
    t.start()
    assert ready.wait(5)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.sendto(NEGATIVE_ELEMENT, ("127.0.0.1", ports[0]))
        s.sendto(_msg("/blob", (b"\x00\xff", "b")), ("127.0.0.1", ports[0]))
    t.join(10)
    assert got == [1]
    assert out.getvalue().strip() == '{"address": "/blob", "tags": "b", "args": ["00ff"], "timetag": null}'
    err = capsys.readouterr().err
    assert "dropped a malformed datagram from 127.0.0.1" in err and "1 malformed datagram(s) dropped" in err


def _cli() -> list[str]:
    script = Path(sys.executable).with_name("sensekit")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "sensekit"]


def test_ctrl_c_ends_osc_listen_after_the_hostile_datagram():
    port = free_udp_port()
    proc = subprocess.Popen(_cli() + ["osc-listen", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stderr.readline, "")))  # type: ignore[union-attr]
    reader.start()
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            deadline = time.monotonic() + 30
            while not any("dropped a malformed" in ln for ln in lines) and time.monotonic() < deadline:
                s.sendto(NEGATIVE_ELEMENT, ("127.0.0.1", port))     # until the listener is bound
                time.sleep(0.1)
        time.sleep(0.3)                      # it would be spinning now if the datagram hung it
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=5)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(5)
    err = "".join(lines)
    assert "dropped a malformed datagram" in err and "Traceback" not in err
    assert proc.returncode == 130 and "sensekit: interrupted" in err
    assert "malformed datagram(s) dropped" in err
