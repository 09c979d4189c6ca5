"""``sensekit osc-listen PORT``: print the OSC messages that arrive on a UDP port.

One line per message: the bundle timetag (if any), the address, the type tags
and the arguments, e.g. ``/sensekit/set/threshold ,f 30.0``. ``--jsonl`` prints
JSON lines instead (``{"address": ..., "tags": ..., "args": [...], "timetag": ...}``).
Use it to see what a controller (TouchDesigner, Max, a phone app) sends before
pointing it at ``sensekit run --osc-control PORT``, or to watch ``--osc`` output.

Defaults: listens on 127.0.0.1 (``--host 0.0.0.0`` for the network); runs
until Ctrl-C, ``--count N`` messages or ``--seconds S``. A datagram that is not
well-formed OSC (``sensekit.osc.wire`` checks every size, pad and depth) is reported on
stderr (at most 5 such lines every 10 s), counted and skipped. A flood is bounded the way
``OscControl`` bounds it (``sensekit.osc.pace``): the listener uses at most 5 % of a CPU, the kernel
drops what does not fit in its receive buffer, and so the output grows no faster than that. The
counts of malformed datagrams and of those the kernel dropped are printed at the end, and a
``--seconds`` run that received nothing says so. A port already in use is a one-line error
(exit status 2).
"""
from __future__ import annotations

import argparse
import json
import logging
import socket
import sys
import time
from typing import Callable, TextIO

from sensekit.cli import Subparsers
from sensekit.bind_errors import bind_failure
from sensekit.errors import ConfigError
from sensekit.osc import Received, decode
from sensekit.osc.control import CPU_BURST_S, CPU_SHARE
from sensekit.osc.pace import CpuPace, count_kernel_drops, receive, socket_drops
from sensekit.ratelimit import DEFAULT_BURST, DEFAULT_INTERVAL_S, BurstWindow
from sensekit.validate import check_positive
from sensekit.cli.numbers import float_in

log = logging.getLogger(__name__)


def format_received(r: Received) -> str:
    args = " ".join(repr(a) if isinstance(a, str) else str(a) for a in r.args)
    head = f"@{r.timetag:.6f} " if r.timetag is not None else ""
    address = r.address if r.address.isprintable() else repr(r.address)   # no terminal escapes
    return f"{head}{address} ,{r.tags} {args}".rstrip()


def _json_value(v: object) -> object:
    return v.hex() if isinstance(v, bytes) else str(v)


def _write(out: TextIO, messages: list[Received], jsonl: bool) -> None:
    for r in messages:
        if jsonl:
            out.write(json.dumps({"address": r.address, "tags": r.tags, "args": list(r.args),
                                  "timetag": r.timetag}, default=_json_value) + "\n")
        else:
            out.write(format_received(r) + "\n")


def listen(port: int, *, host: str = "127.0.0.1", count: int | None = None,
           seconds: float | None = None, jsonl: bool = False, out: TextIO | None = None,
           ready: Callable[[int], None] | None = None) -> int:
    """Print messages until ``count`` arrived or ``seconds`` passed; returns how many."""
    out = out if out is not None else sys.stdout
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    tally = _Tally()
    try:
        count_kernel_drops(sock)           # inside: a failure closes the socket
        try:
            sock.bind((host, port))
        except OSError as exc:
            raise ConfigError(f"cannot listen on {host}:{port}: {bind_failure(exc, port)}") from None
        log.info("listening for OSC on %s:%d", host, sock.getsockname()[1])
        if ready is not None:
            ready(sock.getsockname()[1])
        pace = CpuPace(CPU_SHARE, CPU_BURST_S)
        deadline = None if seconds is None else time.monotonic() + seconds
        n = 0
        while count is None or n < count:
            wait = 0.5 if deadline is None else min(0.5, deadline - time.monotonic())
            if wait <= 0:
                break
            pace.wait()
            sock.settimeout(wait)
            try:
                dgram, sender, drops = receive(sock, 65536)
            except TimeoutError:
                continue
            tally.kernel_drops = drops if drops is not None else tally.kernel_drops
            try:
                messages = decode(dgram)
            except ValueError as exc:
                tally.malformed(sender, dgram, exc)
                continue
            _write(out, messages, jsonl)
            n += len(messages)
            out.flush()
        return n
    finally:
        # the count a datagram brings misses a dropped tail that nothing followed: the kernel's own
        counted = socket_drops(sock) if sock.fileno() >= 0 else None
        if counted is not None:
            tally.kernel_drops = max(tally.kernel_drops, counted[0])
        sock.close()
        tally.report()


class _Tally:
    """What was dropped: malformed datagrams (``DEFAULT_BURST`` lines shown every
    ``DEFAULT_INTERVAL_S``, the rest only counted) and the kernel's count of those it dropped."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.dropped = 0
        self.kernel_drops = 0
        self.window = BurstWindow(DEFAULT_BURST, DEFAULT_INTERVAL_S)

    def malformed(self, sender: tuple[str, int], dgram: bytes, exc: ValueError) -> None:
        self.dropped += 1
        shown = self.window.admit(self.clock())
        if shown is None:
            return
        note = f" [more in the next {DEFAULT_INTERVAL_S:g} s are counted, not shown]" if shown.last else ""
        print(f"dropped a malformed datagram from {sender[0]}:{sender[1]} ({len(dgram)} bytes): {exc}{note}",
              file=sys.stderr)

    def report(self) -> None:
        if self.dropped:
            print(f"{self.dropped} malformed datagram(s) dropped", file=sys.stderr)
        if self.kernel_drops:
            print(f"{self.kernel_drops} datagram(s) dropped by the kernel (more than the listener takes: "
                  f"{CPU_SHARE:.0%} of a CPU)", file=sys.stderr)


def _cmd(args: argparse.Namespace) -> int:
    if args.count is not None and args.count < 1:
        raise ConfigError(f"--count must be at least 1, got {args.count}")
    if args.seconds is not None:
        check_positive("--seconds", args.seconds)          # also refuses nan and inf
    n = listen(args.port, host=args.host, count=args.count, seconds=args.seconds, jsonl=args.jsonl)
    if n == 0 and args.seconds is not None:   # it ended having printed nothing at all: say so
        print(f"no OSC message arrived on {args.host}:{args.port} in {args.seconds:g} s (is the sender "
              f"pointed at this address and port?)", file=sys.stderr)
    return 0


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"PORT must be an integer, got {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"PORT must be 1..65535, got {port}")
    return port


def register(sub: Subparsers) -> None:
    p = sub.add_parser("osc-listen", help="print incoming OSC messages",
                       description="Print the OSC messages that arrive on a UDP port, one line each "
                                   "(until Ctrl-C, --count or --seconds).")
    p.add_argument("port", type=_port, metavar="PORT", help="UDP port to listen on, e.g. 9000")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1; 0.0.0.0: the network)")
    p.add_argument("--count", type=int, metavar="N", help="exit after N messages")
    p.add_argument("--seconds", type=float_in(0, 1e9), metavar="S", help="exit after S seconds")
    p.add_argument("--jsonl", action="store_true", help="JSON lines instead of text")
    p.set_defaults(func=_cmd)
