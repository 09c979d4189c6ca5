"""An app run headless on the bundled recording: the one setup of the app tests (tests/apps,
tests/collide/test_app.py, tests/steer/test_app.py)."""
from __future__ import annotations

from typing import Any

import pytest

from sensekit.app.host import AppHost, RunOptions
from sensekit.app.registry import load
from sensekit.app.sources import bundled_source
from sensekit.paths import recordings_dir


def need_demo() -> None:
    """Skip the test when the bundled recording has not been generated."""
    if not (recordings_dir() / "demo.skrec" / "meta.json").is_file():
        pytest.skip("bundled recording recordings/demo.skrec not generated (python -m sensekit.synth)")


def demo_host(name: str, **options: Any) -> AppHost:
    """App ``name`` on the bundled recording (its source open; ``host.source``), headless, with
    further ``RunOptions``; skips when the recording is not generated."""
    need_demo()
    app_cls = load(name)
    source = bundled_source(app_cls)
    source.open()
    try:
        return AppHost(app_cls, source, RunOptions(headless=True, **options))
    except BaseException:
        source.close()
        raise
