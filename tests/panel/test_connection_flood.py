"""The panel's connection cap under a flood (``sensekit/panel/connections.py``): when the 64 slots
are full, the connection that has done least for its slot is closed to make room, so an operator
who opens the panel during a flood (or after a script leaked connections) still gets the page, its
script and its live WebSocket; connections doing work are never closed for a newcomer."""
from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import aiohttp

from sensekit.panel.connections import MAX_CONNECTIONS, SLOW_REQUEST_S
from tests.panel.test_server import run
from tests.panel.test_server_limits import _raw

PARTIAL = b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "      # headers never finished


def _is_closed(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(1) == b""
    except BlockingIOError:
        return False
    except (ConnectionResetError, OSError):
        return True


class Flood:
    """Connections that never finish a request, opened every ``every_s`` on a thread of their own
    until ``stop()`` (half say nothing, half send headers that never end)."""

    def __init__(self, url: str, first: int, every_s: float) -> None:
        self.url, self.every_s = url, every_s
        self.socks = [self._one(i) for i in range(first)]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._go, daemon=True)
        self._thread.start()

    def _one(self, i: int) -> socket.socket:
        s = _raw(self.url)
        if i % 2:
            s.sendall(PARTIAL)
        return s

    def _go(self) -> None:
        while not self._stop.wait(self.every_s):
            self.socks.append(self._one(len(self.socks)))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        for s in self.socks:
            s.close()


def test_an_operator_opens_the_panel_while_a_flood_holds_every_slot(thread_piece):
    """64 connections that never finish a request, and 20 more a second: every new connection was
    closed as it was accepted, the operator's browser included (the page did not load). Now the
    oldest of the flood's is closed to make room: the page, its script, the live WebSocket and an
    API call all answer while the flood goes on, and the cap holds."""
    piece = thread_piece()
    server = piece.panel.server
    flood = Flood(piece.url, MAX_CONNECTIONS, every_s=0.05)
    try:
        deadline = time.monotonic() + 5
        while server.connection_stats()["open"] < MAX_CONNECTIONS and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.connection_stats()["open"] >= MAX_CONNECTIONS    # every slot is held

        async def browser() -> tuple[int, int, dict[str, object], int]:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as s:
                async with s.get(piece.url) as page:
                    await page.read()
                async with s.get(piece.url + "static/panel.js") as script:
                    await script.read()
                async with s.ws_connect(piece.url + "ws/live") as ws:
                    update = await ws.receive_json(timeout=5)
                    await asyncio.sleep(1.5)                  # ~30 more flood connections meanwhile
                    await ws.receive_json(timeout=5)          # the WebSocket is still served
                    async with s.get(piece.url + "api/info") as info:
                        await info.read()
                return page.status, script.status, update, info.status
        page, script, update, info = run(browser())
        assert (page, script, info) == (200, 200, 200) and isinstance(update, dict)
        stats = server.connection_stats()
        assert stats["open"] <= MAX_CONNECTIONS, stats
        assert stats["shed"] >= 20 and stats["refused"] == 0, stats
        assert all(_is_closed(s) for s in flood.socks[:20])        # the oldest made the room
    finally:
        flood.stop()
    assert piece.error is None


def _idle_keep_alive(url: str) -> socket.socket:
    """A connection that made one request, read its answer and stays open (keep-alive)."""
    s = _raw(url)
    s.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    got = b""
    while b"\r\n\r\n" not in got:
        got += s.recv(65536)
    head, _, body = got.partition(b"\r\n\r\n")
    length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length")))
    while len(body) < length:
        body += s.recv(65536)
    return s


def test_when_every_slot_is_idle_the_longest_idle_makes_room(thread_piece):
    """64 keep-alive connections that each made a request and went quiet (a script that leaked
    its sessions): a new one was closed as it was accepted for up to 5 s (the keep-alive
    timeout), renewed as often as the script asked again. Now the longest idle gives its slot."""
    piece = thread_piece()
    server = piece.panel.server
    held = [_idle_keep_alive(piece.url) for _ in range(MAX_CONNECTIONS)]
    try:
        async def browser() -> int:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5)) as s, \
                    s.get(piece.url + "api/info") as r:
                await r.read()
                return r.status
        assert run(browser()) == 200
        assert _is_closed(held[0]) and not any(_is_closed(s) for s in held[2:])
        assert server.connection_stats()["shed"] >= 1
    finally:
        for s in held:
            s.close()


def test_a_flood_never_takes_the_slot_of_a_connection_with_a_request_in_hand(thread_piece):
    """Live WebSockets (a request in hand for as long as they are open) keep their slots while
    200 silent connections come and go."""
    piece = thread_piece()

    async def go() -> list[bool]:
        async with aiohttp.ClientSession() as s:
            sockets = [await s.ws_connect(piece.url + "ws/live") for _ in range(12)]
            for ws in sockets:
                await ws.receive_json(timeout=5)
            flood = [_raw(piece.url) for _ in range(200)]
            await asyncio.sleep(1.0)
            alive = []
            for ws in sockets:
                msg = await ws.receive(timeout=5)
                alive.append(msg.type == aiohttp.WSMsgType.TEXT)
                await ws.close()
            assert sum(_is_closed(f) for f in flood) >= 200 - MAX_CONNECTIONS
            for f in flood:
                f.close()
            return alive
    assert all(run(go()))
    stats = piece.panel.server.connection_stats()
    assert stats["shed"] + stats["refused"] >= 200 - MAX_CONNECTIONS, stats


def test_connections_refused_by_the_guard_go_before_one_that_was_served(thread_piece):
    """A connection whose requests were all refused (no token) counts as never served: with the
    slots full, such a connection gives its slot before the operator's idle one, even a newer one."""
    from sensekit.panel.guard import TOKEN_HEADER
    from tests.panel.test_server import TOKEN

    piece = thread_piece(token=TOKEN)
    operator = _raw(piece.url)
    operator.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n" + TOKEN_HEADER.encode()
                     + b": " + TOKEN.encode() + b"\r\n\r\n")
    assert operator.recv(65536).startswith(b"HTTP/1.1 200")
    refused = []
    for _ in range(MAX_CONNECTIONS - 1):
        s = _raw(piece.url)
        s.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert s.recv(65536).startswith(b"HTTP/1.1 401")
        refused.append(s)
    try:
        newcomer = _raw(piece.url)
        time.sleep(0.3)
        assert not _is_closed(operator) and _is_closed(refused[0]) and not _is_closed(newcomer)
        newcomer.close()
    finally:
        operator.close()
        for s in refused:
            s.close()


SLOW_HEAD = (b"POST /api/set HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
             b"Content-Length: 60000\r\n\r\n{\"values\": {")


def _ws_without_token(url: str, path: str = "/ws/video") -> socket.socket:
    """A WebSocket handshake that never sends the panel's token afterwards."""
    s = _raw(url)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              f"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    return s


class Renewed:
    """``first`` connections made by ``make``, then one more every ``every_s`` on a thread of its
    own; every ``trickle_s`` each open one is sent a byte (a body that keeps arriving, slowly)."""

    def __init__(self, make: Callable[[], socket.socket], first: int, every_s: float,
                 trickle_s: float | None = None) -> None:
        self.make, self.every_s, self.trickle_s = make, every_s, trickle_s
        self.socks = [make() for _ in range(first)]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._go, daemon=True)
        self._thread.start()

    def _go(self) -> None:
        last = time.monotonic()
        while not self._stop.wait(self.every_s):
            self.socks.append(self.make())
            if self.trickle_s is not None and time.monotonic() - last >= self.trickle_s:
                last = time.monotonic()
                for s in self.socks[-2 * MAX_CONNECTIONS:]:
                    with contextlib.suppress(OSError):
                        s.sendall(b" ")

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        for s in self.socks:
            s.close()


def _wait_full(server: Any) -> None:
    deadline = time.monotonic() + 5
    while server.connection_stats()["open"] < MAX_CONNECTIONS and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.connection_stats()["open"] >= MAX_CONNECTIONS    # every slot is held
    time.sleep(SLOW_REQUEST_S)              # each is now slow by any measure


def test_slow_bodies_renewed_do_not_keep_an_operator_out(thread_piece):
    """64 POSTs whose bodies trickle in (a byte every 0.3 s), renewed 20 times a second, on a
    loopback panel: each counted as a request in hand for the 5 s a body may take, so every slot
    was held and the operator's browser was closed as it connected, for as long as it went on.
    A body that arrives that slowly now gives its slot: page, API and a setting all answer."""
    piece = thread_piece()
    server = piece.panel.server
    flood = Renewed(lambda: _slow_post(piece.url), MAX_CONNECTIONS, every_s=0.05, trickle_s=0.3)
    try:
        _wait_full(server)

        async def operator() -> tuple[int, int, int]:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as s:
                async with s.get(piece.url) as page:
                    await page.read()
                async with s.get(piece.url + "api/info") as info:
                    await info.read()
                async with s.post(piece.url + "api/set", json={"values": {"motion.threshold": 31}}) as put:
                    await put.read()
                return page.status, info.status, put.status
        assert run(operator()) == (200, 200, 200)
        stats = server.connection_stats()
        assert stats["open"] <= MAX_CONNECTIONS and stats["shed"] >= 1, stats
        assert _is_closed(flood.socks[0])                          # the oldest slow one made room
    finally:
        flood.stop()
    assert piece.error is None


def _slow_post(url: str) -> socket.socket:
    s = _raw(url)
    s.sendall(SLOW_HEAD)
    return s


def test_websockets_without_the_token_renewed_do_not_keep_the_operator_out(thread_piece):
    """A panel with a token: video WebSocket handshakes that never send it, renewed 20 times a
    second, each held its slot for the 5 s the token may take: every slot was held and the
    operator, token in hand, was closed as they connected. One waiting for its token now gives
    its slot: the operator's API call and live WebSocket answer."""
    from sensekit.panel.guard import TOKEN_HEADER
    from tests.panel.test_server import TOKEN

    piece = thread_piece(token=TOKEN)
    server = piece.panel.server
    flood = Renewed(lambda: _ws_without_token(piece.url), MAX_CONNECTIONS, every_s=0.05)
    try:
        _wait_full(server)

        async def operator() -> tuple[int, dict[str, object]]:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as s:
                async with s.get(piece.url + "api/info", headers={TOKEN_HEADER: TOKEN}) as info:
                    await info.read()
                async with s.ws_connect(piece.url + "ws/live") as ws:
                    await ws.send_json({"token": TOKEN})
                    update = await ws.receive_json(timeout=5)
                return info.status, update
        status, update = run(operator())
        assert status == 200 and "settings" in update
        stats = server.connection_stats()
        assert stats["open"] <= MAX_CONNECTIONS and stats["shed"] >= 1, stats
    finally:
        flood.stop()
    assert piece.error is None
