"""The fault matrix's rows for the browser panel (``benchmarks/fault_matrix.py`` runs them):
hostile requests, a token flood, connection floods of silent, slow-bodied and token-less
clients, each checked by whether the operator still gets in. ``panel_rows(row)`` adds them
through the matrix's ``row``.
"""
from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from pathlib import Path
from typing import Any, Callable

_ROW: list[Callable[[str, str, str, bool], None]] = []


def row(area: str, case: str, outcome: str, ok: bool) -> None:
    _ROW[0](area, case, outcome, ok)


def panel_rows(add_row: Callable[[str, str, str, bool], None]) -> None:
    """Every panel row, each through ``add_row`` (the matrix's ``row``)."""
    _ROW[:] = [add_row]
    panel_matrix()


def panel_matrix() -> None:
    import aiohttp

    from _replay_panel import start_replay_panel                 # (benchmarks/: this folder)
    from sensekit.panel import server as panel_server

    panel, _runner, thread, stop, source = start_replay_panel(Path("venue.toml"), speed=2.0, title="matrix")
    url = panel.url
    bodies = [("api/pick", '{"x": NaN, "y": 1}'), ("api/pick", '{"x": Infinity, "y": 1}'),
              ("api/track-box", '{"box": [1, 2, NaN, 4]}'), ("api/zone", '{"name": "d", "box": [0, 0, Infinity, 1]}'),
              ("api/set", '{"values": ' + "[" * 30000 + "]" * 30000 + "}"),
              ("api/set", '{"values": {"motion.threshold": ' + "9" * 4000 + "}}")]

    async def go() -> None:
        async with aiohttp.ClientSession() as s:
            for route, body in bodies:
                async with s.post(url + route, data=body, headers={"Content-Type": "application/json"}) as r:
                    text = (await r.json()).get("error", "")
                    row("panel", f"POST /{route} {body[:40]}{'...' if len(body) > 40 else ''}",
                        f"HTTP {r.status}: {text}", r.status == 400)
            held = []
            try:
                for _ in range(panel_server.MAX_LIVE_CLIENTS + 1):
                    held.append(await s.ws_connect(url + "ws/live"))
                row("panel", f"{panel_server.MAX_LIVE_CLIENTS + 1} live clients", "all accepted (!)", False)
            except aiohttp.WSServerHandshakeError as exc:
                row("panel", f"{panel_server.MAX_LIVE_CLIENTS + 1} live clients",
                    f"the last one: HTTP {exc.status}", exc.status == 503)
            for ws in held:
                await ws.close()
    asyncio.run(go())
    host, port = url.split("//")[1].rstrip("/").split(":")
    socks = []
    for _ in range(50):
        c = socket.create_connection((host, int(port)))
        c.sendall(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        socks.append(c)
    t0 = time.monotonic()
    for c in socks:
        c.settimeout(30)
        with contextlib.suppress(OSError):
            while c.recv(4096):
                pass
    held_s = time.monotonic() - t0
    for c in socks:
        c.close()
    row("panel", "50 half-open requests (headers never finished)", f"all closed by the server after {held_s:.1f} s",
        held_s < panel_server.HEADER_TIMEOUT_S + 3)
    flood_row(url, panel)
    time.sleep(1.0)
    flood_row(url, panel, SLOW_POST, "POSTs whose bodies trickle in (a byte every 0.05 s)")
    stop.set()
    thread.join(10)
    panel.close()
    source.close()
    token_flood_row()


def token_flood_row() -> None:
    """A panel with a token: WebSocket handshakes that never send it hold every slot (harden14)."""
    from sensekit.capture.replay import ReplaySource
    from sensekit.panel import Panel, parse_panel_address
    from sensekit.panel.control import StagesControl
    from sensekit.paths import recordings_dir
    from sensekit.runner import Runner
    from sensekit.settings.live import Tuning
    from sensekit.vision.motion import MotionDetector
    from sensekit.vision.pipeline import VisionStage

    token = "matrix-token-1234"
    source = ReplaySource(recordings_dir() / "demo.skrec", realtime=False, loop=True)
    source.open()
    runner = Runner(source, [VisionStage(motion=MotionDetector())])
    panel = Panel(parse_panel_address("127.0.0.1:0", token), runner,
                  StagesControl(runner, Tuning(lambda: runner.stages), None, Path("venue.toml")),
                  info={"title": "matrix"})
    panel.start()
    try:
        flood_row(panel.url, panel, WS_NO_TOKEN, "video WebSockets that never send the token", token)
    finally:
        panel.close()
        source.close()


SLOW_POST = (b"POST /api/set HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
             b"Content-Length: 60000\r\n\r\n{")
WS_NO_TOKEN = (b"GET /ws/video HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")


async def _browser(url: str, token: str | None) -> str:
    """The page and a live update, as a browser (with the panel's token) gets them."""
    import aiohttp

    from sensekit.panel.guard import TOKEN_HEADER

    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as s:
        async with s.get(url, headers={TOKEN_HEADER: token} if token else {}) as page:
            await page.read()
        async with s.ws_connect(url + "ws/live") as ws:
            if token:
                await ws.send_json({"token": token})
            update = await ws.receive_json(timeout=5)
        return f"page HTTP {page.status}, a live update of {len(update)} fields"


def flood_row(url: str, panel: Any, first: bytes = b"", what: str = "silent connections",
              token: str | None = None) -> None:
    """64 connections that each send ``first`` (nothing: silent) hold every slot, renewed 20 times
    a second while a browser (with ``token``) asks for the page and a live update."""
    import aiohttp

    from sensekit.panel import connections
    from sensekit.panel.connections import MAX_CONNECTIONS

    slow_s = getattr(connections, "SLOW_REQUEST_S", 2.0)           # (a checkout before harden14)
    host, port = url.split("//")[1].rstrip("/").split(":")
    before = panel.server.connection_stats()

    def one() -> socket.socket:
        c = socket.create_connection((host, int(port)))
        c.sendall(first)
        return c
    socks = [one() for _ in range(MAX_CONNECTIONS)]
    deadline = time.monotonic() + 5
    while panel.server.connection_stats()["open"] < MAX_CONNECTIONS and time.monotonic() < deadline:
        time.sleep(0.05)
    stop = threading.Event()

    def renew() -> None:
        while first and not stop.wait(0.05):
            socks.append(one())
            for c in socks[-2 * MAX_CONNECTIONS:]:
                with contextlib.suppress(OSError):
                    c.sendall(b" " if first is SLOW_POST else b"")
    if first:
        time.sleep(slow_s)
    renewer = threading.Thread(target=renew, daemon=True)
    renewer.start()
    if first:                             # past the 5 s a body or a token may take: the first 64
        time.sleep(6.0)                   # are gone, the slots hold renewed ones only

    try:
        got, ok = asyncio.run(_browser(url, token)), True
    except (aiohttp.ClientError, asyncio.TimeoutError) as exc:
        got, ok = f"the browser got no answer: {type(exc).__name__}", False
    stop.set()
    renewer.join(5)
    stats = {k: v - before[k] for k, v in panel.server.connection_stats().items()}
    for c in socks:
        c.close()
    row("panel", f"{MAX_CONNECTIONS} {what} hold every slot{', renewed' if first else ''}, then a browser"
        + (" with the token" if token else ""),
        f"{got}; {stats['shed']} closed to make room, {stats['refused']} refused", ok)
