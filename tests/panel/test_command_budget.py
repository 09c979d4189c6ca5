"""Panel commands share the run's thread within a time budget: a flood of requests cannot take
the piece's frame rate (``sensekit.panel.commands``)."""
from __future__ import annotations

import contextlib
import time

import pytest

from sensekit.budget import TimeBudget
from sensekit.clock import ManualClock
from sensekit.errors import ConfigError
from sensekit.panel.commands import CommandQueue


def _costly(clock: ManualClock, seconds: float, ran: list[float]):
    def command() -> str:
        ran.append(clock.now())
        clock.advance(seconds)
        return "done"
    return command


def test_a_flood_gets_its_share_of_the_run_and_no_more():
    clock = ManualClock()
    q = CommandQueue(TimeBudget(share=0.1, burst_s=0.25, clock=clock))
    ran: list[float] = []
    spent = 0.0
    frames = 30 * 30                                  # 30 s of a 30 frames/s piece
    for _ in range(frames):
        while True:                                   # eight clients keep the queue full
            try:
                q.submit(_costly(clock, 0.05, ran))
            except ConfigError:
                break
        before = clock.now()
        q.run_pending()
        spent += clock.now() - before
        clock.advance(1 / 30)                         # the frame itself
    total = clock.now()
    assert spent <= 0.1 * total + 0.25 + 0.05         # the share, the burst and one overdraft
    assert spent >= 0.08 * total                      # and the commands do get their share
    assert q.refused > 0


def test_a_person_clicking_is_answered_on_the_next_item():
    clock = ManualClock()
    q = CommandQueue(clock=clock)
    ran: list[float] = []
    for _ in range(5):                                # five clicks in a burst, 30 ms each
        future = q.submit(_costly(clock, 0.03, ran))
        assert q.run_pending() == 1 and future.result() == "done"
        clock.advance(1 / 30)
    clock.advance(2.0)
    future = q.submit(_costly(clock, 0.4, ran))       # a slow command (a save) runs whole...
    assert q.run_pending() == 1 and future.done()
    later = q.submit(_costly(clock, 0.01, ran))       # ...and the next waits until it is repaid
    assert q.run_pending() == 0 and not later.done()
    clock.advance(2.0)
    assert q.run_pending() == 1 and later.done()


def test_a_flood_of_cheap_commands_is_counted_at_the_least_cost():
    # a pick takes the command under 1 ms but leaves the tracker a new target to learn on the
    # next frame: each command is charged at least min_cost_s
    clock = ManualClock()
    q = CommandQueue(TimeBudget(share=0.1, burst_s=0.25, clock=clock), min_cost_s=0.03)
    ran: list[float] = []
    for _ in range(30 * 20):                          # 20 s at 30 frames/s
        while True:
            try:
                q.submit(_costly(clock, 0.0005, ran))
            except ConfigError:
                break
        q.run_pending()
        clock.advance(1 / 30)
    assert len(ran) <= 0.1 / 0.03 * 20 + 0.25 / 0.03 + 1


def test_waiting_commands_run_in_order_and_a_cancelled_one_is_dropped():
    clock = ManualClock()
    q = CommandQueue(clock=clock)
    seen: list[int] = []
    futures = [q.submit(lambda i=i: seen.append(i)) for i in range(4)]
    futures[1].cancel()                               # its client stopped waiting
    assert q.run_pending() == 3 and seen == [0, 2, 3]


def test_commands_flooding_a_real_clock_stop_at_the_burst():
    # 32 waiting commands of 20 ms: they all ran on one item (0.64 s of the run's thread)
    q = CommandQueue()
    took: list[float] = []

    def command() -> None:
        t = time.monotonic()
        time.sleep(0.02)
        took.append(time.monotonic() - t)

    for _ in range(32):
        q.submit(command)
    t0 = time.monotonic()
    n = q.run_pending()
    elapsed = time.monotonic() - t0
    assert n <= 14 and len(took) == n                 # 0.25 s of burst, 20 ms or more each
    # each command started while the budget lasted: the burst plus the 10 % share of the
    # time gone (exact on a loaded machine: slow sleeps only mean fewer commands)
    assert sum(took[:-1]) < 0.25 + 0.1 * elapsed, (took, elapsed)


@pytest.mark.parametrize("bad", [{"share": 0}, {"share": -1}, {"burst_s": float("nan")}])
def test_bad_budget_is_a_one_line_error(bad):
    with pytest.raises(ConfigError, match="must be"):
        CommandQueue(TimeBudget(**bad))


def test_a_bad_least_cost_is_a_one_line_error():
    with pytest.raises(ConfigError, match="must be"):
        CommandQueue(min_cost_s=-1)


def test_a_teach_cards_status_polls_do_not_use_up_the_budget():
    # while a card records, the page asks for its status four times a second; charged 50 ms
    # each, the polls alone would need twice the share and queue up behind it
    clock = ManualClock()
    q = CommandQueue(clock=clock)
    ran: list[float] = []
    polls = []
    for frame in range(30 * 20):                      # 20 s of a 30 frames/s piece
        if frame % 8 == 0:                            # every 0.27 s
            polls.append(q.submit(_costly(clock, 0.0005, ran), light=True))
        q.run_pending()
        clock.advance(1 / 30)
    assert all(p.done() for p in polls)               # each answered on the next item
    click = q.submit(_costly(clock, 0.03, ran))       # and a click right after is not kept waiting
    assert q.run_pending() == 1 and click.done()


def test_commands_charged_to_the_runs_budget_leave_settings_the_rest_of_one_share():
    """The run's budget (``Runner.settings_budget``) given to the queue: what the commands spend,
    the settings do not get, and the other way round."""
    from sensekit.settings.live import SettingsBudget

    clock = ManualClock()
    budget = SettingsBudget(clock=clock)
    q = CommandQueue(budget)
    ran: list[float] = []
    for _ in range(30 * 30):                          # 30 s at 30 frames/s, both flooding
        with contextlib.suppress(ConfigError):
            q.submit(_costly(clock, 0.05, ran))
        if budget.available("settings"):                        # a setting applied on the run's thread
            started = clock.now()
            clock.advance(0.02)
            budget.charge(clock.now() - started)
        q.run_pending()
        clock.advance(1 / 30)
    commands_s = len(ran) * 0.05
    settings_s = clock.now() - 30.0 - commands_s
    assert commands_s + settings_s <= 0.1 * clock.now() + 0.25 + 0.05
    assert commands_s > 0.5 and settings_s > 0.5


def test_a_queue_given_a_budget_takes_no_other_clock():
    with pytest.raises(ConfigError, match="give no other"):
        CommandQueue(TimeBudget(clock=ManualClock()), clock=ManualClock())
