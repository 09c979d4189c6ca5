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

The mark is a line, not a checksum of the settings, so a saved profile can still be edited by
hand (anything may change between the two lines, or be added after the last). A hand-written
profile, or one saved by an earlier version, has no first line ``HEAD`` and loads as before.
A file cut to zero bytes is an empty profile to ``load_profile``, as a user's empty file is: nothing
tells them apart. The command line's ``--profile`` says so in a warning naming the file
(``cli.tuning._say_empty``): an empty file is also how a user names a new profile that a run's
Shift+S saves into.
"""
from __future__ import annotations

from sensekit.errors import ConfigError

__all__ = ["HEAD", "END", "seal", "check_seal", "saved_whole"]

HEAD = "# saved whole by sensekit: its last line is the one below (a copy cut short is refused)"
END = "# end of the profile saved by sensekit"


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


def seal(text: str) -> str:
    """``text`` (a profile) with the marks: ``HEAD`` first, ``END`` last (older marks removed)."""
    body = [line for line in text.splitlines() if line.rstrip() not in (HEAD, END)]
    while body and not body[-1].strip():
        body.pop()
    return "\n".join([HEAD, *body, END]) + "\n"


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
