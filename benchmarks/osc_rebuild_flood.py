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
"""
from __future__ import annotations

import argparse
import logging
import sys
import threading
import time
from pathlib import Path

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
    args = p.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from tests.test_osc_hostile import Show, _message
    from sensekit.osc import setting_address
    from sensekit.settings.live import SettingsBudget

    logging.disable(logging.WARNING)             # one line per accepted setting otherwise
    for key, values, run in CASES:
        try:
            show = Show(REPO / "recordings" / "demo.skrec", run)
        except Exception as exc:  # noqa: BLE001 - a missing extra: say so and go on
            print(f"{key}: skipped ({exc})")
            continue
        stop = threading.Event()
        messages = [_message(setting_address(key), v) for v in values]

        def flood(show: Show = show, messages: list[bytes] = messages, stop: threading.Event = stop) -> None:
            k = 0
            while not stop.is_set():
                show.send(messages[k % 2])
                k += 1
                time.sleep(args.every_ms / 1000)

        if args.unbudgeted:
            show.runner.settings_budget = SettingsBudget(share=1e9, burst_s=1e9)
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


if __name__ == "__main__":
    sys.exit(main())
