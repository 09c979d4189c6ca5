"""Vision options for ``sensekit events``: which vision stages run, and their options.

    --track-color X,Y | #RRGGBB   track the object under a click on the first frame (segmented,
                                  then the colour model), or a colour (HSV tolerance)
    --track-box X,Y,W,H           track the object inside a box of the first frame (GrabCut,
                                  then the colour model)
    --tolerance H[,S,V]           HSV tolerance for a colour: hue degrees, S and V 0..255
    --track-method M              exact | hsv | model (default: model for a click, hsv for a colour)
    --motion                      motion / still events
    --zones "name=x,y,w,h;..."    extra motion zones in pixels (left/right halves always exist)
    --edges                       edges events

and an option for every setting of the ``vision`` and ``motion`` groups that declares one
(``--mirror``, ``--blur``, ``--levels``, ``--edge-direction``, ``--motion-method``,
``--motion-threshold``; ``sensekit.cli.tuning``), with the table's ranges and defaults; any
other setting is ``--set KEY=VALUE``.

``build_stages`` returns ``[]`` when no vision stage is asked for (a profile's colour counts:
it turns tracking on). The stage is built with the table's defaults; the command applies the
chosen settings to it before the first frame. Bad values (a colour that does not parse, a
click or zone outside the source's frame) raise ``ConfigError`` naming the value; with a
source whose frame size is unknown, clicks and zones are checked on the first frame instead.
"""
from __future__ import annotations

import argparse
from typing import Any, Mapping

from sensekit.cli.tuning import add_setting_flags
from sensekit.errors import ConfigError
from sensekit.runner import Stage
from sensekit.vision.color_tracker import ColorTracker, parse_tolerance
from sensekit.vision.motion import MotionDetector, check_zones, parse_zones
from sensekit.vision.pipeline import VisionStage
from sensekit.vision.stages import parse_color

__all__ = ["add_arguments", "option_values", "build_stages", "parse_track_target", "parse_track_box", "check_track_box"]


def parse_track_target(text: str) -> tuple[float, float] | int:
    """``"X,Y"`` -> a click point; ``"#RRGGBB"`` -> a colour."""
    s = text.strip()
    if "," in s:
        parts = s.split(",")
        try:
            x, y = (float(p) for p in parts)
        except ValueError:
            raise ConfigError(f"--track-color must be X,Y or #RRGGBB, got {text!r}") from None
        return (x, y)
    try:
        return parse_color(s)
    except ConfigError:
        raise ConfigError(f"--track-color must be X,Y or #RRGGBB, got {text!r}") from None


def parse_track_box(text: str) -> tuple[float, float, float, float]:
    """``"X,Y,W,H"`` (pixels) -> a box; width and height at least 2."""
    parts = [p for p in text.replace(" ", "").split(",") if p]
    try:
        x, y, w, h = (float(p) for p in parts)
    except ValueError:
        raise ConfigError(f"--track-box must be X,Y,W,H in pixels, got {text!r}") from None
    if w < 2 or h < 2 or x < 0 or y < 0:
        raise ConfigError(f"--track-box {text!r} needs x, y >= 0 and a width and height of at least 2 px")
    return (x, y, w, h)


def check_track_box(box: tuple[float, float, float, float], size: tuple[int, int] | None) -> None:
    """A box must lie inside a frame of ``size`` (w, h) when the size is known."""
    x, y, w, h = box
    if size is not None and (x + w > size[0] or y + h > size[1]):
        raise ConfigError(f"--track-box {x:g},{y:g},{w:g},{h:g} is not inside the {size[0]}x{size[1]} frame")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("vision")
    g.add_argument("--track-color", metavar="X,Y|#RRGGBB",
                   help="track the object under a click on the first frame, or a colour")
    g.add_argument("--track-box", metavar="X,Y,W,H",
                   help="track the object inside this box of the first frame")
    g.add_argument("--tolerance", metavar="H[,S,V]", default="12,80,80",
                   help="HSV tolerance for colour tracking (default %(default)s)")
    g.add_argument("--track-method", choices=("exact", "hsv", "model"),
                   help="tracking method (default: model for a click, hsv for a colour)")
    g.add_argument("--motion", action="store_true", help="emit motion / still events")
    g.add_argument("--zones", metavar="NAME=X,Y,W,H;...",
                   help="extra motion zones in pixels (left and right halves always exist)")
    g.add_argument("--edges", action="store_true", help="emit edges events (edge map for apps)")
    add_setting_flags(g, ["vision", "motion"])


def option_values(args: argparse.Namespace) -> dict[str, Any]:
    """What this module's own options mean in the settings table (none yet beyond the bound ones)."""
    return {}


def build_stages(args: argparse.Namespace, source: Any, chosen: Mapping[str, Any] | None = None) -> list[Stage]:
    """The vision stage for these options, or ``[]`` if no vision stage is asked for."""
    chosen = chosen or {}
    track = getattr(args, "track_color", None)
    track_box = getattr(args, "track_box", None)
    if track and track_box:
        raise ConfigError("give --track-color or --track-box, not both")
    motion_on = bool(getattr(args, "motion", False))
    edges_on = bool(getattr(args, "edges", False))
    zones_text = getattr(args, "zones", None)
    if not (track or track_box or motion_on or edges_on):
        if zones_text:
            raise ConfigError("--zones needs --motion")
        return []
    size = getattr(source, "frame_size", None)
    tracker = None
    pick_at = None
    pick_box = None
    if track_box:
        pick_box = parse_track_box(track_box)
        check_track_box(pick_box, size)
        if getattr(args, "track_method", None) not in (None, "model"):
            raise ConfigError("--track-box starts the colour model; --track-method must be model")
        tracker = ColorTracker(method="model")
    if track:
        target = parse_track_target(track)
        method = getattr(args, "track_method", None)
        tolerance = parse_tolerance(getattr(args, "tolerance", "12,80,80") or "12,80,80")
        if isinstance(target, tuple):
            x, y = target
            if size is not None and not (0 <= x < size[0] and 0 <= y < size[1]):
                raise ConfigError(f"click ({x:g}, {y:g}) is outside the {size[0]}x{size[1]} frame")
            tracker = ColorTracker(method=method or "model", tolerance=tolerance)
            pick_at = (x, y)
        else:
            if method == "model":
                raise ConfigError("--track-method model needs a click point X,Y, not a colour")
            tracker = ColorTracker(target, method=method or "hsv", tolerance=tolerance)
    motion = None
    if motion_on:
        zones = parse_zones(zones_text) if zones_text else {}
        if size is not None:
            check_zones(zones, *size)
        motion = MotionDetector(zones_px=zones)
    elif zones_text:
        raise ConfigError("--zones needs --motion")
    return [VisionStage(tracker=tracker, pick_at=pick_at, pick_box=pick_box, motion=motion, edges=edges_on)]
