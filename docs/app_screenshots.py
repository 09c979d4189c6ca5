#!/usr/bin/env python3
"""The apps' pictures in the README and docs/apps.md, made the way a user makes one.

    .venv/bin/python docs/app_screenshots.py [--out docs/screenshots] [APP ...]

Runs ``sensekit run APP --headless --frames N --screenshot OUT/APP.png`` for each app on its
bundled recording (the demo), with the number of steps tests/apps/test_screenshots.py uses
(until something has happened on screen: 395 for the clapper, lit red after the double clap;
200 for the activity graph; 150 otherwise). A run is deterministic, so the same command gives the
same picture, pixel for pixel. pinch_toss is left out: without a hand in the recording it only says "show a hand".
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
APPS = ["sound_flier", "clapper", "activity_graph", "color_ball", "motion_paddle", "edge_snow", "steer", "collide"]
STEPS = {"clapper": 395, "activity_graph": 200}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots", help="folder for APP.png")
    parser.add_argument("apps", nargs="*", default=APPS, metavar="APP")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    for app in args.apps:
        shot = args.out / f"{app}.png"
        subprocess.run([sys.executable, "-m", "sensekit", "run", app, "--headless", "--frames",
                        str(STEPS.get(app, 150)), "--screenshot", str(shot)], check=True, env=env,
                       stdout=subprocess.DEVNULL)
        print(shot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
