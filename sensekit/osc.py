"""OSC bridge: every sensekit event out as an OSC message, a few settings in.

Output (``OscSender``)
    A dispatcher handler. Each event becomes one OSC message whose address is
    derived from the event's registered name: ``/sensekit/`` followed by the
    name with every ``_`` turned into ``/``::

        clap           -> /sensekit/clap
        color_tracked  -> /sensekit/color/tracked
        source_lost    -> /sensekit/source/lost

    Arguments are typed and in a fixed order: the event time ``t`` (float32,
    seconds from the source start) first, then the event's fields in the order
    they are declared in ``sensekit/events.py``. Flattening rules:

    - ``int`` -> ``i`` (clamped to int32); ``float`` -> ``f`` (float32; beyond
      its range -> +-inf); ``str`` -> ``s`` (NUL characters removed: OSC strings
      end at NUL);
    - ``bool`` -> ``i`` 0/1 (every OSC client reads ints; not all read T/F);
    - a box ``(x, y, w, h)`` -> four ``i``;
    - a tuple of floats (``clap_pattern.times``) -> one ``f`` per element;
    - a tuple of points (``hand.landmarks``, 21 x (x, y, z)) -> ``f f f`` per point, flat;
    - a dict (``motion.zones``) -> ``s`` name, ``f`` value pairs, in the order
      the zones were defined;
    - an optional value (``X | None``) -> its type, or nil ``N`` when absent.

    Variable-length fields are always last in their event, so a receiver can
    read the fixed part by position. ``describe_addresses()`` gives the whole
    table; ``docs/OSC.md`` is generated from it (a test keeps them in sync).

    With ``bundle=True`` each message is wrapped in a bundle whose OSC timetag
    is ``start_wall + t``: ``start_wall`` defaults to the wall time of the first
    event minus its ``t``, so a live run's timetags are the capture times. A
    fast replay produces timetags in the past, which receivers run at once.

    Cost: building and sending one message is ~10-20 us; nothing is buffered.
    Failure modes: the host is resolved once, in the constructor (a bad host is
    a ``ConfigError``). A send that fails (network down, socket buffer full) is
    counted in ``errors``, logged (the first and then every 1000th) and
    dropped; a sender never raises into the pipeline. UDP gives no delivery
    guarantee: a receiver that cannot keep up loses messages in its socket
    buffer. float32 holds ``t`` to ~8 ms after one day of uptime; use bundles
    when exact times matter over weeks.

Input (``OscControl``)
    Listens on UDP for a small set of settings::

        /sensekit/set/threshold f   activity threshold, level 0..100
        /sensekit/set/color s       colour to track, "#RRGGBB"
        /sensekit/set/tolerance f   colour hue tolerance, degrees 0..180
        /sensekit/set/gain f        microphone gain 0..100 (50 = unity)
        /sensekit/pause i           1 pauses, 0 resumes

    Each message is validated on the server thread; a bad one is logged and
    ignored (and counted in ``rejected``); a good one is queued as a
    ``Setting``. A datagram that is not OSC at all is counted in ``malformed``,
    one longer than ``max_datagram_bytes`` (4096; settings are tens of bytes)
    in ``oversized``; both are logged and dropped before any handler runs. The
    warnings go through the CLI's rate limit (``sensekit.ratelimit``), so a
    flood costs a few lines plus a count; the counts are in ``stats()``. The
    app loop calls ``poll()`` (or ``apply_pending()``, which
    calls the handlers registered with ``on(name, fn)``) so every change is
    applied on the app's own thread, between frames. The queue is bounded
    (256 by default): when full the oldest setting is dropped and counted.
    One server thread handles datagrams in arrival order, so the last value
    sent is the one that sticks.

CLI helpers
    ``add_osc_arguments(parser)`` adds ``--osc HOST:PORT``, ``--osc-bundle``
    and ``--osc-control [HOST:]PORT``. ``attach_osc(dispatcher, args,
    stages=..., pause=...)`` registers a sender on ``"*"``. When asked, it also
    starts a control server, binds the settings to the runner's stages
    (``bind_control``: activity threshold, tracker colour and tolerance, audio
    gain) and appends an ``OscControlStage`` that applies them between items on
    the loop's thread. Pause calls ``pause(bool)`` at once. It returns an
    ``OscAttachment``; close it at exit. ``sensekit run`` and
    ``sensekit events`` use these helpers.
"""
from __future__ import annotations

import argparse
import dataclasses
import logging
import math
import queue
import re
import socket
import threading
import time
import types
import typing
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from pythonosc import osc_bundle, osc_bundle_builder, osc_message, osc_message_builder
from pythonosc.parsing import osc_types
from pythonosc.dispatcher import Dispatcher as OscDispatcher
from pythonosc.osc_server import BlockingOSCUDPServer

from sensekit.errors import ConfigError
from sensekit.events import EVENT_TYPES, Dispatcher, Event

log = logging.getLogger(__name__)

PREFIX = "/sensekit"
INT32_MIN, INT32_MAX = -(2 ** 31), 2 ** 31 - 1
FLOAT32_MAX = 3.4028234663852886e38


# --- address scheme -----------------------------------------------------------

def address_for(name: str) -> str:
    """The OSC address of an event name: ``color_tracked`` -> ``/sensekit/color/tracked``."""
    if not re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", name):
        raise ConfigError(f"event name {name!r} cannot be turned into an OSC address")
    return f"{PREFIX}/{name.replace('_', '/')}"


def _field_kind(tp: Any) -> tuple[str, str]:
    """(OSC type tag pattern, description) for a field's declared type."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is bool:
        return "i", "int 0/1"
    if tp is int:
        return "i", "int"
    if tp is float:
        return "f", "float"
    if tp is str:
        return "s", "string"
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            inner, _ = _field_kind(args[0])
            return inner + "*", f"{_field_kind(args[0])[1]} per element"
        tags = "".join(_field_kind(a)[0] for a in args)
        if len(args) == 4 and all(a is int for a in args):
            return tags, "x y w h"
        return tags, "x y z" if len(args) == 3 and all(a is float for a in args) else "tuple"
    if origin is dict:
        return "(sf)*", "name, value pairs"
    if origin is typing.Literal and all(isinstance(a, str) for a in args):
        return "s", "string"
    if isinstance(tp, types.UnionType) or origin is typing.Union:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            tags, desc = _field_kind(rest[0])
            if len(tags) == 1:
                return tags + "?", f"{desc}, or nil (N) when absent"
        raise ConfigError(f"field type {tp!r} has no OSC mapping")
    raise ConfigError(f"field type {tp!r} has no OSC mapping")


def signature(cls: type[Event]) -> list[tuple[str, str, str]]:
    """[(field name, OSC type tags, description)] in argument order for an event type."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        tags, desc = _field_kind(hints[f.name])
        out.append((f.name, tags, desc))
    return out


def describe_addresses() -> str:
    """A Markdown table of every event's address and arguments (the docs are generated from it)."""
    rows = ["| event | address | arguments (in order) | type tags |",
            "|---|---|---|---|"]
    for name in sorted(EVENT_TYPES):
        sig = signature(EVENT_TYPES[name])
        args = ", ".join(f"`{n}`" + (f" ({d})" if d not in ("int", "float", "string") else "")
                         for n, _, d in sig)
        tags = "".join(t for _, t, _ in sig)
        rows.append(f"| `{name}` | `{address_for(name)}` | {args} | `{tags}` |")
    return "\n".join(rows)


# --- encoding -----------------------------------------------------------------

def _plain(v: Any) -> Any:
    if hasattr(v, "item") and callable(v.item) and not isinstance(v, (str, bytes)):
        return v.item()  # numpy scalar
    return v


def _int32(v: Any) -> int:
    i = int(_plain(v))
    return max(INT32_MIN, min(INT32_MAX, i))


def _float32(v: Any) -> float:
    """A float that float32 can hold: beyond its range becomes +-inf (NaN stays NaN)."""
    f = float(_plain(v))
    return math.copysign(math.inf, f) if math.isfinite(f) and abs(f) > FLOAT32_MAX else f


def _add_value(builder: osc_message_builder.OscMessageBuilder, tags: str, value: Any) -> None:
    value = _plain(value)
    if tags.endswith("?"):
        if value is None:
            builder.add_arg(None, "N")
            return
        tags = tags[:-1]
    if tags == "i":
        builder.add_arg(_int32(value), "i")
    elif tags == "f":
        builder.add_arg(_float32(value), "f")
    elif tags == "s":
        builder.add_arg(str(value).replace("\x00", ""), "s")   # OSC strings end at NUL
    elif tags == "(sf)*":
        for k, x in dict(value).items():
            builder.add_arg(str(k).replace("\x00", ""), "s")
            builder.add_arg(_float32(x), "f")
    elif tags.endswith("*"):
        for x in value:
            _add_value(builder, tags[:-1], x)
    else:  # fixed tuple, e.g. a box "iiii"
        seq = tuple(value)
        if len(seq) != len(tags):
            raise ConfigError(f"expected {len(tags)} values, got {seq!r}")
        for t, x in zip(tags, seq):
            _add_value(builder, t, x)


_SIGNATURES: dict[type, list[tuple[str, str, str]]] = {}


def event_arguments(event: Event) -> list[tuple[str, Any]]:
    """The (type tag, value) arguments of an event's message, in order."""
    return [(tag, value) for tag, value in build_message(event).args]


def build_message(event: Event) -> osc_message_builder.OscMessageBuilder:
    """A message builder for ``event`` (address and typed arguments, not yet built)."""
    cls = type(event)
    sig = _SIGNATURES.get(cls)
    if sig is None:
        sig = _SIGNATURES[cls] = signature(cls)
    builder = osc_message_builder.OscMessageBuilder(address=address_for(event.name))
    for name, tags, _ in sig:
        _add_value(builder, tags, getattr(event, name))
    return builder


def encode(event: Event, *, timetag: float | None = None) -> bytes:
    """The datagram for ``event``: a message, or a bundle when ``timetag`` (epoch seconds) is given."""
    msg = build_message(event).build()
    if timetag is None:
        return msg.dgram
    bundle = osc_bundle_builder.OscBundleBuilder(timetag)  # type: ignore[arg-type]
    bundle.add_content(msg)
    return bundle.build().dgram


@dataclass(frozen=True, slots=True)
class Received:
    """One decoded message: ``timetag`` is the bundle's epoch time (``None`` outside a bundle)."""
    address: str
    tags: str
    args: tuple
    timetag: float | None = None


def _message_tags(dgram: bytes) -> str:
    _, idx = osc_types.get_string(dgram, 0)
    if idx >= len(dgram):
        return ""
    tags, _ = osc_types.get_string(dgram, idx)
    return tags[1:] if tags.startswith(",") else ""


def decode(dgram: bytes) -> list[Received]:
    """Messages in a datagram (a message, or a possibly nested bundle), with type tags.

    Raises ``ValueError`` for a datagram that is not OSC (OSC datagrams are a whole
    number of 4-byte words; python-osc alone would read a truncated float).
    """
    if not dgram or len(dgram) % 4:
        raise ValueError(f"not OSC: {len(dgram)} bytes is not a whole number of 4-byte words")
    if osc_bundle.OscBundle.dgram_is_bundle(dgram):
        try:
            b = osc_bundle.OscBundle(dgram)
        except Exception as exc:  # python-osc raises several types for garbage
            raise ValueError(f"bad OSC bundle: {exc}") from None
        out: list[Received] = []
        for content in b:
            inner = decode(content.dgram)
            out += [r if isinstance(content, osc_bundle.OscBundle)
                    else Received(r.address, r.tags, r.args, b.timestamp) for r in inner]
        return out
    try:
        msg = osc_message.OscMessage(dgram)
        tags = _message_tags(dgram)
    except Exception as exc:  # python-osc raises several types for garbage
        raise ValueError(f"bad OSC message: {exc}") from None
    return [Received(msg.address, tags, tuple(msg.params))]


# --- output -------------------------------------------------------------------

class OscSender:
    """Dispatcher handler that sends each event to ``host:port`` over UDP.

    ``events`` limits what is sent (names; default every event). ``start_wall``
    is the epoch time of the source's ``t = 0`` for bundle timetags (default:
    the wall time of the first event minus its ``t``).
    """

    def __init__(self, host: str, port: int, bundle: bool = False, *,
                 events: Iterable[str] | None = None,
                 start_wall: float | None = None) -> None:
        if not isinstance(port, int) or not 1 <= port <= 65535:
            raise ConfigError(f"OSC port must be 1..65535, got {port!r}")
        try:
            family, _, _, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_DGRAM)[0]
        except (OSError, UnicodeError) as exc:
            raise ConfigError(f"cannot resolve OSC host {host!r}: {exc}") from None
        self._addr = addr
        self._sock = socket.socket(family, socket.SOCK_DGRAM)
        self._sock.setblocking(False)  # never stall the pipeline on a full buffer
        if events is not None:
            unknown = sorted(set(events) - set(EVENT_TYPES))
            if unknown:
                raise ConfigError(f"unknown event names for OSC: {unknown}")
        self.host, self.port, self.bundle = host, port, bundle
        self.events = frozenset(events) if events is not None else None
        self.start_wall = start_wall
        self.sent = 0
        self.errors = 0
        self.closed = False

    def __call__(self, event: Event) -> None:
        if self.closed or (self.events is not None and event.name not in self.events):
            return None
        timetag = None
        if self.bundle:
            if self.start_wall is None:
                self.start_wall = time.time() - event.t
            timetag = self.start_wall + event.t
        try:
            dgram = encode(event, timetag=timetag)
        except Exception as exc:  # a malformed event must not stop the pipeline
            self._fail(f"cannot encode {event.name!r}: {exc}")
            return None
        try:
            self._sock.sendto(dgram, self._addr)
        except OSError as exc:
            self._fail(f"send to {self.host}:{self.port} failed: {exc}")
            return None
        self.sent += 1
        return None

    def _fail(self, message: str) -> None:
        self.errors += 1
        if self.errors == 1 or self.errors % 1000 == 0:
            log.warning("OSC: %s (%d failures so far)", message, self.errors)

    def stats(self) -> dict[str, int]:
        return {"osc_sent": self.sent, "osc_errors": self.errors}

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._sock.close()


# --- input --------------------------------------------------------------------

COLOR_RE = re.compile(r"#[0-9a-fA-F]{6}")


@dataclass(frozen=True, slots=True)
class Setting:
    """One accepted control message: ``name`` is threshold|color|tolerance|gain|pause."""
    name: str
    value: Any
    received_at: float


def _number(args: tuple, lo: float, hi: float) -> float:
    if len(args) != 1:
        raise ValueError(f"expected one number, got {len(args)} arguments {list(args)!r}")
    v = args[0]
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"expected a number, got {v!r}")
    v = float(v)
    if not math.isfinite(v) or not lo <= v <= hi:
        raise ValueError(f"must be {lo:g}..{hi:g}, got {args[0]!r}")
    return v


def _color(args: tuple) -> str:
    if len(args) != 1 or not isinstance(args[0], str) or not COLOR_RE.fullmatch(args[0]):
        raise ValueError(f"expected one string '#RRGGBB', got {list(args)!r}")
    return args[0].lower()


def _pause(args: tuple) -> bool:
    if len(args) != 1 or isinstance(args[0], float) or args[0] not in (0, 1, True, False):
        raise ValueError(f"expected 0 or 1, got {list(args)!r}")
    return bool(args[0])


#: address -> (setting name, validator)
CONTROLS: dict[str, tuple[str, Callable[[tuple], Any]]] = {
    f"{PREFIX}/set/threshold": ("threshold", lambda a: _number(a, 0.0, 100.0)),
    f"{PREFIX}/set/color": ("color", _color),
    f"{PREFIX}/set/tolerance": ("tolerance", lambda a: _number(a, 0.0, 180.0)),
    f"{PREFIX}/set/gain": ("gain", lambda a: _number(a, 0.0, 100.0)),
    f"{PREFIX}/pause": ("pause", _pause),
}


MAX_CONTROL_DATAGRAM = 4096


class _ControlServer(BlockingOSCUDPServer):
    """The UDP server of ``OscControl``: every datagram is screened by ``control.screen``."""

    max_packet_size = 65536     # read whole datagrams, so an oversized one is seen as such

    def __init__(self, address: tuple[str, int], dispatcher: OscDispatcher,
                 screen: Callable[[bytes, Any], bool]) -> None:
        self._screen = screen
        super().__init__(address, dispatcher)

    def verify_request(self, request: Any, client_address: Any) -> bool:
        return self._screen(request[0], client_address)


class OscControl:
    """Receives settings over OSC/UDP; validated ones wait in a queue for the app loop.

    ``port=0`` picks a free port (read it back from ``.port``). Call ``start()``
    (or use as a context manager) and ``close()`` when done.
    """

    def __init__(self, host: str = "127.0.0.1", port: int = 9001, *, max_pending: int = 256,
                 max_datagram_bytes: int = MAX_CONTROL_DATAGRAM) -> None:
        if not isinstance(port, int) or not 0 <= port <= 65535:
            raise ConfigError(f"OSC control port must be 0..65535, got {port!r}")
        self.max_datagram_bytes = int(max_datagram_bytes)
        self.accepted = 0
        self.rejected = 0
        self.dropped = 0
        self.malformed = 0
        self.oversized = 0
        self._pending: queue.Queue[Setting] = queue.Queue(maxsize=max(1, max_pending))
        self._appliers: dict[str, list[Callable[[Any], None]]] = {}
        self._immediate: dict[str, list[Callable[[Any], None]]] = {}
        try:
            disp = OscDispatcher(strict_timing=False)  # type: ignore[call-arg]
        except TypeError:  # python-osc < 1.9
            disp = OscDispatcher()
        for address in CONTROLS:
            disp.map(address, self._handle)
        disp.set_default_handler(self._unknown)
        try:
            self._server = _ControlServer((host, port), disp, self.screen)
        except OSError as exc:
            raise ConfigError(f"cannot listen for OSC on {host}:{port}: {exc}") from None
        self.host, self.port = self._server.server_address[:2]
        self._thread: threading.Thread | None = None

    # server thread -----------------------------------------------------------
    def screen(self, dgram: bytes, sender: Any = None) -> bool:
        """True if ``dgram`` is a well-formed OSC datagram of acceptable size; else count
        it (``oversized`` or ``malformed``), log it and return False."""
        where = f" from {sender[0]}:{sender[1]}" if isinstance(sender, tuple) and len(sender) >= 2 else ""
        if len(dgram) > self.max_datagram_bytes:
            self.oversized += 1
            log.warning("OSC: dropped an oversized datagram%s: %d bytes (limit %d)",
                        where, len(dgram), self.max_datagram_bytes)
            return False
        try:
            decode(dgram)
        except ValueError as exc:
            self.malformed += 1
            log.warning("OSC: dropped a malformed datagram%s (%d bytes): %s", where, len(dgram), exc)
            return False
        return True

    def _handle(self, address: str, *args: Any) -> None:
        name, validate = CONTROLS[address]
        try:
            value = validate(args)
        except ValueError as exc:
            self.rejected += 1
            log.warning("OSC: ignored %s: %s", address, exc)
            return
        setting = Setting(name, value, time.monotonic())
        for fn in self._immediate.get(name, ()):
            try:
                fn(value)
            except Exception as exc:  # noqa: BLE001 - the server thread must survive
                log.warning("OSC: could not apply %s=%r: %s", name, value, exc)
        while True:
            try:
                self._pending.put_nowait(setting)
                break
            except queue.Full:
                try:
                    self._pending.get_nowait()
                    self.dropped += 1
                except queue.Empty:
                    pass
        self.accepted += 1
        log.info("OSC: %s %r", name, value)

    def _unknown(self, address: str, *args: Any) -> None:
        self.rejected += 1
        log.warning("OSC: ignored unknown address %s %r; known: %s",
                    address, list(args), ", ".join(CONTROLS))

    # app thread ----------------------------------------------------------------
    def start(self) -> "OscControl":
        if self._thread is None:
            self._thread = threading.Thread(target=self._server.serve_forever,
                                            kwargs={"poll_interval": 0.1},
                                            name=f"osc-control:{self.port}", daemon=True)
            self._thread.start()
        return self

    def poll(self) -> list[Setting]:
        """Every setting received since the last call, oldest first."""
        out = []
        while True:
            try:
                out.append(self._pending.get_nowait())
            except queue.Empty:
                return out

    def on(self, name: str, fn: Callable[[Any], None], *, immediate: bool = False) -> None:
        """Call ``fn(value)`` from ``apply_pending()`` for each accepted ``name`` setting.

        ``immediate=True`` calls it on the server thread as the message arrives instead
        (for a flag such as pause, which must work while the app loop is not pumping).
        """
        names = {n for n, _ in CONTROLS.values()}
        if name not in names:
            raise ConfigError(f"unknown OSC setting {name!r}; known: {sorted(names)}")
        (self._immediate if immediate else self._appliers).setdefault(name, []).append(fn)

    def apply_pending(self) -> list[Setting]:
        """Poll and apply each setting with its registered handlers; returns them.

        A handler that raises ``ValueError`` (e.g. a colour the tracker rejects)
        is logged and the setting skipped; the loop keeps running.
        """
        settings = self.poll()
        for s in settings:
            for fn in self._appliers.get(s.name, ()):
                try:
                    fn(s.value)
                except ValueError as exc:
                    log.warning("OSC: could not apply %s=%r: %s", s.name, s.value, exc)
        return settings

    def stats(self) -> dict[str, int]:
        return {"osc_accepted": self.accepted, "osc_rejected": self.rejected,
                "osc_dropped": self.dropped, "osc_malformed": self.malformed,
                "osc_oversized": self.oversized}

    def close(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=2.0)
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> "OscControl":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()


class OscControlStage:
    """A runner stage that applies pending OSC settings between items, on the loop's thread.

    It emits nothing and always runs (``always_run``), so settings take effect even
    when no handler listens. Add it last: a setting then applies from the next item.
    """

    consumes = "both"
    emits: frozenset[str] = frozenset()
    always_run = True

    def __init__(self, control: OscControl) -> None:
        self.control = control

    def process(self, item: Any) -> list[Event]:
        self.control.apply_pending()
        return []


def bind_control(control: OscControl, stages: list[Any], *,
                 pause: Callable[[bool], None] | None = None) -> OscControlStage:
    """Wire the settings to ``stages`` (recognised by attribute) and return the stage that
    applies them; the caller adds it to the runner's stages.

    threshold -> ``stage.activity.set_silence_level``; color -> ``stage.tracker.set_color``
    (colour trackers only); tolerance -> the tracker's hue tolerance; gain ->
    ``stage.set_gain`` (audio stages); pause -> ``pause(bool)``, called at once.
    A setting that no stage can take is logged as a warning.
    """

    def targets(attr: str) -> list[Any]:
        return [getattr(s, attr) for s in stages if getattr(s, attr, None) is not None]

    def nobody(name: str) -> None:
        log.warning("OSC: %s received, but no running stage uses it", name)

    def set_threshold(v: float) -> None:
        acts = [a for a in targets("activity") if hasattr(a, "set_silence_level")]
        for a in acts:
            a.set_silence_level(v)
        if not acts:
            nobody("threshold")

    def colour_trackers() -> list[Any]:
        return [t for t in targets("tracker") if getattr(t, "method", None) in (None, "hsv", "exact")]

    def set_color(v: str) -> None:
        trackers = colour_trackers()
        for t in trackers:
            t.set_color(v)
        if not trackers:
            nobody("color")

    def set_tolerance(v: float) -> None:
        from sensekit.vision.color_tracker import parse_tolerance

        trackers = colour_trackers()
        for t in trackers:
            _, sat, val = t.tolerance
            t.tolerance = parse_tolerance((v, sat, val))
            if getattr(t, "color", None) is not None:
                t.set_color(t.color)   # the tracker copies its tolerance when given a colour
        if not trackers:
            nobody("tolerance")

    def set_gain(v: float) -> None:
        audio = [s for s in stages if hasattr(s, "set_gain") and hasattr(s, "meter")]
        for s in audio:
            s.set_gain(v)
        if not audio:
            nobody("gain")

    control.on("threshold", set_threshold)
    control.on("color", set_color)
    control.on("tolerance", set_tolerance)
    control.on("gain", set_gain)
    if pause is not None:
        control.on("pause", pause, immediate=True)
    else:
        control.on("pause", lambda v: log.warning("OSC: pause is not supported by this command"))
    return OscControlStage(control)


# --- CLI helpers --------------------------------------------------------------

def parse_target(text: str, *, default_host: str | None = None,
                 allow_any_port: bool = False) -> tuple[str, int]:
    """``"HOST:PORT"`` (or ``"PORT"`` when ``default_host`` is given) -> (host, port).

    ``allow_any_port`` accepts port 0 ("any free port", for listening).
    """
    host, sep, port_text = text.rpartition(":")
    if not sep:
        if default_host is None:
            raise ConfigError(f"OSC target must be HOST:PORT, got {text!r}")
        host = default_host
    host = host.strip("[]") or (default_host or "")
    try:
        port = int(port_text)
    except ValueError:
        raise ConfigError(f"OSC port must be an integer, got {text!r}") from None
    lo = 0 if allow_any_port else 1
    if not host or not lo <= port <= 65535:
        raise ConfigError(f"OSC target must be HOST:PORT with port {lo}..65535, got {text!r}")
    return host, port


def _target_arg(**options: Any) -> Callable[[str], str]:
    """An argparse type checking ``HOST:PORT`` syntax when the arguments are parsed."""
    def check(text: str) -> str:
        try:
            parse_target(text, **options)
        except ConfigError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return text
    check.__name__ = "OSC target"
    return check


def add_osc_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--osc HOST:PORT``, ``--osc-bundle`` and ``--osc-control [HOST:]PORT``."""
    group = parser.add_argument_group("OSC")
    group.add_argument("--osc", metavar="HOST:PORT", type=_target_arg(),
                       help="send every event as an OSC message (see docs/OSC.md)")
    group.add_argument("--osc-bundle", action="store_true",
                       help="wrap each message in a bundle timetagged with the event time")
    group.add_argument("--osc-control", metavar="[HOST:]PORT",
                       type=_target_arg(default_host="127.0.0.1", allow_any_port=True),
                       help="accept /sensekit/set/... and /sensekit/pause on this port")


@dataclass
class OscAttachment:
    """What ``attach_osc`` set up; ``close()`` it at exit."""
    sender: OscSender | None = None
    control: OscControl | None = None

    def stats(self) -> dict[str, int]:
        out: dict[str, int] = {}
        if self.sender is not None:
            out.update(self.sender.stats())
        if self.control is not None:
            out.update(self.control.stats())
        return out

    def close(self) -> None:
        if self.sender is not None or self.control is not None:
            log.info("OSC: %s", ", ".join(f"{k} {v}" for k, v in self.stats().items()))
        if self.sender is not None:
            self.sender.close()
        if self.control is not None:
            self.control.close()


def attach_osc(dispatcher: Dispatcher, args: argparse.Namespace, *,
               stages: list[Any] | None = None,
               pause: Callable[[bool], None] | None = None) -> OscAttachment:
    """Set up what ``--osc``/``--osc-control`` asked for on ``dispatcher``.

    With ``--osc-control`` and ``stages`` (the runner's own list), the settings are
    bound to those stages and an ``OscControlStage`` is appended to the list, so
    they apply on the loop's thread; ``pause`` handles ``/sensekit/pause``.
    """
    att = OscAttachment()
    target = getattr(args, "osc", None)
    if target:
        host, port = parse_target(target)
        att.sender = OscSender(host, port, bundle=bool(getattr(args, "osc_bundle", False)))
        dispatcher.on("*", att.sender)
        log.info("OSC: sending events to %s:%d%s", host, port,
                 " in timetagged bundles" if att.sender.bundle else "")
    control = getattr(args, "osc_control", None)
    if control:
        host, port = parse_target(control, default_host="127.0.0.1", allow_any_port=True)
        att.control = OscControl(host, port)
        if stages is not None:
            stages.append(bind_control(att.control, stages, pause=pause))
        att.control.start()
        log.info("OSC: listening for settings on %s:%d", att.control.host, att.control.port)
    return att


def free_udp_port(host: str = "127.0.0.1") -> int:
    """A UDP port that was free a moment ago (for tests and examples)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


if __name__ == "__main__":  # python -m sensekit.osc: the address table for docs/OSC.md
    print(describe_addresses())
