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
  own option, as typed: ``--track-color red:`` (``cli.tuning.own_option``; harden28: it was
  ``the command line:``); from the preset: ``--preset NAME:``.

A message naming several keys is prefixed with its first chosen key's origin (the value it
refuses: `` `activity.off_level` must not exceed `activity.silence_level` ``); each other key it
names whose value was typed (an option, ``--set``) is said after it with its option, and, when
the profile sets that key too, its line there: the value the message quotes is the typed one,
which won (harden27: a profile's ``tracker.method = "model"`` refused beside ``--set
tracker.color=#ff0000`` named the profile's line alone, whose ``color = "none"`` is not the colour
quoted). A message that already says where (``FILE:LINE:``, ``--set``) and one naming no key the
user chose (a default refused by the source, say) are printed as they are.
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


def _profile_where(chosen: Any, path: Path, key: str) -> str:
    """``FILE:LINE`` of ``key`` in the profile text the run loaded (not read again), else ``FILE``."""
    from sensekit.profile.load import where_in

    text = getattr(chosen, "profile_text", None)
    return where_in(str(path), text, key) if isinstance(text, str) else str(path)


def _typed_others(message: str, first: str, chosen: Any, origin: dict[str, str], path: Path | None) -> str:
    """`` [`key`: --set KEY=VALUE, over FILE:LINE]`` for each other key the message names that was
    typed (an option, ``--set``): the value it quotes is the typed one, which a reader of the
    prefix's file would not find there (and, when the profile sets the key too, the profile's
    line holds another value)."""
    said: list[str] = []
    profile = getattr(chosen, "profile", None) or {}
    for key in dict.fromkeys(_KEY.findall(message)):
        where = origin.get(key)
        if key == first or where is None or where == PROFILE or where.startswith("--preset"):
            continue
        over = f", over {_profile_where(chosen, path, key)}" if path is not None and key in profile else ""
        said.append(f"`{key}`: {where}{over}")
    return f" [{'; '.join(said)}]" if said else ""


def located(message: str, args: Any) -> str:
    """``message`` (a refusal) with where its first chosen key was given, if it names one; each
    other key it names whose value was typed is said with its option (``_typed_others``)."""
    chosen = getattr(args, CHOSEN_DEST, None)
    origin: dict[str, str] = getattr(chosen, "origin", None) or {}
    path = getattr(chosen, "profile_path", None)
    if not origin or _said_where(message, path) or any(message.startswith(f"{w}:") for w in origin.values()):
        return message
    for key in _KEY.findall(message):
        where = origin.get(key)
        if where is None:
            continue
        if where == PROFILE and path is not None:
            where = _profile_where(chosen, path, key)
        return f"{where}: {message}{_typed_others(message, key, chosen, origin, path)}"
    return message
