#!/usr/bin/env python3
"""The pictures of docs/pose.md: the apps played with the body, made the way a user makes one.

    .venv-hands/bin/python docs/pose_screenshots.py [--out docs/screenshots]

Needs the hands extra and ../shared/data. The source is ``tflitetest_image2.jpg`` of
../shared/data/video/pose (a Pixabay stock photo, Pixabay licence, by way of
tensorflow/examples, Apache-2.0): the other pose pictures and clips are for internal testing
only, so none of them goes into a committed picture. Runs, headless, on the still:

- ``sensekit run motion_paddle --set motion_paddle.steer=body --frames 90`` -> pose_paddle.png
  (the skeleton the pose stage sees, the paddle under the shoulders);
- ``sensekit run edge_snow --silhouette --frames 400`` -> pose_snow.png (snow settled on the
  person's head, shoulders and arms; the silhouette frosted).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STILL = REPO.parent / "shared" / "data" / "video" / "pose" / "stills" / "tflitetest_image2.jpg"
RUNS = {"pose_paddle.png": ["motion_paddle", "--set", "motion_paddle.steer=body", "--frames", "90"],
        "pose_snow.png": ["edge_snow", "--silhouette", "--frames", "400"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots", help="folder for the pictures")
    parser.add_argument("--still", type=Path, default=STILL, help="the picture to play on")
    args = parser.parse_args(argv)
    if not args.still.is_file():
        sys.exit(f"no picture at {args.still} (../shared/data is needed)")
    args.out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    for name, run in RUNS.items():
        shot = args.out / name
        subprocess.run([sys.executable, "-m", "sensekit", "run", run[0], "--source", f"file:{args.still}",
                        "--headless", *run[1:], "--screenshot", str(shot)], check=True, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print(shot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
