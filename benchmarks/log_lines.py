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

``--mic`` does the same for a microphone whose driver complains at every period (harden24):
ALSA's own lines ("ALSA lib pcm_file.c:315:(...) read from file failed ..."), which alsa-lib
wrote straight to stderr. It runs ``sensekit events mic --max-items N --level`` in two fresh
processes on ALSA's ``file`` plugin reading a folder (every read fails: the real alsa-lib and
PortAudio, tests/capture/alsa_filemic.py), before (``route_alsa_messages`` made a no-op in the
child: the library's default handler) and after, and counts their stderr lines and the ALSA
messages the filter held back; then an hour of one message a 512-sample period at 48 kHz
(93.75 a second, a real device's pace: the fake is not paced) through ``RateLimitFilter`` on a
simulated clock, as above.
"""
from __future__ import annotations

import argparse
import logging
import subprocess
import sys
import tempfile
from pathlib import Path

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


ALSA_LINE = ("ALSA lib pcm_file.c:315:(snd_pcm_file_areas_read_infile) read from file failed, "
             "error: -1: Is a directory")
BEFORE = ("import sys, sensekit.capture.devices as d; d.route_alsa_messages = lambda: False; "
          "from sensekit.cli import main; sys.exit(main(sys.argv[1:]))")
AFTER = "import sys; from sensekit.cli import main; sys.exit(main(sys.argv[1:]))"


def mic_run(items: int, *, routed: bool) -> tuple[int, int, int]:
    """(stderr lines, of them ALSA's, ALSA messages counted and not shown) of one real run."""
    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root))
    from tests.capture.alsa_filemic import FileMic, known_samples

    with tempfile.TemporaryDirectory(prefix="sensekit-alsa-") as tmp:
        mic = FileMic(tmp, known_samples(4800), 48000)
        folder = Path(tmp) / "a-folder"
        folder.mkdir()
        mic.conf_path.write_text(mic.config_text().replace(str(mic.raw_path), str(folder)))
        r = subprocess.run([sys.executable, "-c", AFTER if routed else BEFORE, "events", "mic",
                            "--max-items", str(items), "--level"], env=mic.env, cwd=tmp,
                           capture_output=True, text=True, timeout=600)
    lines = r.stderr.splitlines()
    counted = sum(int(line.split()[0]) for line in lines
                  if "were not shown" in line and ALSA_LINE in line)
    return len(lines), sum(line.startswith(ALSA_LINE) for line in lines), counted


def mic_lines_per_hour(hours: float, *, routed: bool, per_s: float = 48000 / 512) -> tuple[float, int]:
    """(lines per hour, counted) for one ALSA message a period, on a simulated clock."""
    clock = [0.0]
    flt = RateLimitFilter(clock=lambda: clock[0])
    logger = logging.getLogger(f"sensekit.capture.alsa_log.bench{int(routed)}")
    logger.propagate = False
    count = _Count()
    if routed:
        count.addFilter(flt)
    logger.handlers[:] = [count]
    for i in range(int(hours * 3600 * per_s)):
        clock[0] = i / per_s
        logger.warning("ALSA lib " + ALSA_LINE)
    return count.lines / hours, flt.suppressed_total


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--hours", type=float, default=1.0)
    p.add_argument("--periods", default="2,6,30,300", help="seconds between stalls, comma-separated")
    p.add_argument("--mic", type=int, metavar="N", default=0,
                   help="the microphone's ALSA lines instead: real runs of N blocks, then an hour simulated")
    args = p.parse_args()
    if args.mic:
        for routed in (False, True):
            lines, alsa, counted = mic_run(args.mic, routed=routed)
            per_h, held = mic_lines_per_hour(args.hours, routed=routed)
            print(f"{'after' if routed else 'before':>6}: {args.mic} blocks: {lines} stderr lines, "
                  f"{alsa} of ALSA's, {counted} counted not shown; an hour at 93.75 a second: "
                  f"{per_h:.0f} lines/h, {held} counted")
        return
    print(f"{'stall every':>12} {'before /h':>10} {'after /h':>9} {'counted':>8}")
    for period in (float(x) for x in args.periods.split(",")):
        before, _ = lines_per_hour(period, args.hours, long_window=False)
        after, counted = lines_per_hour(period, args.hours, long_window=True)
        print(f"{period:>10g} s {before:>10.0f} {after:>9.0f} {counted:>8}")


if __name__ == "__main__":
    main()
