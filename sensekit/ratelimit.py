"""Rate-limited log warnings: a flood of one warning becomes a few lines and a count.

``RateLimitFilter`` is a ``logging.Filter`` for a handler. Records are grouped by
logger, level and message *template* (``record.msg`` before ``%`` formatting, its digits
masked: ``kind_of``), so "audio jumps %.1f s ahead at t=%.3f" is one kind of message whatever
the numbers, and so is a message a caller formatted itself (``log.warning(f"block {i} ...")``,
a library's pre-formatted text), which before the mask was a new kind at every number and
never limited.
Per kind, the first ``burst`` (5) records in a window of ``interval_s`` (10 s) are
shown; the last of them says that repeats are now counted; the rest of the window
is counted and dropped. The first record of the next window carries the count
("... [312 more like this in the last 10 s not shown]"), and ``flush()`` logs the
counts still pending (the CLI calls it on exit), so nothing disappears without a
number. Records below ``level`` (INFO: a camera's "restored" line flaps with its
"lost" warning; debug output is never limited) always pass. ``BurstWindow`` is that window
for one kind alone, for a caller that prints rather than logs (``sensekit osc-listen``'s
malformed-datagram lines).

A second, longer window caps what a kind that keeps coming back shows: at most
``long_burst`` (10) lines in ``long_interval_s`` (600 s), counted alike. A source that flaps (a
network camera stalling and returning every 6 s: "lost" and "restored" every 6 s, never 5 of
a kind in 10 s) wrote 1,200 such lines an hour; now 120, each 10-minute window's first line
carrying the count of those not shown (``benchmarks/log_lines.py``, per simulated hour).

``install_rate_limit()`` adds one shared filter to the plain stderr handlers of
the root logger (what ``logging.basicConfig`` made); the ``sensekit`` command calls
it, and a program embedding sensekit can call it too. It applies to every logger,
so every repeated warning (unknown OSC addresses, malformed datagrams, audio
jumps in a replay, a camera flapping between lost and restored, NaN blocks) is
limited in one place.

Cost: the masked template (cached), one dict lookup and a lock per INFO
or WARNING record. Memory: one small entry per kind of message seen (templates are
source-code constants, so a few dozen), never more than ``MAX_KINDS`` (512) plus one overflow
kind per logger and level: past ``MAX_KINDS`` the kinds whose window has ended are forgotten
(the repeats they held back are kept as one count, which ``flush()`` reports), and while the
table is full of kinds still in their window, a new kind shares the overflow kind's window
(``OVERFLOW``), so pre-formatted text that varies in words (file names, a library's text
quoting what a client sent) cannot grow the table, however fast it comes or however long the
run (harden17: a kind held back was never forgotten, and 2,048 kinds each repeated kept 2,048).
A kind is the first ``KIND_CHARS`` (200) characters of the text, so a long message costs no
more than a short one (600 messages of 100 kB held 120 MB in the kinds and the mask's cache).
"""
from __future__ import annotations

import functools
import logging
import re
import threading
import time
from dataclasses import dataclass
from typing import Callable

log = logging.getLogger(__name__)

DEFAULT_BURST = 5
DEFAULT_INTERVAL_S = 10.0
#: at most this many lines of one kind in ``LONG_INTERVAL_S``, whatever the short window allows
LONG_BURST = 10
LONG_INTERVAL_S = 600.0
_BYPASS = "_sensekit_ratelimit_bypass"
#: how many kinds the filter keeps before it forgets the idle ones
MAX_KINDS = 512
#: the characters of a message that make its kind (and the label ``flush`` quotes)
KIND_CHARS = 200
#: the kind a new kind of message shares while the table is full of kinds in their window
OVERFLOW = "(a kind of message beyond the first 512 at once)"
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")


def kind_of(msg: object) -> str:
    """The template a record is grouped by: its ``msg``'s first ``KIND_CHARS`` characters with
    every number masked as ``#`` (``"block 12 at t=3.5 s"`` and ``"block 13 at t=3.6 s"`` ->
    ``"block # at t=# s"``). Only the start counts, so a kind (and the cache of masks) holds
    at most 200 characters whatever a library puts in its text (harden17: 600 messages of
    100 kB held 120 MB)."""
    return _masked(str(msg)[:KIND_CHARS])


@functools.lru_cache(maxsize=1024)      # templates repeat: the mask is a dict read for them
def _masked(text: str) -> str:
    return _NUMBER.sub("#", text)


def _checked(burst: int, interval_s: float) -> tuple[int, float]:
    if burst < 1 or not interval_s > 0:
        raise ValueError(f"burst must be >= 1 and interval_s > 0, got {burst}, {interval_s}")
    return int(burst), float(interval_s)


@dataclass(frozen=True)
class Shown:
    """What ``BurstWindow.admit`` says of a shown record."""

    last: bool          # the last one shown in this window: say that the rest are counted
    carried: int        # how many the window before counted and did not show
    span_s: float       # how long that window ran (0 for the first)


class BurstWindow:
    """One kind of message's window: the first ``burst`` in each ``interval_s`` are shown,
    the rest counted. ``RateLimitFilter`` keeps one per kind; ``sensekit osc-listen`` one for
    its malformed-datagram lines. Not thread-safe (the filter holds its lock around it)."""

    def __init__(self, burst: int = DEFAULT_BURST, interval_s: float = DEFAULT_INTERVAL_S) -> None:
        self.burst, self.interval_s = _checked(burst, interval_s)
        self.start: float | None = None
        self.shown = 0
        self.suppressed = 0

    def admit(self, now: float) -> Shown | None:
        """``Shown`` for a record to show at ``now``; ``None`` (and counted) for one to drop."""
        carried, span = 0, 0.0
        if self.start is None or now - self.start >= self.interval_s:
            if self.start is not None:
                carried, span = self.suppressed, now - self.start
            self.start, self.shown, self.suppressed = now, 0, 0
        if self.shown >= self.burst:
            self.suppressed += 1
            return None
        self.shown += 1
        return Shown(self.shown == self.burst, carried, span)


class RateLimitFilter(logging.Filter):
    """Show at most ``burst`` records of each kind per ``interval_s``; count the rest."""

    def __init__(self, burst: int = DEFAULT_BURST, interval_s: float = DEFAULT_INTERVAL_S, *,
                 level: int = logging.INFO,
                 clock: Callable[[], float] = time.monotonic,
                 long_burst: int = LONG_BURST, long_interval_s: float = LONG_INTERVAL_S) -> None:
        super().__init__()
        self.burst, self.interval_s = _checked(burst, interval_s)
        self.long_burst, self.long_interval_s = _checked(long_burst, long_interval_s)
        self._long: dict[tuple[str, int, str], BurstWindow] = {}   # each kind's long window
        self.level = level
        self.clock = clock
        self.suppressed_total = 0
        self._windows: dict[tuple[str, int, str], BurstWindow] = {}
        self._labels: dict[tuple[str, int, str], str] = {}   # the first message of each kind
        self._next_prune = float("-inf")   # no window ends before it: a full table is not rescanned
        self._forgotten = [0, 0]           # repeats held back by kinds forgotten, and those kinds
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < self.level or getattr(record, _BYPASS, False):
            return True
        key = (record.name, record.levelno, kind_of(record.msg))
        now = self.clock()
        with self._lock:
            win = self._windows.get(key)
            if win is None:
                if len(self._windows) >= MAX_KINDS and now >= self._next_prune:
                    self._forget_idle(now)
                if len(self._windows) >= MAX_KINDS:
                    key = (record.name, record.levelno, OVERFLOW)
                    win = self._windows.get(key)
                if win is None:
                    win = self._windows[key] = BurstWindow(self.burst, self.interval_s)
                    self._long[key] = BurstWindow(self.long_burst, self.long_interval_s)
                    self._next_prune = min(self._next_prune, now + self.interval_s)
                    self._labels[key] = str(record.msg)[:KIND_CHARS] if key[2] != OVERFLOW else OVERFLOW
            shown = win.admit(now)
            long = self._long[key]
            held = None if shown is None else long.admit(now)   # what the short window let through
            if shown is None or held is None:
                self.suppressed_total += 1
                return False
        carried = shown.carried + held.carried
        if carried:
            span = max(shown.span_s, held.span_s)
            _append(record, f" [{carried} more like this in the last {span:.0f} s not shown]")
        if held.last and long.start is not None:
            left = long.start + self.long_interval_s - now
            _append(record, f" [repeats in the next {left:.0f} s are counted, not shown]")
        elif shown.last:
            _append(record, f" [repeats in the next {self.interval_s:g} s are counted, not shown]")
        return True

    def kinds(self) -> int:
        """How many kinds of message the filter holds a window for."""
        with self._lock:
            return len(self._windows)

    def _forget_idle(self, now: float) -> None:
        """Drop the kinds whose window has ended, keeping what they held back as one count
        (lock held); note when the first window still open ends."""
        ends = float("inf")
        for key, win in list(self._windows.items()):
            if win.start is None or now - win.start >= self.interval_s:
                held = win.suppressed + self._long[key].suppressed
                if held:
                    self._forgotten[0] += held
                    self._forgotten[1] += 1
                del self._windows[key], self._labels[key], self._long[key]
            else:
                ends = min(ends, win.start + self.interval_s)
        self._next_prune = ends

    def pending(self) -> list[tuple[str, int]]:
        """``(message template, suppressed count)`` not yet reported, the template as the
        kind's first record gave it; resets them."""
        out = []
        with self._lock:
            for key, win in self._windows.items():
                long = self._long[key]
                if win.suppressed + long.suppressed:
                    out.append((self._labels[key], win.suppressed + long.suppressed))
                    win.suppressed = long.suppressed = 0
        return out

    def forgotten(self) -> tuple[int, int]:
        """``(repeats, kinds)`` held back by kinds forgotten to keep the table small, not yet
        reported; resets them."""
        with self._lock:
            out = (self._forgotten[0], self._forgotten[1])
            self._forgotten = [0, 0]
        return out

    def flush(self, logger: logging.Logger | None = None) -> int:
        """Log one line per kind of message with repeats not shown yet (and one for the kinds
        forgotten with repeats held back); returns how many lines."""
        target = logger or log
        items = self.pending()
        for msg, n in items:
            target.warning("%d more message(s) like %r were not shown", n, msg,
                           extra={_BYPASS: True})
        repeats, kinds = self.forgotten()
        if repeats:
            target.warning("%d more message(s) of %d other kind(s), no longer seen, were not shown",
                           repeats, kinds, extra={_BYPASS: True})
        return len(items) + (1 if repeats else 0)


def _append(record: logging.LogRecord, note: str) -> None:
    """Add ``note`` to a record's message (after ``%`` formatting, whatever ``msg`` is)."""
    record.msg = record.getMessage() + note
    record.args = None


_shared: RateLimitFilter | None = None


def install_rate_limit(burst: int = DEFAULT_BURST, interval_s: float = DEFAULT_INTERVAL_S
                       ) -> RateLimitFilter:
    """Add the shared filter to the root logger's plain stream handlers (idempotent)."""
    global _shared
    if _shared is None:
        _shared = RateLimitFilter(burst, interval_s)
    for handler in logging.getLogger().handlers:
        if type(handler) in (logging.StreamHandler, logging.FileHandler) \
                and _shared not in handler.filters:
            handler.addFilter(_shared)
    return _shared


def flush_rate_limit() -> int:
    """Report the repeats the shared filter is still holding back (see ``flush``)."""
    return _shared.flush() if _shared is not None else 0
