"""A flood of valid OSC settings is bounded: the control server's thread uses at most its share
of a CPU, what it cannot take is dropped by the kernel and counted, the last setting still
applies, and the end-of-run counts are printed (``sensekit.osc.control``)."""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

from pythonosc.osc_message_builder import OscMessageBuilder

from sensekit.audio.activity import ActivityDetector
from sensekit.osc import OscControl
from sensekit.settings import Tuning
from sensekit.paths import bundled_recording
from tests.hang_guard import joined, returns


def _setting(value: float) -> bytes:
    b = OscMessageBuilder("/sensekit/set/activity/silence_level")
    b.add_arg(value)
    return b.build().dgram


def _flood(port: int, stop: threading.Event, sent: list[int]) -> None:
    grams = [_setting(float(10 + i % 7)) for i in range(7)]
    n = 0
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        while not stop.is_set():
            s.sendto(grams[n % 7], ("127.0.0.1", port))
            n += 1
    sent.append(n)


def test_a_flood_of_settings_takes_a_bounded_share_of_a_cpu():
    detector = ActivityDetector()
    control = OscControl("127.0.0.1", 0, tuning=Tuning(lambda: [detector])).start()
    stop = threading.Event()
    sent: list[int] = []
    flooder = threading.Thread(target=_flood, args=(control.port, stop, sent))
    thread = control._thread
    assert thread is not None
    try:
        flooder.start()
        time.sleep(0.5)                                   # the burst is spent
        before = control.accepted
        cpu0 = time.clock_gettime(time.pthread_getcpuclockid(thread.ident))
        t0 = time.monotonic()
        time.sleep(2.0)
        cpu = time.clock_gettime(time.pthread_getcpuclockid(thread.ident)) - cpu0
        wall = time.monotonic() - t0
        handled = control.accepted - before
    finally:
        stop.set()
        flooder.join()
    try:
        # unpaced, the thread took every datagram it could: a whole CPU when it had one
        assert cpu <= 0.05 * wall + 0.05 + 0.02, (cpu, wall)
        assert handled > 0
        time.sleep(1.0)                                   # the budget comes back
        # the server reads the flood's backlog (a full receive buffer, ~256) at its CPU share:
        # a datagram sent while that buffer is still full is dropped like the flood's, so the
        # setting is sent again every 0.5 s (as a UDP client must) until it applies
        deadline, resend = time.monotonic() + 30, 0.0
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            while control.last.get("activity.silence_level") != 42.0 and time.monotonic() < deadline:
                if time.monotonic() >= resend:
                    s.sendto(_setting(42.0), ("127.0.0.1", control.port))
                    resend = time.monotonic() + 0.5
                time.sleep(0.01)
        assert control.last.get("activity.silence_level") == 42.0
        # the kernel's count of what it dropped comes with the next datagram it queues: the
        # flood's datagrams read at the end were queued before the buffer overflowed (count 0)
        assert control.stats()["osc_dropped"] > 0
    finally:
        returns(control.close, what="OscControl.close() after a flood")
        assert not thread.is_alive(), "the server thread outlived close()'s 1 s join"


def test_the_counts_at_the_end_survive_a_flood_of_accepted_settings(tmp_path):
    # the end-of-run counts shared their log format with each accepted setting, so the rate
    # limit folded them into "N more message(s) like 'OSC: %s' were not shown"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "sensekit", "events", f"replay:{bundled_recording('demo')}", "--realtime",
         "--loop", "--activity", "--osc-control", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"))
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stderr.readline, "")), daemon=True)
    reader.start()
    stop = threading.Event()
    sent: list[int] = []
    flooder = threading.Thread(target=_flood, args=(port, stop, sent))
    try:
        deadline = time.monotonic() + 60
        while not any("listening for settings" in line for line in lines) and time.monotonic() < deadline:
            time.sleep(0.02)
        flooder.start()
        time.sleep(2.0)
        stop.set()
        flooder.join()
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
        reader.join(timeout=10)
    finally:
        stop.set()
        if proc.poll() is None:
            proc.kill()
    err = "".join(lines)
    assert "Traceback" not in err
    end = [line for line in lines if line.startswith("OSC at the end: ")]
    assert len(end) == 1, err[-2000:]
    counts = dict(re.findall(r"(osc_\w+) (\d+)", end[0]))
    assert int(counts["osc_accepted"]) > 5 and int(counts["osc_dropped"]) > 0, end[0]
    assert len(lines) < 40, err[-3000:]


def _mixed_flood(port: int, stop: threading.Event, sent: list[int]) -> None:
    grams = [_setting(float(10 + i % 7)) for i in range(7)] + [b"junk!", b"\x00" * 6]   # valid and malformed
    n = 0
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        while not stop.is_set():
            s.sendto(grams[n % len(grams)], ("127.0.0.1", port))
            n += 1
    sent.append(n)


def test_a_flood_to_osc_listen_is_paced_and_its_output_bounded(capsys):
    # unpaced, osc-listen read every datagram it could and printed one stderr line per
    # malformed one (thousands a second), and nothing said what the kernel dropped
    import io

    from sensekit.cli.osc_listen import listen

    out = io.StringIO()
    ports: list[int] = []
    ready = threading.Event()
    threads: list[threading.Thread] = []
    # a daemon: a listen() that ignores its 3.5 s fails the hang guard below by name, and does not
    # keep the test process alive after it (listen has no other timeout that would end it)
    listener = threading.Thread(target=lambda: listen(
        0, seconds=3.5, out=out, ready=lambda p: (ports.append(p), threads.append(threading.current_thread()),
                                                  ready.set())), daemon=True)
    listener.start()
    assert ready.wait(5)
    stop = threading.Event()
    sent: list[int] = []
    flooder = threading.Thread(target=_mixed_flood, args=(ports[0], stop, sent))
    try:
        flooder.start()
        time.sleep(0.5)                                   # the burst is spent
        clock = time.pthread_getcpuclockid(threads[0].ident)
        cpu0, t0 = time.clock_gettime(clock), time.monotonic()
        time.sleep(2.0)
        cpu, wall = time.clock_gettime(clock) - cpu0, time.monotonic() - t0
    finally:
        stop.set()
        flooder.join()
    joined(listener, what="listen(seconds=3.5) after the flood")
    assert cpu <= 0.05 * wall + 0.05 + 0.02, (cpu, wall)
    printed = out.getvalue().splitlines()
    assert 0 < len(printed) < sent[0]
    err = capsys.readouterr().err.splitlines()
    malformed = [ln for ln in err if ln.startswith("dropped a malformed datagram")]
    assert 1 <= len(malformed) <= 5 and "counted, not shown" in malformed[-1], err[:10]
    ends = dict((m.group(2), int(m.group(1))) for ln in err
                if (m := re.match(r"(\d+) (malformed datagram\(s\) dropped|datagram\(s\) dropped by the kernel)", ln)))
    assert ends["malformed datagram(s) dropped"] >= len(malformed)
    assert ends["datagram(s) dropped by the kernel"] > 0
    assert len(printed) + ends["malformed datagram(s) dropped"] + ends["datagram(s) dropped by the kernel"] <= sent[0]


class _RecvfromOnly:
    """A socket as Windows has it: no ``recvmsg``."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock

    def recvfrom(self, size: int):
        return self._sock.recvfrom(size)


def test_a_socket_without_recvmsg_still_receives_with_no_drop_count():
    from sensekit.osc.pace import receive

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as rx, \
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx:
        rx.bind(("127.0.0.1", 0))
        rx.settimeout(5)
        tx.sendto(_setting(3.0), rx.getsockname())
        data, sender, drops = receive(_RecvfromOnly(rx), 65536)
    assert data == _setting(3.0) and sender[0] == "127.0.0.1" and drops is None
