"""The panel's save writes the venue profile off the run's thread (``PanelServer._api_save``):
editing a large profile (tomlkit, pure Python) took seconds, all of them on the run's thread, so
the piece stood still while an operator saved."""
from __future__ import annotations

import json
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
    """While the file is being written the run goes on: the write waits (up to 30 s) until the
    run has processed 10 more items. Written on the run's thread (before), it could not, however
    long it waited. No wall-clock bound: the machine's load changes nothing here."""
    venue = tmp_path / "venue.toml"
    _big_profile(venue)
    piece = thread_piece(profile_path=venue, profile=load_profile(venue))
    stats = piece.runner.stats
    deadline = time.monotonic() + 10
    while stats.frames + stats.blocks < 20 and time.monotonic() < deadline:
        time.sleep(0.05)
    control = piece.panel.server.control
    write = control.write_profile
    went_on: list[bool] = []

    def write_while_the_run_goes_on(values, path):
        start, until = stats.frames + stats.blocks, time.monotonic() + 30
        while stats.frames + stats.blocks < start + 10 and time.monotonic() < until:
            time.sleep(0.01)
        went_on.append(stats.frames + stats.blocks >= start + 10)
        return write(values, path)
    control.write_profile = write_while_the_run_goes_on
    request = urllib.request.Request(piece.url + "api/save", data=b"{}", method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=90) as r:
        answer = json.loads(r.read())
    assert answer == {"path": str(venue)}
    assert "threshold" in venue.read_text() and len(venue.read_text()) > 140_000      # kept
    assert went_on == [True]            # before: the run stood still for the whole save
    assert piece.error is None
