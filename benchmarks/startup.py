"""Start-up time of the ``sensekit`` command, as a ratio to ``python -c 'import numpy, cv2'``.

Three commands, each a fresh process, run in turn ``--repeats`` times (so a busy machine slows
all three alike), timed from spawn to exit; the medians are printed with their ratio to the
reference, the import of the two libraries every sensekit command needs anyway:

- ``sensekit --help``: parsing the command line must not pay for the panel's web server
  (aiohttp) or SciPy (the click segmentation); they are imported where they are used;
- ``sensekit run clapper --headless --frames 1``: the first frame of an app on its bundled
  recording (the app, pygame, the replay, the audio stages, one step, the summary).

Target: ``--help`` <= 2x the reference.

    .venv/bin/python benchmarks/startup.py [--repeats 7]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_HELP = 2.0


def commands(out: Path) -> dict[str, list[str]]:
    python = sys.executable
    return {
        "python -c 'import numpy, cv2'": [python, "-c", "import numpy, cv2"],
        "sensekit --help": [python, "-m", "sensekit", "--help"],
        "sensekit run clapper, first frame": [python, "-m", "sensekit", "run", "clapper", "--headless",
                                             "--frames", "1", "--screenshot", str(out / "clapper.png")],
    }


def time_once(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="runs of each command (default 7)")
    args = parser.parse_args(argv)
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    with tempfile.TemporaryDirectory() as tmp:
        cmds = commands(Path(tmp))
        for cmd in cmds.values():                      # warm the file cache once
            time_once(cmd, env)
        times: dict[str, list[float]] = {name: [] for name in cmds}
        for _ in range(args.repeats):
            for name, cmd in cmds.items():
                times[name].append(time_once(cmd, env))
    medians = {name: statistics.median(t) for name, t in times.items()}
    reference = next(iter(medians.values()))
    print(f"{'command':38s} {'median s':>9s} {'min s':>7s} {'ratio':>6s}")
    for name, median in medians.items():
        print(f"{name:38s} {median:9.3f} {min(times[name]):7.3f} {median / reference:6.2f}")
    ratio = medians["sensekit --help"] / reference
    ok = ratio <= TARGET_HELP
    print(f"sensekit --help: {ratio:.2f}x the reference (target <= {TARGET_HELP:g}x): {'ok' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
