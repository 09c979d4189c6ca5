"""``sensekit record OUT``: record a camera and/or microphone (or any source) to a recording.

    sensekit record OUT [--camera SPEC] [--mic [SPEC]] [--source SPEC]
                        [--seconds S] [--notes TEXT] [--no-progress]

With neither ``--camera`` nor ``--mic`` nor ``--source`` it records the default
camera and microphone, whichever exist (and says which were missing). Shows a
tqdm progress bar on a terminal (none in a log or a pipe, or under ``-q``); Ctrl-C, SIGTERM or SIGHUP
finishes cleanly (files closed, meta marked complete). A source that fails part-way (a damaged
file, a disk error) leaves what was recorded, marked incomplete, and exits 2 with one line saying so.
``--seconds`` must be positive (``ConfigError`` quoting the value otherwise).
No devices: the device modules' message, which lists what is available.
"""
from __future__ import annotations

import argparse
import logging
from pathlib import Path

from sensekit.capture.base import Source, drops_text
from sensekit.cli.progress import on_a_terminal
from sensekit.cli import Subparsers
from sensekit.cli import free_text
from sensekit.cli.paths import OutputPath
from sensekit.errors import SourceError
from sensekit.validate import check_positive, check_range

log = logging.getLogger(__name__)

MAX_RECORD_S = 1e7          # 115 days


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "record", help="record camera/microphone to a .skrec folder",
        description="Record a camera and/or a microphone (or any source) to a recording folder.")
    p.add_argument("out", metavar="OUT", type=OutputPath(".skrec", folder=True),
                   help="recording folder to create, e.g. take1.skrec")
    p.add_argument("--camera", metavar="SPEC", help="camera index, URL or path (e.g. 0, camera:1)")
    p.add_argument("--mic", metavar="SPEC", nargs="?", const="mic",
                   help="microphone name or index (no value: the default microphone)")
    p.add_argument("--source", metavar="SPEC", help="record any source spec instead (file:, replay:, ...)")
    p.add_argument("--seconds", type=float, metavar="S", help="stop after S seconds (default: Ctrl-C)")
    p.add_argument("--notes", type=free_text, default="", metavar="TEXT",
                   help="free text stored in meta.json")
    p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    p.set_defaults(func=main)


def _prefixed(spec: str, kind: str) -> str:
    return spec if spec.split(":", 1)[0] == kind else f"{kind}:{spec}"


def build_source(args: argparse.Namespace) -> Source:
    """The source the options name (not opened, except the probed defaults)."""
    from sensekit.capture.spec import open_source

    if args.source:
        return open_source(args.source)
    if args.camera is not None or args.mic is not None:
        parts = []
        if args.camera is not None:
            parts.append(_prefixed(args.camera, "camera"))
        if args.mic is not None:
            parts.append(_prefixed(args.mic, "mic"))
        return open_source("+".join(parts))
    # Defaults: whichever of the default camera and microphone can be opened.
    found, errors = [], []
    for spec in ("camera:0", "mic"):
        try:
            src = open_source(spec)
            src.open()
        except SourceError as exc:
            errors.append(exc)
            continue
        found.append(src)
    if not found:
        from sensekit.errors import DeviceNotFoundError, DeviceUnavailableError
        kind: type[SourceError] = SourceError
        if all(isinstance(e, DeviceUnavailableError) for e in errors):
            kind = DeviceNotFoundError if all(isinstance(e, DeviceNotFoundError) for e in errors) \
                else DeviceUnavailableError
        found_none = "; ".join(str(e)[:1].lower() + str(e)[1:] for e in errors)
        raise kind(f"nothing to record: {found_none} (to record a file or a recording instead: "
                   "--source SPEC, e.g. --source demo)")
    if len(found) == 1:
        log.info("recording %s only (%s)", found[0].description, errors[0])
        return found[0]
    from sensekit.capture.combined import CombinedSource
    return CombinedSource(found[0], found[1])


def main(args: argparse.Namespace) -> int:
    from sensekit.capture.recording import record_source

    if args.seconds is not None:
        check_positive("--seconds", args.seconds)
        check_range("--seconds", args.seconds, 0, MAX_RECORD_S)      # 1e30 s: no progress bar
    source = build_source(args)
    try:
        # the bar on a terminal only, as events/plot/snapshot: a log gets no '\r' frames
        progress = args.progress and not getattr(args, "quiet", False) and on_a_terminal()
        summary = record_source(source, args.out, seconds=args.seconds, progress=progress,
                                notes=args.notes)
    except OSError as exc:                     # e.g. the disk filled up while closing the files
        from sensekit.errors import RecordingError
        raise RecordingError(f"recording '{args.out}' failed: {exc.strerror or exc}") from None
    how = f"stopped by {summary.get('stopped_by') or 'Ctrl-C'}; " if summary["interrupted"] else ""
    print(f"{how}saved {Path(args.out).absolute()}: {summary['duration_s']:.2f} s, {summary['frames']} frames, "
          f"{summary['audio_samples']} audio samples{drops_text(summary.get('source_drops', {}))}")
    return 0
