"""The README is the front door and docs/ the documentation site: the README's Python example
runs, the commands they name exist, and every shell command of the README and of the docs pages
(the tutorial has its own test in tests/test_docs.py) that needs no camera, microphone or long
wait runs exactly as written."""
from __future__ import annotations

import re
import runpy
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sensekit.cli import build_parser
from tests.markdown_commands import blocks, reading_room, run_line, shell_lines

README = Path(__file__).resolve().parents[1] / "README.md"
DOCS = README.parent / "docs"


def documented_pages() -> list[Path]:
    """The README, then every docs page but the tutorial (tests/test_docs.py runs it in a room of its own)."""
    return [README] + sorted(p for p in DOCS.glob("*.md") if p.name != "tutorial.md")


def test_python_examples_run(tmp_path, capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "the README should show the library in use"
    for n, code in enumerate(blocks):
        script = tmp_path / f"example{n}.py"
        script.write_text(code)
        runpy.run_path(str(script), run_name="__main__")
    out = capsys.readouterr().out
    assert "clap at 10.00 s" in out


def test_every_sensekit_command_in_the_readme_and_docs_exists():
    def commands_in(pages: list[Path]) -> set[str]:
        code = "\n".join(c for page in pages for lang, _, c in blocks(page.read_text()) if lang == "sh")
        return set(re.findall(r"^\s*(?:\.venv/bin/)?(?:SENSEKIT_\w+=\S+ )?sensekit ([a-z][a-z-]*)", code, re.M))

    assert {"run", "apps", "events"} <= commands_in([README])
    commands = commands_in(documented_pages())
    assert {"run", "apps", "events", "record", "inspect", "devices"} <= commands
    choices = next(a for a in build_parser()._subparsers._group_actions).choices
    missing = sorted(c for c in commands if c not in choices)
    assert not missing, f"README or docs mention unknown commands: {missing}"


@pytest.mark.parametrize("shot", ["sound_flier", "clapper", "activity_graph", "color_ball",
                                  "motion_paddle", "edge_snow"])
def test_screenshots_shown_in_the_readme_exist(shot):
    text = README.read_text()
    assert f"docs/screenshots/{shot}.png" in text
    assert (README.parent / "docs" / "screenshots" / f"{shot}.png").is_file()


# What a headless test cannot run, and why. Everything else in the README's sh blocks runs.
NOT_HERE = [
    (r"pip (?:un)?install|pip download|python3 -m venv|^\. \.venv/bin/activate", "setup: CI's install step did it"),
    (r"--hands|--pose|--silhouette|steer=(?:lean|body)|pinch_toss|teach gesture",
     "needs the hands extra: CI runs the hand tests in .venv-hands"),
    (r"-m pytest", "the test suite itself"),
    (r"ruff check|bin/mypy", "a check .ci/run runs before the tests"),
    (r"python -m build", "builds the wheel: tests/test_install.py does (pytest -m install)"),
    (r"docs/build_api\.py", "tests/test_docs.py builds the API reference"),
    (r"benchmarks/", "a benchmark: run on its own"),
    (r"camera:\d|\bmic\b|--camera|--mic\b|sensekit record", "needs a camera or a microphone"),
    (r"take1\.skrec", "reads take1.skrec, which `sensekit record` makes from live devices"),
    (r"venue\.toml", "reads venue.toml, which `sensekit calibrate` makes from live devices"),
    (r"osc-listen", "listens until stopped"),
    (r"--panel", "serves the browser panel until stopped: tests/panel/test_browser.py runs it"),
]
# A block that changes the reader's own machine (installs a service in their session) opens
# with this comment; none of its commands run here, and the block says what checks it instead.
NOT_RUN_MARK = "# not run by the tests"
NOT_RUN_BLOCK = "the block says it is not run by the tests (it changes the reader's session)"
OUTPUT_OPTIONS = re.compile(r"--(?:screenshot|out|video|events) (\S+)")


def _why_not(command: str, live_devices: bool) -> str | None:
    for pattern, reason in NOT_HERE:
        if re.search(pattern, command):
            return reason
    if re.search(r"--words|--sounds|teach sound|teach words", command) and not _has_voice_extra():
        return "needs the voice extra (the README: with '.[test]' alone the voice tests skip)"
    if "../shared/data" in command and not (README.parents[1] / "shared" / "data").is_dir():
        return "../shared/data is not here"
    if live_devices and re.match(r"sensekit run \S+", command) and "--source" not in command:
        return "this machine has a camera or microphone, so it would run live until stopped"
    return None


def _has_voice_extra() -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) is not None
               for m in ("pocketsphinx", "webrtcvad", "soxr", "python_speech_features", "openwakeword", "onnxruntime",
                         "sklearn"))


def _live_devices() -> bool:
    from sensekit.capture import devices

    try:
        return bool(devices.list_cameras() or devices.list_microphones())
    except Exception:
        return False


def test_shell_commands_run_as_written(tmp_path):
    """Each command in the sh blocks of the README and the docs pages, in a fresh shell with the
    venv active and no display, from a folder laid out like the checkout: exit 0, no traceback,
    and the files it says it writes are there. A block's commands run in order; two blocks at a
    time; a command already run for an earlier block or page is not run again."""
    room = reading_room(tmp_path)
    live = _live_devices()
    jobs, skipped, seen = [], [], set()
    for page in documented_pages():
        for lang, _, code in blocks(page.read_text()):
            if lang != "sh":
                continue
            job = []
            whole_block = NOT_RUN_BLOCK if code.lstrip().startswith(NOT_RUN_MARK) else None
            for line in shell_lines(code):
                command = re.sub(r"\s#\s.*$", "", line).strip()
                reason = whole_block or _why_not(command, live)
                if reason:
                    skipped.append((command, reason))
                elif command not in seen:
                    seen.add(command)
                    job.append(command)
            jobs.append(job)

    def run_block(commands: list[str]) -> list[str]:
        failed = []
        for command in commands:
            proc = run_line(command, room)
            missing = [f for f in OUTPUT_OPTIONS.findall(command) if not (room / f).exists()]
            if proc.returncode != 0 or "Traceback" in proc.stderr or missing:
                failed.append(f"{command}\n  exit {proc.returncode}, missing {missing}\n  {proc.stderr[-800:]}")
        return failed

    with ThreadPoolExecutor(max_workers=2) as pool:
        failed = [f for result in pool.map(run_block, jobs) for f in result]
    print("\n".join(f"not run: {c}  ({r})" for c, r in skipped))
    ran = [c for job in jobs for c in job]
    assert not failed, "\n".join(failed)
    assert len(ran) >= 30, ran
    assert any(c.startswith("sensekit run sound_flier") for c in ran)
    assert "mkdocs build --strict" in ran and (room / "site" / "api" / "index.html").is_file()


def test_install_hints_name_an_install_that_works_from_the_checkout():
    """The errors said `pip install 'sensekit[hands]'` (and [voice], [midi]), docs/pose.md ran it:
    no package index holds sensekit ("No matching distribution found for sensekit"); the README
    installs from sensekit's folder, `pip install -e '.[EXTRA]'`.

    The errors now give the line for how sensekit is installed (sensekit.installed): in a checkout
    still `pip install -e '.[EXTRA]'`; installed from a wheel `pip install 'sensekit[EXTRA]'`, which
    works there (pip finds sensekit installed and fetches the extra's packages alone). That form
    is written only by sensekit/installed.py and docs/index.md's section for a wheel's install."""
    from sensekit.installed import install_hint, python_command

    assert install_hint("hands") == f"{python_command()} -m pip install -e '.[hands]'"
    root = README.parent
    wheel_only = {"sensekit/installed.py", "docs/index.md", "README.md"}
    texts = [p for d in ("sensekit", "apps", "docs") for p in (root / d).rglob("*") if p.suffix in (".py", ".md")]
    said = [f"{p.relative_to(root)}" for p in texts + [README] if re.search(r"pip install '?sensekit\[", p.read_text())]
    assert not set(said) - wheel_only, said
