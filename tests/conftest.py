"""Shared fixtures: headless SDL, the shared real-media data folder, the bundled recordings."""
from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

# A test run started in the background by a shell without job control (`nohup ... &` in a
# script, some CI runners) starts with SIGINT ignored, and so would every command the tests
# start: Python leaves an ignored SIGINT ignored, so the tests' Ctrl-C would do nothing and
# they would time out. Give the run a terminal's Ctrl-C (a caught signal is reset to the
# default in a child, which then installs its own handler).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

pytest_plugins = ["tests.tiers", "tests.osc_collector"]   # test tiers; the OSC tests' collector

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("SENSEKIT_SHARED_DATA", REPO.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real clips in ../shared/data (never copied into the repo)."""
    if not (SHARED_DATA / "labels.csv").is_file():
        pytest.skip(f"shared data folder not found at {SHARED_DATA} "
                    "(set SENSEKIT_SHARED_DATA to point at it)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def recordings_dir() -> Path:
    return REPO / "recordings"
