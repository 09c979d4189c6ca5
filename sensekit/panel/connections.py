"""Bounds on the panel's connections: how many are open at once, who gives up a slot when they are
all taken, and how long one may keep what it was sent without reading it.

``ConnectionCap`` is the listening socket's protocol factory: it wraps aiohttp's ``web.Server``
(the runner's ``server``, documented as a protocol factory for ``loop.create_server``) with three
rules, so no client can take the file descriptors the run needs (a camera reconnecting, a profile
saved, a recording's next segment), nor the operator's way in:

- at most ``max_connections`` (``MAX_CONNECTIONS``, 64) are open at once. A new one over the cap
  takes the slot of the connection that has done least with its own (``shed``), in this order:
  one that never finished a request (oldest first: a flood of silent or half-sent connections),
  one whose request is not all there yet (``slow``, oldest first): a body still arriving after
  ``SLOW_REQUEST_S`` (2 s) in all, or after ``SLOW_GRACE_S`` (0.5 s) at under ``MIN_BODY_RATE``
  (16 kB/s), or a WebSocket that has not yet sent the panel's token (``unproven``); then one idle
  between requests (idle longest first), one whose client has taken none of what it was
  sent for a second or more (stalled longest first). A connection with a request in hand (a
  WebSocket, a command waiting for the run) is never closed for a newcomer; when every slot holds
  one, the newcomer is closed as it is accepted (``refused``). Before, every new connection over
  the cap was refused, so 64 silent connections (and more coming) kept the operator's browser out;
  and a slow body, or a WebSocket waiting for its token, counted as a request in hand: 64 of them,
  renewed every few seconds by a client without the token, kept the operator out;
- ``watch()`` (a task of the server's loop) aborts a connection whose client has not taken a
  byte of what it was sent for ``stall_s`` (``WRITE_STALL_S``, 5 s; what waits in the
  transport's buffer and, on Linux, in the kernel's send queue): a client that pipelines
  requests and never reads their answers kept its connection, its buffers and its descriptor for
  as long as it liked (the header and keep-alive timeouts only apply to an idle connection).

Requests are seen through ``middleware`` (put it after the guard: a connection whose requests were
all refused, for a missing token or a foreign origin, has not been served and goes first): it
notes, by the request's transport, when a connection has a request in hand and since when it is
idle.

Counts: ``refused``, ``shed`` and ``stalled`` (aborted by the watch). Cost: one look at each open
connection when a newcomer finds the slots full, and one look at each write buffer a second.
"""
from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import struct
import termios
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from aiohttp import web

__all__ = ["ConnectionCap", "MAX_CONNECTIONS", "MIN_BODY_RATE", "SLOW_REQUEST_S", "WRITE_STALL_S"]

log = logging.getLogger(__name__)

MAX_CONNECTIONS = 64
WRITE_STALL_S = 5.0
#: a connection whose client took nothing for this long may be shed for a newcomer
SHED_STALLED_S = 1.0
#: a request whose body is not all there after this long may be shed for a newcomer...
SLOW_REQUEST_S = 2.0
#: ... or after this long, if it arrives slower than ``MIN_BODY_RATE`` bytes a second
SLOW_GRACE_S = 0.5
MIN_BODY_RATE = 16 * 1024

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


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
    """A connection over the cap with no slot to take: closed as soon as it is made."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.abort()


class ConnectionCap:
    """The protocol factory of the panel's listening socket, with the rules of the module
    docstring. ``serve(runner, host, port)`` listens; ``watch()`` runs the stall check."""

    def __init__(self, *, max_connections: int = MAX_CONNECTIONS, stall_s: float = WRITE_STALL_S) -> None:
        self.max_connections = max_connections
        self.stall_s = stall_s
        self.refused = self.shed = self.stalled = 0
        self._server: web.Server | None = None
        self._accepted: dict[Any, list[Any]] = {}       # protocol -> [when made, its transport]
        self._busy: dict[asyncio.BaseTransport, int] = {}     # transport -> requests in hand
        self._idle: dict[asyncio.BaseTransport, float] = {}   # transport -> idle since (served once)
        self._stuck: dict[asyncio.BaseTransport, tuple[int, float]] = {}  # -> (unsent bytes, since)
        self._requests: dict[asyncio.BaseTransport, tuple[float, Any]] = {}  # -> (since, its body)
        self._unproven: dict[asyncio.BaseTransport, float] = {}  # a WebSocket awaiting its token

    # -- listening ------------------------------------------------------------------------------
    async def serve(self, runner: web.BaseRunner, host: str, port: int, *,
                    backlog: int = 128) -> asyncio.Server:
        """Listen on ``host:port`` for ``runner`` (set up) through this factory; close the
        returned server before ``runner.cleanup()``."""
        if runner.server is None:
            raise RuntimeError("the runner is not set up")
        self._server = runner.server
        loop = asyncio.get_running_loop()
        return await loop.create_server(self, host, port, backlog=backlog, reuse_address=True)

    @staticmethod
    def _time() -> float:
        return time.monotonic()

    def _live(self) -> list[tuple[float, asyncio.Transport | None]]:
        """(when made, transport) of the connections open now; a protocol made an instant ago
        and not connected yet has no transport."""
        now, live = self._time(), []
        for proto, entry in list(self._accepted.items()):
            transport = getattr(proto, "transport", None)
            if transport is not None:
                entry[1] = transport
            gone = entry[1] is not None and (transport is None or transport.is_closing())
            if gone or (entry[1] is None and now - entry[0] > self.stall_s):   # never connected
                del self._accepted[proto]
                continue
            live.append((entry[0], transport))
        return live

    def _victim(self, live: list[tuple[float, asyncio.Transport | None]]) -> asyncio.Transport | None:
        """The connection to close for a newcomer (module docstring), or None."""
        now = self._time()
        never: list[tuple[float, asyncio.Transport]] = []
        slow: list[tuple[float, asyncio.Transport]] = []
        idle: list[tuple[float, asyncio.Transport]] = []
        stuck: list[tuple[float, asyncio.Transport]] = []
        for made, transport in live:
            if transport is None:
                continue
            if self._busy.get(transport, 0) == 0:
                if transport in self._idle:
                    idle.append((self._idle[transport], transport))
                else:
                    never.append((made, transport))
            elif (since := self._slow(transport, now)) is not None:
                slow.append((since, transport))
            elif transport in self._stuck and now - self._stuck[transport][1] >= SHED_STALLED_S:
                stuck.append((self._stuck[transport][1], transport))
        for group in (never, slow, idle, stuck):
            if group:
                return min(group, key=lambda t: t[0])[1]
        return None

    def _slow(self, transport: asyncio.BaseTransport, now: float) -> float | None:
        """Since when ``transport``'s request has been in hand, if it is not all there yet (see the
        module docstring), else None."""
        since = self._unproven.get(transport)
        if since is not None:
            return since
        request = self._requests.get(transport)
        if request is None:
            return None
        started, body = request
        if body.is_eof():                       # all of it has arrived (or there is none)
            return None
        took = now - started
        if took >= SLOW_REQUEST_S or (took >= SLOW_GRACE_S
                                      and getattr(body, "total_bytes", 0) < MIN_BODY_RATE * took):
            return started
        return None

    @contextlib.contextmanager
    def unproven(self, transport: asyncio.BaseTransport | None) -> Iterator[None]:
        """While a WebSocket on ``transport`` waits for the panel's token: its slot may be taken
        (module docstring)."""
        if transport is None:
            yield
            return
        self._unproven[transport] = self._time()
        try:
            yield
        finally:
            self._unproven.pop(transport, None)

    def __call__(self) -> asyncio.BaseProtocol:
        assert self._server is not None, "serve() first"
        live = self._live()
        if len(live) >= self.max_connections:
            victim = self._victim(live)
            if victim is None:
                self.refused += 1
                return _Refused()
            self.shed += 1
            victim.abort()
            self._forget(victim)
        proto = self._server()
        self._accepted[proto] = [self._time(), None]
        return proto

    def _forget(self, transport: asyncio.BaseTransport) -> None:
        self._busy.pop(transport, None)
        self._idle.pop(transport, None)
        self._stuck.pop(transport, None)
        self._requests.pop(transport, None)
        self._unproven.pop(transport, None)

    @property
    def open(self) -> int:
        """Connections open now (read from any thread: it changes nothing)."""
        count = 0
        for proto in list(self._accepted):
            transport = getattr(proto, "transport", None)
            count += transport is not None and not transport.is_closing()
        return count

    # -- requests -------------------------------------------------------------------------------
    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        key = request.transport
        if key is None or key.is_closing():
            return await handler(request)
        self._busy[key] = self._busy.get(key, 0) + 1
        self._requests[key] = (self._time(), request.content)
        try:
            return await handler(request)
        finally:
            self._requests.pop(key, None)
            if key in self._busy:
                self._busy[key] -= 1
                if self._busy[key] <= 0:
                    del self._busy[key]
                    if not key.is_closing():
                        self._idle[key] = self._time()

    # -- stalled clients ------------------------------------------------------------------------
    async def watch(self, every_s: float = 1.0) -> None:
        """Abort connections whose write buffer has not shrunk for ``stall_s`` (runs until
        cancelled)."""
        while True:
            await asyncio.sleep(every_s)
            now = self._time()
            seen: dict[asyncio.BaseTransport, tuple[int, float]] = {}
            for _, transport in self._live():
                if transport is None:
                    continue
                key = transport
                size = _unsent(transport)
                if size == 0:
                    continue
                last = self._stuck.get(key)
                if last is None or size < last[0]:              # it took some: not stalled
                    seen[key] = (size, now)
                    continue
                seen[key] = (size, last[1])
                if now - last[1] >= self.stall_s:
                    self.stalled += 1
                    log.warning("panel: closed a connection whose client took none of the %d bytes "
                                "waiting for it in %g s", size, self.stall_s)
                    transport.abort()
            self._stuck = seen
            live = {t for _, t in self._live() if t is not None}
            for gone in [k for k in self._idle if k not in live]:
                del self._idle[gone]
