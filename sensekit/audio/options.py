"""Audio options for ``sensekit events`` (see ``sensekit.cli.events.STAGE_PROVIDERS``).

    --activity LEVEL[,TIMEOUT_MS]   activity events (Flash setSilenceLevel); LEVEL is 0..100
                                    or ``floor+DB`` (DB decibels over the learned noise floor)
    --off-level LEVEL               hysteresis: quiet only below this level
    --min-duration-ms MS            the level must stay up this long to activate
    --clap                          clap events
    --pattern N                     N-clap pattern events (implies --clap)
    --pattern-gap-ms MS             max gap between the claps of a pattern (600)
    --pitch                         pitch events (F0 + voicing confidence)
    --level                         one level event per block
    --gain G                        0..100, 50 = unity (default: the source's own gain)
    --smoothing-ms MS               level smoothing time constant (0 = off)
    --noise-floor-ms MS             learning time of the noise floor (2000)
    --mono                          require mono blocks (stereo raises an error)

``build_stages(args, source)`` returns ``[AudioStage(...)]`` when any of the event
options is given, else ``[]``. Values are checked here so a bad one is a one-line
``ConfigError`` naming the option and the value (exit status 2).
"""
from __future__ import annotations

import argparse
from typing import Any

from sensekit.audio.activity import ActivityDetector, check_timeout
from sensekit.audio.clap import ClapDetector, ClapPatternTracker
from sensekit.audio.gain import UNITY_GAIN
from sensekit.audio.noise_floor import NoiseFloor
from sensekit.audio.pipeline import AudioStage
from sensekit.audio.pitch import PitchTracker
from sensekit.errors import ConfigError
from sensekit.validate import check_int_range, check_positive, check_range


def add_arguments(parser: argparse.ArgumentParser) -> None:
    g = parser.add_argument_group("audio")
    g.add_argument("--activity", metavar="LEVEL[,TIMEOUT_MS]",
                   help="activity events when the level crosses LEVEL (0..100, or floor+DB); "
                        "events within TIMEOUT_MS (default 2000) are ignored")
    g.add_argument("--off-level", type=float, metavar="LEVEL",
                   help="hysteresis: the level counts as quiet only below this")
    g.add_argument("--min-duration-ms", type=float, default=0.0, metavar="MS",
                   help="the level must stay above LEVEL this long to activate (default 0)")
    g.add_argument("--clap", action="store_true", help="clap events")
    g.add_argument("--pattern", type=int, metavar="N", help="N-clap pattern events (implies --clap)")
    g.add_argument("--pattern-gap-ms", type=float, default=600.0, metavar="MS",
                   help="max gap between claps of a pattern (default 600)")
    g.add_argument("--pitch", action="store_true", help="pitch events (F0 and voicing confidence)")
    g.add_argument("--level", action="store_true", help="one level event per audio block")
    g.add_argument("--gain", type=float, metavar="G",
                   help="gain 0..100, 50 = unity, 0.6 dB/step (default: the source's gain)")
    g.add_argument("--smoothing-ms", type=float, default=0.0, metavar="MS",
                   help="level smoothing time constant (default 0 = off)")
    g.add_argument("--noise-floor-ms", type=float, default=2000.0, metavar="MS",
                   help="learn the noise floor over the first MS of audio (default 2000)")
    g.add_argument("--mono", action="store_true", help="require mono audio blocks")


def parse_activity(text: str) -> tuple[float | None, float | None, float]:
    """``"25"``, ``"25,500"``, ``"floor+12,500"`` -> (level | None, floor_db | None, timeout_ms)."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) > 2 or not parts[0]:
        raise ConfigError(f"--activity must be LEVEL[,TIMEOUT_MS], got {text!r}")
    timeout = 2000.0
    if len(parts) == 2:
        try:
            timeout = float(parts[1])
        except ValueError:
            raise ConfigError(f"--activity timeout must be a number of ms, got {parts[1]!r}") from None
        check_timeout(timeout)
    head = parts[0].lower()
    if head.startswith("floor"):
        rest = head[5:].strip() or "+10"
        try:
            db = float(rest)
        except ValueError:
            raise ConfigError(f"--activity 'floor+DB' needs a number of dB, got {parts[0]!r}") from None
        return None, check_range("--activity dB over the noise floor", db, 0, 100), timeout
    try:
        level = float(parts[0])
    except ValueError:
        raise ConfigError(f"--activity level must be 0..100 or floor+DB, got {parts[0]!r}") from None
    return check_range("--activity level", level, 0, 100), None, timeout


def build_stages(args: argparse.Namespace, source: Any) -> list[Any]:
    wants = [getattr(args, k, None) for k in ("activity", "clap", "pattern", "pitch", "level")]
    if all(w is None or w is False for w in wants):     # `--pattern 0` is given (and rejected)
        return []
    gain = args.gain if getattr(args, "gain", None) is not None else \
        float(getattr(source, "gain", UNITY_GAIN) or UNITY_GAIN)
    gain = check_range("--gain", gain, 0, 100)
    channels = 1 if getattr(args, "mono", False) else None
    noise_floor = NoiseFloor(check_positive("--noise-floor-ms", args.noise_floor_ms))
    activity = None
    if args.activity is not None:
        level, floor_db, timeout = parse_activity(args.activity)
        min_dur = check_positive("--min-duration-ms", args.min_duration_ms, allow_zero=True)
        if level is None:
            activity = ActivityDetector(100.0, timeout, min_duration_ms=min_dur,
                                        noise_floor=noise_floor, on_db=floor_db or 0.0)
        else:
            off = None if args.off_level is None else check_range("--off-level", args.off_level, 0, 100)
            activity = ActivityDetector(level, timeout, off_level=off, min_duration_ms=min_dur)
    pattern = None
    if args.pattern is not None:
        pattern = ClapPatternTracker(check_int_range("--pattern", args.pattern, 2, 16),
                                     check_positive("--pattern-gap-ms", args.pattern_gap_ms))
    clap = ClapDetector(gain=gain, channels=channels) if (args.clap or pattern is not None) else None
    pitch = PitchTracker(channels=channels) if args.pitch else None
    stage = AudioStage(gain=gain, smoothing_ms=check_positive("--smoothing-ms", args.smoothing_ms,
                                                              allow_zero=True),
                       channels=channels, activity=activity, noise_floor=noise_floor, clap=clap,
                       pattern=pattern, pitch=pitch, emit_level=bool(args.level))
    return [stage]
