"""The ``collector`` fixture of the OSC tests (a pytest plugin, ``conftest.pytest_plugins``): a UDP
socket on a free port of 127.0.0.1 that decodes every datagram it gets, with type tags."""
from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from sensekit.osc import Received, decode
from tests.udp_receiver import UdpReceiver


class Collector(UdpReceiver):
    """A raw UDP socket on a free port that decodes every datagram (with type tags)."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        super().__init__(lambda dgram: self.received.extend(decode(dgram)))

    def wait_for(self, n: int, timeout: float = 5.0) -> list[Received]:
        deadline = time.monotonic() + timeout
        while len(self.received) < n and time.monotonic() < deadline:
            time.sleep(0.002)
        return list(self.received)


@pytest.fixture
def collector() -> Iterator[Collector]:
    c = Collector()
    yield c
    c.close()
