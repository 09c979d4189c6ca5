"""docs/RECORDING_FORMAT.md's "Replaying in your own tests": the test file it shows, copied into a
folder outside the checkout, passes pytest and ``mypy --strict`` there (the docs said a test can
replay a recording but showed none)."""
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
    from mypy import api

    out, err, status = api.run(["--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"),
                                str(project / "tests" / "test_claps.py")])
    assert status == 0, out + err
