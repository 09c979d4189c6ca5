"""Where a refused setting came from: the one place a ``ConfigError`` that names a setting is told
where the user gave it, before the CLI prints it.

A value of a run's settings comes from the preset, the profile (``--profile FILE``), an option
bound to it (``--blur``), a command's own option (``--activity 25,500``) or ``--set``
(``sensekit.cli.tuning.chosen_values`` records which, in ``Chosen.origin``). A refusal may come
from anywhere after that: the profile's reader (which says ``FILE:LINE:`` itself), a group's rule
on the merged values (``pitch.fmin`` below ``pitch.fmax``), a constructor that knows more than the
setting does (``pitch.fmax`` too high for this source's rate), the clap venue model's check. The
CLI's error handler (``sensekit.cli.main``) passes every such message through ``located``: the
first `` `section.name` `` it names that the user chose is prefixed with where:

- from the profile: ``FILE:LINE:`` of the key in it (its older name when the file uses that);
- from ``--set``: ``--set KEY=VALUE:``; from a bound option: ``--flag VALUE:``; from a command's
  own option: ``the command line:``; from the preset: ``--preset NAME:``.

A message that already says where (``FILE:LINE:``, ``--set``) and one naming no key the user
chose (a default refused by the source, say) are printed as they are.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

__all__ = ["PROFILE", "CHOSEN_DEST", "located"]

#: ``Chosen.origin``'s mark for a value read from the profile (its line is found when needed)
PROFILE = "profile"
#: the attribute of the parsed arguments ``chosen_values`` leaves its ``Chosen`` in
CHOSEN_DEST = "_settings_chosen"

_KEY = re.compile(r"`([a-z][a-z0-9_]*\.[a-z][a-z0-9_]*)`")
_SAID = re.compile(r"^(--set\b|--preset\b|the command line:|\S+:\d+:)")


def _said_where(message: str, profile: Path | None) -> bool:
    if _SAID.match(message):
        return True
    return profile is not None and message.startswith(f"{profile}:")


def located(message: str, args: Any) -> str:
    """``message`` (a refusal) with where its first chosen key was given, if it names one."""
    chosen = getattr(args, CHOSEN_DEST, None)
    origin: dict[str, str] = getattr(chosen, "origin", None) or {}
    path = getattr(chosen, "profile_path", None)
    if not origin or _said_where(message, path):
        return message
    for key in _KEY.findall(message):
        where = origin.get(key)
        if where is None:
            continue
        if where == PROFILE and path is not None:
            from sensekit.profile.load import where_in

            text = getattr(chosen, "profile_text", None)     # the text the run loaded: not read again
            if not isinstance(text, str):
                return f"{path}: {message}"
            return f"{where_in(str(path), text, key)}: {message}"
        return f"{where}: {message}"
    return message
