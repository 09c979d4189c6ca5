"""The start and the end of a run for ``sensekit run`` and ``sensekit events``: open, and close,
what the options ask for.

``open_attachments(dispatcher, args, tuning=..., pause=...)`` opens MIDI (``attach_midi``) then
OSC (``attach_osc``) and returns ``(osc, midi)``; when OSC cannot be set up (its control port in
use, say), the MIDI port it opened is closed before the error goes on (it was left open: a
virtual port stayed visible to other programs for as long as the process lived, and a program
calling ``main`` again held one more each time).

``close_attachments(osc, midi, panel)`` closes the ``OscAttachment`` of ``attach_osc``
(``osc_args.py``), the ``MidiOut`` of ``attach_midi`` (``midi_args.py``, ``None`` without
``--midi``) and the ``Panel`` of ``sensekit.panel.attach`` (``None`` without ``--panel``), in that
order. Every one is closed even when an earlier close raises; the last error is raised, with the
earlier one as its ``__context__`` (each close is bounded: sockets, server threads joined with a
timeout).
"""
from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sensekit.events import Dispatcher
    from sensekit.cli.osc_args import OscAttachment
    from sensekit.midi.out import MidiOut
    from sensekit.panel.session import Panel
    from sensekit.settings.live import Tuning

__all__ = ["close_attachments", "open_attachments"]


def open_attachments(dispatcher: Dispatcher, args: argparse.Namespace, *, tuning: Tuning | None = None,
                     pause: Callable[[bool], None] | None = None) -> tuple[OscAttachment, MidiOut | None]:
    """``--midi`` then ``--osc``/``--osc-control`` set up on ``dispatcher``; ``(osc, midi)``. Nothing
    stays open when it raises (see the module docstring)."""
    from sensekit.cli.midi_args import attach_midi
    from sensekit.cli.osc_args import attach_osc

    midi = attach_midi(dispatcher, args)
    try:
        osc = attach_osc(dispatcher, args, tuning=tuning, pause=pause)
    except BaseException:
        if midi is not None:
            midi.close()
        raise
    return osc, midi


def close_attachments(osc: OscAttachment, midi: MidiOut | None, panel: Panel | None) -> None:
    """Close OSC, then MIDI, then the panel (see the module docstring)."""
    try:
        osc.close()
    finally:            # try/finally, not ExitStack: its re-raise drops the earlier error from __context__
        try:
            if midi is not None:
                midi.close()
        finally:
            if panel is not None:
                panel.close()
