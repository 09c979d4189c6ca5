"""``python -m sensekit.osc``: the address table of docs/OSC.md, printed for a reader."""
from __future__ import annotations

from sensekit.osc import describe_addresses


def test_the_table_command_prints_the_table_and_stops_quietly_into_head():
    # `python -m sensekit.osc | head -3` ended with a BrokenPipeError traceback
    import os
    import subprocess
    import sys

    whole = subprocess.run([sys.executable, "-m", "sensekit.osc"], capture_output=True, text=True,
                           timeout=120)
    assert whole.returncode == 0 and whole.stdout.strip() == describe_addresses().strip()
    # a reader that is already gone (what `| head` becomes once it has its lines), every time
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run([sys.executable, "-m", "sensekit.osc"], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert (proc.returncode, proc.stderr) == (0, "")
