"""Output paths on the command line: checked when the arguments are parsed, before any work.

Declare an output option with the ``OutputPath`` type and it is checked for free::

    p.add_argument("--out", type=OutputPath(".png", ".svg"), default="level.png")
    p.add_argument("out", type=OutputPath(".skrec", folder=True))   # a folder to create

At parse time (``sensekit.validate.check_output_path``): the extension, that the
parent folder exists, that a file output is not an existing folder (and that a
folder output does not exist yet), that it is not inside a recording, and that
the OS lets us create it; with ``replaced=True`` (a file written beside and renamed into
place: a screenshot, a profile) that the path is not a FIFO, a device or a socket, which the
rename would replace. Nothing on disk changes. A bad path is one line, exit
status 2: ``sensekit plot: error: argument --out: cannot write '/proc/x.png': ...``.
String defaults go through the type as well, so ``plot``'s default ``level.png``
in an unwritable folder fails the same way.

After parsing, ``check_outputs_apart(parser, args)`` (called by ``sensekit.cli.main``)
rejects an output file that is one of the command's inputs, e.g. ``run --source
file:clip.mp4 --video clip.mp4``: inputs are the other string arguments that name
an existing file (``file:``/``camera:`` prefixes and ``+`` are understood). Outputs
inside a recording folder are refused by the check above.

``output_options(parser)`` lists every ``(command, option, OutputPath)``: the tests
use it to try every output option of every command, so a new one is covered too.
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any, Iterator

from sensekit.errors import ConfigError
from sensekit.validate import check_output_path


class OutputPath:
    """``argparse`` type for a file (or, with ``folder=True``, a folder) a command writes."""

    def __init__(self, *suffixes: str, folder: bool = False, exist_ok: bool = True,
                 replaced: bool = False) -> None:
        self.suffixes = tuple(s.lower() for s in suffixes)
        self.folder = folder
        self.exist_ok = exist_ok and not folder
        self.replaced = replaced          # written beside and renamed over: a FIFO or device is refused
        self.__name__ = "output folder" if folder else "output file"   # argparse names the type

    def __call__(self, text: str) -> Path:
        try:
            return check_output_path(None, text, suffixes=self.suffixes, folder=self.folder,
                                     exist_ok=self.exist_ok, replaced=self.replaced)
        except ConfigError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    def __repr__(self) -> str:
        return f"OutputPath({', '.join(map(repr, self.suffixes))}, folder={self.folder})"


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def output_options(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.Action]]:
    """``(command, action)`` for every output option of every subcommand of ``parser``."""
    for command, sub in sorted(_subparsers(parser).items()):
        for action in sub._actions:
            if isinstance(action.type, OutputPath):
                yield command, action


def _input_paths(value: Any) -> list[Path]:
    """Existing paths a string argument may name (``file:x``, ``camera:x+mic``, a bare path)."""
    if not isinstance(value, str) or not value or "\x00" in value:
        return []
    found = []
    for part in value.split("+") if "+" in value else [value]:
        kind, sep, rest = part.partition(":")
        for candidate in (part, rest) if sep and kind.isalpha() and len(kind) > 1 else (part,):
            try:
                if candidate and os.path.isfile(candidate):
                    found.append(Path(candidate).resolve())
            except (OSError, ValueError):
                continue
    return found


def check_outputs_apart(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``ConfigError`` if an output file is one of the command's input files."""
    sub = _subparsers(parser).get(getattr(args, "command", None) or "")
    if sub is None:
        return
    outputs = {a.dest: a for a in sub._actions if isinstance(a.type, OutputPath)}
    inputs = [p for dest, value in vars(args).items() if dest not in outputs
              for p in _input_paths(value)]
    for dest, action in outputs.items():
        value = getattr(args, dest, None)
        if value is None:
            continue
        out = Path(value).resolve()
        for source in inputs:
            if out == source:
                option = action.option_strings[-1] if action.option_strings else action.metavar or dest
                raise ConfigError(f"{option} '{value}' would overwrite the input '{source}'; "
                                  "choose another name")
