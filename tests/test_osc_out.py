"""OSC out (``--osc HOST:PORT``) when the receiver goes away, comes back, listens on the other
address family of its name, or is a broadcast address: real sockets on this machine, the
"port unreachable" the kernel answers for a closed port, nothing mocked but a name's list of
addresses (``resolve``), made of the real ``getaddrinfo`` of two literal addresses."""
from __future__ import annotations

import logging
import os
import socket
import time
from pathlib import Path

import pytest

from sensekit.events import Clap
from sensekit.osc import OscSender
from sensekit.osc import sender as sender_module
from tests.osc_udp import receiver, strengths


def _closed_port() -> int:
    rx = receiver()
    port = int(rx.getsockname()[1])
    rx.close()
    return port


def _send_until_refused(sender: OscSender, limit: int = 500) -> int:
    """Send claps until the kernel has answered "port unreachable" once; how many were sent."""
    for i in range(limit):
        sender(Clap(t=float(i), strength=0.5))
        if sender.refused:
            return i + 1
        time.sleep(0.005)
    return limit


def test_a_receiver_that_quits_is_one_warning_and_a_count_and_one_that_comes_back_gets_every_event(
        caplog, monkeypatch):
    monkeypatch.setattr(sender_module, "BACK_AFTER_S", 0.3)
    rx = receiver()
    port = int(rx.getsockname()[1])
    sender = OscSender("127.0.0.1", port)
    with caplog.at_level(logging.INFO, logger="sensekit.osc"):
        for i in range(5):
            sender(Clap(t=float(i), strength=0.1 * (i + 1)))
        assert strengths(rx, 5) == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5])
        rx.close()                                    # the receiver quits
        _send_until_refused(sender)
        for i in range(50):                           # the show goes on sending
            sender(Clap(t=10.0 + i, strength=0.5))
        assert sender.refused >= 1 and sender.errors == 0
        gone = [r.getMessage() for r in caplog.records if "nothing listens" in r.getMessage()]
        assert gone == [f"OSC: nothing listens at 127.0.0.1:{port} (port unreachable: the receiver "
                        "quit?); events sent there are lost until it is back, counted in osc_refused"]
        rx = receiver(port=port)                     # it comes back on its port
        try:
            for i in range(10):                       # the first may meet the last refusal:
                sender(Clap(t=100.0 + i, strength=0.01 * (i + 1)))   # it is sent once more
            assert strengths(rx, 10) == pytest.approx([0.01 * (i + 1) for i in range(10)])
            time.sleep(0.4)                           # more than BACK_AFTER_S without a refusal
            sender(Clap(t=200.0, strength=0.9))
            assert strengths(rx, 1) == pytest.approx([0.9])
        finally:
            rx.close()
            sender.close()
    back = [r.getMessage() for r in caplog.records if "takes the events" in r.getMessage()]
    assert len(back) == 1 and back[0].startswith(f"OSC: 127.0.0.1:{port} takes the events")
    assert len([r for r in caplog.records if "nothing listens" in r.getMessage()]) == 1
    assert sender.stats()["osc_refused"] == sender.refused


def test_a_name_whose_first_address_has_no_receiver_reaches_the_one_on_its_second():
    """``localhost`` is ``::1`` then ``127.0.0.1`` on many systems; a receiver listening on
    127.0.0.1 only used to get nothing, for the whole show, and nothing was said."""
    if not socket.has_ipv6:
        pytest.skip("this Python has no IPv6")
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback on this machine")
    rx = receiver()
    port = int(rx.getsockname()[1])

    def both(host: str, port: int, **kw: object) -> list:
        return socket.getaddrinfo("::1", port, **kw) + socket.getaddrinfo("127.0.0.1", port, **kw)

    sender = OscSender("localhost", port, resolve=both)
    try:
        for i in range(200):                          # until the first arrives (the one sent
            sender(Clap(t=float(i), strength=0.5))    # to ::1 is lost to its port unreachable)
            rx.settimeout(0.01)
            try:
                rx.recv(65536)
                break
            except TimeoutError:
                continue
        rx.settimeout(5.0)
        for i in range(10):
            sender(Clap(t=300.0 + i, strength=0.01 * (i + 1)))
        assert strengths(rx, 10) == pytest.approx([0.01 * (i + 1) for i in range(10)])
        assert sender.refused == 1 and sender.errors == 0
    finally:
        rx.close()
        sender.close()


def test_a_broadcast_address_is_sent_to():
    """``--osc 192.168.1.255:9000`` (every receiver on the network): every send used to fail with
    "Permission denied" (no ``SO_BROADCAST``), counted, and nothing went out."""
    rx = receiver("0.0.0.0")
    port = int(rx.getsockname()[1])
    sender = OscSender("255.255.255.255", port)
    try:
        for i in range(5):
            sender(Clap(t=float(i), strength=0.1 * (i + 1)))
        assert sender.stats() == {"osc_sent": 5, "osc_errors": 0, "osc_refused": 0}
        try:
            got = strengths(rx, 5)
        except TimeoutError:
            pytest.skip("this machine does not loop a broadcast back to itself")
        assert got == pytest.approx([0.1, 0.2, 0.3, 0.4, 0.5])
    finally:
        rx.close()
        sender.close()


def test_a_name_looked_up_once_at_start_sends_there_without_asking_again_per_event():
    calls: list[str] = []

    def once(host: str, port: int, **kw: object) -> list:
        calls.append(host)
        if len(calls) > 1:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return socket.getaddrinfo("127.0.0.1", port, **kw)

    rx = receiver()
    sender = OscSender("lights.local", int(rx.getsockname()[1]), resolve=once)
    try:
        for i in range(3):
            sender(Clap(t=float(i), strength=0.5))
        assert strengths(rx, 3) == [0.5, 0.5, 0.5] and calls == ["lights.local"]
    finally:
        rx.close()
        sender.close()


def test_descriptors_stay_flat_while_nothing_listens_at_either_address():
    port = _closed_port()

    def both(host: str, port: int, **kw: object) -> list:
        return socket.getaddrinfo("127.0.0.1", port, **kw) + socket.getaddrinfo("127.0.0.2", port, **kw)

    sender = OscSender("two.example", port, resolve=both)
    try:
        _send_until_refused(sender)
        before = len(os.listdir("/proc/self/fd"))
        for i in range(2000):
            sender(Clap(t=float(i), strength=0.5))
        assert len(os.listdir("/proc/self/fd")) == before and sender.errors == 0
    finally:
        sender.close()


EMFILE_RUN = """
import os, resource, socket, sys
from sensekit.events import Clap
from sensekit.osc import OscSender
r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); r.bind(("127.0.0.1", 0)); port = r.getsockname()[1]; r.close()
both = lambda host, port, **kw: (socket.getaddrinfo("127.0.0.1", port, **kw)
                                 + socket.getaddrinfo("127.0.0.2", port, **kw))
sender = OscSender("two.example", port, resolve=both)
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
held = []
try:
    while True:
        held.append(os.open(os.devnull, os.O_RDONLY))     # every descriptor taken
except OSError:
    pass
for i in range(50):
    sender(Clap(t=float(i), strength=0.5))
starved = sender.errors
for fd in held:
    os.close(fd)
for i in range(50):
    sender(Clap(t=100.0 + i, strength=0.5))
print(starved, sender.errors, sender.refused)
"""


def test_a_sender_with_no_descriptor_to_spare_still_moves_between_addresses(tmp_path: Path):
    """Moving to a name's next address opens a new socket; with every descriptor of the process
    taken (EMFILE) it still does (the old one is closed first, its number reused): no error, and
    once descriptors are free again, none either."""
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    r = subprocess.run([sys.executable, "-c", EMFILE_RUN], capture_output=True, text=True, timeout=60, env=env,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    starved, errors, refused = map(int, r.stdout.split())
    assert (starved, errors) == (0, 0) and refused >= 50
