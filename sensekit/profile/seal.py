"""The marks of a profile sensekit saved: a first line that says the file was saved whole, and a
last line that ends it, so a copy of it cut short is refused rather than loaded without the
settings after the cut.

A profile cut at the end of a line (another program writing it in place, a copy interrupted, a
full disk) is valid TOML: it loaded silently without the settings after the cut. Every save
(``save_profile``, ``save_table``: ``calibrate``, ``teach``, Shift+S, the panel) now writes
``HEAD`` as the file's first line and ``END`` as its last (``seal``). A file whose first line is
``HEAD`` must hold the line ``END`` (``check_seal``); if it does not, it was cut, and loading it is
a one-line ``ConfigError`` naming the file. A file that is no more than the start of ``HEAD`` (cut
within the first line, from its first byte: ``#``, ``# ``, a lone comment, an empty profile to
TOML) is refused the same way.

The second line (``WROTE``) names the tables the save wrote (``# sensekit wrote the tables:
[audio] [motion]``): a table added by hand later is not among them, so the command line can tell
a venue's tables, shared by every app, from one a user added for an app (``written_tables``;
``cli.tuning._say_ignored``, harden29). A profile saved by an earlier version has no such line.

The mark is a line, not a checksum of the settings, so a saved profile can still be edited by
hand (anything may change between the two lines, or be added after the last). A hand-written
profile, or one saved by an earlier version, has no first line ``HEAD`` and loads as before.
A file cut to zero bytes is an empty profile to ``load_profile``, as a user's empty file is: nothing
tells them apart. The command line's ``--profile`` says so in a warning naming the file
(``cli.tuning._say_empty``): an empty file is also how a user names a new profile that a run's
Shift+S saves into.
"""
from __future__ import annotations

import re
import tomllib
from typing import Iterable

from sensekit.errors import ConfigError

__all__ = ["HEAD", "END", "WROTE", "seal", "check_seal", "saved_whole", "written_tables"]

HEAD = "# saved whole by sensekit: its last line is the one below (a copy cut short is refused)"
END = "# end of the profile saved by sensekit"
#: the start of the second line of a saved profile: the tables the save wrote follow it
WROTE = "# sensekit wrote the tables:"


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


def _mark(line: str) -> bool:
    line = line.rstrip()
    return line in (HEAD, END) or line.startswith(WROTE)


def _tables(text: str) -> list[str]:
    """The top-level tables of the profile ``text`` (``[midi.map]`` is ``midi``), in order."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return []
    return [name for name, value in doc.items() if isinstance(value, dict)]


def seal(text: str, wrote: Iterable[str] | None = None) -> str:
    """``text`` (a profile) with the marks: ``HEAD`` first, then ``WROTE`` naming the tables
    sensekit wrote (``none``), ``END`` last (older marks removed). ``wrote``: the tables this
    save wrote (``None``: every table of ``text``); those an earlier save named stay named, and
    a profile an earlier version saved (no ``WROTE`` line) counts all its tables as sensekit's; a
    hand-written file saved into keeps its own tables out of the line."""
    body = [line for line in text.splitlines() if not _mark(line)]
    while body and not body[-1].strip():
        body.pop()
    present = _tables("\n".join(body))
    if wrote is None:
        named = set(present)
    else:
        earlier = written_tables(text)
        if earlier is None and saved_whole(text):
            earlier = set(present)
        named = set(wrote) | (earlier or set())
    line = " ".join(f"[{t}]" for t in present if t in named) or "none"
    return "\n".join([HEAD, f"{WROTE} {line}", *body, END]) + "\n"


def written_tables(text: str) -> set[str] | None:
    """The tables sensekit wrote into the saved profile ``text`` (its ``WROTE`` line, between
    ``HEAD`` and ``END``); ``None`` for a profile sensekit did not save whole, or one an earlier
    version saved (no such line: which tables were added by hand is not known)."""
    if not saved_whole(text):
        return None
    lines = _lines(text)
    for line in lines[1:lines.index(END, 1)]:
        if line.startswith(WROTE):
            return set(re.findall(r"\[([^\[\]\s]+)\]", line[len(WROTE):]))
    return None


def saved_whole(text: str) -> bool:
    """Whether ``text`` is a profile sensekit saved, whole: ``HEAD`` first, ``END`` after it."""
    lines = _lines(text)
    return bool(lines) and lines[0] == HEAD and END in lines[1:]


def check_seal(text: str, name: str) -> None:
    """``ConfigError`` if ``text`` (the profile ``name``) was saved by sensekit and is cut short."""
    lines = _lines(text)
    if not lines:
        return
    if lines[0] == HEAD:
        if END not in lines[1:]:
            raise ConfigError(f"profile {name!r} is cut short: sensekit saved it whole, ending with the line "
                              f"{END!r}, which it no longer holds (a copy or a write interrupted?); restore "
                              "it, or delete its first line to load what is left")
    elif len(lines) == 1 and lines[0] and HEAD.startswith(lines[0]):
        raise ConfigError(f"profile {name!r} is cut short: it holds only the start of the first line "
                          "sensekit saves; restore it")
