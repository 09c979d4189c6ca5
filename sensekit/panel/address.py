"""Where the panel listens, and who may change things: ``--panel [HOST:]PORT`` and its token.

``parse_panel_address("8765")`` -> ``PanelAddress("127.0.0.1", 8765)``; ``"0.0.0.0:8765"``,
``"192.168.1.20:8765"``, ``"[::1]:8765"`` and ``"localhost:8765"`` name the host too. Port 0
asks the system for a free port (the panel prints the one it got).

Bind rules:

- a loopback host (``127.0.0.0/8``, ``::1``, ``localhost``) is the default and needs no
  token: only programs on this machine can connect;
- any other host (a LAN address, ``0.0.0.0``, a host name) needs a token of at least
  ``MIN_TOKEN_CHARS`` printable characters; without one the address is refused
  (``ConfigError``, so the CLI exits with status 2). With a token, every request that reads the
  piece's data or changes it must carry it (``PanelAddress.token``); the static page itself
  does not.

Failure modes: a bad port or host text, or a LAN bind without a token, is a ``ConfigError``
naming the value. Cost: nothing (no name lookup; a host name counts as not loopback).
"""
from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from sensekit.errors import ConfigError

__all__ = ["DEFAULT_HOST", "MIN_TOKEN_CHARS", "PanelAddress", "is_loopback", "parse_panel_address"]

DEFAULT_HOST = "127.0.0.1"
#: shorter tokens are refused: a LAN client could guess them
MIN_TOKEN_CHARS = 8


@dataclass(frozen=True)
class PanelAddress:
    host: str
    port: int
    #: required on every data or change request when set; never printed
    token: str | None = field(default=None, repr=False)

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    def url(self, port: int | None = None) -> str:
        """The page's address (an IPv6 host in brackets; ``0.0.0.0`` shown as itself)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port if port is None else port}/"


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback IP literals (a host name is not resolved)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _split(text: str) -> tuple[str, str]:
    s = text.strip()
    if "/" in s:
        raise ConfigError(f"--panel: bad host in {text!r}; expected [HOST:]PORT (not a URL), "
                          "e.g. 127.0.0.1:8765")
    if s.startswith("["):                        # [::1]:8765
        host, sep, port = s[1:].partition("]:")
        if not sep:
            raise ConfigError(f"--panel: write an IPv6 host as [HOST]:PORT, got {text!r}")
        return host, port
    if s.count(":") > 1:
        raise ConfigError(f"--panel: write an IPv6 host as [HOST]:PORT, got {text!r}")
    host, sep, port = s.rpartition(":")
    return (host if sep else DEFAULT_HOST), port


def parse_panel_address(text: str, token: str | None = None) -> PanelAddress:
    """``[HOST:]PORT`` and an optional token -> a ``PanelAddress`` (see the module docstring)."""
    host, port_text = _split(str(text))
    if not host or any(c.isspace() or c in "/?#@" for c in host):
        raise ConfigError(f"--panel: bad host in {text!r}; expected [HOST:]PORT, e.g. 127.0.0.1:8765")
    try:
        port = int(port_text)
    except ValueError:
        raise ConfigError(f"--panel: the port must be a whole number 0..65535, got {port_text!r} "
                          f"in {text!r}") from None
    if not 0 <= port <= 65535:
        raise ConfigError(f"--panel: the port must be 0..65535, got {port}")
    if token is not None:
        if len(token) < MIN_TOKEN_CHARS or not token.isprintable() or any(c.isspace() for c in token):
            raise ConfigError(f"--panel-token must be at least {MIN_TOKEN_CHARS} printable characters "
                              "without spaces")
    elif not is_loopback(host):
        raise ConfigError(f"--panel {text}: listening on {host}, which other machines can reach, "
                          "needs --panel-token TOKEN (or bind 127.0.0.1)")
    return PanelAddress(host, port, token)
