"""``OscControl``: any setting of the table over OSC, applied on the next frame or block.

Addresses (UDP, ``--osc-control [HOST:]PORT``):

    /sensekit/set/<section>/<name> X   set one setting: /sensekit/set/clap/threshold 0.8
    /sensekit/preset s                 apply a preset: /sensekit/preset book
    /sensekit/pause i                  1 pauses, 0 resumes (apps)

and, kept from before the table, ``/sensekit/set/threshold`` (``activity.silence_level``),
``/sensekit/set/color`` (``tracker.color``), ``/sensekit/set/tolerance``
(``tracker.hue_tolerance``) and ``/sensekit/set/gain`` (``audio.gain``).

The argument is one value: ``i`` or ``f`` for numbers (``f`` is float32: it is read to 7
significant digits, so 0.588 stays 0.588; an ``i`` 0/1 or ``T``/``F`` for a switch), ``s``
for a choice, a colour ``"#RRGGBB"`` or zones ``"name=x,y,w,h;..."``, and ``N``
(nil) or ``s "none"`` for nothing where the setting allows it. Any string is read the way
``--set`` reads it.

Each message is checked on the server thread against the table and the running objects
(``Tuning.apply``): a bad one (unknown address or key, wrong type or count, out of range) is
logged and counted in ``rejected``; a good one is queued in the objects that own the
setting, which apply it at the start of their next frame or block, on the loop's thread
(``sensekit.settings.live``), so the last value sent is the one that sticks. A setting whose
group is not running here is counted in ``unused`` and logged. A datagram that is not
well-formed OSC (read by the strict reader ``sensekit.osc.wire``, which checks every size, pad
and nesting depth before a value is read; python-osc's parser never sees a received byte) is
counted in ``malformed``, one longer than ``max_datagram_bytes`` (4096) in
``oversized``; both are logged and dropped before any handler runs. The warnings go through
the CLI's rate limit (``sensekit.ratelimit``); the counts are in ``stats()``.

A flood is bounded: the server thread uses at most ``cpu_share`` (5 %) of one CPU, its own
CPU time measured per datagram, and leaves the rest to the kernel's receive buffer, which drops
what does not fit; ``osc_dropped`` is the kernel's count of those (Linux, ``/proc/net/udp``).
The buffer is asked to be 2 MB (``sensekit.osc.pace.enlarge_receive_buffer``; the kernel grants
up to ``net.core.rmem_max``, or more to root, and doubles it): a burst of up to ~5,000 small
datagrams waits there instead of its newest being dropped. A backlog is read in batches of up
to 128 datagrams; in a batch of 32 or more only the last message to each setting address is
applied (the others are counted in ``osc_superseded``), so the last setting of a burst is the
one that sticks, soon after the burst. With the kernel's default buffer (~208 kB) a
4,000-datagram burst ending on 95 left the setting at 35.5, a value from early in the burst, and
the dropped tail went uncounted (the count comes with a later datagram, and none came); read
one by one, the 4,000 took 9-20 s. Unpaced, a flood of valid settings from one local sender
kept the server thread busy and took a headless ``color_ball`` from ~400-700 to ~90 frames/s
(the run's thread waits for the interpreter lock).
"""
from __future__ import annotations

import logging
import math
import socket
import socketserver
import sys
import threading
from typing import Any, Callable


from sensekit.arg_types import checked
from sensekit.bind_errors import bind_failure
from sensekit.errors import ConfigError
from sensekit.osc.address import PREFIX
from sensekit.osc.encode import Received, decode
from sensekit.osc.pace import (CpuPace, count_kernel_drops, enlarge_receive_buffer,
                               receive as receive_datagram, socket_drops)
from sensekit.safe_read import clip, short
from sensekit.settings.live import Tuning        # at run time: `OscControl(tuning=...)` is checked (arg_types)
from sensekit.settings.registry import load_table
from sensekit.validate import check_positive

__all__ = ["OscControl", "LEGACY_ADDRESSES", "SET_PREFIX", "setting_address", "MAX_CONTROL_DATAGRAM"]

log = logging.getLogger("sensekit.osc")

SET_PREFIX = f"{PREFIX}/set/"
MAX_CONTROL_DATAGRAM = 4096
#: the share of one CPU the ``OscControl`` server thread may use (its own CPU time), and the
#: seconds of it banked while quiet: some 1,000 settings or 5,000 junk datagrams a second; a
#: fader sends 60-200 a second
CPU_SHARE = 0.05
CPU_BURST_S = 0.05
#: datagrams read at once when more wait behind the first (a backlog), and the batch from which
#: a setting superseded by a later one to the same address in it is not applied
BATCH = 128
COALESCE_FROM = 32
_DONTWAIT = getattr(socket, "MSG_DONTWAIT", 0)
#: short addresses from before the table -> setting keys
LEGACY_ADDRESSES: dict[str, str] = {
    f"{PREFIX}/set/threshold": "activity.silence_level",
    f"{PREFIX}/set/color": "tracker.color",
    f"{PREFIX}/set/tolerance": "tracker.hue_tolerance",
    f"{PREFIX}/set/gain": "audio.gain",
}


def setting_address(key: str) -> str:
    """``"clap.threshold"`` -> ``"/sensekit/set/clap/threshold"``."""
    section, _, name = key.partition(".")
    return f"{SET_PREFIX}{section}/{name}"


def key_for_address(address: str) -> str:
    """The setting key an address sets, or ``ConfigError``."""
    if address in LEGACY_ADDRESSES:
        return LEGACY_ADDRESSES[address]
    if address.startswith(SET_PREFIX):
        parts = address[len(SET_PREFIX):].split("/")
        if len(parts) == 2 and all(parts):
            return f"{parts[0]}.{parts[1]}"
    raise ConfigError(f"unknown address {clip(address)}; settings are {SET_PREFIX}<section>/<name> "
                      f"(`sensekit settings` lists them), plus {PREFIX}/preset and {PREFIX}/pause")


def value_from_args(key: str, args: tuple[Any, ...]) -> Any:
    """One OSC argument -> the checked value of ``key``."""
    from sensekit.settings.registry import lookup

    s = lookup(key)
    if len(args) != 1:
        raise ConfigError(f"`{key}` takes one value, got {len(args)} arguments {short(list(args))}")
    value = args[0]
    if not isinstance(value, (int, float, str)) and value is not None:
        raise ConfigError(f"`{key}` takes a number, a switch or a string, got {type(value).__name__} "
                          f"{str(value)[:40]}")
    if isinstance(value, float) and math.isfinite(value):
        value = float(f"{value:.7g}")          # an OSC ``f`` is float32: 0.588, not 0.5879999995
    if isinstance(value, str):
        return s.parse(value)
    if isinstance(value, float) and s.kind == "bool":
        raise ConfigError(f"`{key}` must be {s.expectation()}, got {short(value)}")
    return s.check(value)


def _last_taken(batch: list[list[Received]]) -> dict[str, tuple[int, int]]:
    """For each setting address in ``batch`` (the messages of each datagram), where its last
    message whose value the settings table takes is: (datagram, message). The running objects
    may still refuse that value; the earlier messages to that address are superseded by it."""
    from sensekit.settings.registry import lookup

    last: dict[str, tuple[int, int]] = {}
    unknown: set[str] = set()                       # not a setting's address: no value helps
    for i in range(len(batch) - 1, -1, -1):         # newest first
        for j in range(len(batch[i]) - 1, -1, -1):
            r = batch[i][j]
            if r.address in last or r.address in unknown or not r.address.startswith(SET_PREFIX):
                continue
            try:
                key = key_for_address(r.address)
                lookup(key)
            except ConfigError:
                unknown.add(r.address)
                continue
            try:
                value_from_args(key, r.args)
            except ConfigError:
                continue
            last[r.address] = (i, j)
    return last


class _ControlServer(socketserver.UDPServer):
    """The UDP server of ``OscControl``: every datagram goes to ``receive(dgram, sender)``, which
    reads it with the strict reader (python-osc's parser never sees a received byte).

    Paced: the server thread may use ``share`` of one CPU's time (its own CPU time, measured per
    datagram: a junk datagram costs a few microseconds, a setting applied tens), with ``burst``
    seconds banked while quiet; past that it sleeps, holding no lock, until repaid. What arrives
    meanwhile waits in the kernel's receive buffer and, when that is full, is dropped there. On
    Linux the kernel's count of those drops comes with each datagram (``SO_RXQ_OVFL``) and is
    kept in ``kernel_drops``."""

    max_packet_size = 65536     # read whole datagrams, so an oversized one is seen as such

    def __init__(self, address: tuple[str, int],
                 receive: Callable[[list[tuple[bytes, Any]], Callable[[BaseException, Any], None]], None], *,
                 share: float, burst: float) -> None:
        self.receive = receive
        self.kernel_drops = 0
        self.failed = 0                 # datagrams whose handling raised (handle_error)
        self.read = 0                   # datagrams read from the socket
        self.handled = 0                # of those, acted on (or counted and dropped)
        self.buffer_bytes = 0           # the receive buffer the kernel granted
        self._pace = CpuPace(share, burst)
        super().__init__(address, _Datagram)
        try:
            count_kernel_drops(self.socket)
            self.buffer_bytes = enlarge_receive_buffer(self.socket)
        except BaseException:              # the bound socket is not left open
            self.server_close()
            raise

    def get_request(self) -> tuple[tuple[list[tuple[bytes, Any]], socket.socket], Any]:  # type: ignore[override]
        """The datagram the socket has, and those waiting behind it (up to ``BATCH``): a backlog
        is read as one batch, so a setting superseded in it need not be applied (see
        ``OscControl.receive_batch``)."""
        self._pace.wait()
        batch: list[tuple[bytes, Any]] = []
        flags = 0
        while len(batch) < BATCH:
            try:
                data, sender, drops = receive_datagram(self.socket, self.max_packet_size, flags)
            except BlockingIOError:
                if not batch:
                    raise                   # nothing after all: socketserver skips this round
                break
            if drops is not None:
                self.kernel_drops = drops
            batch.append((data, sender))
            flags = _DONTWAIT
            if not flags:
                break
        self.read += len(batch)
        return (batch, self.socket), batch[0][1]

    def shutdown_request(self, request: Any) -> None:
        self.handled += len(request[0])  # after handle() or handle_error(): this batch is done

    def note_failure(self, exc: BaseException, sender: Any) -> None:
        """A message whose handling raised something unforeseen: one log line, counted."""
        self.failed += 1
        log.warning("OSC: a datagram from %s could not be handled: %s: %s", short(sender),
                    type(exc).__name__, clip(str(exc), 200))

    def dropped(self) -> int:
        """The kernel's count of datagrams it dropped for a full buffer: read from
        ``/proc/net/udp`` (the count that comes with a datagram misses the tail of a burst that
        nothing followed), else the last count a datagram brought."""
        counted = socket_drops(self.socket) if self.socket.fileno() >= 0 else None
        return max(self.kernel_drops, counted[0]) if counted is not None else self.kernel_drops

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A message whose handling raised something unforeseen (a bug, or a pause handler that
        failed): one log line (rate-limited like the others) and the next datagram, not
        socketserver's traceback on stderr for each datagram."""
        exc = sys.exc_info()[1]
        self.note_failure(exc if exc is not None else RuntimeError("unknown"), client_address)


class _Datagram(socketserver.BaseRequestHandler):
    server: _ControlServer

    def handle(self) -> None:
        self.server.receive(self.request[0], self.server.note_failure)


class OscControl:
    """Receives settings over OSC/UDP and applies them through ``tuning`` (see the module
    docstring). ``port=0`` picks a free port (read it back from ``.port``). ``start()`` (or use
    as a context manager), ``close()`` when done."""

    @checked
    def __init__(self, host: str = "127.0.0.1", port: int = 9001, *, tuning: Tuning | None = None,
                 pause: Callable[[bool], None] | None = None,
                 max_datagram_bytes: int = MAX_CONTROL_DATAGRAM, cpu_share: float = CPU_SHARE) -> None:
        if not isinstance(port, int) or not 0 <= port <= 65535:
            raise ConfigError(f"OSC control port must be 0..65535, got {port!r}")
        self.tuning = tuning
        self.pause = pause
        if tuning is not None:
            # the whole table now, on the caller's thread: a key is then looked up without an
            # import (the first unknown key imported the apps on the server thread, ~0.6-1 s of
            # CPU, and the pace then kept the door deaf ~10 s)
            load_table()
        self.max_datagram_bytes = int(max_datagram_bytes)
        share = check_positive("cpu_share", cpu_share)
        self.accepted = 0
        self.rejected = 0
        self.unused = 0
        self.malformed = 0
        self.oversized = 0
        self.superseded = 0
        #: the last accepted changes, newest last (key -> value), for tests and logs
        self.last: dict[str, Any] = {}
        try:
            self._server = _ControlServer((host, port), self.receive_batch, share=share, burst=CPU_BURST_S)
        except OSError as exc:
            raise ConfigError(f"cannot listen for OSC on {host}:{port}: {bind_failure(exc, port)}") from None
        self.host, self.port = self._server.server_address[:2]
        self._thread: threading.Thread | None = None

    # server thread -----------------------------------------------------------
    def receive(self, dgram: bytes, sender: Any = None) -> None:
        """Act on every message of one datagram, or count and drop it (see ``screen``)."""
        messages = self.read(dgram, sender)
        for r in messages or ():
            self._handle(r.address, *r.args)

    def receive_batch(self, batch: list[tuple[bytes, Any]],
                      failed: Callable[[BaseException, Any], None]) -> None:
        """Act on datagrams read together, in order. In a backlog (``COALESCE_FROM`` datagrams or
        more: a burst the port is behind on) a setting message is superseded (counted in
        ``superseded``, not applied) when a later message in the batch sets the same address
        to a value the settings table takes (its range and type; a bad value supersedes
        nothing and is refused as before): the value that sticks is the one sent last, read at
        the cost of reading the datagrams rather than of applying each (a setting's check
        builds what it changes). A message whose handling raises something other than ``ConfigError`` ends its
        datagram through ``failed(exc, sender)``; the next datagram goes on."""
        read = [(self.read(dgram, sender) or [], sender) for dgram, sender in batch]
        last = _last_taken([messages for messages, _sender in read]) if len(batch) >= COALESCE_FROM else {}
        for i, (messages, sender) in enumerate(read):
            try:
                for j, r in enumerate(messages):
                    if (i, j) < last.get(r.address, (i, j)):          # a later one is taken
                        self.superseded += 1
                        continue
                    self._handle(r.address, *r.args)
            except Exception as exc:  # noqa: BLE001 - one line each, as socketserver's handle_error
                failed(exc, sender)

    def screen(self, dgram: bytes, sender: Any = None) -> bool:
        """True if ``dgram`` is a well-formed OSC datagram of acceptable size; else count
        it (``oversized`` or ``malformed``), log it and return False."""
        return self.read(dgram, sender) is not None

    def read(self, dgram: bytes, sender: Any = None) -> list[Received] | None:
        """The messages of ``dgram``, or None after counting and logging it as oversized or
        malformed."""
        where = f" from {sender[0]}:{sender[1]}" if isinstance(sender, tuple) and len(sender) >= 2 else ""
        if len(dgram) > self.max_datagram_bytes:
            self.oversized += 1
            log.warning("OSC: dropped an oversized datagram%s: %d bytes (limit %d)",
                        where, len(dgram), self.max_datagram_bytes)
            return None
        try:
            return decode(dgram)
        except ValueError as exc:
            self.malformed += 1
            log.warning("OSC: dropped a malformed datagram%s (%d bytes): %s", where, len(dgram), exc)
            return None

    def handle(self, address: str, *args: Any) -> None:
        """Act on one message (the server thread calls this; tests may too)."""
        self._handle(address, *args)

    def _handle(self, address: str, *args: Any) -> None:
        try:
            if address == f"{PREFIX}/pause":
                self._pause(args)
                return
            if address == f"{PREFIX}/preset":
                self._preset(args)
                return
            key = key_for_address(address)
            values = {key: value_from_args(key, args)}
            self._apply(values, address)
        except ConfigError as exc:
            self.rejected += 1
            log.warning("OSC: ignored %s %s: %s", clip(address), clip(" ".join(map(short, args)), 200), exc)

    def _apply(self, values: dict[str, Any], what: str) -> None:
        if self.tuning is None:
            raise ConfigError("this command takes no settings")
        done = self.tuning.apply(values)
        if done.unused:
            self.unused += 1
            log.warning("OSC: %s received, but no running stage uses %s", what, ", ".join(done.unused))
        if done.values:
            self.accepted += 1
            self.last.update(done.values)
            log.info("OSC: %s", ", ".join(f"{k}={v!r}" for k, v in done.values.items()))

    def _pause(self, args: tuple[Any, ...]) -> None:
        if len(args) != 1 or isinstance(args[0], float) or args[0] not in (0, 1, True, False):
            raise ConfigError(f"expected 0 or 1, got {short(list(args))}")
        if self.pause is None:
            raise ConfigError("pause is not supported by this command")
        self.pause(bool(args[0]))
        self.accepted += 1

    def _preset(self, args: tuple[Any, ...]) -> None:
        from sensekit.settings.presets import get_preset

        if len(args) != 1 or not isinstance(args[0], str):
            raise ConfigError(f"expected one preset name, got {short(list(args))}")
        preset = get_preset(args[0])
        if self.tuning is None:
            raise ConfigError("this command takes no settings")
        done = self.tuning.apply(preset.values)
        self.accepted += 1
        self.last.update(done.values)
        log.info("OSC: preset %s (%d settings)", preset.name, len(done.values))

    # app thread ----------------------------------------------------------------
    def start(self) -> OscControl:
        if self._thread is None:
            self._thread = threading.Thread(target=self._server.serve_forever,
                                            kwargs={"poll_interval": 0.1},
                                            name=f"osc-control:{self.port}", daemon=True)
            self._thread.start()
        return self

    def stats(self) -> dict[str, int]:
        return {"osc_accepted": self.accepted, "osc_rejected": self.rejected, "osc_unused": self.unused,
                "osc_malformed": self.malformed, "osc_oversized": self.oversized,
                "osc_dropped": self._server.dropped(), "osc_superseded": self.superseded}

    def close(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=1.0)
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> OscControl:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.close()
