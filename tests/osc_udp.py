"""Plain UDP receivers of the OSC-out tests (``tests/test_osc_out.py``, ``tests/test_osc_lookup.py``):
a socket bound on this machine with a 5 s timeout, the strengths of the claps it got, and a second
receiver on another loopback address for a name that moves."""
from __future__ import annotations

import socket

import pytest

from sensekit.osc import decode


def receiver(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.bind((host, port))
    rx.settimeout(5.0)
    return rx


def strengths(rx: socket.socket, n: int) -> list[float]:
    """The strengths of the next ``n`` datagrams, each one clap message (``/clap t strength``)."""
    got = []
    for _ in range(n):
        (msg,) = decode(rx.recv(65536))
        got.append(float(msg.args[1]))
    return got


def moved_receivers() -> tuple[socket.socket, socket.socket, int]:
    """(a receiver on 127.0.0.1, one on 127.0.0.2 on the same port, the port); skips the test
    where 127.0.0.2 is not a loopback address."""
    rx1 = receiver("127.0.0.1")
    port = int(rx1.getsockname()[1])
    try:
        return rx1, receiver("127.0.0.2", port), port
    except OSError:
        rx1.close()
        pytest.skip("127.0.0.2 is not a loopback address here")
