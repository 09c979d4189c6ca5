"""Who may talk to the panel: the checks every request passes, as plain functions.

- ``foreign(host, origin, loopback=...)``: a request from another site's page (its ``Origin``
  is not this server) is refused, always; on a loopback bind, so is a ``Host`` that is not a
  loopback name (a DNS-rebinding page that resolved its own name to 127.0.0.1);
- ``token_problem(given, token)``: without a configured token nothing is needed; with one, a
  missing token is 401 and a wrong one 403, compared in constant time (``hmac.compare_digest``);
- ``SECURITY_HEADERS``: what every response carries (a strict Content-Security-Policy: the page
  loads only its own files, no inline script; no framing; no referrer; no caching).

Returns the reason as a sentence for the client, or ``None`` when the request may pass.
"""
from __future__ import annotations

import hmac

from sensekit.panel.address import is_loopback

__all__ = ["SECURITY_HEADERS", "TOKEN_HEADER", "foreign", "token_problem"]

TOKEN_HEADER = "X-Sensekit-Token"

SECURITY_HEADERS = {
    "Content-Security-Policy": ("default-src 'self'; img-src 'self' blob: data:; "
                                "connect-src 'self' ws: wss:; style-src 'self'; script-src 'self'; "
                                "frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def _host_name(host: str) -> str:
    """``"127.0.0.1:8765"`` -> ``"127.0.0.1"``; ``"[::1]:8765"`` -> ``"::1"``."""
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def foreign(host: str, origin: str | None, *, loopback: bool) -> str | None:
    """Why a request with these ``Host`` and ``Origin`` headers is refused, or ``None``."""
    if loopback and not is_loopback(_host_name(host)):
        return f"this panel answers to a loopback address only, not Host {host!r}"
    if origin is not None and origin not in (f"http://{host}", f"https://{host}"):
        return f"requests from another page ({origin}) are refused"
    return None


def token_problem(given: str | None, token: str | None) -> tuple[int, str] | None:
    """``(status, reason)`` when ``given`` does not match the panel's ``token``, else ``None``."""
    if token is None:
        return None
    if not given:
        return 401, "this panel needs its token (open it as http://HOST:PORT/#token=TOKEN)"
    if not hmac.compare_digest(given.encode(), token.encode()):
        return 403, "wrong panel token"
    return None
