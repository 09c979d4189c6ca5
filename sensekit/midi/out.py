"""``MidiOut``: a dispatcher handler that sends the mapped MIDI messages of each event to a port.

``open_port(name)`` opens a MIDI output with mido's python-rtmidi backend: the first port whose
name contains ``name`` (case-insensitive), the first port when ``name`` is ``None``, or a new
virtual port called ``name`` when ``virtual=True`` (ALSA and CoreMIDI; another program then
connects to it). A machine without a MIDI system (no ALSA sequencer) or without a matching
port gives a one-line ``DeviceNotFoundError`` listing what is available.

Failure modes: a send that fails is counted in ``errors`` and dropped; the run never stops
because of MIDI. Cost: the mapping's dict lookup per event, plus rtmidi's send per message.
"""
from __future__ import annotations

import logging
from typing import Any

from sensekit.errors import DeviceNotFoundError
from sensekit.events import Event
from sensekit.midi.mapping import MidiMapper, require_mido

__all__ = ["MidiOut", "open_port"]

log = logging.getLogger("sensekit.midi")


def open_port(name: str | None = None, *, virtual: bool = False) -> Any:
    """A mido output port (see the module docstring)."""
    mido = require_mido()
    try:
        if virtual:
            return mido.open_output(name or "sensekit", virtual=True)
        names = mido.get_output_names()
    except Exception as exc:         # rtmidi raises its own SystemError types without a MIDI system
        raise DeviceNotFoundError(f"no MIDI system to open {'a virtual port' if virtual else 'an output'} "
                                  f"on ({str(exc).strip()})") from None
    match = [n for n in names if name is None or name.lower() in n.lower()]
    if not match:
        listed = ", ".join(repr(n) for n in names) or "none"
        raise DeviceNotFoundError(f"no MIDI output matching {name!r}; available: {listed}")
    return mido.open_output(match[0])


class MidiOut:
    """Dispatcher handler: ``mapper``'s messages for each event go to ``port`` (anything with
    ``send(message)``: a mido port, or a list's ``append`` wrapped for tests)."""

    def __init__(self, mapper: MidiMapper, port: Any) -> None:
        self.mapper = mapper
        self.port = port
        self.sent = 0
        self.errors = 0

    def __call__(self, event: Event) -> None:
        for message in self.mapper.messages(event):
            try:
                self.port.send(message)
                self.sent += 1
            except Exception as exc:     # a port that went away: count, log the first, go on
                self.errors += 1
                if self.errors == 1:
                    log.warning("MIDI: send failed: %s", exc)

    def attach(self, dispatcher: Any) -> None:
        """Listen to the mapped events only (so nothing else is computed for MIDI)."""
        for name in sorted(self.mapper.events):
            dispatcher.on(name, self)

    def close(self) -> None:
        close = getattr(self.port, "close", None)
        if close is not None:
            close()
