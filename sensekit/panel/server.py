"""``PanelServer``: the panel's web server (aiohttp), on its own thread and event loop.

The run's loop is never blocked by it: the server only reads what the loop handed over
(``FrameHub``, ``Telemetry``), applies settings through the thread-safe settings table, and
sends picks and saves to the loop through ``CommandQueue`` (answered within a frame or block).
JPEG encoding runs on two worker threads.

Routes:

=====================  =========================================================================
``GET /``              the page (``static/index.html``; ``/static/...`` for its script and style)
``GET /api/info``      what runs: title, source, inputs, overlay names
``GET /api/settings``  the running groups of the settings table, with values (and ``in_use``)
``POST /api/set``      ``{"values": {key: value}}``: every value checked first; the error names
                       the key and changes nothing
``POST /api/pick``     ``{"x", "y"}`` camera pixels: pick the colour there
``POST /api/track-box``  ``{"box": [x, y, w, h]}``: track what is inside
``POST /api/resize``   ``{"step": 1 | -1}``: the last click's next larger / smaller box
``POST /api/zone``     ``{"name", "box": [x, y, w, h]}`` pixels: set a motion zone
``POST /api/save``     write the venue profile (comments kept)
``GET /ws/video``      WebSocket: binary frames (``frames.pack``); the client sends
                       ``{"overlays": [...]}`` and ``{"ack": 1}`` after drawing each frame - at
                       most ``VIDEO_CREDITS`` frames are in flight, the rest are skipped
``GET /ws/live``       WebSocket: JSON ``Telemetry`` updates ten times a second, with the
                       settings' values (``"settings"``) when any changed (keys, OSC, another
                       browser) and at least every ``SETTINGS_RESEND_S``; ``"in_use"`` with
                       them and when it changes: what a setting left empty to be learned uses
                       now, or "learning" (``noise_floor.level``)
=====================  =========================================================================

Security (``guard.py``, ``address.py``): with a token, every ``/api`` request carries it in the
``X-Sensekit-Token`` header and every WebSocket sends ``{"token": ...}`` first; a missing token
is 401 (WebSocket close 4401), a wrong one 403 (close 4403), compared in constant time. Without
one (loopback only) the server still refuses a ``Host`` header that is not a loopback name
(DNS rebinding) and, always, an ``Origin`` other than its own (another site's page in the same
browser) and a ``POST`` that is not ``application/json`` (cross-site forms). Request bodies are
limited to 64 KiB (and must arrive within ``BODY_TIMEOUT_S``), JSON to ``MAX_JSON_DEPTH`` levels,
with no NaN, Infinity or 40-digit numbers (400 with a message); video clients to
``MAX_VIDEO_CLIENTS``, live clients to ``MAX_LIVE_CLIENTS`` (503 beyond); a connection must send
its headers within ``HEADER_TIMEOUT_S`` and is closed when idle that long; at most 64 are open
at once, and one whose client leaves what it was sent unread for 5 s is closed
(``connections.py``); the token is checked from the headers, before any body is read; no access
log (nothing to leak).

Failure modes: ``start()`` raises ``ConfigError`` when the address cannot be bound (in use, not
an address of this machine). A client that vanishes mid-frame only ends its own connection.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future, ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from sensekit.arg_types import checked
from sensekit.bind_errors import bind_failure
from sensekit.errors import ConfigError, SensekitError
from sensekit.panel.address import PanelAddress
from sensekit.panel.commands import CommandQueue
from sensekit.panel.connections import ConnectionCap
from sensekit.panel.control import PanelControl
from sensekit.panel.frames import FrameHub
from sensekit.panel import malformed
from sensekit.panel.guard import SECURITY_HEADERS, TOKEN_HEADER, foreign, token_problem
from sensekit.panel.malformed import header_problem, protocol_problem
from sensekit.panel.teach import ACTIONS
from sensekit.panel.teach_sound import SOUND_ACTIONS
from sensekit.vision.layers import OVERLAYS
from sensekit.panel.telemetry import Telemetry
from sensekit.safe_read import loads_json, short
from sensekit.settings.live import Tunable

__all__ = ["MAX_VIDEO_CLIENTS", "STATIC_DIR", "VIDEO_CREDITS", "PanelServer"]

log = logging.getLogger(__name__)

STATIC_DIR = Path(str(resources.files("sensekit.panel") / "static"))
MAX_VIDEO_CLIENTS = 8
#: frames sent to one client before it acknowledges one (a slow client gets fewer frames)
VIDEO_CREDITS = 2
LIVE_INTERVAL_S = 0.1
#: the live socket resends the settings' values at least this often (a group that appears
#: later, ``motion.method=background``, shows up without a reload)
SETTINGS_RESEND_S = 1.0
COMMAND_TIMEOUT_S = 5.0
AUTH_TIMEOUT_S = 5.0
MAX_LIVE_CLIENTS = 16
#: a new connection must send its request headers within this (and an idle keep-alive
#: connection is closed after it): half-open connections cannot pile up
HEADER_TIMEOUT_S = 5.0
#: a request's body must arrive within this
BODY_TIMEOUT_S = 5.0
MAX_BODY_BYTES = 64 * 1024
#: JSON nesting in a request body or a WebSocket message (bodies need 3 levels)
MAX_JSON_DEPTH = 8

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

def parse_body(raw: bytes) -> dict[str, Any]:
    """A request body -> its JSON object, or ``ConfigError`` (nesting, digit runs, NaN and
    Infinity refused before ``json`` parses)."""
    try:
        body = loads_json(raw, what="the request body", max_depth=MAX_JSON_DEPTH)
    except ConfigError as exc:
        raise ConfigError(f"the request body must be a JSON object: {exc}") from None
    if not isinstance(body, dict):
        raise ConfigError("the request body must be a JSON object")
    return body


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


class PanelServer:
    @checked
    def __init__(self, address: PanelAddress, hub: FrameHub, telemetry: Telemetry,
                 commands: CommandQueue, control: PanelControl, *, info: dict[str, Any]) -> None:
        self.address = address
        self.hub = hub
        self.telemetry = telemetry
        self.commands = commands
        self.control = control
        self.info = info
        self.port = address.port
        #: requests refused for a missing/wrong token, a foreign Host or Origin
        self.refused = 0
        self.video_clients = 0
        self.live_clients = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._runner: web.AppRunner | None = None
        self._cap = ConnectionCap()
        self._listener: asyncio.Server | None = None
        self._watch: asyncio.Future[None] | None = None     # ConnectionCap.watch
        self._sockets: set[web.WebSocketResponse] = set()
        self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="sensekit-panel-encode")
        self._frame_waiter: asyncio.Future[None] | None = None
        self._saving = False                                 # a save is being written

    # -- lifecycle --------------------------------------------------------------------------
    @property
    def url(self) -> str:
        return self.address.url(self.port)

    def connection_stats(self) -> dict[str, int]:
        """Connections open now, closed to make room for a newcomer (``shed``), newcomers closed
        with every slot busy (``refused``) and closed for not reading (``connections.py``)."""
        cap = self._cap
        return {"open": cap.open, "shed": cap.shed, "refused": cap.refused, "stalled": cap.stalled}

    def start(self) -> str:
        """Bind and serve on a thread of its own; returns the page's URL."""
        self._thread = threading.Thread(target=self._serve, name="sensekit-panel", daemon=True)
        self._thread.start()
        self._ready.wait(15.0)
        if self._error is not None:
            a = self.address
            raise ConfigError(f"--panel: cannot listen on {a.host}:{a.port}: "
                              f"{bind_failure(self._error, a.port)}")
        self.hub.on_publish = self._publish_callback()
        return self.url

    def _serve(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._bind())
        except (TimeoutError, OSError) as exc:
            self._error = exc
            self._ready.set()
            loop.close()
            return
        self._loop = loop
        self._frame_waiter = loop.create_future()
        self._ready.set()
        malformed.install()       # aiohttp's traceback for each malformed request: one counted line
        try:
            loop.run_forever()
        finally:
            malformed.uninstall()
            loop.run_until_complete(self._shutdown())
            self._finish_tasks(loop)
            loop.close()

    @staticmethod
    def _finish_tasks(loop: asyncio.AbstractEventLoop) -> None:
        """Cancel what is still running (a request waiting on the run's thread when the piece
        ended) and let it finish, within a second: a task left pending when the loop closes is
        printed as two lines of "Task was destroyed but it is pending!" per connection."""
        tasks = asyncio.all_tasks(loop)
        for task in tasks:
            task.cancel()
        if tasks:
            loop.run_until_complete(asyncio.wait(tasks, timeout=1.0))

    async def _bind(self) -> None:
        app = web.Application(middlewares=[self._guard, self._cap.middleware],
                              client_max_size=MAX_BODY_BYTES)
        app.on_response_prepare.append(self._headers)
        app.add_routes([
            web.get("/", self._index),
            web.get("/api/info", self._api_info),
            web.get("/api/settings", self._api_settings),
            web.post("/api/set", self._api_set),
            web.post("/api/pick", self._api_pick),
            web.post("/api/track-box", self._api_track_box),
            web.post("/api/resize", self._api_resize),
            web.post("/api/zone", self._api_zone),
            web.post("/api/save", self._api_save),
            web.post("/api/teach", self._api_teach),
            web.post("/api/teach-sound", self._api_teach_sound),
            web.get("/ws/video", self._ws_video),
            web.get("/ws/live", self._ws_live),
            web.static("/static", STATIC_DIR),
        ])
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0,
                                     keepalive_timeout=HEADER_TIMEOUT_S, lingering_time=1.0)
        await self._runner.setup()
        # the runner's server is the protocol factory; the cap stands in front of it (no site)
        self._listener = await self._cap.serve(self._runner, self.address.host, self.address.port)
        self._watch = asyncio.ensure_future(self._cap.watch())
        if self._listener.sockets:
            self.port = int(self._listener.sockets[0].getsockname()[1])

    async def _shutdown(self) -> None:
        for ws in list(self._sockets):
            await ws.close(code=1001, message=b"the piece stopped")
        if self._listener is not None:
            self._listener.close()                  # no new connections; the open ones end below
        if self._runner is not None:
            await self._runner.cleanup()

    def close(self) -> None:
        """Stop serving (clients are told the piece stopped); safe to call twice."""
        self.hub.on_publish = None
        loop, thread = self._loop, self._thread
        if loop is not None and thread is not None and thread.is_alive():
            loop.call_soon_threadsafe(loop.stop)
            thread.join(5.0)
        self._pool.shutdown(wait=False, cancel_futures=True)

    # -- new frames wake the video clients ---------------------------------------------------
    def _publish_callback(self) -> Callable[[], None]:
        loop = self._loop

        def wake() -> None:
            waiter, self._frame_waiter = self._frame_waiter, loop.create_future() if loop else None
            if waiter is not None and not waiter.done():
                waiter.set_result(None)

        def on_publish() -> None:
            if loop is not None and not loop.is_closed():
                with contextlib.suppress(RuntimeError):   # the loop closed meanwhile
                    loop.call_soon_threadsafe(wake)
        return on_publish

    # -- guard: host, origin, token (sensekit.panel.guard) -----------------------------------
    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        bad_header = header_problem(request)     # before aiohttp's own 400 quotes it and cannot encode it
        if bad_header is not None:
            return _error(400, bad_header)
        why = foreign(request.host or "", request.headers.get("Origin"), loopback=self.address.loopback)
        if why is not None:
            self.refused += 1
            return _error(403, why)
        if request.path.startswith("/api/"):
            problem = token_problem(request.headers.get(TOKEN_HEADER), self.address.token)
            if problem is not None:
                self.refused += 1
                return _error(*problem)
            if request.method == "POST" and request.content_type != "application/json":
                return _error(415, "send the request as application/json")
        return await handler(request)

    @staticmethod
    async def _headers(request: web.Request, response: web.StreamResponse) -> None:
        for k, v in SECURITY_HEADERS.items():
            response.headers.setdefault(k, v)
        if isinstance(response, web.FileResponse):
            # through the transport, not sendfile (which goes past it): a client that never reads
            # a page is then seen and closed (connections.py); aborted mid-sendfile, asyncio broke
            response.enable_compression()

    # -- page and API ------------------------------------------------------------------------
    async def _index(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC_DIR / "index.html")

    async def _api_info(self, request: web.Request) -> web.Response:
        return web.json_response({**self.info, "overlays": list(OVERLAYS),
                                  "token_required": self.address.token is not None,
                                  "status": self.telemetry.status()})

    async def _api_settings(self, request: web.Request) -> web.Response:
        return web.json_response(self.control.settings())

    async def _body(self, request: web.Request) -> dict[str, Any]:
        try:
            raw = await asyncio.wait_for(request.read(), BODY_TIMEOUT_S)
        except TimeoutError:
            raise ConfigError(f"the request body did not arrive within {BODY_TIMEOUT_S:g} s") from None
        except web.RequestPayloadError as exc:       # a body that is not the gzip it claims: was a 500
            raise ConfigError(f"the request body could not be read: {protocol_problem(exc)}") from None
        return parse_body(raw)

    async def _answer(self, work: Callable[[], Awaitable[Any]]) -> web.Response:
        try:
            return web.json_response(await work())
        except TimeoutError:          # before OSError, of which it is a subclass
            return _error(504, f"the piece did not answer within {COMMAND_TIMEOUT_S:g} s")
        except (SensekitError, OSError) as exc:
            return _error(400, str(exc))

    async def _on_run_thread(self, fn: Callable[[], Any], *, light: bool = False) -> Any:
        future: Future[Any] = self.commands.submit(fn, light=light)
        return await asyncio.wait_for(asyncio.wrap_future(future), COMMAND_TIMEOUT_S)

    async def _api_set(self, request: web.Request) -> web.Response:
        async def work() -> Any:
            body = await self._body(request)
            values, texts = body.get("values", {}), body.get("texts", {})
            if not isinstance(values, dict) or not isinstance(texts, dict) or not (values or texts) \
                    or not all(isinstance(v, str) for v in texts.values()):
                raise ConfigError('send {"values": {"SECTION.NAME": value, ...}} '
                                  'or {"texts": {"SECTION.NAME": "text", ...}}')
            return self.control.apply(values, texts)
        return await self._answer(work)

    @staticmethod
    def _numbers(body: dict[str, Any], *names: str) -> list[float]:
        out = []
        for name in names:
            v = body.get(name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise ConfigError(f"`{name}` must be a number (finite), got {short(v)}")
            out.append(float(v))
        return out

    @staticmethod
    def _box(body: dict[str, Any]) -> list[float]:
        box = body.get("box")
        if not isinstance(box, list) or len(box) != 4 or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in box):
            raise ConfigError(f"`box` must be [x, y, w, h] in pixels (finite numbers), got {short(box)}")
        return [float(v) for v in box]

    async def _api_pick(self, request: web.Request) -> web.Response:
        async def work() -> Any:
            x, y = self._numbers(await self._body(request), "x", "y")
            return await self._on_run_thread(lambda: self.control.pick(x, y))
        return await self._answer(work)

    async def _api_track_box(self, request: web.Request) -> web.Response:
        async def work() -> Any:
            box = self._box(await self._body(request))
            return await self._on_run_thread(lambda: self.control.track_box(box))
        return await self._answer(work)

    async def _api_resize(self, request: web.Request) -> web.Response:
        async def work() -> Any:
            step = (await self._body(request)).get("step")
            if step not in (1, -1) or isinstance(step, bool):
                raise ConfigError(f"`step` must be 1 (larger) or -1 (smaller), got {short(step)}")
            return await self._on_run_thread(lambda: self.control.resize(int(step)))
        return await self._answer(work)

    async def _api_zone(self, request: web.Request) -> web.Response:
        async def work() -> Any:
            body = await self._body(request)
            name = body.get("name")
            if not isinstance(name, str):
                raise ConfigError(f"`name` must be a zone name, got {short(name)}")
            box = self._box(body)
            return await self._on_run_thread(lambda: self.control.set_zone(name, box))
        return await self._answer(work)

    async def _api_save(self, request: web.Request) -> web.Response:
        """The values are read on the run's thread; the file is written on one of the server's
        (editing a large profile took seconds, all of them on the run's thread); one at a time."""
        async def work() -> Any:
            if self._saving:
                raise ConfigError("the venue profile is being saved; try again when that is done")
            self._saving = True
            try:
                values, path = await self._on_run_thread(self.control.save_values, light=True)
                loop = asyncio.get_running_loop()
                written = await loop.run_in_executor(self._pool, self.control.write_profile, values, path)
                return await self._on_run_thread(lambda: self.control.saved(written), light=True)
            finally:
                self._saving = False
        return await self._answer(work)

    async def _api_teach(self, request: web.Request) -> web.Response:
        """``{"action": "status" | "record" | "forget" | "learn", "name": ..., "seconds": ...}``
        (``panel/teach.py``); learn also saves to the venue profile."""
        def request_of(action: str, body: dict[str, Any]) -> Callable[[], dict[str, Any]]:
            seconds = self._numbers(body, "seconds")[0] if action == "record" else None
            return lambda: self.control.teach(action, body.get("name"), seconds)
        return await self._teach_card(request, ACTIONS, request_of, self.control.save_taught)

    async def _api_teach_sound(self, request: web.Request) -> web.Response:
        """``{"action": "status" | "record" | "stop" | "forget" | "learn", "name": ...}``
        (``panel/teach_sound.py``); learn also saves to the venue profile."""
        def request_of(action: str, body: dict[str, Any]) -> Callable[[], dict[str, Any]]:
            return lambda: self.control.teach_sound(action, body.get("name"))
        return await self._teach_card(request, SOUND_ACTIONS, request_of, self.control.save_sounds)

    async def _teach_card(self, request: web.Request, actions: tuple[str, ...],
                          request_of: Callable[[str, dict[str, Any]], Callable[[], dict[str, Any]]],
                          save: Callable[[], Path]) -> web.Response:
        """One request of a teach card: run on the run's thread; after ``learn``, ``save`` runs on
        one of the server's threads (writing a profile takes a while: not on the run's thread)."""
        async def work() -> Any:
            body = await self._body(request)
            action = body.get("action")
            if not isinstance(action, str):
                raise ConfigError(f"`action` must be {', '.join(actions[:-1])} or {actions[-1]}, got {short(action)}")
            answer = await self._on_run_thread(request_of(action, body), light=action == "status")
            if action == "learn":
                path = await asyncio.get_running_loop().run_in_executor(self._pool, save)
                answer["message"] += f"; saved to {path}"
            return answer
        return await self._answer(work)

    # -- WebSockets --------------------------------------------------------------------------
    async def _open_ws(self, request: web.Request, *, compress: bool) -> web.WebSocketResponse | None:
        ws = web.WebSocketResponse(heartbeat=10.0, compress=compress, max_msg_size=64 * 1024)
        await ws.prepare(request)
        if self.address.token is not None:
            given = None
            try:
                with self._cap.unproven(request.transport):    # its slot may go to a newcomer
                    msg = await ws.receive(timeout=AUTH_TIMEOUT_S)
                if msg.type == WSMsgType.TEXT:
                    data = loads_json(msg.data, what="the message", max_depth=MAX_JSON_DEPTH)
                    given = data.get("token") if isinstance(data, dict) else None
            except (TimeoutError, ValueError):
                pass
            problem = token_problem(given if isinstance(given, str) else None, self.address.token)
            if problem is not None:
                self.refused += 1
                await ws.close(code=4000 + problem[0], message=problem[1].encode()[:120])
                return None
        self._sockets.add(ws)
        return ws

    async def _ws_live(self, request: web.Request) -> web.StreamResponse:
        if self.live_clients >= MAX_LIVE_CLIENTS:
            return _error(503, f"at most {MAX_LIVE_CLIENTS} live clients at once")
        self.live_clients += 1
        try:
            return await self._serve_live(request)
        finally:
            self.live_clients -= 1

    async def _serve_live(self, request: web.Request) -> web.StreamResponse:
        ws = await self._open_ws(request, compress=True)
        if ws is None:
            return web.Response(status=403)
        reader = asyncio.ensure_future(self._drain(ws))
        cursor = (0, 0)
        loop = asyncio.get_running_loop()
        seen_generation, sent_at, in_use_sent = -1, 0.0, None
        try:
            while not ws.closed and not reader.done():
                update = self.telemetry.since(cursor)
                cursor = update.cursor
                message = update.as_dict()
                now = loop.time()
                if Tunable.generation != seen_generation or now - sent_at >= SETTINGS_RESEND_S:
                    seen_generation, sent_at = Tunable.generation, now
                    message["settings"] = self.control.values()
                in_use = self.control.in_use()      # a floor being learned changes no setting
                if in_use != in_use_sent or "settings" in message:
                    message["in_use"] = in_use_sent = in_use
                await ws.send_json(message)
                await asyncio.wait({reader}, timeout=LIVE_INTERVAL_S)
        except (ConnectionError, RuntimeError):
            pass
        finally:
            reader.cancel()
            self._sockets.discard(ws)
        return ws

    @staticmethod
    async def _drain(ws: web.WebSocketResponse) -> None:
        async for _msg in ws:
            pass

    async def _ws_video(self, request: web.Request) -> web.StreamResponse:
        if self.video_clients >= MAX_VIDEO_CLIENTS:
            return _error(503, f"at most {MAX_VIDEO_CLIENTS} video clients at once")
        ws = await self._open_ws(request, compress=False)
        if ws is None:
            return web.Response(status=403)
        client = _VideoClient(ws, self.hub)
        self.video_clients += 1
        reader = asyncio.ensure_future(client.read())
        loop = asyncio.get_running_loop()
        try:
            while not ws.closed and not reader.done():
                if client.credits <= 0 or self.hub.seq <= client.last_seq:
                    await self._wait(client, reader)
                    continue
                got = await loop.run_in_executor(self._pool, self.hub.frame, client.overlays)
                if got is None:
                    client.last_seq = self.hub.seq
                    continue
                client.last_seq, message = got
                await ws.send_bytes(message)
                client.credits -= 1
        except (ConnectionError, RuntimeError):
            pass                                            # the client went away mid-frame
        finally:
            reader.cancel()
            self.hub.unwatch(client.id)
            self.video_clients -= 1
            self._sockets.discard(ws)
        return ws

    async def _wait(self, client: _VideoClient, reader: asyncio.Future[None]) -> None:
        """Until a new frame, an acknowledgement or a change of overlays (at most a second)."""
        client.wake.clear()
        woken = asyncio.ensure_future(client.wake.wait())
        waiters: set[asyncio.Future[Any]] = {reader, woken}
        if self._frame_waiter is not None:
            waiters.add(self._frame_waiter)
        await asyncio.wait(waiters, timeout=1.0, return_when=asyncio.FIRST_COMPLETED)
        woken.cancel()


class _VideoClient:
    """One video WebSocket: its overlays, its credits (frames it may still be sent before an
    acknowledgement) and the last frame it got."""

    def __init__(self, ws: web.WebSocketResponse, hub: FrameHub) -> None:
        self.ws = ws
        self.hub = hub
        self.id = id(ws)
        self.credits = VIDEO_CREDITS
        self.overlays: frozenset[str] = frozenset()
        self.last_seq = 0
        self.wake = asyncio.Event()
        hub.watch(self.id, ())

    async def read(self) -> None:
        async for msg in self.ws:
            if msg.type == WSMsgType.TEXT:
                self.on_text(msg.data)

    def on_text(self, text: str) -> None:
        """One message from the client: ``{"ack": 1}``, ``{"overlays": [...]}``; anything else
        (not JSON, too deep, NaN...) is ignored."""
        try:
            data = loads_json(text, what="the message", max_depth=MAX_JSON_DEPTH)
        except ConfigError:
            return
        if isinstance(data, dict):
            if "ack" in data:
                self.credits = min(VIDEO_CREDITS, self.credits + 1)
            overlays = data.get("overlays")
            if isinstance(overlays, list):
                self.overlays = frozenset(o for o in overlays if isinstance(o, str) and o in OVERLAYS)
                self.hub.watch(self.id, self.overlays)
                self.last_seq = 0                          # send the current frame with them
            self.wake.set()
