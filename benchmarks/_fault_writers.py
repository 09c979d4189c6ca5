"""The fault matrix's rows for what sensekit writes (harden15): outputs that are not files, zone
names with control characters, and every writer on a full disk and in a read-only folder.

A full disk is a file size limit (``RLIMIT_FSIZE``) in a child process, as the tests do: the
kernel refuses to grow a file past it (``EFBIG``), as a full disk refuses with ``ENOSPC``. A
read-only folder is a folder without write permission, or, for root (which permissions do not
stop), a read-only tmpfs mounted for the rows (skipped when that cannot be done). Each row:
exit 2 (or the piece going on, for Shift+S), one line naming the file, the previous file as it
was, nothing left beside it.
"""
from __future__ import annotations

import contextlib
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

PROFILE = "[motion]\nthreshold = 30\n"


def _run(argv: list[str], cwd: Path, limit: int | None = None) -> tuple[int | str, list[str]]:
    """``python -m sensekit ARGV`` in a child (``limit``: its file size limit in bytes)."""
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    pre: Callable[[], None] | None = None
    if limit is not None:
        pre = lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))  # noqa: E731
    try:
        r = subprocess.run([sys.executable, "-m", "sensekit", *argv], cwd=cwd, env=env, preexec_fn=pre,
                           capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "HUNG", []
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    return r.returncode, lines


def _cases(demo: str, folder: Path) -> list[tuple[str, list[str], str | None, bytes, int]]:
    """(what, argv, the file already there, its bytes, the file size limit for a full disk)."""
    run = ["run", "color_ball", "--source", demo, "--headless"]
    return [
        ("run --screenshot", [*run, "--frames", "5", "--screenshot", f"{folder}/shot.png"], "shot.png",
         b"last night's picture", 4096),
        ("run --video", [*run, "--frames", "120", "--video", f"{folder}/show.mkv"], "show.mkv",
         b"last night's video", 64 * 1024),
        ("run --events", [*run, "--frames", "120", "--events", f"{folder}/ev.jsonl"], None, b"", 2048),
        ("calibrate --out", ["calibrate", demo, "--seconds", "2", "--out", f"{folder}/venue.toml"], "venue.toml",
         PROFILE.encode(), 16),
        ("Shift+S (run --keys S@0.3)", [*run, "--frames", "30", "--profile", f"{folder}/venue.toml",
                                        "--keys", "S@0.3"], "venue.toml", PROFILE.encode(), 16),
        ("record", ["record", "--source", demo, "--seconds", "3", "--no-progress", f"{folder}/take.skrec"], None,
         b"", 64 * 1024),
    ]


@contextlib.contextmanager
def _read_only(tmp: Path) -> Iterator[Path | None]:
    """A folder this process cannot write in (``None`` if none can be made here)."""
    folder = tmp / "readonly"
    folder.mkdir()
    mounted = False
    try:
        folder.chmod(0o555)
        if os.access(folder, os.W_OK):                      # root: permissions do not stop it
            folder.chmod(0o755)
            r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)],
                               capture_output=True)
            if r.returncode != 0:
                yield None
                return
            mounted = True
        yield folder
    finally:
        if mounted:
            subprocess.run(["umount", str(folder)], capture_output=True)
        with contextlib.suppress(OSError):
            folder.chmod(0o755)


def _seal(folder: Path) -> None:
    """Make ``folder`` read-only (a remount for root's tmpfs, else its mode)."""
    if os.geteuid() == 0:
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True, capture_output=True)
    else:
        folder.chmod(0o555)


def _empty(folder: Path) -> None:
    for p in folder.iterdir():
        shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()


def _unseal(folder: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["mount", "-o", "remount,rw", str(folder)], capture_output=True)
    folder.chmod(0o755)


def writer_rows(tmp: Path, demo: str, row: Callable[[str, str, str, bool], None],
                cli_row: Callable[[str, str, list[str]], None]) -> None:
    """Every row of this module (see the docstring)."""
    _not_files(tmp, demo, row, cli_row)
    full = tmp / "full"
    for what, argv, name, before, limit in _cases(demo, full):
        full.mkdir(exist_ok=True)
        _empty(full)
        if name:
            (full / name).write_bytes(before)
        code, lines = _run(argv, tmp, limit)
        _row(row, what, "on a full disk", full, name, before, code, lines)
    with _read_only(tmp) as ro:
        if ro is None:
            row("writers", "a read-only folder", "skipped: no read-only folder can be made here", True)
            return
        for what, argv, name, before, _limit in _cases(demo, ro):
            _unseal(ro)
            _empty(ro)
            if name:
                (ro / name).write_bytes(before)
            _seal(ro)
            code, lines = _run(argv, tmp)
            _row(row, what, "in a read-only folder", ro, name, before, code, lines)
        _unseal(ro)


def _row(row: Callable[[str, str, str, bool], None], what: str, where: str, folder: Path, name: str | None,
         before: bytes, code: Any, lines: list[str]) -> None:
    kept = name is None or (folder / name).read_bytes() == before
    left = sorted(p.name for p in folder.iterdir() if p.name != name)
    said = lines[-1] if lines else ""
    going_on = what.startswith("Shift+S")                  # the piece goes on, it says so
    named = name is None or f"/{name}'" in said                # the line names the file (not a temporary)
    ok = (code == 0 if going_on else code == 2) and kept and named and "Traceback" not in " ".join(lines) \
        and (going_on or len(lines) == 1)
    if what == "run --events" and where == "on a full disk":
        ok = code == 0 and "dropped after the write failed" in said   # the show goes on, counted
    extra = [] if kept else ["the previous file was lost"]
    extra += [f"left: {', '.join(left)}"] if left and what != "record" else []
    row("writers", f"{what} {where}",
        f"exit {code}, {len(lines)} line(s): {said}" + ("; " + "; ".join(extra) if extra else ""), ok)


def _not_files(tmp: Path, demo: str, row: Callable[[str, str, str, bool], None],
               cli_row: Callable[[str, str, list[str]], None]) -> None:
    """Outputs that are not files, and zone names with control characters (harden15)."""
    fifo = tmp / "shot-fifo.png"
    os.mkfifo(fifo)
    cli_row("command line", "run --screenshot FIFO (the PNG's rename replaced it)",
            ["run", "color_ball", "--source", demo, "--headless", "--frames", "3", "--screenshot", str(fifo)])
    link = tmp / "shot-null.png"
    link.symlink_to("/dev/null")
    cli_row("command line", "run --screenshot a symlink to /dev/null",
            ["run", "color_ball", "--source", demo, "--headless", "--frames", "3", "--screenshot", str(link)])
    cli_row("command line", "events --zones with a newline in a zone name",
            ["events", demo, "--blobs", "--zones", "door\nopen=0,0,80,80"])
    venue = tmp / "zones.toml"
    venue.write_text('[motion.zones]\n"door\\u001b[2J" = [0.0, 0.0, 0.5, 0.5]\n')
    cli_row("profile", "motion.zones with an escape in a zone name",
            ["events", demo, "--motion", "--profile", str(venue)])
