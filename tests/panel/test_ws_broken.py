"""WebSocket clients that break off mid-message: each one only ends its own connection.

Raw sockets speak the upgrade, then send a frame that never completes (half a header, a
header announcing 60,000 bytes followed by 100, a length of 2^63 - 1, a first fragment with no
last one) and hang up. With the client caps lowered to 3, twice as many such clients as the
cap come and go on both sockets; afterwards a well-behaved client still gets its updates and
frames (a slot that were never given back would make it a 503), and the run never stopped.
"""
from __future__ import annotations

import asyncio
import base64
import os
import socket
import struct
import time
from urllib.parse import urlparse

import aiohttp

from sensekit.panel import server as panel_server
from tests.panel.test_server import run


def _mask(payload: bytes, key: bytes) -> bytes:
    return bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def _text_header(length: int, *, fin: bool = True) -> bytes:
    """A client's (masked) text frame header announcing ``length`` bytes."""
    first = (0x80 if fin else 0) | 0x1
    if length < 126:
        return bytes([first, 0x80 | length])
    if length < 1 << 16:
        return bytes([first, 0x80 | 126]) + struct.pack(">H", length)
    return bytes([first, 0x80 | 127]) + struct.pack(">Q", length)


KEY = b"\x11\x22\x33\x44"
BROKEN = {
    "half a header": _text_header(60000)[:3],
    "60,000 announced, 100 sent": _text_header(60000) + KEY + _mask(b"{" * 100, KEY),
    "2^63-1 announced": _text_header((1 << 63) - 1) + KEY + b"{}",
    "a first fragment, no last": _text_header(2, fin=False) + KEY + _mask(b'{"', KEY),
}


def _upgrade(url: str, path: str) -> socket.socket:
    u = urlparse(url)
    sock = socket.create_connection((u.hostname, u.port), timeout=10)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /{path} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        assert chunk, f"the server closed /{path} during the upgrade"
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head[:80]
    return sock


def test_clients_cut_off_mid_message_give_their_slot_back(thread_piece, monkeypatch):
    monkeypatch.setattr(panel_server, "MAX_LIVE_CLIENTS", 3)
    monkeypatch.setattr(panel_server, "MAX_VIDEO_CLIENTS", 3)
    piece = thread_piece()
    for path in ("ws/live", "ws/video"):
        for _ in range(2):
            for junk in BROKEN.values():
                sock = _upgrade(piece.url, path)
                sock.sendall(junk)
                sock.close()
    frames_before = piece.runner.stats.frames

    async def well_behaved() -> tuple[aiohttp.WSMsgType, aiohttp.WSMsgType]:
        deadline = time.monotonic() + 10
        async with aiohttp.ClientSession() as s:
            while True:          # the server notices the hang-ups within moments, not at a timeout
                try:
                    live = await s.ws_connect(piece.url + "ws/live")
                    video = await s.ws_connect(piece.url + "ws/video")
                    break
                except aiohttp.WSServerHandshakeError:
                    assert time.monotonic() < deadline, "the broken clients' slots were never freed"
                    await asyncio.sleep(0.2)
            await video.send_json({"overlays": []})
            kinds = (await live.receive(timeout=5)).type, (await video.receive(timeout=5)).type
            await live.close()
            await video.close()
            return kinds
    assert run(well_behaved()) == (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY)
    time.sleep(0.3)
    assert piece.error is None and piece.runner.stats.frames > frames_before
