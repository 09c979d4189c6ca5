"""``sensekit teach gesture``: learn hand shapes from a recording's time ranges.

    sensekit teach gesture SOURCE --class NAME=START-END [--class NAME=START-END ...] --out MODEL.json
    sensekit teach gesture SOURCE --class ... --profile venue.toml

SOURCE is anything ``sensekit events`` reads (a recording, a video file, ``camera:0``).
Each ``--class`` names a gesture and a time range in seconds (repeat a name for several
ranges; a range must end within a recording or a video file). The hand stage runs over the
source; every hand seen inside a range is an example of that gesture (``sensekit.vision.taught``:
normalised landmarks, k nearest neighbours).
The model is written as JSON (``--out``) or into a venue profile's ``[taught_gestures]`` table
(``--profile``; the rest of the file is kept); ``sensekit events SOURCE --hands --gestures
MODEL.json`` (or ``--profile venue.toml``) then names those gestures in ``gesture`` events,
with a confidence. Needs the hands extra.
"""
from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from sensekit.cli.paths import OutputPath
from sensekit.errors import ConfigError
from sensekit.safe_read import clip

__all__ = ["add_parser", "parse_range", "check_overlaps", "check_within", "main"]


def parse_range(text: str) -> tuple[str, float, float]:
    """``"star=1.5-4"`` -> ``("star", 1.5, 4.0)``; anything else is a ``ConfigError`` quoting it."""
    m = re.fullmatch(r"(.+?)=\s*([0-9.]+)\s*-\s*([0-9.]+)\s*", text, flags=re.S)
    if not m:
        raise ConfigError(f"--class must be NAME=START-END in seconds (e.g. star=1.5-4), got '{clip(text)}'")
    from sensekit.vision.taught import check_gesture_name    # (the vision package: not at start-up)

    try:
        name = check_gesture_name(m.group(1))
    except ConfigError as exc:
        raise ConfigError(f"--class: {exc}") from None
    try:
        start, end = float(m.group(2)), float(m.group(3))
    except ValueError:
        raise ConfigError(f"--class times must be numbers, got '{clip(text)}'") from None
    if not end > start:
        raise ConfigError(f"--class range must end after it starts, got '{clip(text)}'")
    return name, start, end


def check_overlaps(ranges: list[tuple[str, float, float]]) -> None:
    """Ranges of two different gestures may touch but not overlap (a hand seen in both would be
    an example of both); ``ConfigError`` naming the first pair that does."""
    for i, (n1, a1, b1) in enumerate(ranges):
        for n2, a2, b2 in ranges[i + 1:]:
            if n1 != n2 and a1 < b2 and a2 < b1:
                raise ConfigError(f"--class ranges overlap: {n1} {a1:g}-{b1:g} s and {n2} {a2:g}-{b2:g} s "
                                  f"(a hand in both would be taught as both gestures)")


def check_within(ranges: list[tuple[str, float, float]], source: Any) -> None:
    """Every range must end within the source (a replay's or a video file's length; a live
    source has none and is not checked): ``ConfigError`` naming the first range that does not,
    with the source's length in seconds and frames."""
    from sensekit.cli.progress import clip_length_s

    length = clip_length_s(source)
    if length is None:
        return
    fps = getattr(source, "fps", None)
    frames = getattr(source, "frame_count", None) or getattr(source, "frame_count_hint", None)
    for name, start, end in ranges:
        if end > length + 1e-6:
            size = f"{length:.2f} s" + (f", {frames} frames at {fps:g} fps" if frames and fps else "")
            raise ConfigError(f"--class {name}={start:g}-{end:g} ends after the source does: "
                              f"{source.description} is {size}; give ranges within 0-{length:.2f} s")


def add_parser(sub: Any) -> None:
    """Add ``gesture`` to the ``teach`` command's subcommands (``sensekit.cli.teach``)."""
    g = sub.add_parser("gesture", help="hand shapes from a recording's time ranges",
                       description=__doc__.split("\n\n", 1)[1].replace("``", "`") if __doc__ else None,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    g.add_argument("source", metavar="SOURCE", help="recording, video file or camera:N")
    g.add_argument("--class", dest="classes", action="append", required=True, metavar="NAME=START-END",
                   help="a gesture and a time range in seconds (repeat)")
    where = g.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", type=OutputPath(".json", replaced=True), metavar="MODEL.json",
                       help="write the model to this JSON file")
    where.add_argument("--profile", type=OutputPath(".toml", replaced=True), metavar="FILE",
                       help="keep the model in this venue profile (its [taught_gestures] table; the "
                            "file is created, or edited keeping everything else)")
    g.add_argument("--hand-model", choices=("full", "lite"), default="full", help="MediaPipe model size")
    g.set_defaults(func=main)


def collect(source: Any, ranges: list[tuple[str, float, float]], *, model: str = "full") -> dict[str, list[Any]]:
    """Run the hand stage over ``source``; the hand features seen in each class's ranges."""
    from sensekit.capture.base import VideoFrame
    from sensekit.events import Hand
    from sensekit.vision.hands import HandStage
    from sensekit.vision.taught import hand_features

    stage = HandStage(model=model)
    examples: dict[str, list[Any]] = defaultdict(list)
    end = max(r[2] for r in ranges)
    try:
        while True:
            try:
                item = source.read()
            except EOFError:
                break
            if not isinstance(item, VideoFrame):
                continue
            if item.t > end:
                break
            names = [name for name, a, b in ranges if a <= item.t <= b]
            for event in stage.process(item):
                if isinstance(event, Hand):
                    for name in names:
                        examples[name].append(hand_features(np.array(event.landmarks)))
    finally:
        stage.close()
    for name, _, _ in ranges:
        examples.setdefault(name, [])
    return dict(examples)


def main(args: argparse.Namespace) -> int:
    from sensekit.capture.spec import open_source
    from sensekit.vision.taught import TaughtGestures

    ranges = [parse_range(text) for text in args.classes]
    check_overlaps(ranges)
    with open_source(args.source) as source:
        check_within(ranges, source)
        examples = collect(source, ranges, model=args.hand_model)
    model = TaughtGestures().fit(examples)
    if args.out is not None:
        from sensekit.atomic import write_text_atomic   # whole or not at all: a full disk keeps the old model

        write_text_atomic(args.out, json.dumps(model.to_dict()), what="the gesture model")
    else:
        from sensekit.profile import save_taught_gestures

        save_taught_gestures(args.profile, model.to_dict())
    counts = ", ".join(f"{name} {len(rows)}" for name, rows in sorted(examples.items()))
    print(f"taught {len(model.classes)} gestures ({counts} hand frames) -> {Path(args.out or args.profile).absolute()}")
    return 0
