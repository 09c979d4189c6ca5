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


def test_two_kinds_of_unequal_cost_share_the_time_not_the_turns():
    """A 60 ms panel command and a 20 ms settings rebuild, both flooding: turns by count gave the
    commands 3/4 of the budget's time (75 % of it, 3x the settings'); the time is now shared."""
    clock = ManualClock()
    budget = TimeBudget(share=0.1, burst_s=0.25, clock=clock)
    spent = {"panel": 0.0, "settings": 0.0}
    cost = {"panel": 0.06, "settings": 0.02}
    for _ in range(3000):                  # 100 s of 1/30 s items; the settings ask first
        for who in ("settings", "panel"):
            if budget.available(who):
                clock.advance(cost[who])
                budget.charge(cost[who], who=who)
                spent[who] += cost[who]
        clock.advance(1 / 30)
    assert abs(spent["panel"] - spent["settings"]) <= 0.1 * (spent["panel"] + spent["settings"]), spent
    assert sum(spent.values()) <= 0.1 * clock.now() + 0.25 + 0.06


def test_a_kind_back_after_a_pause_has_no_credit_for_the_time_it_did_not_ask():
    """The settings flood stops for 10 s while the commands go on, then comes back: it shares the
    budget from then on; it does not take every turn until it has "caught up" the 10 s."""
    clock = ManualClock()
    budget = TimeBudget(share=0.1, burst_s=0.25, clock=clock)
    after = {"panel": 0.0, "settings": 0.0}
    for item in range(900):                # 30 s; the settings ask in the first and last 10 s only
        asking = ("settings", "panel") if not 300 <= item < 600 else ("panel",)
        for who in asking:
            if budget.available(who):
                clock.advance(0.05)
                budget.charge(0.05, who=who)
                if item >= 600:
                    after[who] += 0.05
        clock.advance(1 / 30)
    assert after["panel"] >= 0.35 * sum(after.values()), after
