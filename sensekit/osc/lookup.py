"""``Lookup``: the addresses of an OSC host name, looked up on a thread of its own, again and again.

An installation started at boot often starts before DHCP and DNS are up, and a receiver's
machine may get a new address from a new DHCP lease. ``Lookup`` resolves the name in the
background: every ``RETRY_S`` while it does not resolve, every ``REFRESH_S`` once it does, and
soon (at most once every ``SOON_S``) when ``soon()`` asks (the sender met "port unreachable").
The run's thread only calls ``take()``, which returns the new list of addresses when there is one
and ``None`` otherwise (an attribute read: it never waits for the resolver, so a slow DNS server
cannot stall frames). A look-up that fails once the name has resolved changes nothing: the last
addresses are kept. ``check_host(host)`` refuses, as one ``ConfigError`` line, a host that can
never resolve: not a host name at all (a space, an empty label, a label over 63 characters) or a
name under ``.invalid`` (RFC 6761: never resolves).

Cost: one thread a sender whose host is a name (none for an IP address), asleep between look-ups.
"""
from __future__ import annotations

import ipaddress
import re
import socket
import threading
import time
from typing import Any, Callable

from sensekit.bind_errors import resolve_failure
from sensekit.errors import ConfigError

__all__ = ["Lookup", "Targets", "check_host", "is_literal", "targets_of"]

#: seconds between look-ups while the name does not resolve (at boot: until DNS is up)
RETRY_S = 2.0
#: seconds between look-ups once it does: a new DHCP lease is followed within this, even when
#: the old address says nothing (its machine gone, or the address taken by another that drops the
#: datagrams: no "port unreachable" asks for a look-up). 30 s until harden24: a receiver that came
#: back at a new address got nothing for up to 30 s while the sender counted every event sent.
#: One ``getaddrinfo`` every 5 s on this thread costs the show nothing
REFRESH_S = 5.0
#: at least this many seconds between look-ups asked for by ``soon()``
SOON_S = 2.0

Resolver = Callable[..., list[tuple[Any, ...]]]
Targets = list[tuple[int, tuple[Any, ...]]]

_LABEL = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?")


def is_literal(host: str) -> bool:
    """True for an IP address (``127.0.0.1``, ``::1``, ``fe80::1%eth0``): nothing to look up."""
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    return True


def check_host(host: str) -> None:
    """Raise ``ConfigError`` (one line) for a host that can never resolve; see the module doc."""
    if is_literal(host):
        return
    shown = host if len(host) <= 80 else host[:80] + "..."
    name = host[:-1] if host.endswith(".") else host
    labels = name.split(".")
    why = None
    if not name or len(name) > 253:
        why = "a host name is 1..253 characters"
    elif any(not label for label in labels):
        why = "it has an empty part between dots"
    elif any(len(label) > 63 for label in labels):
        why = "a part between dots is longer than 63 characters"
    elif not all(_LABEL.fullmatch(label) for label in labels):
        why = ("a host name holds letters, digits, '-' and '_' between dots, "
               "and no part starts or ends with '-'")
    elif labels[-1].isdigit():
        why = "it is not an IP address (four numbers 0..255) and a name does not end in a number"
    if why is not None:
        raise ConfigError(f"OSC host {shown!r} is not a host name or an IP address: {why}")
    if labels[-1].lower() == "invalid":
        raise ConfigError(f"cannot resolve OSC host {host!r}: no such host (check the name, or give "
                          "its IP address)")


def targets_of(infos: list[tuple[Any, ...]]) -> Targets:
    """(family, address) of each ``getaddrinfo`` answer, in order, each once."""
    out: Targets = []
    for family, _, _, _, addr in infos:
        if (family, addr) not in out:
            out.append((family, addr))
    return out


class Lookup:
    """Look ``host`` up (for ``port``, UDP) with ``resolve`` on a daemon thread; see the module doc.

    ``first(timeout)`` waits for the first answer: the addresses, or ``None`` with ``error``
    saying why (or that it has not answered yet)."""

    def __init__(self, host: str, port: int, resolve: Resolver) -> None:
        self.host, self.port = host, port
        self.error = "it has not answered yet"
        self.lookups = 0
        self._resolve = resolve
        self._cond = threading.Condition()
        self._answered = threading.Event()
        self._fresh: Targets | None = None
        self._ever: Targets | None = None
        self._asked = False
        self._closed = False
        self._last = 0.0
        self._thread = threading.Thread(target=self._run, name=f"osc-lookup {host}", daemon=True)
        self._thread.start()

    def first(self, timeout: float) -> Targets | None:
        self._answered.wait(timeout)
        return self.take()

    def take(self) -> Targets | None:
        """The addresses found since the last call, or ``None`` (never waits for a look-up)."""
        if self._fresh is None:
            return None
        with self._cond:
            fresh, self._fresh = self._fresh, None
        return fresh

    def soon(self) -> None:
        """Look the name up again soon (at most once every ``SOON_S``)."""
        if not self._asked:
            with self._cond:
                self._asked = True
                self._cond.notify()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()

    def _look(self) -> None:
        try:
            found = targets_of(self._resolve(self.host, self.port, type=socket.SOCK_DGRAM))
            error = None if found else "it has no address"
        except Exception as exc:   # noqa: BLE001 - OSError, UnicodeError, or a resolver's own bug:
            found, error = [], resolve_failure(exc)   # the thread must live on
        with self._cond:
            self.lookups += 1
            self._last = time.monotonic()
            if found and found != self._ever:
                self._fresh = self._ever = found
            self.error = error or ""
        self._answered.set()

    def _run(self) -> None:
        while True:
            self._look()
            with self._cond:
                while not self._closed:
                    due = self._last + (REFRESH_S if self._ever else RETRY_S)
                    if self._asked:
                        due = min(due, self._last + SOON_S)
                    now = time.monotonic()
                    if now >= due:
                        break
                    self._cond.wait(due - now)
                if self._closed:
                    return
                self._asked = False
