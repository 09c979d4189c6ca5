"""``reads_of(path)``: what the code under test read of one file, counted exactly (bytes that
``os.read`` returned from it, file objects opened on it), so a test of "refused by its size
before reading" asserts nothing was read instead of bounding the time the refusal took."""
from __future__ import annotations

import builtins
import contextlib
import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest


@dataclass
class Reads:
    byte_counts: list[int] = field(default_factory=list)   # one entry per os.read of the file
    opened: int = 0                                          # file objects opened on it

    @property
    def none(self) -> bool:
        return not self.byte_counts and self.opened == 0


@contextlib.contextmanager
def reads_of(path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Reads]:
    """Count the reads of ``path`` (by inode: a link or another name of it counts) in the block."""
    inode = path.stat().st_ino
    reads = Reads()
    real_read, real_open = os.read, builtins.open

    def is_it(name: Any) -> bool:
        try:
            return isinstance(name, (str, bytes, os.PathLike)) and os.stat(name).st_ino == inode
        except (OSError, ValueError):
            return False

    def read(fd: int, n: int) -> bytes:
        data = real_read(fd, n)
        if os.fstat(fd).st_ino == inode:
            reads.byte_counts.append(len(data))
        return data

    def open_(file: Any, *args: Any, **kwargs: Any) -> Any:
        if is_it(file):
            reads.opened += 1
        return real_open(file, *args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(os, "read", read)
        m.setattr(builtins, "open", open_)
        m.setattr(io, "open", open_)
        yield reads
