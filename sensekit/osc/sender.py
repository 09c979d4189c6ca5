"""``OscSender``: a dispatcher handler that sends every event as an OSC message over UDP.

With ``bundle=True`` each message is wrapped in a bundle whose OSC timetag is
``start_wall + t``: ``start_wall`` defaults to the wall time of the first event minus its
``t``, so a live run's timetags are the capture times. A fast replay produces timetags in the
past, which receivers run at once.

Failure modes: an IP address is used as it is. A host name is looked up on a thread of its own
(``sensekit.osc.lookup``; the constructor waits ``START_WAIT_S`` for the first answer): a name
that does not resolve yet (a show started at boot, before DNS) is one warning, the events for it
are counted in ``unresolved`` and not sent, and one line says when it resolves; the name is
looked up again every 5 s and soon after "port unreachable" or "no route to host", and a new address is followed
(one line); a name that stops resolving later changes nothing. A host that can never resolve
(``lights local``, ``x.invalid``) or a bad port is a ``ConfigError``. The socket is connected
to the address (``SO_BROADCAST`` set, so a broadcast address such as ``192.168.1.255`` works),
so the kernel says when the receiver's host answers "port unreachable" (the receiver quit or
crashed; ICMP): the send that reports it sent nothing, so the datagram is sent once more,
the report is counted in ``refused`` and said in one warning per outage, and one line says when
2 s of sends have had no such report. A name with several addresses (``localhost``: ``::1``
and ``127.0.0.1``) moves to the next one on such a report, so a receiver listening on one
family gets the events. A host that drops datagrams silently (a firewall) cannot be told from
one that takes them. Any other failed send (network down, socket buffer full) is counted in
``errors``, logged (the first and then every 1000th) and dropped; a sender never raises into
the pipeline. UDP gives no delivery guarantee: a receiver that cannot keep up loses messages
in its socket buffer. float32 holds ``t`` to ~8 ms after one day of uptime; use bundles when
exact times matter over weeks. Cost: ~10-20 us per event; nothing is buffered.
"""
from __future__ import annotations

import contextlib
import errno
import logging
import socket
import time
from typing import Any, Callable, Iterable

from sensekit.arg_types import checked
from sensekit.bind_errors import resolve_failure
from sensekit.errors import ConfigError
from sensekit.events import EVENT_TYPES, Event
from sensekit.osc import lookup as lookup_module
from sensekit.osc.encode import encode
from sensekit.osc.lookup import Lookup, check_host, is_literal, targets_of

__all__ = ["OscSender", "parse_target", "free_udp_port"]

log = logging.getLogger("sensekit.osc")

#: seconds of sends with no "port unreachable" after which the receiver is said to be back
BACK_AFTER_S = 2.0
#: seconds between tries to connect the socket when connecting failed (no network yet)
RECONNECT_S = 1.0
#: seconds the constructor waits for a name's first look-up before the show starts without it
START_WAIT_S = 3.0
#: a send's errors that say the host is gone (a LAN host that no longer answers ARP): the name is
#: looked up again soon, as on "port unreachable"
_GONE = frozenset({errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EHOSTDOWN})

Resolver = Callable[..., list[tuple[Any, ...]]]


def _show(addr: tuple[Any, ...]) -> str:
    host = str(addr[0])
    return f"[{host}]:{addr[1]}" if ":" in host else f"{host}:{addr[1]}"


class OscSender:
    """Dispatcher handler that sends each event to ``host:port`` over UDP.

    ``events`` limits what is sent (names; default every event). ``start_wall``
    is the epoch time of the source's ``t = 0`` for bundle timetags (default:
    the wall time of the first event minus its ``t``). ``resolve`` is
    ``socket.getaddrinfo`` (a test gives a name two addresses with it).
    """

    @checked
    def __init__(self, host: str, port: int, bundle: bool = False, *,
                 events: Iterable[str] | None = None,
                 start_wall: float | None = None,
                 resolve: Resolver = socket.getaddrinfo) -> None:
        if not isinstance(port, int) or not 1 <= port <= 65535:
            raise ConfigError(f"OSC port must be 1..65535, got {port!r}")
        check_host(host)
        if events is not None:
            unknown = sorted(set(events) - set(EVENT_TYPES))
            if unknown:
                raise ConfigError(f"unknown event names for OSC: {unknown}")
        self.host, self.port, self.bundle = host, port, bundle
        self.events = frozenset(events) if events is not None else None
        self.start_wall = start_wall
        self.sent = 0
        self.errors = 0
        self.refused = 0
        self.unresolved = 0
        self.closed = False
        self._at = 0                          # which of the name's addresses is in use
        self._refused_at: float | None = None  # the last "port unreachable" of an outage
        self._outage_refusals = 0
        self._connect_tried = 0.0
        self._connected = False
        self._lookup: Lookup | None = None
        self._sock: socket.socket | None = None
        if is_literal(host):
            try:
                self._targets = targets_of(resolve(host, port, type=socket.SOCK_DGRAM))
            except (OSError, UnicodeError) as exc:
                raise ConfigError(f"cannot resolve OSC host {host!r}: {resolve_failure(exc)}") from None
        else:                                 # looked up off the run's thread, again and again
            self._lookup = Lookup(host, port, resolve)
            self._targets = self._lookup.first(START_WAIT_S) or []
            if not self._targets:
                log.warning("OSC: cannot resolve %r yet (%s); the show starts anyway, events for it "
                            "are not sent until it resolves (counted in osc_unresolved); it is "
                            "looked up again in the background every %.0f s", host,
                            self._lookup.error, lookup_module.RETRY_S)
        if self._targets:
            self._sock = self._open()

    @property
    def _addr(self) -> tuple[Any, ...]:
        return self._targets[self._at][1]

    def _open(self) -> socket.socket:
        family = self._targets[self._at][0]
        sock = socket.socket(family, socket.SOCK_DGRAM)
        sock.setblocking(False)  # never stall the pipeline on a full buffer
        if family == socket.AF_INET:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        self._connected = False
        self._try_connect(sock)
        return sock

    def _follow(self) -> None:
        """Take what the background look-up found: the first addresses of a name that did not
        resolve at the start, or new ones (a new DHCP lease). Never waits for the resolver."""
        assert self._lookup is not None
        fresh = self._lookup.take()
        if fresh is None:
            return
        if not self._targets:
            self._targets, self._at = fresh, 0
            self._reopen()
            log.info("OSC: %r resolves now, to %s; sending there (%d event(s) before were not "
                     "sent: osc_unresolved)", self.host, _show(self._addr), self.unresolved)
            return
        now = self._addr
        if any(addr == now for _, addr in fresh):
            self._targets = fresh
            self._at = [addr for _, addr in fresh].index(now)
            return
        self._targets, self._at = fresh, 0
        self._reopen()
        self._refused_at, self._outage_refusals = None, 0
        log.warning("OSC: %r moved from %s to %s (a new address for the name); sending there",
                    self.host, _show(now), _show(self._addr))

    def _reopen(self) -> None:
        """A socket for the address now in use (the old one closed first: its descriptor is
        reused); when none can be opened, the next send tries again (and counts the failure)."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        with contextlib.suppress(OSError):
            self._sock = self._open()

    def _try_connect(self, sock: socket.socket) -> None:
        """Connect (the kernel then reports "port unreachable"); without a route yet, sends
        go by ``sendto`` and the connect is tried again every ``RECONNECT_S``."""
        self._connect_tried = time.monotonic()
        try:
            sock.connect(self._addr)
            self._connected = True
        except OSError:
            self._connected = False

    def __call__(self, event: Event) -> None:
        if self.closed or (self.events is not None and event.name not in self.events):
            return None
        if self._lookup is not None:
            self._follow()
            if not self._targets:
                self.unresolved += 1
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
            try:
                self._send(dgram)
            except ConnectionRefusedError:
                self._was_refused()           # that send sent nothing: once more (or the next
                self._send(dgram)             # address of the name)
        except OSError as exc:
            if self._lookup is not None and exc.errno in _GONE:
                self._lookup.soon()               # the old host is gone: it may have a new address
            self._fail(f"send to {self.host}:{self.port} failed: {exc}")
            return None
        self.sent += 1
        self._maybe_back()
        return None

    def _send(self, dgram: bytes) -> None:
        if self._sock is None:
            self._sock = self._open()
        if not self._connected and time.monotonic() - self._connect_tried >= RECONNECT_S:
            self._try_connect(self._sock)
        if self._connected:
            self._sock.send(dgram)
        else:
            self._sock.sendto(dgram, self._addr)

    def _was_refused(self) -> None:
        self.refused += 1
        self._outage_refusals += 1
        first = self._refused_at is None
        self._refused_at = time.monotonic()
        where = _show(self._addr)
        if self._lookup is not None:
            self._lookup.soon()               # the receiver may have a new address
        if len(self._targets) > 1:
            assert self._sock is not None
            self._at = (self._at + 1) % len(self._targets)
            self._sock.close()                # first: with no descriptor to spare, its own is reused
            self._sock = self._open()
            if first:
                log.warning("OSC: nothing listens at %s (port unreachable); trying %s, the next "
                            "address of %r", where, _show(self._addr), self.host)
        elif first:
            log.warning("OSC: nothing listens at %s (port unreachable: the receiver quit?); "
                        "events sent there are lost until it is back, counted in osc_refused",
                        where)

    def _maybe_back(self) -> None:
        if self._refused_at is not None and time.monotonic() - self._refused_at >= BACK_AFTER_S:
            log.info("OSC: %s takes the events (no port unreachable for %.0f s; %d before)",
                     _show(self._addr), BACK_AFTER_S, self._outage_refusals)
            self._refused_at, self._outage_refusals = None, 0

    def _fail(self, message: str) -> None:
        self.errors += 1
        if self.errors == 1 or self.errors % 1000 == 0:
            log.warning("OSC: %s (%d failures so far)", message, self.errors)

    def stats(self) -> dict[str, int]:
        out = {"osc_sent": self.sent, "osc_errors": self.errors, "osc_refused": self.refused}
        if self._lookup is not None:
            out["osc_unresolved"] = self.unresolved
        return out

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            if self._lookup is not None:
                self._lookup.close()
            if self._sock is not None:
                self._sock.close()


def free_udp_port(host: str = "127.0.0.1") -> int:
    """A UDP port that was free a moment ago (for tests and examples)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


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
