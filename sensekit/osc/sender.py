"""``OscSender``: a dispatcher handler that sends every event as an OSC message over UDP.

With ``bundle=True`` each message is wrapped in a bundle whose OSC timetag is
``start_wall + t``: ``start_wall`` defaults to the wall time of the first event minus its
``t``, so a live run's timetags are the capture times. A fast replay produces timetags in the
past, which receivers run at once.

Failure modes: the host is resolved once, in the constructor (a bad host is a
``ConfigError``). A send that fails (network down, socket buffer full) is counted in
``errors``, logged (the first and then every 1000th) and dropped; a sender never raises into
the pipeline. UDP gives no delivery guarantee: a receiver that cannot keep up loses messages
in its socket buffer. float32 holds ``t`` to ~8 ms after one day of uptime; use bundles when
exact times matter over weeks. Cost: ~10-20 us per event; nothing is buffered.
"""
from __future__ import annotations

import logging
import socket
import time
from typing import Iterable

from sensekit.bind_errors import resolve_failure
from sensekit.errors import ConfigError
from sensekit.events import EVENT_TYPES, Event
from sensekit.osc.encode import encode

__all__ = ["OscSender", "parse_target", "free_udp_port"]

log = logging.getLogger("sensekit.osc")


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
            raise ConfigError(f"cannot resolve OSC host {host!r}: {resolve_failure(exc)}") from None
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
