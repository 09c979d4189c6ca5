"""Shared fixtures: headless SDL, the shared real-media data folder, the bundled recordings."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest_plugins = ["tests.tiers"]

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
