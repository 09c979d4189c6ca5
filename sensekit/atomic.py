"""``write_text_atomic``: a small file written whole or not at all.

The text goes to a temporary file beside the target (flushed and ``fsync``-ed), which is then
renamed over it, and the folder is ``fsync``-ed so the rename survives a power cut: a full
disk, a file size limit or a read-only folder leaves the previous file
as it was and no temporary behind, and the failure is one ``OSError`` naming the file. A
symlink is followed (its target is replaced, the link stays); a FIFO, a device or a socket is
refused (the rename would replace it). A new file is readable by all (0644), one written over
keeps its mode.

Cost: two extra ``fsync`` calls (the file, its folder) and a rename per write; for files
written once per command (a taught model), never per frame.
"""
from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path

from sensekit.safe_read import file_kind

__all__ = ["write_text_atomic", "replace_file", "fsync_folder"]


def write_text_atomic(path: str | os.PathLike[str], text: str, *, what: str = "file") -> Path:
    """Write ``text`` (UTF-8) to ``path`` as described in the module docstring; returns the path
    written (a symlink's target). ``what`` names the file in the error ("the model")."""
    target = Path(path)
    if target.is_symlink():
        target = target.resolve()
    kind = "a folder" if target.is_dir() else file_kind(target)
    if kind is not None:
        raise OSError(errno.EINVAL, f"cannot write {what} {str(path)!r}: it is {kind}, not a file")
    existed = target.is_file()
    mode = target.stat().st_mode & 0o7777 if existed else 0o644
    try:
        replace_file(target, text, mode)
    except OSError as exc:
        kept = " (the previous one is kept)" if existed else ""
        raise OSError(exc.errno, f"cannot write {what} {str(path)!r}: {exc.strerror or exc}{kept}") from None
    return target


def replace_file(target: Path, text: str, mode: int) -> None:
    """The write itself, for callers that check ``target`` and word the error their own way (a
    profile): ``text`` (UTF-8) to a temporary file beside ``target``, flushed and ``fsync``-ed,
    given ``mode``, then renamed over ``target``. On any failure the temporary file is removed
    and the error is raised as it came (an ``OSError`` from the disk)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_folder(target.parent)


def fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable: ``fsync`` the folder itself. Without it a power cut
    soon after a save can lose the rename (the file's data was on the disk, the folder's entry
    still named the previous file): the save said "saved" and the previous profile came back.
    A filesystem that cannot ``fsync`` a folder (some network ones: ``EINVAL``) is left as it is."""
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
