"""How long an app stands still while Shift+S saves a large venue profile.

clapper on the demo replay, headless, stepped flat out; a profile holding a taught model's
weights (what makes real ones big) of the given size; Shift+S pressed, then the loop stepped
until the save is said. Prints the save's length and the longest time between two steps
(the key press included). Run on a branch before and after a change to compare.

    python benchmarks/key_save_standstill.py [WEIGHTS ...]     (15000 ~ 167 kB, 90000 ~ 1 MB)
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path


def measure(n: int, venue: Path) -> tuple[int, float, float]:
    import pygame

    from sensekit.app.host import AppHost, RunOptions
    from sensekit.app.registry import load
    from sensekit.app.sources import bundled_source
    from sensekit.profile import load_profile

    weights = ", ".join(f"{0.1234567 * (i % 97):.7f}" for i in range(n))
    venue.write_text(f"[motion]\nthreshold = 20\n\n[taught_gestures]\nversion = 1\nweights = [{weights}]\n")
    app_cls = load("clapper")
    with bundled_source(app_cls) as source:
        host = AppHost(app_cls, source, RunOptions(headless=True, profile_path=venue,
                                                   profile=load_profile(venue)))
        for _ in range(5):
            host.step()
        host.tuning.apply_now({"audio.gain": 31.0})
        t0 = last = time.monotonic()
        longest = 0.0
        host.press(pygame.K_s, pygame.KMOD_LSHIFT)
        while True:
            now = time.monotonic()
            longest, last = max(longest, now - last), now
            if host.toast is not None and host.toast[0].startswith("saved venue profile"):
                break
            if now - t0 > 120:
                raise SystemExit("the save was not said within 120 s")
            host.step()
        host.close()
    return venue.stat().st_size, now - t0, longest


def main(argv: list[str]) -> None:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    with tempfile.TemporaryDirectory() as tmp:
        for n in [int(a) for a in argv] or [15_000, 90_000]:
            size, took, longest = measure(n, Path(tmp) / "venue.toml")
            print(f"{size / 1e3:.0f} kB: save {took:.2f} s, longest stand-still {longest:.3f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
