"""``python -m sensekit.osc``: the event address table for docs/OSC.md (``| head`` stops it quietly)."""
import os
import sys

from sensekit.osc.address import describe_addresses

try:
    print(describe_addresses(), flush=True)
except BrokenPipeError:          # the reader went away (`| head`): stop quietly, as the CLI does
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
