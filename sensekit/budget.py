"""``TimeBudget``: a share of one thread's time for work that arrives from outside (a token bucket).

The rule the run's thread uses for what other threads ask of it (the panel's commands, the
settings that OSC, the panel or a script apply; one budget for both, the run's
``settings_budget``, so a flood of each at once still gets one ``share``): the work may use
``share`` of the thread's wall time on average, with a burst of ``burst_s`` banked while nothing
asks, so a person gets an answer at once and a flood gets about ``share`` of the run. Work is
never cut short: a piece that overdraws the budget runs whole, and the next waits
(``available()`` is false) until the debt is repaid by the time that passes.

Usage, on the one thread that owns it::

    if budget.available(who):       # refills from the clock first
        started = clock.now()
        work()
        budget.charge(clock.now() - started)     # charged to ``who``, the kind let run last

One budget may be shared by several kinds of work (``available(who)``, ``charge(cost, who=who)``):
the kinds share its *time*. When it comes back after being spent, the kind that has been charged
least goes first (of equals, the one that has waited longest), so a flood of one kind cannot take
every turn from another (the panel's commands are checked after the stages on each item; sharing
without turns gave them every refill and left the settings waiting for good), nor most of the time
by taking turns that cost more (turns by count gave 60 ms panel commands three times the time of 20
ms settings rebuilds). A kind that has not asked for ``STALE_S`` (0.5 s) no longer holds its turn,
and when it asks again it starts level with the least charged of the kinds asking, with no credit
for the time it was away.

Failure modes: none of its own; ``share`` and ``burst_s`` must be positive (``ConfigError``).
"""
from __future__ import annotations

from sensekit.clock import Clock, MonotonicClock
from sensekit.validate import check_positive

__all__ = ["TimeBudget", "STALE_S"]

#: a kind of work that has not asked for this long gives up its turn
STALE_S = 0.5


class TimeBudget:
    def __init__(self, *, share: float = 0.1, burst_s: float = 0.25, clock: Clock | None = None) -> None:
        self.share = check_positive("share", share)
        self.burst_s = check_positive("burst_s", burst_s)
        self.clock: Clock = clock if clock is not None else MonotonicClock()
        self._budget = self.burst_s
        self._last: float | None = None
        self._waiting: dict[str, tuple[float, float]] = {}   # who -> (first refused, last asked)
        self._asked: dict[str, float] = {}                   # who -> last asked
        self._used: dict[str, float] = {}                    # who -> seconds charged (see above)
        self._granted = ""                                   # the kind ``available`` let run last

    def refill(self, now: float | None = None) -> None:
        """Add what the time since the last refill earned (at most ``burst_s`` banked)."""
        if now is None:
            now = self.clock.now()
        if self._last is not None:
            self._budget = min(self.burst_s, self._budget + (now - self._last) * self.share)
        self._last = now

    def available(self, who: str = "") -> bool:
        """Refill, then whether work of kind ``who`` may run now: the budget is not overdrawn and
        no other kind waiting for it has been charged less (of equals: has waited longer; module
        docstring)."""
        now = self.clock.now()
        self.refill(now)
        self._back(who, now)
        first = self._waiting.get(who, (now, now))[0]
        if self._budget > 0:
            mine = (self._used.get(who, 0.0), first)
            ahead = [w for w, (f, a) in self._waiting.items()
                     if w != who and now - a < STALE_S and (self._used.get(w, 0.0), f) < mine]
            if not ahead:
                self._waiting.pop(who, None)
                self._granted = who
                return True
        self._waiting[who] = (first, now)
        return False

    def _back(self, who: str, now: float) -> None:
        """Note that ``who`` asks; one that had not asked for ``STALE_S`` (or never) starts level
        with the least charged kind asking now."""
        last = self._asked.get(who)
        self._asked[who] = now
        if last is not None and now - last < STALE_S:
            return
        others = [self._used.get(w, 0.0) for w, a in self._asked.items() if w != who and now - a < STALE_S]
        if others:
            self._used[who] = max(self._used.get(who, 0.0), min(others))

    def charge(self, cost_s: float, now: float | None = None, *, who: str | None = None) -> None:
        """Take ``cost_s`` seconds of work of kind ``who`` off the budget (then refill up to
        ``now``); without ``who``, of the kind ``available`` let run last."""
        if who is None:
            who = self._granted
        self._budget -= cost_s
        self._used[who] = self._used.get(who, 0.0) + cost_s
        self.refill(now)

    @property
    def balance_s(self) -> float:
        """Seconds of work left (negative: the debt the next work waits for)."""
        return self._budget
