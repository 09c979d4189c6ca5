"""``UdpReceiver``, a helper of the tests and benchmarks (``tests/osc_collector.py``,
``benchmarks/soak.py``), not part of the package: a local UDP socket on a free port and a thread
reading every datagram from it: ``count`` of them, each handed to ``on_datagram`` when one is
given. For what is sent with ``OscSender`` to be looked at in the same process: the soak benchmark
counts what arrives, the OSC tests decode it. (It was ``sensekit.osc.receiver`` until house25:
shipped, a user could take it for a venue's listener.)

A 4 MiB receive buffer (the kernel may grant less); the thread polls every ``poll_s`` seconds
for ``close()``. Not for a venue's listener: nothing bounds what the reader costs (see
``sensekit.osc.pace`` for that).
"""
from __future__ import annotations

import socket
import threading
from typing import Callable

from sensekit.arg_types import checked

__all__ = ["UdpReceiver"]


class UdpReceiver:
    """Datagrams to ``127.0.0.1:port``, read on a daemon thread until ``close()``."""

    @checked
    def __init__(self, on_datagram: Callable[[bytes], None] | None = None, *, poll_s: float = 0.05) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(poll_s)
        self.port: int = self.sock.getsockname()[1]
        #: datagrams read so far
        self.count = 0
        self._on_datagram = on_datagram
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                dgram = self.sock.recv(65536)
            except (TimeoutError, OSError):
                continue
            self.count += 1
            if self._on_datagram is not None:
                self._on_datagram(dgram)

    def close(self) -> None:
        """Stop the thread and close the socket."""
        self._stop.set()
        self._thread.join(2)
        self.sock.close()
