"""``sensekit inspect REC``: a human summary of a recording.

Prints duration, frames and fps, frame size, sample rate, channels and gain,
whether the recording is complete, the notes, the start time and each file's
size. Reads only the headers and timestamps (never decodes video), so it is
instant. A broken recording gives the ``RecordingError`` message (exit status 2).
"""
from __future__ import annotations

import argparse
import datetime as dt
import textwrap
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("inspect", help="summarise a recording",
                              description="Print a human summary of a recording folder.")
    p.add_argument("rec", metavar="REC", help="recording folder (or a bundled name such as 'demo')")
    p.set_defaults(func=main)


def _size(n: int) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return str(n)


def summary(path: Path) -> str:
    from sensekit.capture.recording import ReplaySource

    src = ReplaySource(path)
    meta = src.meta
    src.open()
    try:
        v, a = meta["video"], meta["audio"]
        lines = [("recording", f"{path.name}  ({'complete' if src.complete else 'INCOMPLETE: the recorder did not finish; replay uses what was flushed'})")]
        if meta["start_unix"] is not None:
            start = dt.datetime.fromtimestamp(meta["start_unix"], tz=dt.timezone.utc)
            lines.append(("started", start.strftime("%Y-%m-%d %H:%M:%S UTC")))
        lines.append(("duration", f"{src.duration_s:.3f} s"))
        if v is not None:
            n = len(src._times)
            lines.append(("video", f"{v['width']}x{v['height']} @ {v['fps']:g} fps, {v.get('codec', 'FFV1')}, "
                                   f"{n} frames" + ("" if not src.complete or n == meta['frames']
                                                    else f" (meta says {meta['frames']})")))
        else:
            lines.append(("video", "none"))
        if a is not None:
            ch = "mono" if a["channels"] == 1 else f"{a['channels']} channels"
            lines.append(("audio", f"{a['sample_rate']} Hz {ch} int16, gain {a['gain']:g}, "
                                   f"{src.audio_sample_count} samples, block {src.block_size}, "
                                   f"offset {meta['audio_offset_s']:.3f} s"))
        else:
            lines.append(("audio", "none"))
        lines.append(("sources", ", ".join(meta["sources"]) or "-"))
        total = 0
        files = []
        for f in sorted(p for p in path.iterdir() if p.is_file()):
            size = f.stat().st_size
            total += size
            files.append(f"{f.name} {_size(size)}")
        lines.append(("files", ", ".join(files)))
        lines.append(("size", _size(total)))
        notes = meta["notes"].strip() or "-"
        wrapped = textwrap.wrap(notes, 76) or ["-"]
        lines.append(("notes", ("\n" + " " * 11).join(wrapped)))
    finally:
        src.close()
    return "\n".join(f"{k:<10} {val}" for k, val in lines)


def main(args: argparse.Namespace) -> int:
    from sensekit.capture.spec import parse_source_spec

    spec = parse_source_spec(args.rec)
    target = Path(str(spec.target)) if spec.kind in ("replay", "file") else Path(args.rec)
    print(summary(target))
    return 0
