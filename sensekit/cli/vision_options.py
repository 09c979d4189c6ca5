"""Vision options for ``sensekit events``: which vision stages run, and their options.

    --track-color X,Y | #RRGGBB   track the object under a click on the first frame (segmented,
                                  then the colour model), or a colour (HSV tolerance)
    --track-box X,Y,W,H           track the object inside a box of the first frame (GrabCut,
                                  then the colour model)
    --tolerance H[,S,V]           HSV tolerance for a colour: hue degrees, S and V 0..255
                                  (``tracker.hue_tolerance`` etc.; defaults from the table)
    --motion                      motion / still events
    --zones "name=x,y,w,h;..."    extra motion zones in pixels (a zone named left or right
                                  replaces that half of the frame)
    --blobs                       blobs with ids (blobs, blob_enter/leave, zone_enter/leave events)
    --edges                       edges events

and an option for every setting of the ``vision``, ``tracker`` and ``motion`` groups that
declares one (``--mirror``, ``--blur``, ``--levels``, ``--edge-direction``, ``--track-method``,
``--motion-method``, ``--motion-threshold``; ``sensekit.cli.tuning``), with the table's ranges and defaults; any
other setting is ``--set KEY=VALUE``.

``build_stages`` returns ``[]`` when no vision stage is asked for (a profile's colour counts:
it turns tracking on). The stage is built with the table's defaults (the tracker with the
method its target needs, unless ``--track-method`` says); the command applies the chosen
settings (``tracker.refind_ratio`` and the rest, from the preset, the profile, the options and
``--set``) to it before the first frame, once: nothing here reads them again. Bad values (a
colour that does not parse, a click or zone outside the source's frame) raise ``ConfigError``
naming the value; with a source whose frame size is unknown, clicks and zones are checked on
the first frame instead.
"""
from __future__ import annotations

import argparse
from typing import Any, Mapping

from sensekit.cli.tuning import add_setting_flags
from sensekit.errors import ConfigError
from sensekit.safe_read import clip
from sensekit.runner import Stage
from sensekit.vision.color_tracker import ColorTracker, tolerance_settings
from sensekit.vision.motion import HALVES_NOTE, MotionDetector, check_zones, parse_zones
from sensekit.vision.blob_tracker import BlobTracker
from sensekit.vision.pipeline import VisionStage
from sensekit.vision.targets import Target, parse_track_target, target_from_text

__all__ = ["add_arguments", "option_values", "build_stages"]


def _tolerance_help() -> str:
    from sensekit.settings.registry import lookup

    h, sat, v = (lookup(f"tracker.{n}").default for n in ColorTracker._TOLERANCE)
    return (f"HSV tolerance for colour tracking: hue degrees 0..180, saturation and value 0..255 "
            f"(`tracker.hue_tolerance` etc.; default {h:g},{sat:g},{v:g})")


#: the place of these options among the stage providers' (``sensekit.cli.events.stage_providers``)
STAGE_ORDER = 10


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("vision")
    g.add_argument("--track-color", metavar="X,Y|#RRGGBB",
                   help="track the object under a click on the first frame, or a colour")
    g.add_argument("--track-box", metavar="X,Y,W,H",
                   help="track the object inside this box of the first frame")
    g.add_argument("--tolerance", metavar="H[,S,V]", help=_tolerance_help())
    g.add_argument("--motion", action="store_true", help="emit motion / still events")
    g.add_argument("--zones", metavar="NAME=X,Y,W,H;...",
                   help=f"extra motion zones in pixels ({HALVES_NOTE})")
    g.add_argument("--blobs", action="store_true",
                   help="emit blobs with ids: blobs, blob_enter, blob_leave, zone_enter, zone_leave")
    g.add_argument("--edges", action="store_true", help="emit edges events (edge map for apps)")
    add_setting_flags(g, ["vision", "tracker", "motion", "blobs"])


def option_values(args: argparse.Namespace) -> dict[str, Any]:
    """What ``--tolerance`` and ``--track-color``/``--track-box`` mean in the settings table (a
    click or a box tracks no fixed colour, so a profile's colour does not apply then)."""
    out: dict[str, Any] = {}
    tolerance = getattr(args, "tolerance", None)
    if tolerance is not None:
        try:
            checked = tolerance_settings(tolerance)
        except ConfigError as exc:        # named by the option typed, not only the setting it sets
            said = str(exc).removeprefix("tolerance ")
            raise ConfigError(f"--tolerance {clip(str(tolerance), 60)}: {said}") from None
        out.update({f"tracker.{k}": v for k, v in checked.items()})
    track = getattr(args, "track_color", None)
    if getattr(args, "track_box", None):
        out["tracker.color"] = None
    elif track:
        target = parse_track_target(track)
        out["tracker.color"] = None if isinstance(target, tuple) else f"#{target:06x}"
    return out


def _tracker_for(target: Target, size: tuple[int, int] | None, chosen: Mapping[str, Any]) -> ColorTracker:
    """The tracker for ``--track-color``/``--track-box``, tracking as the one rule says
    (``Target.method``: the ``--track-method`` / ``tracker.method`` setting, else by the kind of
    target); a target and a method that do not go together are an error before anything runs.
    Its settings are the table's until the command applies the chosen ones (``build_stages``)."""
    target.check_inside(size)
    target.method(chosen.get("tracker.method"))
    return ColorTracker.for_target(target)


def build_stages(args: argparse.Namespace, source: Any, chosen: Mapping[str, Any] | None = None) -> list[Stage]:
    """The vision stage for these options, or ``[]`` if no vision stage is asked for."""
    chosen = chosen or {}
    track = getattr(args, "track_color", None)
    track_box = getattr(args, "track_box", None)
    blobs_on = bool(getattr(args, "blobs", False))
    motion_on = bool(getattr(args, "motion", False)) or blobs_on
    edges_on = bool(getattr(args, "edges", False))
    zones_text = getattr(args, "zones", None)
    if not (track or track_box or motion_on or edges_on or zones_text):
        return []
    size = getattr(source, "frame_size", None)
    target = target_from_text(track, track_box)
    tracker = None if target is None else _tracker_for(target, size, chosen)
    if zones_text and not motion_on:
        raise ConfigError("--zones needs --motion or --blobs")
    motion = None
    if motion_on:
        zones = parse_zones(zones_text) if zones_text else {}
        if size is not None:
            check_zones(zones, *size)
        motion = MotionDetector(zones_px=zones)
    blobs = BlobTracker() if blobs_on else None
    stage = VisionStage(tracker=tracker, motion=motion, blobs=blobs,
                        motion_events=bool(getattr(args, "motion", False)), edges=edges_on)
    if target is not None:
        stage.track(target)                    # picked on the first frame, as every target is
    return [stage]
