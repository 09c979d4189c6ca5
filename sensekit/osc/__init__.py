"""OSC bridge: every sensekit event out as an OSC message, any setting in.

- ``address``: event names to addresses and argument signatures (docs/OSC.md's table);
- ``encode``: events to datagrams and back (typed arguments, optional timetagged bundles);
- ``sender``: ``OscSender``, a dispatcher handler sending each event over UDP;
- ``control``: ``OscControl``, ``/sensekit/set/<section>/<name>`` for every setting of the
  table, ``/sensekit/preset`` and ``/sensekit/pause``, applied on the next frame or block.

The command-line options (``--osc``, ``--osc-bundle``, ``--osc-control``) are in
``sensekit.cli.osc_args``. ``python -m sensekit.osc`` prints the event address table.
"""
from sensekit.osc.address import PREFIX, address_for, describe_addresses, signature
from sensekit.osc.control import LEGACY_ADDRESSES, OscControl, setting_address
from sensekit.osc.encode import Received, build_message, decode, encode, event_arguments
from sensekit.osc.sender import OscSender, free_udp_port, parse_target

__all__ = ["PREFIX", "address_for", "describe_addresses", "signature", "LEGACY_ADDRESSES", "OscControl",
           "setting_address", "Received", "build_message", "decode", "encode", "event_arguments",
           "OscSender", "free_udp_port", "parse_target"]
