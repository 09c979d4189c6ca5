"""Log lines per simulated hour of a piece whose camera flaps, before and after the long window.

    .venv/bin/python benchmarks/log_lines.py [--hours 1] [--periods 2,6,30,300]

What a flapping source logs was read off a real run (``sensekit run edge_snow --source
camera:URL --headless`` on a local MJPEG stream that stalls for 3 s and comes back for 3 s,
60 s, tests/capture/mjpeg_server.py): per stall one "camera:URL: lost (stream stopped delivering
frames); reconnecting" warning, one "camera:URL: restored" line, and, before this change, one
line of OpenCV's own ("Stream timeout triggered after 2018 ms"), written by OpenCV straight to
stderr, past the logging filter. Here those records go through ``RateLimitFilter`` on a
simulated clock, one lost/restored pair every PERIOD seconds for HOURS hours:

- before: the short window alone (5 lines of a kind in 10 s; ``long_burst`` set out of reach)
  plus the OpenCV line per stall;
- after: the filter as the ``sensekit`` command installs it (the long window too: 10 lines of a
  kind in 600 s) and no OpenCV line (a stream's read is quiet, sensekit/capture/camera.py).

Printed: lines per hour, before and after, per period, and the repeats counted rather than
shown (``flush()`` says them at exit; each window's first line carries its count). A run with
nothing wrong writes nothing per hour after its start lines: that is a real run's count, in
docs/installations.md, not simulated here.
"""
from __future__ import annotations

import argparse
import logging

from sensekit.ratelimit import RateLimitFilter

URL = "camera:http://192.168.1.20:8080/stream.mjpg"


class _Count(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.lines += 1


def lines_per_hour(period_s: float, hours: float, *, long_window: bool) -> tuple[float, int]:
    """(lines per hour, repeats counted) for a lost/restored pair every ``period_s``."""
    clock = [0.0]
    flt = (RateLimitFilter(clock=lambda: clock[0]) if long_window
           else RateLimitFilter(clock=lambda: clock[0], long_burst=10**9))
    logger = logging.getLogger(f"sensekit.capture.camera.bench{int(long_window)}{period_s}")
    logger.propagate = False
    logger.setLevel(logging.INFO)
    count = _Count()
    count.addFilter(flt)
    logger.handlers[:] = [count]
    stalls = int(hours * 3600 / period_s)
    for i in range(stalls):
        clock[0] = i * period_s
        logger.warning("%s: lost (%s); reconnecting", URL, "stream stopped delivering frames")
        clock[0] = i * period_s + period_s / 2
        logger.info("%s: restored", URL)
    opencv = 0 if long_window else stalls        # OpenCV's own line per stall, before
    return (count.lines + opencv) / hours, flt.suppressed_total


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--hours", type=float, default=1.0)
    p.add_argument("--periods", default="2,6,30,300", help="seconds between stalls, comma-separated")
    args = p.parse_args()
    print(f"{'stall every':>12} {'before /h':>10} {'after /h':>9} {'counted':>8}")
    for period in (float(x) for x in args.periods.split(",")):
        before, _ = lines_per_hour(period, args.hours, long_window=False)
        after, counted = lines_per_hour(period, args.hours, long_window=True)
        print(f"{period:>10g} s {before:>10.0f} {after:>9.0f} {counted:>8}")


if __name__ == "__main__":
    main()
