"""The panel's save writes the venue profile off the run's thread (``PanelServer._api_save``):
editing a large profile (tomlkit, pure Python) took seconds, all of them on the run's thread, so
the piece stood still while an operator saved."""
from __future__ import annotations

import json
import threading
import time
import urllib.request
from pathlib import Path

from sensekit.profile import load_profile


def _big_profile(path: Path) -> None:
    """A valid venue profile of ~150 kB (a taught model's weights: what makes real ones big)."""
    weights = ", ".join(f"{0.1234567 * (i % 97):.7f}" for i in range(15_000))
    path.write_text("[motion]\nthreshold = 20\n\n[taught_gestures]\nversion = 1\n"
                    f"weights = [{weights}]\n")


def test_saving_a_large_profile_does_not_stop_the_piece(thread_piece, tmp_path):
    venue = tmp_path / "venue.toml"
    _big_profile(venue)
    piece = thread_piece(profile_path=venue, profile=load_profile(venue))
    stats = piece.runner.stats
    deadline = time.monotonic() + 10
    while stats.frames + stats.blocks < 20 and time.monotonic() < deadline:
        time.sleep(0.05)
    longest, done = 0.0, threading.Event()

    def watch() -> None:                                # the longest time no item was processed
        nonlocal longest
        last_n, since = stats.frames + stats.blocks, time.monotonic()
        while not done.is_set():
            time.sleep(0.01)
            n, now = stats.frames + stats.blocks, time.monotonic()
            if n != last_n:
                last_n, since = n, now
            longest = max(longest, now - since)
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    t0 = time.monotonic()
    request = urllib.request.Request(piece.url + "api/save", data=b"{}", method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as r:
        answer = json.loads(r.read())
    took = time.monotonic() - t0
    done.set()
    watcher.join()
    assert answer == {"path": str(venue)}
    assert "threshold" in venue.read_text() and len(venue.read_text()) > 140_000      # kept
    # before: the run stood still for the whole save (longest == took, 1-5 s here)
    print(f"save {took:.2f} s, longest stand-still {longest:.2f} s")
    assert took > 0.3 and longest < max(0.25, took / 3), (longest, took)
    assert piece.error is None
