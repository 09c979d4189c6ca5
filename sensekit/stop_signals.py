"""The signals that end a run the way Ctrl-C does, with the word a run reports them by.

SIGTERM is what ``systemctl stop``, ``docker stop``, ``kill`` and a shutdown send; SIGHUP is a
closed terminal or ssh session. Both used to differ: SIGHUP's default action ended the process
on the spot (status 129: a ``--video`` left as ``.NAME.partial.mp4``, a recording marked
incomplete, no closing line). SIGHUP is left alone when it is ignored on entry (``nohup``,
which asks for the run to outlive the terminal) and where the platform has none (Windows).
"""
from __future__ import annotations

import signal

__all__ = ["terminating_signals"]


def terminating_signals() -> dict[int, str]:
    """``{signal number: name}`` of SIGTERM and, unless ignored or absent, SIGHUP."""
    out = {int(signal.SIGTERM): "SIGTERM"}
    hup = getattr(signal, "SIGHUP", None)
    if hup is not None and signal.getsignal(hup) is not signal.SIG_IGN:
        out[int(hup)] = "SIGHUP"
    return out
