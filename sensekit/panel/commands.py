"""``CommandQueue``: run a panel request on the run's own thread, between two items.

A pick or a save touches the stages and the app, which only the run's loop may do. The web
server ``submit``s a function and awaits the returned ``concurrent.futures.Future``; the loop
calls ``run_pending()`` once per item (the panel's tap stage) and once per app step, so a
request waits at most one frame or block (or one app step while paused) while the panel is
used as people use it. The queue is bounded (``max_pending``, 32): a flood of requests is
refused, not stored.

The time the commands take is budgeted (``sensekit.budget.TimeBudget``): the queue is given the
run's own budget (``Runner.settings_budget``, which the settings applied on the run's thread are
charged to as well), so the panel's commands and the settings share one tenth of the run between
them (``share``, 10 %, with a burst of ``burst_s``, 0.25 s, banked while nothing asks; the two
share its time, not its turns: ``budget.py``): a person
clicking gets every answer at once, and a flood of requests (a script, or a stuck page posting in
a loop) with a flood of settings (OSC) at once gets about a tenth of the run, not a fifth, and
the piece keeps its frame rate. Without a budget given, the queue makes one of its own. Each
command is charged at least ``min_cost_s`` (50 ms): a pick costs the command under 1 ms but
leaves the tracker a new target to learn on the next frames, work the budget does not see (with
the share alone, eight clients posting picks still took a paced ``color_ball`` from 30 to 16
frames/s), so a flood gets at most ``share / min_cost_s`` (2) commands a second. Before the
budget, every waiting command ran on every item: the picks took it to 12 frames/s, saves to
under 10. A command is never cut short: one that overdraws the budget runs whole and the next
waits until it is repaid.

Failure modes: a full queue raises ``ConfigError`` in ``submit`` (counted in ``refused``); an
exception in a command is set on its future (the server reports its text), never raised in the
loop; a command whose caller stopped waiting (cancelled) is dropped unrun.
"""
from __future__ import annotations

import queue
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from sensekit.budget import TimeBudget
from sensekit.clock import Clock
from sensekit.errors import ConfigError
from sensekit.validate import check_positive

__all__ = ["CommandQueue"]


class CommandQueue:
    def __init__(self, budget: TimeBudget | None = None, *, max_pending: int = 32,
                 min_cost_s: float = 0.05, clock: Clock | None = None) -> None:
        """``budget``: the run's (shared with its settings); without one, a ``TimeBudget`` of its
        own on ``clock``. The budget's share and burst are read from it (``budget.share``)."""
        if budget is not None and clock is not None:
            raise ConfigError("CommandQueue: the budget given has its clock; give no other")
        self._queue: queue.Queue[tuple[Callable[[], Any], Future[Any], bool]] = queue.Queue(max_pending)
        self.min_cost_s = check_positive("min_cost_s", min_cost_s, allow_zero=True)
        self.budget = budget if budget is not None else TimeBudget(clock=clock)
        self._clock: Clock = self.budget.clock
        #: requests refused because the queue was full
        self.refused = 0

    def submit(self, fn: Callable[[], Any], *, light: bool = False) -> Future[Any]:
        """Queue ``fn`` for the run's thread. A ``light`` one (a read that leaves no work behind:
        a teach card's status poll, four times a second while it records) is charged only the
        time it takes, not ``min_cost_s``."""
        future: Future[Any] = Future()
        try:
            self._queue.put_nowait((fn, future, light))
        except queue.Full:
            self.refused += 1
            raise ConfigError("the piece has too many panel requests waiting; try again") from None
        return future

    def run_pending(self) -> int:
        """Run waiting commands (on the caller's thread) while the time budget lasts; returns
        how many ran."""
        n = 0
        while not self._queue.empty() and self.budget.available("panel"):
            try:
                fn, future, light = self._queue.get_nowait()
            except queue.Empty:
                return n
            if not future.set_running_or_notify_cancel():
                continue
            n += 1
            started = self._clock.now()
            try:
                future.set_result(fn())
            except Exception as exc:  # noqa: BLE001 - reported to the client, the piece goes on
                future.set_exception(exc)
            finally:
                ended = self._clock.now()
                self.budget.charge(ended - started if light else max(self.min_cost_s, ended - started), ended,
                                   who="panel")
        return n
