"""``sensekit.budget.TimeBudget`` shared by two kinds of work: turns when it comes back, and a kind
that stopped asking gives up its turn."""
from __future__ import annotations

from sensekit.budget import STALE_S, TimeBudget
from sensekit.clock import ManualClock


def _spend(budget: TimeBudget, clock: ManualClock, cost_s: float) -> None:
    clock.advance(cost_s)
    budget.charge(cost_s)


def test_two_kinds_flooding_one_budget_take_turns():
    clock = ManualClock()
    budget = TimeBudget(share=0.1, burst_s=0.25, clock=clock)
    turns: list[str] = []
    for _ in range(3000):                  # 100 s of 1/30 s items; "a" always asks first
        for who in ("b", "a"):             # "a" asks right after the time of the item passed
            if budget.available(who):
                turns.append(who)
                _spend(budget, clock, 0.05)
        clock.advance(1 / 30)
    assert abs(turns.count("a") - turns.count("b")) <= 6, (turns.count("a"), turns.count("b"))
    assert len(turns) * 0.05 <= 0.1 * clock.now() + 0.25 + 0.05


def test_a_kind_that_stopped_asking_does_not_hold_the_budget():
    clock = ManualClock()
    budget = TimeBudget(share=1.0, burst_s=0.05, clock=clock)
    assert budget.available("a")
    budget.charge(0.2)                                                 # repaid in 0.15 s
    assert not budget.available("a")                                   # spent; "a" waits first
    clock.advance(0.01)
    assert not budget.available("b")
    clock.advance(0.2)                                                 # repaid; "a" asks no more
    assert not budget.available("b")                                   # "a"'s turn still held...
    clock.advance(STALE_S)
    assert budget.available("b")                                       # ...until it is stale


def test_one_kind_alone_is_as_before():
    clock = ManualClock()
    budget = TimeBudget(share=0.1, burst_s=0.25, clock=clock)
    ran = 0
    for _ in range(300):
        while budget.available():
            ran += 1
            _spend(budget, clock, 0.05)
        clock.advance(1 / 30)
    assert 0.1 * clock.now() * 0.9 <= ran * 0.05 <= 0.1 * clock.now() + 0.25 + 0.05
