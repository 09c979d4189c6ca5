"""The OSC options of ``sensekit run`` and ``sensekit events`` and what they set up.

``add_osc_arguments(parser)`` adds ``--osc HOST:PORT`` (send every event), ``--osc-bundle``
(timetagged bundles) and ``--osc-control [HOST:]PORT`` (accept ``/sensekit/set/<section>/<name>``
for every setting, ``/sensekit/preset`` and ``/sensekit/pause``); ``HOST:PORT`` is checked
while the arguments are parsed. ``attach_osc(dispatcher, args, tuning=..., pause=...)``
registers a sender on ``"*"`` and starts a control server bound to the run's settings; it
returns an ``OscAttachment`` to ``close()`` at exit (it logs the counters then). The protocol
itself is ``sensekit.osc`` (and docs/OSC.md).
"""
from __future__ import annotations

import argparse
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from sensekit.errors import ConfigError
from sensekit.paths import doc
from sensekit.events import Dispatcher
from sensekit.osc.control import OscControl
from sensekit.osc.sender import OscSender, parse_target

if TYPE_CHECKING:
    from sensekit.settings.live import Tuning

__all__ = ["add_osc_arguments", "OscAttachment", "attach_osc"]

log = logging.getLogger("sensekit.osc")


def _target_arg(**options: Any) -> Callable[[str], str]:
    """An argparse type checking ``HOST:PORT`` syntax when the arguments are parsed."""
    def check(text: str) -> str:
        try:
            parse_target(text, **options)
        except ConfigError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return text
    check.__name__ = "OSC target"
    return check


def add_osc_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--osc HOST:PORT``, ``--osc-bundle`` and ``--osc-control [HOST:]PORT``."""
    group = parser.add_argument_group("OSC")
    group.add_argument("--osc", metavar="HOST:PORT", type=_target_arg(),
                       help=f"send every event as an OSC message (see {doc('OSC.md')})")
    group.add_argument("--osc-bundle", action="store_true",
                       help="wrap each message in a bundle timetagged with the event time")
    group.add_argument("--osc-control", metavar="[HOST:]PORT",
                       type=_target_arg(default_host="127.0.0.1", allow_any_port=True),
                       help="accept /sensekit/set/SECTION/NAME (any setting), /sensekit/preset and "
                            "/sensekit/pause on this port")


@dataclass
class OscAttachment:
    """What ``attach_osc`` set up; ``close()`` it at exit."""
    sender: OscSender | None = None
    control: OscControl | None = None

    def stats(self) -> dict[str, int]:
        out: dict[str, int] = {}
        if self.sender is not None:
            out.update(self.sender.stats())
        if self.control is not None:
            out.update(self.control.stats())
        return out

    def close(self) -> None:
        if self.sender is not None or self.control is not None:
            # its own format: the rate limit groups lines by format, and "OSC: %s" is also every
            # accepted setting's (a flood of them hid this line behind "N more message(s)")
            log.info("OSC at the end: %s", ", ".join(f"{k} {v}" for k, v in self.stats().items()))
        if self.sender is not None:
            self.sender.close()
        if self.control is not None:
            self.control.close()


def attach_osc(dispatcher: Dispatcher, args: argparse.Namespace, *, tuning: Tuning | None = None,
               pause: Callable[[bool], None] | None = None) -> OscAttachment:
    """Set up what ``--osc``/``--osc-control`` asked for on ``dispatcher``.

    With ``--osc-control`` a control server applies ``/sensekit/set/...`` through ``tuning``
    (the run's settings: they take effect on the next frame or block, on the loop's thread);
    ``pause`` handles ``/sensekit/pause`` at once.
    """
    att = OscAttachment()
    target = getattr(args, "osc", None)
    if getattr(args, "osc_bundle", False) and not target:       # was silently ignored
        raise ConfigError("--osc-bundle needs --osc HOST:PORT (it wraps what --osc sends)")
    if target:
        host, port = parse_target(target)
        att.sender = OscSender(host, port, bundle=bool(getattr(args, "osc_bundle", False)))
        dispatcher.on("*", att.sender)
        log.info("OSC: sending events to %s:%d%s", host, port,
                 " in timetagged bundles" if att.sender.bundle else "")
    control = getattr(args, "osc_control", None)
    if control:
        try:
            host, port = parse_target(control, default_host="127.0.0.1", allow_any_port=True)
            att.control = OscControl(host, port, tuning=tuning, pause=pause)
            att.control.start()
        except BaseException:           # the port in use: the sender opened above is closed
            if att.sender is not None:
                att.sender.close()
            raise
        log.info("OSC: listening for settings on %s:%d", att.control.host, att.control.port)
    return att
