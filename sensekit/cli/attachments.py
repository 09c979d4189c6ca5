"""The end of a run for ``sensekit run`` and ``sensekit events``: close what the options opened.

``close_attachments(osc, midi, panel)`` closes the ``OscAttachment`` of ``attach_osc``
(``osc_args.py``), the ``MidiOut`` of ``attach_midi`` (``midi_args.py``, ``None`` without
``--midi``) and the ``Panel`` of ``sensekit.panel.attach`` (``None`` without ``--panel``), in that
order. Every one is closed even when an earlier close raises; the last error is raised, with the
earlier one as its ``__context__`` (each close is bounded: sockets, server threads joined with a
timeout).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sensekit.cli.osc_args import OscAttachment
    from sensekit.midi.out import MidiOut
    from sensekit.panel.session import Panel

__all__ = ["close_attachments"]


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
