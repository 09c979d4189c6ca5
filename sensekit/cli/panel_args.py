"""``--panel [HOST:]PORT`` and ``--panel-token TOKEN`` for ``sensekit run`` and ``sensekit events``.

``add_panel_arguments(parser)`` declares them (the syntax is checked while parsing);
``panel_address(args)`` applies the bind rules of ``sensekit.panel.address`` (a LAN address
without a token is a ``ConfigError``: one line, exit status 2) and returns ``None`` without
``--panel``. The token may also come from the ``SENSEKIT_PANEL_TOKEN`` environment variable,
which keeps it out of the process list.
"""
from __future__ import annotations

import argparse
import os

from sensekit.errors import ConfigError
from sensekit.panel.address import PanelAddress, parse_panel_address

__all__ = ["TOKEN_ENV", "add_panel_arguments", "panel_address"]

TOKEN_ENV = "SENSEKIT_PANEL_TOKEN"


def _address_text(text: str) -> str:
    try:
        parse_panel_address(text, token="x" * 16)          # syntax only; bind rules in panel_address
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--panel: ")) from None
    return text


def add_panel_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("browser panel")
    g.add_argument("--panel", type=_address_text, metavar="[HOST:]PORT",
                   help="serve a tuning panel (live view, overlays, level graph, settings) at "
                        "http://HOST:PORT/; HOST defaults to 127.0.0.1; a replay then plays at "
                        "recorded speed")
    g.add_argument("--panel-token", metavar="TOKEN",
                   help="required to bind any address but loopback; every request must carry it "
                        f"(open http://HOST:PORT/#token=TOKEN); default ${TOKEN_ENV}")


def panel_address(args: argparse.Namespace) -> PanelAddress | None:
    """The checked address, or ``None`` without ``--panel``."""
    text = getattr(args, "panel", None)
    token = getattr(args, "panel_token", None)
    if text is None:
        if token is not None:
            raise ConfigError("--panel-token is only used with --panel [HOST:]PORT")
        return None
    if token is None:
        token = os.environ.get(TOKEN_ENV) or None
    return parse_panel_address(text, token)
