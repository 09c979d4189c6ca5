"""MIDI out: events and values mapped to notes and control changes (the ``midi`` extra).

``load_midi(profile)`` reads the venue profile's ``[midi]`` table (``sensekit.midi.mapping``);
``MidiOut(mapper, open_port(name))`` sends (``sensekit.midi.out``). ``sensekit events --midi``
and ``sensekit run --midi`` wire them to a run.
"""
from sensekit.midi.mapping import MidiMapper, MidiSettings, Rule, load_midi, parse_mapping, parse_rule
from sensekit.midi.out import MidiOut, open_port

__all__ = ["MidiMapper", "MidiSettings", "Rule", "load_midi", "parse_mapping", "parse_rule", "MidiOut",
           "open_port"]
