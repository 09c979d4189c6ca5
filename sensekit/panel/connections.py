"""Bounds on the panel's connections: how many are open at once, and how long one may keep what
it was sent without reading it.

``BoundedRunner`` is aiohttp's ``AppRunner`` with two rules, so no client can take the file
descriptors the run needs (a camera reconnecting, a profile saved, a recording's next segment):

- at most ``max_connections`` (``MAX_CONNECTIONS``, 64) are open at once; a new one beyond is
  closed as it is accepted (the count lags by at most one accept batch, the listen backlog of
  128, so the process never holds more than ~200 of the panel's). Before, 1,500 connections
  from one client took the process to its 1,024 descriptors ("Too many open files");
- ``watch()`` (a task of the server's loop) aborts a connection whose client has not taken a
  byte of what it was sent for ``stall_s`` (``WRITE_STALL_S``, 5 s; what waits in the
  transport's buffer and, on Linux, in the kernel's send queue): a client that pipelines
  requests and never reads their answers kept its connection, its buffers and its descriptor for
  as long as it liked (the header and keep-alive timeouts only apply to an idle connection).

Counts: ``refused`` (connections over the cap) and ``stalled`` (aborted). Cost: one look at each
open connection's write buffer a second.
"""
from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import struct
import termios
from typing import Any

from aiohttp import web

__all__ = ["BoundedRunner", "MAX_CONNECTIONS", "WRITE_STALL_S"]

log = logging.getLogger(__name__)

MAX_CONNECTIONS = 64
WRITE_STALL_S = 5.0


def _unsent(transport: asyncio.Transport) -> int:
    """Bytes sent to the client and not taken yet: the transport's buffer and the kernel's send
    queue (Linux ``SIOCOUTQ``; a static file goes out by ``sendfile``, past the transport)."""
    size = transport.get_write_buffer_size()
    sock = transport.get_extra_info("socket")
    if sock is not None and hasattr(termios, "TIOCOUTQ"):
        with contextlib.suppress(OSError, ValueError):
            size += struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0" * 4))[0]
    return size


class _Refused(asyncio.Protocol):
    """A connection over the cap: closed as soon as it is made."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.abort()


class _CappedServer(web.Server):
    """aiohttp's server (the protocol factory of the listening socket), refusing connections
    over ``max_connections``."""

    max_connections = MAX_CONNECTIONS
    refused = 0

    def __call__(self) -> Any:
        if len(self.connections) >= self.max_connections:
            self.refused += 1
            return _Refused()
        return super().__call__()


class BoundedRunner(web.AppRunner):
    """``web.AppRunner`` with the bounds of the module docstring."""

    def __init__(self, app: web.Application, *, max_connections: int = MAX_CONNECTIONS,
                 stall_s: float = WRITE_STALL_S, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self.max_connections = max_connections
        self.stall_s = stall_s
        self.stalled = 0

    async def _make_server(self) -> web.Server:
        server = await super()._make_server()
        server.__class__ = _CappedServer          # the same server, refusing over the cap
        assert isinstance(server, _CappedServer)
        server.max_connections = self.max_connections
        return server

    @property
    def refused(self) -> int:
        server = self.server
        return server.refused if isinstance(server, _CappedServer) else 0

    async def watch(self, every_s: float = 1.0) -> None:
        """Abort connections whose write buffer has not shrunk for ``stall_s`` (runs until
        cancelled)."""
        since: dict[int, tuple[int, float]] = {}          # transport -> (buffered bytes, since)
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(every_s)
            now, seen = loop.time(), {}
            for handler in self.server.connections if self.server is not None else ():
                transport = handler.transport
                if transport is None or transport.is_closing():
                    continue
                size = _unsent(transport)
                if size == 0:
                    continue
                last = since.get(id(transport))
                if last is None or size < last[0]:              # it took some: not stalled
                    seen[id(transport)] = (size, now)
                    continue
                seen[id(transport)] = (size, last[1])
                if now - last[1] >= self.stall_s:
                    self.stalled += 1
                    log.warning("panel: closed a connection whose client took none of the %d bytes "
                                "waiting for it in %g s", size, self.stall_s)
                    transport.abort()
            since = seen
