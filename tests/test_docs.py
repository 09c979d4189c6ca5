"""The docs: the API reference builds without a warning, and the tutorial works as written."""
from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pygame
import pytest

from tests.markdown_commands import REPO, blocks, run_line, shell_lines

TUTORIAL = REPO / "docs" / "tutorial.md"
SETUP = ("python3 -m venv", "pip install", ". .venv/bin/activate")
BALLOON_RGB = (230, 60, 80)


def _build_api_module():
    spec = importlib.util.spec_from_file_location("build_api", REPO / "docs" / "build_api.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_api_reference_builds_without_warnings(tmp_path):
    problems = _build_api_module().build(tmp_path)
    assert not problems, "\n".join(problems)
    for page in ("index.html", "sensekit/app/base.html", "sensekit/app/script.html", "sensekit/events.html",
                 "sensekit/vision/color_tracker.html", "sensekit/capture/recording.html"):
        assert (tmp_path / page).is_file(), page
    base = (tmp_path / "sensekit/app/base.html").read_text()
    assert "pick_color" in base and "set_mode" in base


def _balloon_pixels(path: Path) -> int:
    image = pygame.surfarray.array3d(pygame.image.load(str(path)))
    return int(np.all(image == BALLOON_RGB, axis=-1).sum())


def run_the_tutorial(work: Path, bin_dir: Path | None = None) -> None:
    """Write each file of the tutorial into ``work`` and run each command there (setup lines
    aside), in a shell where the venv of ``bin_dir`` is active; then check what they made."""
    ran, outputs = [], {}
    for lang, title, code in blocks(TUTORIAL.read_text()):
        if lang == "python" and title:
            (work / title).write_text(code)
        elif lang == "sh":
            for line in shell_lines(code):
                if line.startswith(SETUP):
                    continue
                proc = run_line(line, work, bin_dir=bin_dir)
                assert proc.returncode == 0 and "Traceback" not in proc.stderr, \
                    f"{line}\n{proc.stdout}\n{proc.stderr}"
                ran.append(line)
                outputs[line] = proc.stdout
    assert len(ran) >= 8, ran
    first = next(out for line, out in outputs.items() if "balloon.png" in line)
    assert "bundled recording 'demo'" in first
    # the balloon is small at the start, big after the loud voice, and the whole demo's claps pop it
    small, big = _balloon_pixels(work / "balloon.png"), _balloon_pixels(work / "big.png")
    assert big > 10 * small > 0
    # popped.png is the balloon just popped, as small as at the start (it was the last frame of
    # the whole demo: blown up again by the voice after the last clap)
    assert 0 < _balloon_pixels(work / "popped.png") < 1.5 * small
    whole_run = next(out for line, out in outputs.items() if "balloon.jsonl" in line)
    assert float(re.search(r"balloon: \d+ frames, ([\d.]+) s simulated", whole_run).group(1)) >= 19.9
    events = [json.loads(line) for line in (work / "balloon.jsonl").read_text().splitlines()]
    assert sum(e["event"] == "clap" for e in events) == 6
    assert "2 passed" in next(out for line, out in outputs.items() if "pytest" in line)
    listing = next(out for line, out in outputs.items() if line.endswith("sensekit apps") and "my_apps" in line)
    assert any(row.startswith("balloon ") and "SENSEKIT_APPS_DIR" in row for row in listing.splitlines())


def test_the_tutorial_works_as_written(tmp_path):
    work = tmp_path / "tutorial"
    work.mkdir()
    run_the_tutorial(work)


def test_the_tutorial_and_the_example_app_agree():
    """examples/custom_app.py is the tutorial's balloon, compacted: same stages and numbers."""
    final = [code for lang, title, code in blocks(TUTORIAL.read_text()) if title == "balloon.py"][-1]
    example = (REPO / "examples" / "custom_app.py").read_text()
    for fragment in ("AudioStage(clap=ClapDetector())", "event.level > 30",
                     "80 if self.loud else -20", "20.0), 180.0)", "(230, 60, 80)",
                     '"hum to blow it up - clap to pop it"'):
        assert fragment in final and fragment in example, fragment


@pytest.mark.parametrize("doc", ["README.md", "docs/tutorial.md", "docs/index.md"])
def test_docs_link_to_files_that_exist(doc):
    text = (REPO / doc).read_text()
    for target in re.findall(r"\]\(([^)#:]+)\)", text):
        assert (REPO / doc).parent.joinpath(target).exists(), f"{doc} links to missing {target}"


def test_the_help_says_which_book_and_links_to_its_page():
    from sensekit.cli import build_parser
    from sensekit.cli.settings import render_text
    from sensekit.settings.registry import describe_table

    book = (REPO / "docs" / "book.md").read_text()
    assert "AdvancED ActionScript 3.0 Animation" in book and "Keith Peters" in book
    for chapter in ("1, Advanced Collision Detection", "2, Steering Behaviors",
                    "5, Alternate Input: The Camera and Microphone"):
        assert chapter in book
    for text in (build_parser().format_help(), render_text(describe_table())):
        assert "docs/book.md" in " ".join(text.split()) and "AdvancED ActionScript" in " ".join(text.split())


def test_the_app_screenshot_script_makes_a_picture(tmp_path):
    """docs/app_screenshots.py, which made the apps' pictures in the README and docs/apps.md."""
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, str(REPO / "docs" / "app_screenshots.py"), "--out", str(tmp_path),
                           "motion_paddle"], capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    made = pygame.surfarray.array3d(pygame.image.load(str(tmp_path / "motion_paddle.png")))
    shown = pygame.surfarray.array3d(pygame.image.load(str(REPO / "docs" / "screenshots" / "motion_paddle.png")))
    assert np.array_equal(made, shown)          # a replay is deterministic: the same picture


@pytest.mark.parametrize("doc", ["blobs.md", "hands.md", "pose.md", "voice.md", "events.md"])
def test_event_tables_name_every_field_of_their_events(doc):
    # a row `| `name` | ... |` of a docs table that describes a registered event mentions each
    # of its fields (all but `t`); the `gesture` row of hands.md lacked `confidence`
    import dataclasses

    from sensekit.events import EVENT_TYPES

    missing = []
    for line in (REPO / "docs" / doc).read_text(encoding="utf-8").splitlines():
        m = re.match(r"\|\s*`([a-z_]+)`(?:\s*/\s*`([a-z_]+)`)?\s*\|(.*)", line)
        for name in filter(None, m.group(1, 2)) if m else ():
            if name in EVENT_TYPES:
                rest = m.group(3)
                missing += [f"{name}.{f.name}" for f in dataclasses.fields(EVENT_TYPES[name])
                            if f.name != "t" and f"`{f.name}`" not in rest and f" {f.name}" not in rest]
    assert not missing, f"docs/{doc}: event table rows without these fields: {missing}"


def _command_options() -> dict[str, set[str]]:
    """``{command: its option strings}`` (a nested command's options count for its parent)."""
    from sensekit.cli import build_parser

    def options(parser) -> set[str]:
        found = {o for action in parser._actions for o in action.option_strings}
        for group in parser._subparsers._group_actions if parser._subparsers else []:
            for child in group.choices.values():
                found |= options(child)
        return found

    root = build_parser()
    return {name: options(child) for group in root._subparsers._group_actions
            for name, child in group.choices.items()}


def test_every_sensekit_command_line_in_the_docs_and_sources_names_options_that_exist():
    # sensekit/midi/mapping.py sent the reader to `sensekit events --list`, an option that never was
    commands = _command_options()
    texts = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")),
             *sorted((REPO / "sensekit").rglob("*.py")), *sorted((REPO / "apps").glob("*.py")),
             *sorted((REPO / "examples").glob("*.py"))]
    wrong = []
    for path in texts:
        for m in re.finditer(r"sensekit ([a-z][\w-]*)([^`\n\"]*)", path.read_text(encoding="utf-8")):
            if m.group(1) not in commands or "error:" in m.group(2):
                continue
            line = m.group(2).split(" #")[0]                   # not a shell comment after it
            for option in re.findall(r"(?<![\w-])(--[a-z][\w-]*)", line):
                if option not in commands[m.group(1)]:
                    wrong.append(f"{path.relative_to(REPO)}: {m.group(0).strip()}")
    assert wrong == []
