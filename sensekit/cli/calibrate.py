"""``sensekit calibrate SOURCE --out venue.toml``: learn a venue's noise floors (and a colour).

    sensekit calibrate SOURCE --out venue.toml [--seconds S] [--pick-color X,Y] [--set KEY=VALUE ...]
    sensekit calibrate SOURCE --out venue.toml --claps [--clap-seconds 10] [--seconds 30] [--venue-model]

Reads the first ``--seconds`` (default 5) of SOURCE and writes a venue profile (see
``sensekit.profile``). Keep the room in its normal quiet state while it runs:

- **audio noise floor** (``noise_floor.level``): ``NoiseFloor.calibrate`` over the activity
  levels (0..100, ``sensekit.audio.level``, at the gain the profile or ``--set audio.gain``
  gives, else at the source's own: a recording's stored gain, where ``run`` and ``events``
  start) of the audio blocks: the ``noise_floor.percentile`` (20th) percentile, the rule the
  audio stage uses when it learns the floor itself, so a cough or a door does not raise it.
  The gain it was measured at is written with it (``audio.gain``): a level is a level after
  gain (10 gain steps move it by 10), so a floor measured from a recording stored at gain 80
  is 30 too high for a microphone at 50. Keeping the gain, rather than storing the floor
  converted to gain 50, makes a later run from the profile apply the same gain and hear the
  room as calibrate did: levels clip at 0 and 100 (the demo's room reads 0 at gain 50, 22.7
  at 80), so a converted floor would not come back, and the clap threshold ``--claps`` writes
  is on the same after-gain scale.
- **camera noise** (``motion.noise_sigma``): the camera noise rule of
  ``sensekit.vision.noise`` on each pair of consecutive frames (the median absolute difference
  on every 4th pixel of the ``motion.channel`` the profile uses, converted to a per-pixel
  sigma), then the median over the frames. The motion detector applies the same rule when it
  learns, and turns a stored sigma into its threshold the same way, so a calibrated threshold
  is the learned one (``tests/vision/test_noise.py``). Someone walking through part of the
  frame barely changes it.
- ``--pick-color X,Y`` stores the median colour of a 9x9 pixel patch at (X, Y) of the middle
  frame of the window as ``tracker.color``.
- ``--set KEY=VALUE`` writes any other setting into the profile too.

``--claps`` teaches the clap detector the venue instead (``sensekit.audio.clap_teach``): the
first ``--clap-seconds`` (10) of SOURCE are someone clapping a few times, the next
``--seconds`` (30) the room as it usually sounds, without claps. It prints how many claps it
heard, how many of the room's sounds fired before and after, and writes ``clap.threshold``
with the gain it judged levels at (``audio.gain``), the room rule (``clap.room_feature``,
``clap.room_limit``, ``clap.room_above``), and ``clap.noise_route`` (on for a steady floor the
claps stand less than 24 dB over, else off). It refuses (one line, exit status 2, nothing
written) a lesson with fewer than 3 claps heard in the clap part or with sure claps in the room
part (``clap_teach.lesson_problem``): claps at the wrong moment would teach a venue that hears
no claps. ``--venue-model`` (opt-in, ``teach(venue=True)``) also learns a model of the room's
clap-like sounds (``clap.venue_model``, ``sensekit.audio.clap_venue``); when it is written it
replaces the raised threshold and the room rule (the threshold stays where the claps put it);
without the flag ``clap.venue_model`` is not written (docs/claps.md: why it is not the default).

If ``--out`` exists it is loaded first and edited in place: only what was measured or set
changes; zones, thresholds, comments and keys tuned by hand are kept. Written atomically.

Progress: a tqdm bar in seconds of source time (only on a terminal; hidden with ``-q``). Cost: one level
per audio block, one ``absdiff`` per frame. A replay is read as fast as it decodes;
a live source takes ``--seconds`` of wall time.

Failure modes (one line, exit status 2): a source with neither track; a source that
ends before it gives any usable data; ``--pick-color`` on a source without video or
outside the frame; an ``--out`` that exists but is not a valid profile (the error names
key, file and line).
"""
from __future__ import annotations

import argparse
import logging
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterator
from typing import Any, Mapping

import numpy as np

from sensekit.cli import Subparsers
from sensekit.cli.paths import OutputPath
from sensekit.cli.tuning import Chosen, add_set_argument, chosen_values
from sensekit.errors import ConfigError, SourceError
from sensekit.profile import load_profile, save_profile
from sensekit.paths import doc
from sensekit.settings.registry import lookup
from sensekit.validate import check_positive
from sensekit.vision.noise import frame_noise_sigma, motion_threshold
from sensekit.vision.stages import bgr_to_packed_rgb
from sensekit.vision.targets import parse_pixel
from sensekit.cli.numbers import float_in

log = logging.getLogger(__name__)

#: seconds of clapping `--claps` listens to first (`--clap-seconds`)
DEFAULT_CLAP_S = 10.0
#: seconds of the source measured (`--seconds`): the floors, and with `--claps` the room after the claps
DEFAULT_SECONDS, DEFAULT_ROOM_S = 5.0, 30.0


@dataclass
class Calibration:
    """What one calibration pass measured."""
    seconds: float = 0.0
    frames: int = 0
    blocks: int = 0
    audio_noise_floor: float | None = None
    #: the gain (``audio.gain``) the audio levels were measured at: the floor's scale
    audio_gain: float | None = None
    camera_noise_sigma: float | None = None
    picked_color: str | None = None
    frame_size: tuple[int, int] | None = None
    _levels: list[float] = field(default_factory=list, repr=False)
    _sigmas: list[float] = field(default_factory=list, repr=False)


def patch_color(image: np.ndarray, x: int, y: int, patch_px: int | None = None) -> str:
    """``"#rrggbb"`` of the median colour of a square patch centred on (x, y) of a BGR image; its
    side ``patch_px`` defaults to the patch a click on the tracker samples (``tracker.patch_px``)."""
    if patch_px is None:
        from sensekit.vision.color_tracker import ColorTracker
        patch_px = int(ColorTracker.SETTINGS["patch_px"].default)
    h, w = image.shape[:2]
    if not (0 <= x < w and 0 <= y < h):
        raise ConfigError(f"--pick-color {x},{y} is outside the {w}x{h} frame")
    r = patch_px // 2
    patch = image[max(0, y - r):y + r + 1, max(0, x - r):x + r + 1].reshape(-1, 3)
    bgr = [int(round(float(v))) for v in np.median(patch, axis=0)]
    return f"#{bgr_to_packed_rgb(bgr):06x}"


def calibrate(source: Any, *, seconds: float, gain: float | None = None, channel: str | None = None,
              percentile: float | None = None, pick: tuple[int, int] | None = None,
              progress: bool = True) -> Calibration:
    """Measure noise floors over the first ``seconds`` of an opened ``source``.

    ``gain`` (``audio.gain``) defaults to the source's own (a recording's stored gain: what a run
    starts from), ``channel`` (``motion.channel``) and ``percentile`` (``noise_floor.percentile``)
    to the table's."""
    from sensekit.audio.gain import source_gain

    gain = source_gain(source) if gain is None else gain
    channel = lookup("motion.channel").default if channel is None else channel
    percentile = lookup("noise_floor.percentile").default if percentile is None else percentile
    from tqdm import tqdm

    from sensekit.cli.progress import on_a_terminal

    if not (source.has_video or source.has_audio):
        raise SourceError(f"source {source.description!r} has neither video nor audio")
    if pick is not None and not source.has_video:
        raise ConfigError(f"--pick-color needs video, but {source.description!r} has none")
    cal = Calibration(audio_gain=gain if source.has_audio else None)
    seen = _Seen(cal, gain=gain, channel=channel, pick=pick)
    t_first: float | None = None
    bar = tqdm(total=round(seconds, 1), unit="s", desc="calibrating", disable=not (progress and on_a_terminal()),
               file=sys.stderr, bar_format="{l_bar}{bar}| {n:.1f}/{total:.1f} s")
    try:
        for item in _items(source, seconds):
            if t_first is None:
                t_first = item.t
            elapsed = item.t - t_first
            if elapsed >= seconds:
                break
            bar.update(max(0.0, round(elapsed, 1) - bar.n))
            seen.add(item)
            cal.seconds = elapsed
        bar.update(max(0.0, bar.total - bar.n) if cal.seconds > 0 else 0)
    finally:
        bar.close()
    _conclude(cal, source, percentile, pick, seen.frames_for_pick)
    return cal


def _items(source: Any, seconds: float) -> Iterator[Any]:
    """The source's items until it ends; a live source silent for ``seconds`` + 10 s is an error."""
    misses = 0
    while True:
        try:
            item = source.read(timeout=0.5)
        except EOFError:
            return
        if item is None:           # live source with nothing yet (or lost)
            misses += 1
            if source.is_live and misses * 0.5 > seconds + 10:
                raise SourceError(f"{source.description!r} gave no data for {misses * 0.5:.0f} s")
            continue
        yield item


class _Seen:
    """What calibration gathers per item: frame noise between frames, block levels, frames to pick from."""

    def __init__(self, cal: Calibration, *, gain: float, channel: str, pick: tuple[int, int] | None) -> None:
        self.cal, self.gain, self.channel, self.pick = cal, gain, channel, pick
        self.prev: np.ndarray | None = None
        self.frames_for_pick: list[np.ndarray] = []

    def add(self, item: Any) -> None:
        from sensekit.audio.level import level
        from sensekit.capture.base import VideoFrame

        cal = self.cal
        if isinstance(item, VideoFrame):
            cal.frames += 1
            cal.frame_size = (item.image.shape[1], item.image.shape[0])
            if self.prev is not None and self.prev.shape == item.image.shape:
                cal._sigmas.append(frame_noise_sigma(self.prev, item.image, self.channel))
            self.prev = item.image
            if self.pick is not None:
                self.frames_for_pick.append(item.image)
        else:
            cal.blocks += 1
            if len(item.samples):
                cal._levels.append(level(item.samples, gain=self.gain))


def _conclude(cal: Calibration, source: Any, percentile: float, pick: tuple[int, int] | None,
              frames_for_pick: list[np.ndarray]) -> None:
    """The floors from what was gathered, and the picked colour (from the middle frame)."""
    if cal._levels:
        from sensekit.audio.noise_floor import NoiseFloor
        cal.audio_noise_floor = round(NoiseFloor(percentile=percentile).calibrate(cal._levels), 3)
    if cal._sigmas:
        cal.camera_noise_sigma = round(float(np.median(cal._sigmas)), 3)
    if pick is not None:
        if not frames_for_pick:
            raise SourceError(f"{source.description!r} gave no video frame to pick a colour from")
        cal.picked_color = patch_color(frames_for_pick[len(frames_for_pick) // 2], *pick)
    if cal.audio_noise_floor is None and cal.camera_noise_sigma is None and cal.picked_color is None:
        raise SourceError(f"{source.description!r} ended before calibration had any data "
                          f"({cal.frames} frames, {cal.blocks} audio blocks)")


def calibration_values(cal: Calibration) -> dict[str, Any]:
    """What ``cal`` measured, as settings (``{key: value}``) for a profile."""
    values: dict[str, Any] = {}
    if cal.audio_noise_floor is not None:
        values["noise_floor.level"] = min(100.0, cal.audio_noise_floor)
        if cal.audio_gain is not None:       # the floor's scale: a run at another gain hears another room
            values["audio.gain"] = cal.audio_gain
    if cal.camera_noise_sigma is not None:
        values["motion.noise_sigma"] = min(100.0, cal.camera_noise_sigma)
    if cal.picked_color is not None:
        values["tracker.color"] = cal.picked_color
    return values


def read_audio(source: Any, seconds: float) -> tuple[np.ndarray, int]:
    """The next ``seconds`` of ``source``'s audio as one mono float32 array, and its rate."""
    from sensekit.audio.level import mono
    from sensekit.capture.base import AudioBlock

    parts: list[np.ndarray] = []
    rate = 0
    got = 0
    misses = 0
    while rate == 0 or got < seconds * rate:
        try:
            item = source.read(timeout=0.5)
        except EOFError:
            break
        if item is None:
            misses += 1
            if source.is_live and misses * 0.5 > seconds + 10:
                raise SourceError(f"{source.description!r} gave no audio for {misses * 0.5:.0f} s")
            continue
        if isinstance(item, AudioBlock) and len(item.samples):
            rate = item.rate
            x = mono(item.samples, index=item.index)
            parts.append(x)
            got += len(x)
    if not parts:
        raise SourceError(f"{source.description!r} gave no audio to learn claps from")
    x = np.concatenate(parts)
    return x[: round(seconds * rate)], rate


def teach_claps(args: argparse.Namespace, settings: dict[str, Any], out: Path) -> int:
    """``--claps``: the first ``--clap-seconds`` are claps, the next ``--seconds`` the room."""
    from sensekit.audio.clap_teach import MIN_CLAPS, lesson_problem, teach
    from sensekit.audio.gain import source_gain
    from sensekit.capture.spec import open_source

    clap_s = check_positive("--clap-seconds", args.clap_seconds)
    room_s = check_positive("--seconds", args.seconds)
    prefix = "clap."
    clap_settings = {k[len(prefix):]: v for k, v in settings.items() if k.startswith(prefix)}
    source = open_source(args.source)
    with source:
        if not source.has_audio:
            raise SourceError(f"calibrate --claps needs audio, but {source.description!r} has none")
        if source.is_live:
            print(f"clap {clap_s:g} s: clap a few times, a second or more apart ...", file=sys.stderr)
        gain = source_gain(source)            # the run's start (a recording's stored gain), not the table's
        claps, rate = read_audio(source, clap_s)
        if source.is_live:
            print(f"now {room_s:g} s of the room as it usually sounds (no claps) ...", file=sys.stderr)
        room, room_rate = read_audio(source, room_s)
    if len(room) < rate:
        raise SourceError(f"{source.description!r} ended before the room part "
                          f"(after {len(claps) / rate:.1f} s of claps)")
    taught_gain = float(settings.get("audio.gain", gain))
    lesson = teach(claps, room, rate, settings=clap_settings, gain=taught_gain,
                   venue=bool(getattr(args, "venue_model", False)))
    problem = lesson_problem(lesson)
    if problem is not None:
        raise ConfigError(f"calibrate --claps {problem}; nothing written: clap {MIN_CLAPS} or more "
                          f"times in the first {clap_s:g} s, then keep the room as it is for "
                          f"{room_s:g} s (--clap-seconds and --seconds set those spans)")
    chosen = chosen_values(args)
    stale = stale_lesson(settings, {**chosen.values, **lesson.values})
    # the threshold and room rule judge levels after this gain: the profile keeps it with them
    save_profile({**chosen.values, **stale, **lesson.values, "audio.gain": taught_gain}, out)
    print(f"taught claps from {len(claps) / rate:.1f} s of claps and {len(room) / room_rate:.1f} s "
          f"of room ({source.description})")
    print(f"  claps heard         {lesson.claps_heard}")
    print(f"  room false claps    {lesson.room_fired} before, {lesson.room_fired - lesson.room_rejected} "
          f"after ({lesson.room_bursts} bursts judged)")
    print(f"  threshold           {lesson.threshold:g} (at gain {taught_gain:g}: kept as audio.gain)")
    print(f"  {lesson.rule}")
    if lesson.venue:                       # --venue-model (off by default)
        print(f"  {lesson.venue}")
    print(f"  {lesson.route_text}")
    if stale:
        print("  reset               " + ", ".join(stale) + " (an earlier lesson's, not this one's)")
    print(f"wrote {Path(out).absolute()}")
    return 0


#: what a clap lesson learns besides the threshold: a rerun resets those it did not learn
LESSON_KEYS = ("clap.room_feature", "clap.room_limit", "clap.room_above", "clap.venue_model")


def stale_lesson(settings: Mapping[str, Any], written: Mapping[str, Any]) -> dict[str, Any]:
    """The keys of ``LESSON_KEYS`` an earlier lesson left in ``settings`` (not at their default)
    that this one does not write, at their defaults: a room rule or venue model learned with
    another threshold must not stay beside the new one."""
    return {k: lookup(k).default for k in LESSON_KEYS
            if k not in written and k in settings and settings[k] != lookup(k).default}


def settle_options(args: argparse.Namespace) -> bool:
    """Refuse what the mode would ignore, fill in the defaults; whether it is ``--claps``."""
    claps = bool(getattr(args, "claps", False))
    if args.clap_seconds is not None and not claps:        # was silently ignored
        raise ConfigError("--clap-seconds goes with --claps (how long the clapping part is)")
    if getattr(args, "venue_model", False) and not claps:
        raise ConfigError("--venue-model goes with --claps (it is learned from the claps and the room)")
    if claps and args.pick_color:                          # was silently ignored
        raise ConfigError("--pick-color does not go with --claps: pick the colour in a calibrate "
                          "run of its own (the profile keeps both)")
    if args.clap_seconds is None:
        args.clap_seconds = DEFAULT_CLAP_S
    if args.seconds is None:
        args.seconds = DEFAULT_ROOM_S if claps else DEFAULT_SECONDS
    return claps


def profile_and_set(args: argparse.Namespace) -> tuple[Chosen, dict[str, Any]]:
    """The ``--set`` values chosen (``chosen_values``) and the settings a calibration starts
    from: the profile ``--out`` names (when it exists), then those."""
    current = dict(load_profile(args.out)) if args.out.exists() else {}
    chosen = chosen_values(args)
    return chosen, {**current, **chosen.values}


def setting_in(settings: Mapping[str, Any], key: str) -> Any:
    """``key``'s value in ``settings`` (the profile's, then ``--set``), else the table's default."""
    return settings.get(key, lookup(key).default)


def main(args: argparse.Namespace) -> int:
    from sensekit.capture.spec import open_source

    claps = settle_options(args)
    out: Path = args.out
    if claps:
        return teach_claps(args, profile_and_set(args)[1], out)
    seconds = check_positive("--seconds", args.seconds)
    if not math.isfinite(seconds):
        raise ConfigError(f"--seconds must be finite, got {args.seconds!r}")
    pick = parse_pixel(args.pick_color, option="--pick-color") if args.pick_color else None
    chosen, settings = profile_and_set(args)           # --set: written into the profile too

    def get(key: str) -> Any:
        return setting_in(settings, key)

    source = open_source(args.source)
    with source:
        cal = calibrate(source, seconds=seconds, gain=settings.get("audio.gain"), channel=get("motion.channel"),
                        percentile=get("noise_floor.percentile"), pick=pick,
                        progress=not getattr(args, "quiet", False))
    values = {**chosen.values, **calibration_values(cal)}
    save_profile(values, out)
    lines = [f"calibrated from {cal.seconds:.1f} s of {source.description} "
             f"({cal.frames} frames, {cal.blocks} audio blocks)"]
    if cal.audio_noise_floor is not None:
        lines.append(f"  audio noise floor   {cal.audio_noise_floor:.2f} (level 0..100, at gain {cal.audio_gain:g}: "
                     f"kept as audio.gain)")
    if cal.camera_noise_sigma is not None:
        thr = get("motion.threshold")
        if thr is None:
            thr = motion_threshold(cal.camera_noise_sigma, noise_k=get("motion.noise_k"),
                                   min_threshold=get("motion.min_threshold"))
        lines.append(f"  camera noise        {cal.camera_noise_sigma:.2f} (sigma, pixel levels; "
                     f"motion threshold {thr:.0f})")
    if cal.picked_color is not None and pick is not None:
        lines.append(f"  colour              {cal.picked_color} at {pick[0]},{pick[1]}")
    if chosen.values:
        lines.append("  set                 " + ", ".join(f"{k}={v}" for k, v in chosen.values.items()))
    lines.append(f"wrote {Path(out).absolute()}")
    print("\n".join(lines))
    return 0


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "calibrate", help="learn noise floors (and a colour) into a venue profile",
        description="Learn the audio and camera noise floors of a venue, and optionally "
                    "pick a colour, into a venue profile TOML file. It writes the floor "
                    "(noise_floor.level) with the gain it was measured at (audio.gain: the "
                    "profile's or --set's, else the source's own, a recording's stored gain), "
                    "so a run from the profile hears the room as calibrate did, and the camera "
                    "noise (motion.noise_sigma); --claps writes clap.threshold and the room "
                    "rule, also with audio.gain.")
    p.add_argument("source", metavar="SOURCE", help="camera:N, mic, camera:0+mic, a recording...")
    p.add_argument("--out", type=OutputPath(".toml", replaced=True), required=True, metavar="FILE",
                   help="profile to write, .toml (edited in place if it exists)")
    p.add_argument("--seconds", type=float_in(0, 3600), default=None, metavar="S",
                   help=f"how much of the source to measure (default {DEFAULT_SECONDS:g}; with --claps, the "
                        f"room part, default {DEFAULT_ROOM_S:g})")
    p.add_argument("--claps", action="store_true",
                   help="teach the clap detector this venue: claps first (--clap-seconds), then "
                        "the room as it usually sounds (--seconds)")
    p.add_argument("--clap-seconds", type=float_in(0, 3600), default=None, metavar="S",
                   help=f"with --claps: how long the clapping part is (default {DEFAULT_CLAP_S:g})")
    p.add_argument("--venue-model", action="store_true",
                   help="with --claps: also learn a venue model of the room's clap-like sounds "
                        "(clap.venue_model); when written it replaces the raised threshold and the "
                        f"room rule (off by default: why in {doc('claps.md')})")
    p.add_argument("--pick-color", metavar="X,Y",
                   help="store as tracker.color the colour at pixel X,Y of the source's own picture "
                        "(not mirrored, unlike an app's view), in the middle of --seconds")
    add_set_argument(p)
    p.set_defaults(func=main)
