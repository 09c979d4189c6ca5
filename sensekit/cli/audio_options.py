"""Audio options for ``sensekit events``: which audio detectors run, and their options.

    --activity [LEVEL[,TIMEOUT_MS]]  activity events (Flash setSilenceLevel); LEVEL is 0..100
                                     or ``floor+DB`` (DB decibels over the learned noise floor);
                                     without a value, the table's (or the preset's) settings
    --clap                           clap events
    --pattern N                      N-clap pattern events (implies --clap)
    --pattern-gap-ms MS              max gap between the claps of a pattern (600)
    --pitch                          pitch events (F0 + voicing confidence)
    --level                          one level event per block
    --mono                           require mono blocks (stereo raises an error)

and an option for every setting of the ``audio``, ``activity`` and ``noise_floor`` groups
that declares one (``--gain``, ``--smoothing-ms``, ``--off-level``, ``--min-duration-ms``,
``--noise-floor-ms``; ``sensekit.cli.tuning``); any other setting is ``--set KEY=VALUE``.
``--activity 25,500`` means ``activity.silence_level=25`` and ``activity.timeout_ms=500``;
``--activity floor+12`` means ``activity.on_db=12``.

``build_stages(args, source)`` returns ``[AudioStage(...)]`` when any of the event options
is given, else ``[]``; the stage starts at the source's own gain, and the chosen settings are
applied to it before the first block. Bad values are one-line ``ConfigError``s naming the
option and the value (exit status 2).
"""
from __future__ import annotations

import argparse
from typing import Any, Mapping

from sensekit.audio.activity import ActivityDetector
from sensekit.audio.clap import ClapDetector, ClapPatternTracker
from sensekit.audio.clap_pattern import MAX_GAP_MS
from sensekit.audio.gain import source_gain
from sensekit.audio.pipeline import AudioStage
from sensekit.audio.pitch import PitchTracker
from sensekit.cli.tuning import add_setting_flags
from sensekit.errors import ConfigError
from sensekit.validate import check_int_range, check_positive, check_range
from sensekit.cli.numbers import float_in

__all__ = ["add_arguments", "option_values", "build_stages", "parse_activity"]


#: the place of these options among the stage providers' (``sensekit.cli.events.stage_providers``)
STAGE_ORDER = 20


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("audio")
    g.add_argument("--activity", metavar="LEVEL[,TIMEOUT_MS]", nargs="?", const=True,
                   help="activity events when the level crosses LEVEL (0..100, or floor+DB); "
                        "events within TIMEOUT_MS are ignored (without a value: the settings')")
    g.add_argument("--clap", action="store_true", help="clap events")
    g.add_argument("--pattern", type=int, metavar="N", help="N-clap pattern events (implies --clap)")
    g.add_argument("--pattern-gap-ms", type=float_in(0, 60_000), default=None, metavar="MS",
                   help=f"with --pattern: max gap between claps of a pattern (default {MAX_GAP_MS:g})")
    g.add_argument("--pitch", action="store_true", help="pitch events (F0 and voicing confidence)")
    g.add_argument("--level", action="store_true", help="one level event per audio block")
    g.add_argument("--mono", action="store_true", help="require mono audio blocks")
    add_setting_flags(g, ["audio", "activity", "noise_floor"])


def parse_activity(text: str) -> dict[str, Any]:
    """``"25"``, ``"25,500"``, ``"floor+12,500"`` -> the ``activity`` settings they mean."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) > 2 or not parts[0]:
        raise ConfigError(f"--activity must be LEVEL[,TIMEOUT_MS], got {text!r}")
    out: dict[str, Any] = {}
    if len(parts) == 2:
        from sensekit.settings.registry import lookup
        try:
            ms = float(parts[1])
        except ValueError:
            raise ConfigError(f"--activity timeout must be a number of ms, got {parts[1]!r}") from None
        try:                     # the table's range, named by the option typed
            out["activity.timeout_ms"] = lookup("activity.timeout_ms").check(ms)
        except ConfigError as exc:
            raise ConfigError(f"--activity {text}: {exc}") from None
    head = parts[0].lower()
    if head.startswith("floor"):
        rest = head[5:].strip() or "+10"
        try:
            db = float(rest)
        except ValueError:
            raise ConfigError(f"--activity 'floor+DB' needs a number of dB, got {parts[0]!r}") from None
        out["activity.on_db"] = check_range("--activity dB over the noise floor", db, 0, 100)
        return out
    try:
        level = float(parts[0])
    except ValueError:
        raise ConfigError(f"--activity level must be 0..100 or floor+DB, got {parts[0]!r}") from None
    out["activity.silence_level"] = check_range("--activity level", level, 0, 100)
    return out


def option_values(args: argparse.Namespace) -> dict[str, Any]:
    """``--activity LEVEL,TIMEOUT`` in the settings table."""
    text = getattr(args, "activity", None)
    return parse_activity(text) if isinstance(text, str) else {}


def build_stages(args: argparse.Namespace, source: Any, chosen: Mapping[str, Any] | None = None) -> list[Any]:
    gap_ms = getattr(args, "pattern_gap_ms", None)
    if gap_ms is not None and getattr(args, "pattern", None) is None:     # was silently ignored
        raise ConfigError("--pattern-gap-ms goes with --pattern N (the gap between its claps)")
    wants = [getattr(args, k, None) for k in ("activity", "clap", "pattern", "pitch", "level")]
    if all(w is None or w is False for w in wants):     # `--pattern 0` is given (and rejected)
        return []
    gain = source_gain(source)
    channels = 1 if getattr(args, "mono", False) else None
    activity = ActivityDetector() if args.activity is not None else None
    pattern = None
    if args.pattern is not None:
        gap = MAX_GAP_MS if gap_ms is None else check_positive("--pattern-gap-ms", gap_ms)
        pattern = ClapPatternTracker(check_int_range("--pattern", args.pattern, 2, 16), gap)
    clap = ClapDetector(channels=channels) if (args.clap or pattern is not None) else None   # gain: the stage's
    pitch = PitchTracker(channels=channels) if args.pitch else None
    return [AudioStage(gain=gain, channels=channels, activity=activity, clap=clap, pattern=pattern,
                       pitch=pitch, emit_level=bool(args.level))]
