"""The bound on a UDP reader under a flood, shared by ``OscControl`` and ``sensekit osc-listen``.

``CpuPace``: the reading thread may use ``share`` of one CPU (its own CPU time, charged per
datagram), with ``burst`` seconds banked while quiet; past that ``wait()`` sleeps, holding no
lock, until repaid. What arrives meanwhile waits in the kernel's receive buffer and, when that is
full, is dropped there. ``count_kernel_drops(sock)`` asks Linux to attach its running count of
those drops to each datagram (``SO_RXQ_OVFL``); ``receive(sock, size)`` returns it with the
datagram.
"""
from __future__ import annotations

import contextlib
import socket
import sys
import time
from typing import Any

__all__ = ["CpuPace", "count_kernel_drops", "receive"]

#: Linux's socket option: the kernel's count of datagrams dropped for a full buffer
_SO_RXQ_OVFL = getattr(socket, "SO_RXQ_OVFL", 40)


class CpuPace:
    """A CPU-time budget for one thread: ``wait()`` before reading each datagram."""

    def __init__(self, share: float, burst: float) -> None:
        self.share, self.burst = share, burst
        self._budget = burst
        self._wall = time.monotonic()
        self._cpu = time.thread_time()

    def wait(self) -> None:
        """Charge the CPU time used since the last call (the datagram before, the wait for this
        one, and the last sleep itself: taking the interpreter lock back from a busy thread cost
        ~50 us a sleep, as much as the datagrams), refill by the wall time passed, and sleep
        while the budget is overdrawn."""
        wall, cpu = time.monotonic(), time.thread_time()
        self._budget = min(self.burst, self._budget + (wall - self._wall) * self.share - (cpu - self._cpu))
        if self._budget < 0:
            time.sleep(-self._budget / self.share)
            self._budget, wall = 0.0, time.monotonic()
        self._wall, self._cpu = wall, cpu


def count_kernel_drops(sock: socket.socket) -> None:
    """Ask the kernel to report its drop count with each datagram (Linux; a no-op elsewhere)."""
    if sys.platform.startswith("linux"):      # the option's number means something else elsewhere
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, _SO_RXQ_OVFL, 1)


def receive(sock: socket.socket, size: int) -> tuple[bytes, Any, int | None]:
    """One datagram: ``(data, sender, the kernel's drop count so far or None)``; None where
    sockets have no ``recvmsg`` (Windows)."""
    if not hasattr(sock, "recvmsg"):
        data, sender = sock.recvfrom(size)
        return data, sender, None
    data, ancillary, _flags, sender = sock.recvmsg(size, socket.CMSG_SPACE(4))
    drops = None
    for level, kind, value in ancillary:
        if level == socket.SOL_SOCKET and kind == _SO_RXQ_OVFL and len(value) >= 4:
            drops = int.from_bytes(value[:4], sys.byteorder)
    return data, sender, drops
