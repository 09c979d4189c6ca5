"""The panel's connection cap under a flood (``sensekit/panel/connections.py``): when the 64 slots
are full, the connection that has done least for its slot is closed to make room, so an operator
who opens the panel during a flood (or after a script leaked connections) still gets the page, its
script and its live WebSocket; connections doing work are never closed for a newcomer."""
from __future__ import annotations

import asyncio
import socket
import threading
import time

import aiohttp

from sensekit.panel.connections import MAX_CONNECTIONS
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
