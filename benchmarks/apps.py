"""Frames per second of each mini-app, headless, on its bundled recording.

Each app runs for 600 fixed steps (20 s of replay at 30 steps/s) through the
real host: replay decoding, the mirror, every sensing stage the app uses, the
game simulation and all the drawing (HUD included, video and screenshots off).
Acceptance: >= 60 fps for every app at 320x240 input.

    .venv/bin/python benchmarks/apps.py [--frames 600] [APP ...]
"""
from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

from sensekit.app.host import AppHost, RunOptions
from sensekit.app.registry import discover, load
from sensekit.app.sources import bundled_source

TARGET_FPS = 60.0


def bench(name: str, frames: int) -> float:
    app_cls = load(name)
    source = bundled_source(app_cls)
    with source:
        size = source.frame_size
        result = AppHost(app_cls, source, RunOptions(headless=True, frames=frames)).run()
    used = f"video {size[0]}x{size[1]}" if size and app_cls.needs & {"video"} else "audio"
    print(f"{name:<16} {result.fps:7.1f} fps  ({result.frames} frames in {result.wall_s:.2f} s, "
          f"input: {used})")
    return result.fps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("apps", nargs="*", help="apps to run (default: all)")
    parser.add_argument("--frames", type=int, default=600)
    args = parser.parse_args(argv)
    names = args.apps or list(discover())
    results = {name: bench(name, args.frames) for name in names}
    slow = [n for n, fps in results.items() if fps < TARGET_FPS]
    print(f"target >= {TARGET_FPS:.0f} fps: " + ("all pass" if not slow else f"below: {', '.join(slow)}"))
    return 0 if not slow else 1


if __name__ == "__main__":
    sys.exit(main())
