"""Why a socket could not listen on HOST:PORT (or a host to send to did not resolve), in words
that name the fix.

``bind_failure(exc, port)`` turns the ``OSError`` of a failed ``bind`` (or of resolving the host
first) into the tail of a one-line error, e.g. for ``osc-listen``, ``--osc-control`` and
``--panel``:

- the port is taken: "port 9000 is in use by another program (stop it, or choose another port)";
- the address is none of this machine's: "no network interface of this machine has that address
  (127.0.0.1 listens on this machine only, 0.0.0.0 on all)";
- the host name does not resolve: "no such host";
- a port below 1024 without the right: "ports below 1024 need administrator rights
  (choose a port from 1024 up)";
- anything else: the system's own words (``strerror``), never "[Errno N]".

``resolve_failure(exc)`` does the same for a host to send to (``--osc HOST:PORT``): "no such
host (check the name, or give its IP address)".

Pure and cheap; it never raises.
"""
from __future__ import annotations

import errno
import socket


def bind_failure(exc: BaseException, port: int) -> str:
    """The reason (and the fix) for ``exc``, raised while listening on ``port``."""
    if isinstance(exc, socket.gaierror):
        return "no such host"
    code = getattr(exc, "errno", None)
    if code == errno.EADDRINUSE:
        return f"port {port} is in use by another program (stop it, or choose another port)"
    if code == errno.EADDRNOTAVAIL:
        return ("no network interface of this machine has that address "
                "(127.0.0.1 listens on this machine only, 0.0.0.0 on all)")
    if code in (errno.EACCES, errno.EPERM) and 0 < port < 1024:
        return "ports below 1024 need administrator rights (choose a port from 1024 up)"
    return str(getattr(exc, "strerror", None) or exc)


def resolve_failure(exc: BaseException) -> str:
    """The reason (and the fix) for ``exc``, raised while resolving a host to send to."""
    if isinstance(exc, socket.gaierror):
        return "no such host (check the name, or give its IP address)"
    return str(getattr(exc, "strerror", None) or exc)
