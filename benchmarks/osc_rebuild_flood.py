"""The run's own cost of valid settings sent over OSC as fast as a script sends them (harden10).

    .venv/bin/python benchmarks/osc_rebuild_flood.py [--items 600] [--every-ms 2]

``OscControl`` paces its own thread (5 % of a CPU), but a setting it accepts is applied on the
run's thread, and some settings rebuild what depends on them there: a new word spotter for
``voice.words``, a new background model for ``background.samples``. For each case the run
``sensekit events`` builds (``events.build``) on the bundled demo recording (unpaced) processes
``--items`` items alone, then as many while another thread sends the setting, alternating two
valid values, one datagram every ``--every-ms``; a cheap setting (``activity.silence_level``)
is the comparison. ``--runs`` alternates the two (the fastest of each is kept: the machine is
shared). It prints seconds alone and flooded, their ratio, the OSC counts and what the run's
settings budget did (harden11: values applied, superseded by a later one, items that left
them waiting), and asserts nothing. ``--unbudgeted`` gives the run an unlimited budget: the
behaviour before harden11, measured in the same process.

``--panel-flood`` adds a panel to the run (started: its tap is one of the run's stages) and a
second flood beside the settings: a thread keeps the panel's command queue full of commands
that each take ``--command-ms`` of CPU (as a script posting saves would). It prints, for each
case, the run alone, with the settings flood, with the panel flood and with both (harden12:
the two share one budget, a tenth of the run between them; before, each had a tenth), with the
share of the run charged to each (harden14: the two share the budget's time, not its turns).
"""
from __future__ import annotations

import argparse
import contextlib
import logging
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]

CASES = [
    ("activity.silence_level", (20.0, 30.0), ["--activity"]),
    ("voice.words", ("left", "right"), ["--words", "left"]),
    ("background.samples", (8, 20), ["--motion", "--motion-method", "background"]),
]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--items", type=int, default=600)
    p.add_argument("--every-ms", type=float, default=2.0)
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--unbudgeted", action="store_true", help="no limit on applying (before harden11)")
    p.add_argument("--panel-flood", action="store_true", help="a panel, and its commands flooded too")
    p.add_argument("--command-ms", type=float, default=60.0)
    p.add_argument("--only", help="only this setting's case")
    args = p.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from tests.osc_show import Show, osc_message
    from sensekit.osc import setting_address
    from sensekit.settings.live import SettingsBudget

    logging.disable(logging.WARNING)             # one line per accepted setting otherwise
    for key, values, run in CASES:
        if args.only and key != args.only:
            continue
        try:
            show = Show(REPO / "recordings" / "demo.skrec", run)
        except Exception as exc:  # noqa: BLE001 - a missing extra: say so and go on
            print(f"{key}: skipped ({exc})")
            continue
        stop = threading.Event()
        messages = [osc_message(setting_address(key), v) for v in values]

        def flood(show: Show = show, messages: list[bytes] = messages, stop: threading.Event = stop) -> None:
            k = 0
            while not stop.is_set():
                show.send(messages[k % 2])
                k += 1
                time.sleep(args.every_ms / 1000)

        if args.unbudgeted:
            show.runner.settings_budget = SettingsBudget(share=1e9, burst_s=1e9)
        if args.panel_flood:
            print(double_flood(show, flood, stop, args))
            show.close()
            continue
        alone = flooded = float("inf")
        for _ in range(args.runs):
            t = time.perf_counter()
            show.runner.run(max_items=args.items)
            alone = min(alone, time.perf_counter() - t)
            stop.clear()
            sender = threading.Thread(target=flood, daemon=True)
            sender.start()
            t = time.perf_counter()
            show.runner.run(max_items=args.items)
            flooded = min(flooded, time.perf_counter() - t)
            stop.set()
            sender.join()
            time.sleep(0.5)                       # the last values apply; the budget refills
        stats = show.control.stats()
        budget = show.runner.settings_budget
        superseded = show.tuning.superseded()
        show.close()
        print(f"{key}: {args.items} items alone {alone:.2f} s, flooded {flooded:.2f} s "
              f"({flooded / alone:.1f}x); accepted {stats['osc_accepted']}, applied {budget.applied}, "
              f"superseded {superseded}, deferred {budget.deferred} item(s)")
    return 0


def _drop_waiting(commands: Any) -> None:
    """Cancel the commands still waiting (their clients gave up), so none runs in the next run."""
    import queue

    with contextlib.suppress(queue.Empty):
        while True:
            commands._queue.get_nowait()[1].cancel()


def double_flood(show: Any, flood: Callable[[], None], stop: threading.Event, args: Any) -> str:
    """The run alone, flooded with settings, with panel commands, and with both (fastest of
    ``--runs`` each, in turns)."""
    import tempfile

    from sensekit.errors import ConfigError
    from sensekit.panel import Panel, parse_panel_address
    from sensekit.panel.control import StagesControl

    venue = Path(tempfile.mkdtemp(prefix="sensekit-flood-")) / "venue.toml"
    panel = Panel(parse_panel_address("127.0.0.1:0", None), show.runner,
                  StagesControl(show.runner, show.tuning, None, venue), info={"title": "flood"})
    panel.start()

    def command() -> None:
        t = time.perf_counter()
        while time.perf_counter() - t < args.command_ms / 1000:
            pass

    def post() -> None:
        while not stop.is_set():
            try:
                panel.commands.submit(command)
            except ConfigError:
                time.sleep(0.005)                 # the queue is full: as a client told to retry

    spent: dict[str, float] = {}                  # seconds charged to the run's budget(s), by kind
    for budget in {id(b): b for b in (show.runner.settings_budget, panel.commands.budget)}.values():
        _count_charges(budget, spent)
    best: dict[str, tuple[float, dict[str, float]]] = {}
    for _ in range(args.runs):
        for name, senders in (("alone", []), ("settings", [flood]), ("panel", [post]), ("both", [flood, post])):
            secs, shares = _one_run(show, panel, senders, stop, spent, args.items)
            if name not in best or secs < best[name][0]:
                best[name] = (secs, shares)
    panel.close()
    alone = best["alone"][0]
    return ("  ".join(f"{name} {secs:.2f} s ({secs / alone:.2f}x, {_split(shares)})"
                      for name, (secs, shares) in best.items())
            + f"  [{args.items} items, commands of {args.command_ms:g} ms]")


def _split(shares: dict[str, float]) -> str:
    """"10.1 % budgeted work: panel 5.0 %, settings 5.1 %"."""
    kinds = ", ".join(f"{k} {100 * v:.1f} %" for k, v in sorted(shares.items()) if v)
    return f"{100 * sum(shares.values()):.1f} % budgeted work" + (f": {kinds}" if kinds else "")


def _one_run(show: Any, panel: Any, senders: list[Callable[[], None]], stop: threading.Event,
             spent: dict[str, float], items: int) -> tuple[float, dict[str, float]]:
    """Seconds ``items`` items take while ``senders`` flood, and the share of them charged to
    each kind of work."""
    stop.clear()
    threads = [threading.Thread(target=f, daemon=True) for f in senders]
    for th in threads:
        th.start()
    spent.clear()
    t = time.perf_counter()
    show.runner.run(max_items=items)
    secs, charged = time.perf_counter() - t, dict(spent)
    stop.set()
    for th in threads:
        th.join()
    _drop_waiting(panel.commands)
    time.sleep(0.5)                               # the last values apply; the budget refills
    return secs, {k: v / secs for k, v in charged.items()}


def _count_charges(budget: Any, spent: dict[str, float]) -> None:
    """Add what ``budget`` is charged to ``spent[kind]``: "panel" for the commands' time,
    "settings" for the settings' (told by the module that charges, so the same script measures
    a checkout whose ``charge`` takes no kind)."""
    charge = budget.charge

    def counted(cost_s: float, now: float | None = None, **kw: Any) -> None:
        caller = sys._getframe(1).f_globals.get("__name__", "")
        kind = "panel" if caller.startswith("sensekit.panel") else "settings"
        spent[kind] = spent.get(kind, 0.0) + cost_s
        charge(cost_s, now, **kw)
    budget.charge = counted


if __name__ == "__main__":
    sys.exit(main())
