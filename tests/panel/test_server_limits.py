"""The panel's limits (issue 21): hostile bodies are 400s with a message, never 500s; live clients
are capped; half-open connections and stalled bodies time out; the token is checked from the
headers, before any body is read."""
from __future__ import annotations

import asyncio
import contextlib
import select
import socket
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlparse

import aiohttp
import pytest

from sensekit.panel import server as panel_server
from sensekit.panel.guard import TOKEN_HEADER
from tests.panel.test_server import TOKEN, run

HOSTILE = [
    ("api/pick", '{"x": NaN, "y": 1}', "not a number JSON allows"),
    ("api/pick", '{"x": Infinity, "y": 1}', "not a number JSON allows"),
    ("api/pick", '{"x": -Infinity, "y": 1}', "not a number JSON allows"),
    ("api/pick", '{"x": 1e400, "y": 1}', "`x` must be a number (finite), got inf"),
    ("api/track-box", '{"box": [1, 2, NaN, 4]}', "not a number JSON allows"),
    ("api/track-box", '{"box": [1, 2, 1e999, 4]}', "`box` must be [x, y, w, h] in pixels (finite numbers)"),
    ("api/zone", '{"name": "door", "box": [0, 0, Infinity, 1]}', "not a number JSON allows"),
    ("api/zone", '{"name": "door", "box": [0, 0, -1e309, 1]}', "`box` must be [x, y, w, h]"),
    ("api/zone", '{"name": ' + "[" * 30000 + "]" * 30000 + ', "box": [0, 0, 1, 1]}', "nested more than 8 levels"),
    ("api/set", '{"values": {"motion.threshold": ' + "9" * 4000 + "}}", "a number of 4000 digits"),
    ("api/set", '{"values": {"motion.threshold": 1' + "0" * 30 + "}}", "`motion.threshold` must be"),
    ("api/set", '{"texts": {"motion.threshold": "' + "9" * 4000 + '"}}', "`motion.threshold` must be"),
    ("api/set", '{"values": {"motion.zones": {"a": [0, 0, 1e400, 1]}}}', "motion.zones"),
    ("api/pick", "[" * 30000, "nested more than 8 levels"),
    ("api/pick", '"\\ud800"', "must be a JSON object"),
]


@pytest.mark.parametrize("path, body, fragment", HOSTILE, ids=[f"{p}-{i}" for i, (p, _, _) in enumerate(HOSTILE)])
def test_hostile_bodies_are_400s_with_a_message(thread_piece, path, body, fragment):
    piece = thread_piece()

    async def go() -> tuple[int, str]:
        async with aiohttp.ClientSession() as s, \
                s.post(piece.url + path, data=body, headers={"Content-Type": "application/json"}) as r:
            return r.status, (await r.json())["error"]
    status, message = run(go())
    assert status == 400 and fragment in message, message
    assert len(message) < 300 and "\n" not in message
    assert piece.error is None


def test_hostile_websocket_messages_leave_the_client_working(thread_piece):
    piece = thread_piece()

    async def go() -> int:
        frames = 0
        async with aiohttp.ClientSession() as s, s.ws_connect(piece.url + "ws/video") as ws:
            for junk in ("[" * 30000, '{"ack": NaN}', "1" * 5000, '{"overlays": ' + "[" * 20 + "}", "\xff"):
                await ws.send_str(junk)
            await ws.send_json({"overlays": []})
            deadline = time.monotonic() + 10
            while frames < 3 and time.monotonic() < deadline:
                msg = await ws.receive(timeout=10)
                assert msg.type == aiohttp.WSMsgType.BINARY
                frames += 1
                await ws.send_json({"ack": 1})
        return frames
    assert run(go()) == 3


def test_live_clients_are_capped(thread_piece, monkeypatch):
    monkeypatch.setattr(panel_server, "MAX_LIVE_CLIENTS", 3)
    piece = thread_piece()

    async def go() -> tuple[int, int]:
        async with aiohttp.ClientSession() as s:
            held = [await s.ws_connect(piece.url + "ws/live") for _ in range(3)]
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await s.ws_connect(piece.url + "ws/live")
            for ws in held:
                await ws.close()
            await asyncio.sleep(0.3)
            again = await s.ws_connect(piece.url + "ws/live")     # room again once they left
            msg = await again.receive(timeout=5)
            await again.close()
            return refused.value.status, msg.type
    status, kind = run(go())
    assert status == 503 and kind == aiohttp.WSMsgType.TEXT


def _raw(url: str) -> socket.socket:
    u = urlparse(url)
    return socket.create_connection((u.hostname, u.port), timeout=10)


def _closed_by_server(sock: socket.socket, guard_s: float = 30.0) -> tuple[bool, bytes]:
    """Whether the server closed ``sock`` (reading what it said first); ``False`` when
    ``guard_s`` ran out first (a hang guard, far above the timeouts under test)."""
    got = b""
    sock.settimeout(guard_s)
    try:
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                return True, got
            got += chunk
    except ConnectionResetError:
        return True, got
    except TimeoutError:
        return False, got


def test_half_open_requests_are_closed_after_the_header_timeout(thread_piece, monkeypatch):
    monkeypatch.setattr(panel_server, "HEADER_TIMEOUT_S", 1.0)
    piece = thread_piece()
    socks = [_raw(piece.url) for _ in range(20)]
    for i, s in enumerate(socks):
        if i % 2:
            s.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")   # never finished
    # 3 s: above the 1 s under test, below the 5 s default (a patch that did not take fails)
    closed = [_closed_by_server(s, guard_s=3.0)[0] for s in socks]
    for s in socks:
        s.close()
    assert closed == [True] * 20, closed                   # each closed by the server's 1 s timeout


def test_a_stalled_body_times_out(thread_piece, monkeypatch):
    monkeypatch.setattr(panel_server, "BODY_TIMEOUT_S", 0.5)
    piece = thread_piece()
    s = _raw(piece.url)
    s.sendall(b"POST /api/pick HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              b"Content-Length: 100\r\n\r\n{\"x\": 1")
    closed, reply = _closed_by_server(s)
    s.close()
    assert reply.startswith(b"HTTP/1.1 400") and b"did not arrive within 0.5 s" in reply
    assert closed


def test_the_token_is_checked_before_the_body(thread_piece, monkeypatch):
    # the body would be waited for an hour: an answer before that is one made from the headers
    monkeypatch.setattr(panel_server, "BODY_TIMEOUT_S", 3600.0)
    piece = thread_piece(token=TOKEN)
    for token in (b"", b"wrong-token-00"):
        s = _raw(piece.url)
        header = TOKEN_HEADER.encode() + b": " + token + b"\r\n" if token else b""
        s.sendall(b"POST /api/set HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  + header + b"Content-Length: 60000\r\n\r\n")          # the body never comes
        s.settimeout(30.0)                                                # a hang guard
        reply = s.recv(4096)
        s.close()
        assert reply.startswith(b"HTTP/1.1 401" if not token else b"HTTP/1.1 403")
    assert piece.panel is not None and piece.panel.server.refused == 2


def _pipelining_reader_that_never_reads(url: str, path: str) -> socket.socket:
    u = urlparse(url)
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect((u.hostname, u.port))
    s.setblocking(False)
    with contextlib.suppress(BlockingIOError):
        s.send(f"GET {path} HTTP/1.1\r\nHost: {u.netloc}\r\n\r\n".encode() * 2000)
    return s


def _server_ends(url: str) -> int:
    """Established TCP connections whose local end is the panel's port (Linux
    ``/proc/net/tcp``): the server's side of each client's connection."""
    port = f":{urlparse(url).port:04X}"
    lines = Path("/proc/net/tcp").read_text().splitlines()[1:]
    return sum(1 for line in lines if line.split()[1].endswith(port) and line.split()[3] == "01")


def test_a_client_that_never_reads_its_answers_is_closed(thread_piece):
    """Pipelined requests whose answers are never read: the server kept each such connection
    (its buffers, a descriptor) for good - the header and keep-alive timeouts only apply to an
    idle one. Now one whose client takes nothing for 5 s is closed; other clients go on."""
    piece = thread_piece()
    server = piece.panel.server
    socks = [_pipelining_reader_that_never_reads(piece.url, path)
             for path in ("/", "/api/settings", "/static/panel.js") * 2]
    try:
        deadline = time.monotonic() + 20
        while _server_ends(piece.url) > 0 and time.monotonic() < deadline:
            with urllib.request.urlopen(piece.url + "api/info", timeout=5) as r:    # another client
                assert r.status == 200
            time.sleep(0.5)
        assert _server_ends(piece.url) == 0, "the server kept connections whose client never reads"
        stats = server.connection_stats()
        assert stats["stalled"] == len(socks) and stats["open"] <= 1, stats
    finally:
        for s in socks:
            s.close()
    assert piece.error is None


def test_connections_over_the_cap_are_closed_at_once_and_clients_in_keep_working(thread_piece):
    """300 connections at once from one client: each held a descriptor of the run's process until
    the header timeout (1,500 took a process with the usual limit of 1,024 to "Too many open
    files"). Over 64 open, a new one takes the slot of the oldest that never sent a request (or is
    closed as it is accepted when none has one to give); a client already connected goes on working."""
    piece = thread_piece()
    server = piece.panel.server

    async def go() -> None:
        async with aiohttp.ClientSession() as session:
            async with session.get(piece.url + "api/info") as r:
                assert r.status == 200
            socks = [_raw(piece.url) for _ in range(300)]
            try:
                closed: set[socket.socket] = set()
                deadline = time.monotonic() + 3.0          # well before the 5 s header timeout
                while len(closed) < 100 and time.monotonic() < deadline:
                    await asyncio.sleep(0.2)
                    readable, _, _ = select.select([s for s in socks if s not in closed], [], [], 0)
                    for s in readable:                     # the server said nothing: closed
                        try:
                            if s.recv(1) == b"":
                                closed.add(s)
                        except ConnectionResetError:
                            closed.add(s)
                assert len(closed) >= 100, len(closed)
                stats = server.connection_stats()
                # closed for a newcomer (the oldest silent ones) or as accepted (a newcomer that
                # found every slot taken by connections made in the same accept batch)
                assert stats["refused"] + stats["shed"] >= 100, (len(closed), stats)
                assert stats["open"] <= 64, stats
                async with session.get(piece.url + "api/info") as r:     # the same connection
                    assert r.status == 200
            finally:
                for s in socks:
                    s.close()

    run(go())
