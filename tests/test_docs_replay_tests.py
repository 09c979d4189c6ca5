"""docs/RECORDING_FORMAT.md's "Replaying in your own tests": the test file it shows, copied into a
folder outside the checkout, passes pytest and ``mypy --strict`` there (the docs said a test can
replay a recording but showed none).

mypy runs as the reader runs it, from their project's folder, in a process of its own: run in the
test's own process it had the checkout as its working folder and found ``sensekit`` there, so it
passed where the reader's run failed (``Cannot find implementation or library stub for module
named "sensekit.audio.clap"``: mypy cannot follow the import hook of a plain ``pip install -e``)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _the_test_file() -> str:
    text = (REPO / "docs" / "RECORDING_FORMAT.md").read_text()
    section = text.split("### Replaying in your own tests\n", 1)
    assert len(section) == 2, "the section is gone from docs/RECORDING_FORMAT.md"
    block = re.search(r"```python\n(# tests/test_claps\.py\n.*?)```", section[1], re.S)
    assert block is not None, "the section shows no tests/test_claps.py"
    return block.group(1)


@pytest.mark.heavy
def test_the_documented_replay_tests_pass_pytest_and_mypy_outside_the_checkout(tmp_path):
    project = tmp_path / "myproject"
    (project / "tests").mkdir(parents=True)
    (project / "tests" / "test_claps.py").write_text(_the_test_file())
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=project,
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "2 passed" in run.stdout, run.stdout + run.stderr
    # sensekit as mypy sees it installed from the wheel, or editable with editable_mode=strict
    # (the section says so): the package folder, with its py.typed, alone on the path
    site = tmp_path / "site"
    site.mkdir()
    (site / "sensekit").symlink_to(REPO / "sensekit", target_is_directory=True)
    mypy = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--cache-dir",
                           str(tmp_path / "cache"), "tests/test_claps.py"], cwd=project,
                          env={**env, "PYTHONPATH": str(site), "MYPYPATH": ""},
                          capture_output=True, text=True, timeout=300)
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr


def test_the_section_says_how_mypy_finds_sensekit_outside_the_checkout():
    """A plain editable install is invisible to mypy outside the checkout; the section says what is not."""
    text = " ".join((REPO / "docs" / "RECORDING_FORMAT.md").read_text().split("### Replaying in your own tests\n", 1)[1]
                    .split("\n### ", 1)[0].split())
    assert "editable_mode=strict" in text and "wheel" in text, text


def test_the_testing_page_sends_developers_to_the_replay_section():
    """docs/testing.md, where a developer looks for how to test with recordings, never named the
    section that shows it."""
    text = (REPO / "docs" / "testing.md").read_text()
    assert "(RECORDING_FORMAT.md#replaying-in-your-own-tests)" in text
    assert "--source demo" in text
