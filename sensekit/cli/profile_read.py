"""The ``--profile`` file of one command, read once (harden28).

Every part of a command that needs the profile's text takes it from ``profile_text_of(args)``:
the settings (``cli.tuning.chosen_values``), the ``[midi]`` map of ``--midi``
(``cli.midi_args``), the taught words of ``--words``/``[voice] words`` and the taught sounds of
``--sounds`` (``cli.voice_options``). The first of them to ask reads the file (as every profile
is read: ``profile.load.profile_text``, regular, capped, a cut save refused); the others get that
text, left on the parsed arguments. Read again, a file replaced between the reads (a copy
landing, a writer truncating it) gave those tables from another file than the settings: the run
played one file's settings with another's MIDI map or sounds.
"""
from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["TEXT_DEST", "profile_text_of"]

#: the attribute of the parsed arguments the text read is left in: ``(path, text)``
TEXT_DEST = "_profile_text_read"


def profile_text_of(args: argparse.Namespace) -> str | None:
    """The text of ``args.profile`` as first read in this command (``None`` without ``--profile``);
    ``ConfigError`` as ``profile_text`` raises it (no file, not UTF-8, cut short)."""
    from sensekit.profile.load import profile_text

    path = getattr(args, "profile", None)
    if path is None:
        return None
    held = getattr(args, TEXT_DEST, None)
    if isinstance(held, tuple) and held[0] == Path(path):
        return str(held[1])
    text = profile_text(Path(path))
    setattr(args, TEXT_DEST, (Path(path), text))
    return text
