"""``sensekit inspect REC [--quick] [--add-checksums]``: what a recording really holds, and what is damaged.

Prints whether the recording is complete, the start time, the duration, the
video (size, frame rate and whether it was measured, frames that decode out of
the frames listed), the audio (samples the WAV really holds: never the
header's claim), the sources, each file's size, the notes, and a list of
problems. Text from the recording (notes, sources, file names) is printed with
control characters escaped, so it cannot drive the terminal.

Every frame is decoded (``sensekit.capture.recording_check``; about 1-10 ms a
frame, segments in parallel); ``--quick`` reads only names and headers and then
cannot vouch for the frames.

A complete recording made before checksums were stored replays unverified; ``--add-checksums``
writes the checksum files it lacks (``sensekit.capture.checksums.add_checksums``: no frame or
sample rewritten; refused, with nothing written, when the recording is incomplete or damaged),
then prints the report.

Exit status: 0 when the recording is complete and intact; 1 when it is
incomplete (the recorder stopped without finishing: it replays what it saved)
or damaged; 2 when it is not a readable recording (the one-line error).
"""
from __future__ import annotations

import argparse
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from sensekit.cli import Subparsers
from sensekit.cli._printable import printable

if TYPE_CHECKING:
    from sensekit.capture.recording_check import RecordingReport

INDENT = " " * 11


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "inspect", help="summarise and check a recording",
        description="Print what a recording folder holds and what is damaged. Exit status: 0 "
                    "intact, 1 incomplete or damaged, 2 not a readable recording.")
    p.add_argument("rec", metavar="REC", help="recording folder (or a bundled name such as 'demo')")
    p.add_argument("--quick", action="store_true",
                   help="do not decode the video (instant; cannot vouch for the frames)")
    p.add_argument("--add-checksums", action="store_true",
                   help="first write the checksum files a recording made before them lacks "
                        "(frames, samples and times untouched; refused if it is incomplete or damaged)")
    p.set_defaults(func=main)


def _size(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{int(n)} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return str(n)


def _bullets(items: list[str]) -> str:
    lines = []
    for item in items:
        wrapped = textwrap.wrap(printable(item), 76, subsequent_indent="  ") or ["-"]
        lines.append("- " + ("\n" + INDENT).join(wrapped))
    return ("\n" + INDENT).join(lines)


def _listed(items: list[str], width: int = 76) -> str:
    """``a, b, c`` wrapped at ``width`` between items (an item is never split)."""
    rows = [""]
    for item in items:
        piece = item if not rows[-1] else f", {item}"
        if rows[-1] and len(rows[-1]) + len(piece) > width:
            rows[-1] += ","
            rows.append(item)
        else:
            rows[-1] += piece
    return ("\n" + INDENT).join(rows)


def _video_line(rep: RecordingReport) -> str:
    """Size, rate (measured or claimed), codec and the frames that play."""
    v = rep.video
    if v is None:
        return "none"
    rate = f"{v.fps:g} fps"
    if v.fps_from == "timestamps":
        rate += " (measured" + (f": {v.fps_measured:g}" if v.fps_measured else "") + ")"
    ts_name = rep.meta["video"]["timestamps"]
    if not v.listed_frames and not (rep.path / ts_name).is_file():
        count = f"frames not counted: the timestamps file '{ts_name}' that lists them is missing"
    elif v.playable_frames is None:
        count = f"{v.listed_frames} frames listed, not decoded (--quick)"
    elif v.unverified is not None:
        some = "all" if v.playable_frames == v.listed_frames else f"{v.playable_frames} of the"
        count = f"{some} {v.listed_frames} listed frames decode, not verified: {v.unverified}"
    elif v.playable_frames == v.listed_frames:
        count = f"{v.listed_frames} frames"
    elif rep.complete:
        count = f"{v.playable_frames} of {v.listed_frames} listed frames decode"
    else:
        count = f"{v.playable_frames} of {v.listed_frames} listed frames decode and play"
    if v.times_unverified is not None:
        count += f"; their times not verified: {v.times_unverified}"
    from sensekit.capture.base import drop_phrases
    from sensekit.capture.meta_reported import kept_entries

    _, scaled = drop_phrases(dict(kept_entries(rep.meta, "source_drops", None)))
    count += "".join(f"; {s} (the camera came back at another size)" for s in scaled)
    codec = "codec unknown" if "video.codec" in rep.damaged_meta else rep.meta["video"].get("codec", "FFV1")
    return f"{v.width}x{v.height} @ {rate}, {codec}, " + count


def _audio_line(rep: RecordingReport) -> str:
    a = rep.audio
    if a is None:
        return "none"
    ch = "mono" if a.channels == 1 else f"{a.channels} channels"
    wav = rep.meta["audio"]["file"]
    held = (f"{a.playable_samples} samples" if (rep.path / wav).is_file()
            else f"no samples: the audio file '{wav}' is missing")
    if rep.audio_skipped is not None:
        held = "no samples play: the audio is damaged (see problems)"
    return (f"{a.sample_rate} Hz {ch} int16, gain {a.gain:g}, {held}, "
            f"block {a.block_size}, offset {rep.meta['audio_offset_s']:.3f} s")


def _audio_missing(rep: RecordingReport) -> list[str]:
    """What the audio track lacks: gaps the recorder filled with silence (the source dropped
    blocks or lost its device), jumps it did not fill, and what the devices counted lost."""
    from sensekit.capture.base import drop_phrases
    from sensekit.capture.meta_reported import kept_entries

    meta, a = rep.meta, rep.audio
    out = []
    if a is not None and a.sample_rate:
        rate, offset = a.sample_rate, rep.meta["audio_offset_s"]
        padded = meta.get("audio_padded_samples")
        gaps = kept_entries(meta, "audio_gaps", rep.held_samples)
        if "audio_padded_samples" in rep.damaged_meta:
            out.append("the silence fill is not known: meta.json's `audio_padded_samples` is damaged")
        elif isinstance(padded, int) and not isinstance(padded, bool) and padded > 0:
            text = f"{padded / rate:.3f} s of silence fills "
            if gaps:
                at, n = max(gaps, key=lambda g: g[1])
                text += (f"{len(gaps)} gap{'' if len(gaps) == 1 else 's'} the source left (the longest "
                         f"{n / rate:.3f} s at {offset + at / rate:.3f} s)")
            else:
                text += "gaps the source left"
            out.append(text)
        for at, n in kept_entries(meta, "audio_jumps", rep.held_samples)[:3]:
            out.append(f"{n / rate:.3f} s of audio not kept at {offset + at / rate:.3f} s (a jump "
                       "longer than the recording had run): what follows plays that much early")
    lost, _ = drop_phrases(dict(kept_entries(meta, "source_drops", None)))
    if lost:
        out.append("the devices counted " + ", ".join(lost) + " while recording")
    return out


def _video_missing(rep: RecordingReport) -> list[str]:
    """Stretches with no frame (the camera lost while recording), the longest named."""
    gaps = rep.video.gaps if rep.video is not None else []
    if not gaps:
        return []
    at, n = max(gaps, key=lambda g: g[1])
    if len(gaps) == 1:
        return [f"no frame for {n:.3f} s at {at:.3f} s (the camera lost while recording?)"]
    return [f"no frame in {len(gaps)} stretches, {sum(g[1] for g in gaps):.3f} s in all (the longest "
            f"{n:.3f} s at {at:.3f} s; the camera lost while recording?)"]


def _track_lines(rep: RecordingReport) -> list[tuple[str, str]]:
    """The video and audio lines, and what the tracks miss when anything."""
    lines = [("video", ("\n" + INDENT).join(textwrap.wrap(_video_line(rep), 76))),
             ("audio", ("\n" + INDENT).join(textwrap.wrap(_audio_line(rep), 76)))]
    missing = _video_missing(rep) + _audio_missing(rep)
    if missing:
        lines.append(("missing", _bullets(missing)))
    return lines


def _started(rep: RecordingReport) -> str | None:
    """The ``started`` line: the date, or why it is unknown (``None``: no start recorded)."""
    if rep.start is not None:
        return rep.start
    if "start_unix" in rep.damaged_meta:
        return "unknown (meta.json's `start_unix` is damaged: see also)"
    if rep.meta["start_unix"] is not None:
        return f"unknown (start_unix {rep.meta['start_unix']!r} is not a date)"
    return None


def summary(path: Path, *, decode: bool = True) -> tuple[str, int]:
    """The printed report and the exit status (0 intact, 1 incomplete or damaged, or a value of
    meta.json that it reports damaged)."""
    from sensekit.capture.checksums import missing_checksums
    from sensekit.capture.recording_check import check_recording

    rep = check_recording(path, decode=decode)
    meta = rep.meta
    state = {"intact": "complete",
             "incomplete": "INCOMPLETE: the recorder stopped without finishing; replay plays "
                           "what it saved",
             "damaged": ("complete, but DAMAGED" if rep.complete else "INCOMPLETE and DAMAGED")
             + ": see problems"}[rep.status]
    if rep.status == "intact" and rep.damaged_meta:     # values replay does not read (meta_reported.py)
        state = "complete and replays whole, but meta.json is DAMAGED: see also"
    lines = [("recording", f"{printable(path.name)}  ({state})")]
    started = _started(rep)
    if started is not None:
        lines.append(("started", ("\n" + INDENT).join(textwrap.wrap(started, 76))))
    lines.append(("duration", f"{rep.duration_s:.3f} s"))
    v = rep.video
    lines += _track_lines(rep)
    lines.append(("sources", printable(", ".join(meta["sources"])) or "-"))
    files = []
    for name, size in rep.files:
        extra = f" {v.segments} segments" if v is not None and name == meta["video"].get("segments", "") + "/" else ""
        files.append(f"{printable(name)}{extra} {_size(size)}")
    lines.append(("files", _listed(files)))
    lines.append(("size", _size(sum(size for _, size in rep.files))))
    text = printable(meta["notes"].strip(), keep_newlines=True) or "-"
    wrapped = [w for para in text.split("\n") for w in (textwrap.wrap(para, 76) or [""])]
    lines.append(("notes", ("\n" + INDENT).join(wrapped)))
    if rep.problems:
        lines.append(("problems", _bullets(rep.problems)))
        if rep.missing:
            why = f"it is missing its {rep.missing[0]}" + (f" (and {len(rep.missing) - 1} more)"
                                                          if len(rep.missing) > 1 else "")
            lines.append(("replay", "\n".join(textwrap.wrap(f"refuses to open it: {why}", 76))
                          .replace("\n", "\n" + INDENT)))
        elif rep.complete:
            lines.append(("replay", "stops with an error at the first problem (a recording "
                                    "marked complete must be whole)"))
        elif rep.audio_skipped is not None:
            lines.append(("replay", "plays the video and skips the audio, which is damaged "
                                    "(one warning)"))
    if rep.notes:
        lines.append(("also", _bullets(rep.notes)))
    if rep.status == "intact" and missing_checksums(meta):
        hint = (f"{', '.join(missing_checksums(meta))} missing: `sensekit inspect "
                f"{printable(str(path))} --add-checksums` writes them")
        lines.append(("checksums", ("\n" + INDENT).join(textwrap.wrap(hint, 76, break_on_hyphens=False,
                                                                      break_long_words=False))))
    out = "\n".join(f"{k:<10} {val}" for k, val in lines)
    return out, 0 if rep.status == "intact" and not rep.damaged_meta else 1


def main(args: argparse.Namespace) -> int:
    from sensekit.capture.spec import parse_source_spec
    from sensekit.errors import SourceError
    from sensekit.paths import list_bundled
    from sensekit.suggest import close_matches, did_you_mean

    try:
        spec = parse_source_spec(args.rec)
    except SourceError:
        if Path(args.rec).exists():
            raise
        # the source specs (camera:, mic:, ...) the message listed are nothing inspect reads
        bundled = list_bundled()
        hint = did_you_mean(close_matches(str(args.rec).removesuffix(".skrec"), bundled))
        raise SourceError(f"no such recording: {args.rec!r}{'; ' + hint if hint else ''} (a recording "
                          "folder such as take1.skrec, made by `sensekit record`"
                          + (f", or a bundled one: {', '.join(bundled)}" if bundled else "") + ")") from None
    target = Path(str(spec.target)) if spec.kind in ("replay", "file") else Path(args.rec)
    if args.add_checksums:
        from sensekit.capture.checksums_add import add_checksums

        written = add_checksums(target)
        if written:
            print("wrote " + ", ".join(f"{name} ({rows} rows)" for name, rows in written.items())
                  + "; meta.json names them")
        else:
            print(f"{printable(target.name)} has every checksum file already; nothing written")
    text, status = summary(target, decode=not args.quick)
    print(text)
    return status
