"""Stopping a child process with a real signal once it is doing its work: what the tests of
SIGINT, SIGTERM and SIGHUP (``test_stop_signals.py``, ``test_stop_hangup.py``,
``apps/test_live_run.py``) share."""
from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from typing import Any


def signal_when_ready(proc: subprocess.Popen[Any], ready: Callable[[], bool], *sigs: int,
                      poll_s: float = 0.1, settle_s: float = 0.5, gap_s: float = 0.0,
                      timeout_s: float = 60.0, must_run: bool = False) -> tuple[Any, Any]:
    """Wait until ``ready()`` (polled every ``poll_s``; at most 60 s) and ``settle_s`` more, send
    each of ``sigs`` in turn (``gap_s`` after each), and return ``proc.communicate()`` once it
    ended (within ``timeout_s``). With ``must_run`` the child must still be running while it is
    waited for (else the test fails with what it printed). A child still running at the end (a
    failure, a timeout) is killed and reaped."""
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not ready():
            assert not must_run or proc.poll() is None, proc.communicate()
            time.sleep(poll_s)
        time.sleep(settle_s)
        for sig in sigs:
            proc.send_signal(sig)
            time.sleep(gap_s)
        return proc.communicate(timeout=timeout_s)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
