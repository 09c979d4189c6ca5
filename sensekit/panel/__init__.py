"""The browser panel: tune a running piece from a phone or a laptop next to it.

``sensekit run APP --panel 8765`` (or ``sensekit events SOURCE --panel 8765``) serves a page at
http://127.0.0.1:8765/ with the live camera view and switchable overlays (motion mask, edges,
palette, colour region, blobs and their ids, tracked box, zones), the audio level graph with its thresholds, the
noise floor and event marks, a live event log, every setting of the run as a control with its
unit and range, and "save" to the venue profile. Click the picture to pick a colour; drag on it
to set a zone (or what to track).

Modules, one concept each:

- ``address``: ``--panel [HOST:]PORT`` and the bind rules (a LAN address needs a token);
- ``overlays``: the stages' intermediate results as pictures (also the app keys ``m e p``);
- ``frames``: ``FrameHub``, the newest frame, JPEG-encoded on demand off the run's loop;
- ``telemetry``: level points, events and status in ring buffers for the clients;
- ``commands``: requests that must run on the run's thread (pick, save);
- ``control``: what a panel may do to an app host or to bare stages;
- ``tap``: the runner stage that feeds all of the above;
- ``guard``: who may talk to it (Host, Origin, token) and the security headers;
- ``malformed``: requests the HTTP layer cannot parse: a 400 in one line, one log line each;
- ``server``: the aiohttp server on its own thread; ``session``: ``Panel`` ties them;
- ``attach``: starting one from ``sensekit run`` / ``sensekit events``;
- ``static/``: the page (plain HTML, CSS and JavaScript, no build step).
"""
from typing import TYPE_CHECKING, Any

from sensekit.panel.address import PanelAddress, parse_panel_address

if TYPE_CHECKING:
    from sensekit.panel.session import Panel as Panel

# ``Panel`` (sensekit.panel.session) is importable from here too, but on first use (below); it is
# documented where it lives.
__all__ = ["PanelAddress", "parse_panel_address"]


def __getattr__(name: str) -> Any:
    """``Panel`` is imported on first use: it brings in the web server (aiohttp), which every
    command would otherwise pay for at start-up (``sensekit --help`` included)."""
    if name == "Panel":
        from sensekit.panel.session import Panel

        return Panel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
