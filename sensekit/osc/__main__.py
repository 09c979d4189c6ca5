"""``python -m sensekit.osc``: the event address table for docs/OSC.md."""
from sensekit.osc.address import describe_addresses

print(describe_addresses())
