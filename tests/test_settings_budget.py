"""Settings applied on the run's thread share the panel's time budget (harden11).

A flood of valid settings that rebuild what depends on them (``voice.words``,
``background.samples``) used to rebuild on every item. Now the time ``apply_pending`` takes on
a run's thread is charged to the run's ``SettingsBudget`` (10 % of the run, 0.25 s banked);
while it is spent, values wait, one per key (the latest), and apply on a later item.

The time here is a ``ManualClock`` that the work itself moves: an item costs 1 ms, a rebuild
20 ms, so the counts are exact and nothing depends on the machine's speed.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Mapping

import numpy as np
import pytest

from sensekit.capture.base import Source, VideoFrame
from sensekit.clock import ManualClock
from sensekit.runner import Runner
from sensekit.settings import Tunable, setting
from sensekit.settings.declare import REGISTRY
from sensekit.settings.live import SettingsBudget, Tuning, budget_for_thread, catch_up

ITEM_S, REBUILD_S = 0.001, 0.020
SECTION = "test_rebuild_budget"


@pytest.fixture
def model() -> Iterator[Any]:
    """A stage with one setting that costs a rebuild (20 ms of the manual clock) to change."""
    clock = ManualClock()

    class Rebuilding(Tunable, section=SECTION, title="a throw-away model that rebuilds"):
        size = setting(1, "model size", lo=1, hi=1_000_000)

        def __init__(self) -> None:
            self.init_settings()
            self.rebuilt: list[int] = []

        def settings_changed(self, changed: Mapping[str, Any]) -> None:
            clock.advance(REBUILD_S)
            self.rebuilt.append(self.size)

        def process(self, item: Any) -> list[Any]:      # a stage of a runner
            if self._pending:
                self.apply_pending()
            clock.advance(ITEM_S)
            return []

    m = Rebuilding()
    m.clock = clock
    m.consumes, m.emits = "video", frozenset()
    yield m
    REGISTRY.pop(SECTION, None)


class Frames(Source):
    kind = "list"
    has_video, has_audio = True, False

    def __init__(self, n: int) -> None:
        self.n, self.i = n, 0

    def read(self, timeout: float | None = None) -> VideoFrame:
        if self.i >= self.n:
            raise EOFError
        self.i += 1
        return VideoFrame(self.i, self.i / 30, np.zeros((2, 2, 3), np.uint8))


def _flooded_run(model: Any, items: int) -> tuple[Runner, Tuning, list[int]]:
    """``items`` items of a runner, a new value of ``size`` sent before each (as OSC sends them,
    through the run's table, from outside the run's thread's loop)."""
    runner = Runner(Frames(items), [model], lazy=False)
    runner.settings_budget = SettingsBudget(clock=model.clock)
    tuning = Tuning(lambda: runner.stages)
    sent: list[int] = []
    while True:
        sent.append(len(sent) + 2)
        tuning.apply({f"{SECTION}.size": sent[-1]})
        try:
            item = runner.source.read()
        except EOFError:
            break
        runner.process(item)
    return runner, tuning, sent


def test_a_flood_of_a_rebuilding_setting_gets_a_tenth_of_the_run_and_the_last_value_wins(model):
    runner, tuning, sent = _flooded_run(model, 1000)
    items_s = 1000 * ITEM_S
    rebuild_s = len(model.rebuilt) * REBUILD_S
    # before: a rebuild on every item (1000 rebuilds, 20 s of rebuilding for 1 s of items)
    assert rebuild_s <= 0.1 * (items_s + rebuild_s) + 0.25 + REBUILD_S
    assert len(model.rebuilt) >= 10                 # the setting still takes effect during it
    budget = runner.settings_budget
    assert budget.applied == len(model.rebuilt) and budget.deferred > 0
    assert model.rebuilt == sorted(model.rebuilt)          # in order: a later value never undone
    # the flood stops; the run goes on and the last value sent is the one in use
    last = sent[-1]
    assert model.size != last and tuning.settings()[f"{SECTION}.size"] == last
    runner.source.n += 200                         # 200 more items (0.2 s: the debt is repaid)
    runner.run()
    assert model.size == last and model.rebuilt[-1] == last
    # every value sent was applied or replaced by a later one of the same key, never lost
    assert len(model.rebuilt) + tuning.superseded() == len(sent)


def test_values_sent_while_the_run_thread_is_busy_are_one_rebuild_with_the_last_value(model):
    runner = Runner(Frames(3), [model], lazy=False)
    tuning = Tuning(lambda: runner.stages)
    for size in (7, 3, 9, 4, 12):
        tuning.apply({f"{SECTION}.size": size})
    runner.run()
    assert model.rebuilt == [12] and tuning.superseded() == 4


def test_outside_a_run_and_through_apply_now_values_apply_at_once(model):
    spent = SettingsBudget(clock=model.clock)
    spent.charge(10.0)                                         # a debt of 100 s
    with budget_for_thread(spent):
        Tuning(lambda: [model]).apply_now({f"{SECTION}.size": 5})   # a key press, --set
        model.apply_now(size=6)
        model.apply(size=7)
        model.process(None)                                    # waits for the budget
    assert model.rebuilt == [5, 6] and spent.deferred == 1
    model.process(None)                                        # no run: applies at once
    assert model.rebuilt == [5, 6, 7]


def test_a_composite_stage_looks_again_while_values_wait_for_the_budget(model):
    spent = SettingsBudget(clock=model.clock, burst_s=0.01)
    spent.charge(0.02)                                         # repaid in 0.1 s
    model.apply(size=8)
    with budget_for_thread(spent):
        seen = catch_up(-1, lambda: [model])
        assert seen == -1 and model.size == 1                  # deferred: look again next item
        model.clock.advance(0.2)
        seen = catch_up(seen, lambda: [model])
    assert seen == Tunable.generation and model.size == 8


def test_values_sent_over_osc_while_the_run_is_busy_are_one_rebuild_with_the_last_value(recordings_dir):
    from tests.osc_show import Show, osc_message, wait_until
    from sensekit.osc import setting_address

    demo = recordings_dir / "demo.skrec"
    if not demo.is_dir():
        pytest.skip("recordings/demo.skrec not generated (python -m sensekit.synth)")
    show = Show(demo, ["--motion", "--motion-method", "background"])
    try:
        runner, tuning = show.runner, show.tuning
        (background,) = tuning.by_section()["background"]
        applied, superseded, accepted = runner.settings_budget.applied, tuning.superseded(), show.control.accepted
        values = [8 + i % 10 for i in range(20)]                  # each differs from the one before
        for v in values:
            show.send(osc_message(setting_address("background.samples"), v))
        wait_until(lambda: show.control.accepted == accepted + len(values), "20 background.samples")
        assert background.samples == 20                           # nothing applied off the run's thread
        runner.run(max_items=1)
        assert background.samples == values[-1]
        assert runner.settings_budget.applied == applied + 1
        assert tuning.superseded() == superseded + len(values) - 1
    finally:
        show.close()


def test_a_panel_flood_and_a_settings_flood_at_once_share_one_tenth_of_the_run(model):
    """A script posting to the panel and another sending rebuilding settings over OSC, at once.
    The panel's commands had a budget of their own (10 % of the run) beside the settings' (10 %):
    together they took a fifth. Now the panel charges the run's budget: a tenth between them,
    and each flood still gets a part of it."""
    from sensekit.errors import ConfigError
    from sensekit.panel import Panel, parse_panel_address
    from sensekit.panel.control import PanelControl

    clock = model.clock
    runner = Runner(Frames(20_000), [model], lazy=False)
    runner.settings_budget = SettingsBudget(clock=clock)
    tuning = Tuning(lambda: runner.stages)
    panel = Panel(parse_panel_address("127.0.0.1:0", None), runner,
                  control=PanelControl(lambda: runner.stages, tuning))       # not started
    assert panel.commands.budget is runner.settings_budget
    commands_s, n = 0.0, 0
    while True:
        n += 1
        tuning.apply({f"{SECTION}.size": n + 1})
        while True:                                  # the panel's queue kept full (a save: 60 ms)
            try:
                panel.commands.submit(lambda: clock.advance(0.06))
            except ConfigError:
                break
        try:
            item = runner.source.read()
        except EOFError:
            break
        runner.process(item)
        before = clock.now()
        panel.poll()                                 # as the app host does between steps
        commands_s += clock.now() - before
    total, rebuild_s = clock.now(), len(model.rebuilt) * REBUILD_S
    assert commands_s + rebuild_s <= 0.1 * total + 0.25 + 0.06 + REBUILD_S, (commands_s, rebuild_s, total)
    # turns, not time: a command costs 60 ms, a rebuild 20 ms (sharing without turns gave the
    # panel every refill: one rebuild in 20,000 items)
    assert commands_s >= 0.02 * total and rebuild_s >= 0.02 * total, (commands_s, rebuild_s, total)
