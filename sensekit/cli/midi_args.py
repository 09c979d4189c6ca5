"""The MIDI options of ``sensekit run`` and ``sensekit events`` and what they set up.

``--midi [PORT]`` sends the events that the ``[midi]`` table of ``--profile FILE`` maps to notes
and control changes (``sensekit.midi.mapping``) to the MIDI output whose name contains PORT (else
the table's ``port``, else the first output); ``--midi-virtual`` opens a new virtual port of that
name instead, for another program to connect to. ``attach_midi(dispatcher, args)`` returns the
``MidiOut`` (``None`` without ``--midi``); ``close()`` it at exit.
"""
from __future__ import annotations

import argparse

from sensekit.cli.profile_read import profile_text_of
from sensekit.errors import ConfigError
from sensekit.events import Dispatcher
from sensekit.midi.mapping import load_midi
from sensekit.midi.out import MidiOut, open_port

__all__ = ["add_midi_arguments", "attach_midi"]

_ANY = "*"          # --midi without a PORT: the table's port, else the first output


def add_midi_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("MIDI")
    group.add_argument("--midi", nargs="?", const=_ANY, metavar="PORT",
                       help="send the events mapped by the [midi] table of --profile to this MIDI port "
                            "(a part of its name; default: the table's port, else the first) (midi extra)")
    group.add_argument("--midi-virtual", action="store_true",
                       help="open a new virtual MIDI port (named PORT, or 'sensekit') instead")


def attach_midi(dispatcher: Dispatcher, args: argparse.Namespace) -> MidiOut | None:
    """Load the map, open the port, listen to the mapped events (see the module docstring)."""
    wanted = getattr(args, "midi", None)
    if wanted is None:
        if getattr(args, "midi_virtual", False):
            raise ConfigError("--midi-virtual needs --midi")
        return None
    profile = getattr(args, "profile", None)
    if profile is None:
        raise ConfigError("--midi needs --profile FILE with a [midi] table (e.g. [midi.map] clap = \"note 60\")")
    settings = load_midi(profile, text=profile_text_of(args))     # the text the settings were read from
    name = settings.port if wanted == _ANY else wanted
    out = MidiOut(settings.mapper, open_port(name, virtual=bool(getattr(args, "midi_virtual", False))))
    out.attach(dispatcher)
    return out
