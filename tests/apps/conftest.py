"""Helpers for the app tests: run an app headless on the bundled recording, step by step."""
from __future__ import annotations

import json
from typing import Any, Callable, Iterator

import pytest

from sensekit.app.host import AppHost
from sensekit.paths import recordings_dir
from tests.apps.hosts import demo_host, need_demo


@pytest.fixture(scope="session")
def truth() -> dict[str, Any]:
    need_demo()
    return json.loads((recordings_dir() / "demo.truth.json").read_text())


@pytest.fixture
def play() -> Iterator[Callable[..., AppHost]]:
    """``play(name, steps, each=None)``: run ``steps`` fixed steps of an app on the demo replay.

    ``each(host)`` is called after every step. Returns the host (closed source, state intact).
    """
    opened: list[Any] = []

    def _play(name: str, steps: int, each: Callable[[AppHost], None] | None = None,
              **options: Any) -> AppHost:
        host = demo_host(name, **options)
        opened.append(host.source)
        for _ in range(steps):
            host.step()
            if each is not None:
                each(host)
        host.close()
        return host

    yield _play
    for source in opened:
        source.close()
