"""The README is the front door: its Python example runs and its commands exist."""
from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

from sensekit.cli import build_parser

README = Path(__file__).resolve().parents[1] / "README.md"


def test_python_examples_run(tmp_path, capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "the README should show the library in use"
    for n, code in enumerate(blocks):
        script = tmp_path / f"example{n}.py"
        script.write_text(code)
        runpy.run_path(str(script), run_name="__main__")
    out = capsys.readouterr().out
    assert "clap at 10.00 s" in out


def test_every_sensekit_command_in_the_readme_exists():
    commands = set(re.findall(r"^\s*(?:\.venv/bin/)?sensekit ([a-z][a-z-]*)", README.read_text(), re.M))
    assert {"run", "apps", "events", "record", "inspect", "devices"} <= commands
    choices = next(a for a in build_parser()._subparsers._group_actions).choices
    missing = sorted(c for c in commands if c not in choices)
    assert not missing, f"README mentions unknown commands: {missing}"


@pytest.mark.parametrize("shot", ["sound_flier", "clapper", "activity_graph", "color_ball",
                                  "motion_paddle", "edge_snow"])
def test_screenshots_shown_in_the_readme_exist(shot):
    text = README.read_text()
    assert f"docs/screenshots/{shot}.png" in text
    assert (README.parent / "docs" / "screenshots" / f"{shot}.png").is_file()
