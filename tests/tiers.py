"""Two tiers of tests: ``python -m pytest`` (everything but ``slow`` and ``install``; what CI
runs) and ``python -m pytest --quick`` for the edit-test loop, which also leaves out the tests
marked ``heavy``.

A test is ``heavy`` when it reads the real clips in ../shared/data (the ``shared_data``
fixture), or sits in one of the modules below: they start subprocesses (the CLI, the apps, a
recorder to kill, a browser), run every command of a document, or sweep inputs with hypothesis.
A module not listed here is quick by default; `pytest --quick --durations=20` shows what to
move when the quick tier grows past its budget (two minutes on a 2-core machine).
"""
from __future__ import annotations

import pytest

HEAVY_MODULES = {
    "tests/test_readme.py", "tests/test_docs.py", "tests/test_examples.py", "tests/test_cli_outputs.py",
    "tests/test_reliability.py", "tests/test_recording_fuzz.py",
    "tests/apps/test_screenshots.py", "tests/apps/test_live_run.py", "tests/apps/test_cli.py",
    "tests/panel/test_browser.py",
    "tests/capture/test_recording_kill.py", "tests/capture/test_record_live.py", "tests/capture/test_microphone.py",
    "tests/capture/test_pacedmic.py", "tests/capture/test_camera.py", "tests/capture/test_record_fps.py",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--quick", action="store_true",
                     help="the quick tier: leave out the tests marked heavy (see tests/tiers.py)")


def _is_heavy(item: pytest.Item) -> bool:
    module = item.nodeid.split("::", 1)[0]
    return module in HEAVY_MODULES or "shared_data" in getattr(item, "fixturenames", ())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _is_heavy(item):
            item.add_marker(pytest.mark.heavy)
    if config.getoption("--quick"):
        keep = [item for item in items if not item.get_closest_marker("heavy")]
        config.hook.pytest_deselected(items=[item for item in items if item.get_closest_marker("heavy")])
        items[:] = keep
