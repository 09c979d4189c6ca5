"""Voice options for ``sensekit events`` and ``run``: command words and taught sounds.

    --words WORD,WORD,...     word events for these words (``voice.words``; a venue
                              profile's ``[voice] words = [...]`` does the same): a word
                              taught to the ``--profile`` from takes (``sensekit teach
                              words``) is heard by its classifier, any other English word
                              by PocketSphinx; which path each word takes is printed to
                              stderr at the start
    --sounds                  sound events for the sounds taught to the ``--profile``
                              (``sensekit teach sound``)

Both need the extra (``python -m pip install -e '.[voice]'``); without it either option is one line
naming the install (exit status 2). The other ``voice`` settings are ``--set voice.NAME=VALUE``
(``sensekit settings voice``). Without words or sounds nothing of the extra is imported.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Mapping

from sensekit.cli.tuning import add_setting_flags, section_values
from sensekit.installed import install_hint

__all__ = ["add_arguments", "option_values", "build_stages", "load_sound_book", "load_taught_words"]


#: the place of these options among the stage providers' (``sensekit.cli.events.stage_providers``)
STAGE_ORDER = 50


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group(f"voice (needs: {install_hint('voice')})")
    add_setting_flags(g, ["voice"])
    g.add_argument("--sounds", action="store_true",
                   help="sound events for the sounds taught to the --profile (sensekit teach sound)")


def option_values(args: argparse.Namespace) -> dict[str, Any]:
    """Nothing for the table; ``--sounds`` is checked here, before the source opens."""
    if getattr(args, "sounds", False):
        _sound_book(args)
    return {}


def build_stages(args: argparse.Namespace, source: Any, chosen: Mapping[str, Any] | None = None) -> list[Any]:
    """A ``VoiceStage`` when words are chosen or ``--sounds`` is given, else ``[]``."""
    chosen = chosen or {}
    values = section_values(chosen, "voice")
    sounds = None
    if getattr(args, "sounds", False):
        sounds = _sound_book(args)
    if not values.get("words") and sounds is None:
        return []
    from sensekit.audio.voice import VoiceStage

    taught = load_taught_words(getattr(args, "profile", None), text=_text(args)) if values.get("words") else None
    stage = VoiceStage(values, sounds=sounds, taught=taught)
    paths = stage.word_paths()
    if paths:
        heard = [("taught from takes in the profile", [w for w, p in paths.items() if p == "taught"]),
                 ("PocketSphinx, English dictionary", [w for w, p in paths.items() if p == "dictionary"])]
        print("voice words: " + "; ".join(f"{', '.join(ws)}: {how}" for how, ws in heard if ws), file=sys.stderr)
    return [stage]


def _text(args: argparse.Namespace) -> str | None:
    """The profile's text as this command read it first (``cli.profile_read``): the settings,
    the words and the sounds of one run come from one read of the file."""
    from sensekit.cli.profile_read import profile_text_of

    return profile_text_of(args)


def _sound_book(args: argparse.Namespace) -> Any:
    path = getattr(args, "profile", None)
    empty_ok = getattr(args, "panel", None) is not None
    text = _text(args) if path and (Path(path).is_file() or not empty_ok) else None
    return load_sound_book(path, empty_ok=empty_ok, text=text)


def load_taught_words(path: str | None, *, text: str | None = None) -> Any:
    """The ``TaughtWords`` of the profile at ``path`` (``sensekit teach words``), or ``None``
    when there is no profile or it has none; ``text``: the profile as already read."""
    from sensekit.audio.words import require_voice
    from sensekit.profile.load import read_table

    if not path:
        return None
    require_voice()
    from sensekit.audio.taught_words import TAUGHT_WORDS_TABLE, TaughtWords

    tables = read_table(path, TAUGHT_WORDS_TABLE, text=text)
    return TaughtWords.from_tables(tables, where=str(path)) if tables else None


def load_sound_book(path: str | None, *, empty_ok: bool = False, text: str | None = None) -> Any:
    """The ``SoundBook`` of the ``[sounds]`` tables of the profile at ``path``; ``ConfigError``
    when there are none, unless ``empty_ok`` (``--panel``: its sound card teaches the first ones;
    the profile is read here, above the audio stages that use the book); ``text``: the profile as
    already read (not read again)."""
    from sensekit.audio.sounds import SOUNDS_TABLE, SoundBook
    from sensekit.errors import ConfigError
    from sensekit.profile.load import read_table

    if not path:
        raise ConfigError("--sounds needs --profile FILE with taught sounds (sensekit teach sound)")
    readable = text is not None or Path(path).is_file() or not empty_ok
    tables = read_table(path, SOUNDS_TABLE, text=text) if readable else {}
    if not tables and empty_ok:
        return SoundBook()
    if not tables:
        raise ConfigError(f"profile {path!r} has no taught sounds; teach some first: "
                          "sensekit teach sound --profile FILE NAME=FILE,FILE,...")
    return SoundBook.from_tables(tables, where=str(path))
