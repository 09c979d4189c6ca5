"""Run the code in a Markdown page the way a reader would: fenced blocks, shell lines, files.

- ``blocks(text)``: ``(language, title, code)`` for each fenced block, in order; ``title``
  comes from an info string such as ```` ```python title="balloon.py" ````.
- ``shell_lines(code)``: the commands of a ``sh`` block, one per line (``\\`` continues).
- ``run_line(line, cwd)``: runs it with bash, as typed into a fresh shell where the venv is
  active (its ``bin`` first on ``PATH``; the test's own venv unless ``bin_dir`` names another),
  with no display (so apps fall back to headless and
  save a screenshot) and a timeout.
- ``reading_room(tmp_path)``: a folder that looks like the checkout (its top-level entries
  linked in, ``../shared`` beside it when it exists) so relative paths in the page work and
  whatever the commands write stays out of the repository.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```([\w-]*)([^\n]*)\n(.*?)^```", re.M | re.S)


def blocks(text: str) -> list[tuple[str, str | None, str]]:
    found = []
    for lang, info, code in FENCE.findall(text):
        title = re.search(r'title="([^"]+)"', info)
        found.append((lang, title.group(1) if title else None, code))
    return found


def shell_lines(code: str) -> list[str]:
    lines, pending = [], ""
    for raw in code.splitlines():
        line = pending + raw
        if line.rstrip().endswith("\\"):
            pending = line.rstrip()[:-1] + " "
            continue
        pending = ""
        if line.strip() and not line.lstrip().startswith("#"):
            lines.append(line.strip())
    return lines


def reader_env(bin_dir: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER", "SENSEKIT_APPS_DIR", "PYTHONPATH",
                        "VIRTUAL_ENV")}
    env["PATH"] = f"{bin_dir or Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["SDL_AUDIODRIVER"] = "dummy"
    return env


def run_line(line: str, cwd: Path, *, timeout_s: float = 300, bin_dir: Path | None = None,
             ) -> subprocess.CompletedProcess:
    """``bin_dir``: the venv whose ``bin`` is active (default: the one running the tests)."""
    return subprocess.run(["bash", "-c", line], cwd=cwd, env=reader_env(bin_dir), capture_output=True,
                          text=True, timeout=timeout_s)


def reading_room(tmp_path: Path) -> Path:
    room = tmp_path / "checkout"
    room.mkdir()
    for entry in REPO.iterdir():
        if entry.name not in (".git", ".venv", "build", "dist", "out", "site") and not entry.name.endswith(".egg-info"):
            (room / entry.name).symlink_to(entry)
    shared = REPO.parent / "shared"
    if shared.is_dir():
        (tmp_path / "shared").symlink_to(shared)
    return room
