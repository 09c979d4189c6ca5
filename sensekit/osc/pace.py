"""The bound on a UDP reader under a flood, shared by ``OscControl`` and ``sensekit osc-listen``.

``CpuPace``: the reading thread may use ``share`` of one CPU (its own CPU time, charged per
datagram), with ``burst`` seconds banked while quiet; past that ``wait()`` sleeps, holding no
lock, until repaid. What arrives meanwhile waits in the kernel's receive buffer and, when that is
full, is dropped there. ``count_kernel_drops(sock)`` asks Linux to attach its running count of
those drops to each datagram (``SO_RXQ_OVFL``); ``receive(sock, size)`` returns it with the
datagram. That count only comes with a datagram queued after the drops, so the tail of a burst
dropped with nothing after it is missed: ``socket_drops(sock)`` reads the kernel's count for the
socket from ``/proc/net/udp`` (Linux), with what still waits in its buffer.

``enlarge_receive_buffer(sock)`` asks for a 2 MB receive buffer (``RECEIVE_BUFFER_BYTES``; the
kernel caps it at ``net.core.rmem_max`` unless the process may force it, and doubles it): the
kernel's default (~208 kB, some 250 small datagrams on loopback) holds the *oldest* datagrams of a
burst and drops the newest, so after a fader's burst of 4,000 the value read last was one from
early in the burst (35.5 of a burst ending on 95). 4 MB holds ~5,000 small datagrams (~820
bytes each of the kernel's accounting on loopback), read at the pace.
"""
from __future__ import annotations

import contextlib
import os
import socket
import sys
import time
from typing import Any

__all__ = ["CpuPace", "count_kernel_drops", "receive", "enlarge_receive_buffer", "socket_drops",
           "RECEIVE_BUFFER_BYTES"]

#: Linux's socket option: the kernel's count of datagrams dropped for a full buffer
_SO_RXQ_OVFL = getattr(socket, "SO_RXQ_OVFL", 40)
#: Linux's ``SO_RCVBUFFORCE``: a receive buffer past ``net.core.rmem_max`` (CAP_NET_ADMIN)
_SO_RCVBUFFORCE = getattr(socket, "SO_RCVBUFFORCE", 33)
#: the receive buffer asked for (the kernel doubles it for its bookkeeping): a burst of ~5,000
#: small datagrams waits there to be read instead of its newest being dropped
RECEIVE_BUFFER_BYTES = 2 * 1024 * 1024


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


def receive(sock: socket.socket, size: int, flags: int = 0) -> tuple[bytes, Any, int | None]:
    """One datagram: ``(data, sender, the kernel's drop count so far or None)``; None where
    sockets have no ``recvmsg`` (Windows). ``flags``: ``socket.MSG_DONTWAIT`` to take one only if
    one is waiting (``BlockingIOError`` if none)."""
    if not hasattr(sock, "recvmsg"):
        data, sender = sock.recvfrom(size, flags) if flags else sock.recvfrom(size)
        return data, sender, None
    data, ancillary, _flags, sender = sock.recvmsg(size, socket.CMSG_SPACE(4), flags)
    drops = None
    for level, kind, value in ancillary:
        if level == socket.SOL_SOCKET and kind == _SO_RXQ_OVFL and len(value) >= 4:
            drops = int.from_bytes(value[:4], sys.byteorder)
    return data, sender, drops


def enlarge_receive_buffer(sock: socket.socket, nbytes: int = RECEIVE_BUFFER_BYTES) -> int:
    """Ask for a receive buffer of ``nbytes`` (forced past ``net.core.rmem_max`` where the process
    may); returns the size granted, as the kernel reports it (doubled)."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, nbytes)
    granted = int(sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF))
    if granted < 2 * nbytes and sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):          # PermissionError without CAP_NET_ADMIN
            sock.setsockopt(socket.SOL_SOCKET, _SO_RCVBUFFORCE, nbytes)
        granted = int(sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF))
    return granted


def socket_drops(sock: socket.socket) -> tuple[int, int] | None:
    """``(datagrams the kernel dropped for a full buffer, bytes still waiting in it)`` for a UDP
    socket, from ``/proc/net/udp`` and ``/proc/net/udp6``; None where there are none (not Linux)
    or the socket is not listed (closed)."""
    try:
        inode = str(os.fstat(sock.fileno()).st_ino)
    except (OSError, ValueError):
        return None
    for table in ("/proc/net/udp", "/proc/net/udp6"):
        try:
            with open(table, encoding="ascii", errors="replace") as f:
                lines = f.readlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            # sl local rem st tx_queue:rx_queue tr:when retrnsmt uid timeout inode ref pointer drops
            if len(fields) >= 13 and fields[9] == inode:
                try:
                    return int(fields[12]), int(fields[4].partition(":")[2], 16)
                except ValueError:
                    return None
    return None
