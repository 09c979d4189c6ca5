"""A recording's ``meta.json`` and ``video_ts.csv``: names, schema, reading, atomic writing.

- ``read_meta(folder)`` reads and validates ``meta.json`` (format versions 1
  and 2) and fills in defaults (``notes``, ``audio_offset_s``, ``sources``,
  counts, ``audio.block_size``, the video file names).
- ``write_json_atomic(path, data)`` writes a temporary file, fsyncs it,
  renames it over ``path`` and fsyncs the folder, so a reader sees the old or the
  new file, never a torn one, and a power cut after it returns keeps the new one.
- ``read_timestamps(path, complete=...)`` parses ``video_ts.csv``.
- ``named_files(video, audio, version)`` lists the files ``meta.json`` names: ``read_meta``
  checks each is a file, replay and ``sensekit inspect`` that each is there
  (``missing_named_files``).

Version 1 stores the video in one ``video.mkv`` (``video.file``); version 2,
written since the crash-safety rework, in half-second segments under
``video.segments`` (see ``sensekit.capture.video_segments``). Both are read.

Cost: one small file read each. Failure modes: ``RecordingError`` naming the
file and the field or row, quoting the bad value.
"""
from __future__ import annotations

import json
import math
import os
import zlib
from pathlib import Path
from collections.abc import Callable
from itertools import pairwise
from typing import Any

import numpy as np

from sensekit.atomic import fsync_folder
from sensekit.capture.base import UNITY_GAIN
from sensekit.capture.checksums import (CHECKSUM_FILES, TIMESTAMPS_CRC_HEADER, checksums_cap, read_checksums,
                                        recorded_lines)
from sensekit.capture.wav import MAX_NONFINITE_RUNS
from sensekit.errors import RecordingError
from sensekit.safe_read import file_kind, loads_json, read_regular, short

FORMAT = "sensekit-recording"
VERSION = 2                       # what the Recorder writes
READABLE_VERSIONS = (1, 2)
META_FILE = "meta.json"
VIDEO_FILE = "video.mkv"          # version 1: the whole video in one file
SEGMENTS_DIR = "video"            # version 2: half-second segments
PLAYLIST_FILE = "video.ffconcat"  # version 2: the segments in order, for ffplay/ffmpeg
TIMESTAMPS_FILE = "video_ts.csv"
AUDIO_FILE = "audio.wav"
TIMESTAMPS_HEADER = "index,t"
DEFAULT_BLOCK_SIZE = 512
FPS_FROM = ("timestamps", "source")
_MAX_META_BYTES = 1 << 20
_MAX_META_DEPTH = 8
#: bytes per row of ``video_ts.csv`` at most ("index,t\n": 20 digits, a comma, 25 characters)
_MAX_TS_ROW_BYTES = 48
#: ``video_ts.csv`` of a recording whose frame count is unknown (killed): 12 days at 30 fps
MAX_TIMESTAMPS_BYTES = 256 << 20
#: rows an unfinished recording may hold beyond the frames ``meta.json`` counts: the frames
#: written between two of its updates (half a second; the first segment holds up to 60 while
#: the rate is measured), with room to spare (196 kB at most)
UNCOMMITTED_ROWS = 4096
#: the most a recording's audio may start before 0 s or after its last frame (seconds)
MAX_TRACK_GAP_S = 60.0


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(float(v)))


def _plain_name(v: Any) -> bool:
    return isinstance(v, str) and v != "" and Path(v).name == v and v not in (".", "..")


def read_meta(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read and validate a recording's ``meta.json``; ``RecordingError`` if anything is off.

    Returns the parsed dict with defaults filled in (``notes``, ``audio_offset_s``,
    ``sources``, counts, ``audio.block_size`` and the video's file names: ``file``
    for version 1, ``segments`` and ``playlist`` for version 2).
    """
    rec = Path(path)
    label = rec.name or str(rec)
    loaded = _load_meta(rec, label)

    def bad(what: str) -> RecordingError:
        return RecordingError(f"'{label}/meta.json': {what}")

    meta, version = _check_header(loaded, bad)
    for key in ("video", "audio"):
        if key not in meta:
            raise bad(f"missing `{key}` (null when the recording has no {key})")
    video, audio = meta["video"], meta["audio"]
    if video is not None:
        _check_video(video, version, bad)
    if audio is not None:
        _check_audio(audio, bad)
    _check_tracks_held(rec, video, audio, bad)
    _check_top_level(meta, bad)
    _check_named_files(rec, label, video, audio, version)
    if meta["complete"]:
        if video is not None and meta["frames"] is None:
            raise bad("recording is marked complete but has no `frames` count")
        if audio is not None and meta["audio_samples"] is None:
            raise bad("recording is marked complete but has no `audio_samples` count")
    return meta


_Bad = Callable[[str], RecordingError]


def _load_meta(rec: Path, label: str) -> Any:
    """The parsed ``meta.json`` of the folder ``rec`` (any JSON value; bounded read)."""
    if not rec.exists():
        raise RecordingError(f"recording '{label}' does not exist ({rec})")
    if not rec.is_dir():
        kind = file_kind(rec)
        if kind is not None:
            raise RecordingError(f"recording '{label}' is {kind}, not a recording folder")
        raise RecordingError(f"recording '{label}' is not a folder (is it a recording?)")
    try:
        raw = read_regular(rec / META_FILE, max_bytes=_MAX_META_BYTES, what=f"'{label}/meta.json'",
                           error=RecordingError)
    except FileNotFoundError:
        raise RecordingError(f"recording '{label}' has no meta.json (is it a recording folder?)") from None
    return loads_json(raw, what=f"'{label}/meta.json'", max_depth=_MAX_META_DEPTH, error=RecordingError)


def _check_header(meta: Any, bad: _Bad) -> tuple[dict[str, Any], int]:
    """An object of our format in a readable version; returns it and the version."""
    if not isinstance(meta, dict):
        raise bad(f"expected a JSON object, got {type(meta).__name__}")
    if meta.get("format") != FORMAT:
        raise bad(f"`format` must be {short(FORMAT)}, got {short(meta.get('format'))}")
    version: Any = meta.get("version")
    readable = ", ".join(map(str, READABLE_VERSIONS))
    if _is_int(version) and version > max(READABLE_VERSIONS):
        raise bad(f"`version` {version} is newer than this sensekit reads ({readable}): "
                  f"update sensekit to replay it")
    if not _is_int(version) or version not in READABLE_VERSIONS:
        what = "missing `version`" if version is None else f"unknown `version` {short(version)}"
        raise bad(f"{what} (sensekit writes {readable}; is meta.json damaged?)")
    return meta, int(version)


def _check_video(video: Any, version: int, bad: _Bad) -> None:
    """The ``video`` object: size, rate, file names (defaults filled in)."""
    if not isinstance(video, dict):
        raise bad(f"`video` must be an object or null, got {short(video)}")
    for key in ("width", "height"):
        if not _is_int(video.get(key)) or not 0 < video[key] <= 16384:
            raise bad(f"`video.{key}` must be a positive integer, got {short(video.get(key))}")
    if not _is_num(video.get("fps")) or not 0 < video["fps"] <= 1000:
        raise bad(f"`video.fps` must be a positive number, got {short(video.get('fps'))}")
    if version == 1:
        names = {"file": VIDEO_FILE, "timestamps": TIMESTAMPS_FILE}
    else:
        names = {"segments": SEGMENTS_DIR, "playlist": PLAYLIST_FILE, "timestamps": TIMESTAMPS_FILE}
        _check_fps_source(video, bad)
    for key, default in names.items():
        video.setdefault(key, default)
        if not _plain_name(video[key]):
            raise bad(f"`video.{key}` must be a file name, got {short(video[key])}")
    for key in ("checksums", "timestamps_checksums"):
        video.setdefault(key, None)                    # recorded before these checksums: None
        if video[key] is not None and not _plain_name(video[key]):
            raise bad(f"`video.{key}` must be a file name or null, got {short(video[key])}")


def _check_fps_source(video: dict[str, Any], bad: _Bad) -> None:
    """Version 2: where ``fps`` came from, and the measured rate."""
    video.setdefault("fps_from", "source")
    if video["fps_from"] not in FPS_FROM:
        raise bad(f"`video.fps_from` must be one of {list(FPS_FROM)}, got {short(video['fps_from'])}")
    measured = video.get("fps_measured")
    if measured is not None and (not _is_num(measured) or measured <= 0):
        raise bad(f"`video.fps_measured` must be a positive number, got {short(measured)}")


def _check_audio(audio: Any, bad: _Bad) -> None:
    """The ``audio`` object: rate, channels, gain, sample format, file names, block sizes."""
    if not isinstance(audio, dict):
        raise bad(f"`audio` must be an object or null, got {short(audio)}")
    if not _is_int(audio.get("sample_rate")) or not 0 < audio["sample_rate"] <= 1_000_000:
        raise bad(f"`audio.sample_rate` must be a positive integer, "
                  f"got {short(audio.get('sample_rate'))}")
    if not _is_int(audio.get("channels")) or not 0 < audio["channels"] <= 64:
        raise bad(f"`audio.channels` must be 1..64, got {short(audio.get('channels'))}")
    audio.setdefault("gain", UNITY_GAIN)      # read side only: never written back
    if not _is_num(audio["gain"]) or not 0 <= audio["gain"] <= 100:
        raise bad(f"`audio.gain` must be 0..100, got {short(audio['gain'])}")
    audio.setdefault("sample_format", "int16")
    if audio["sample_format"] != "int16":
        raise bad(f"`audio.sample_format` must be 'int16', got {short(audio['sample_format'])}")
    audio.setdefault("file", AUDIO_FILE)
    if not _plain_name(audio["file"]):
        raise bad(f"`audio.file` must be a file name, got {short(audio['file'])}")
    _check_audio_blocks(audio, bad)


def _check_audio_blocks(audio: dict[str, Any], bad: _Bad) -> None:
    """``block_size``, the checksum file and the samples each checksum covers."""
    bs = audio.get("block_size")
    if bs is None:
        audio["block_size"] = DEFAULT_BLOCK_SIZE
    elif not _is_int(bs) or not 0 < bs <= 1 << 20:
        raise bad(f"`audio.block_size` must be a positive integer, got {short(bs)}")
    audio.setdefault("checksums", None)
    if audio["checksums"] is not None and not _plain_name(audio["checksums"]):
        raise bad(f"`audio.checksums` must be a file name or null, got {short(audio['checksums'])}")
    cb = audio.get("checksum_block")
    if cb is None:
        audio["checksum_block"] = audio["block_size"]
    elif not _is_int(cb) or not 0 < cb <= 1 << 20:
        raise bad(f"`audio.checksum_block` must be a positive integer, got {short(cb)}")
    runs = audio.setdefault("nonfinite", [])
    if (not isinstance(runs, list) or len(runs) > MAX_NONFINITE_RUNS
            or not all(isinstance(r, list) and len(r) == 2 and all(map(_is_int, r)) and 0 <= r[0] < r[1]
                       for r in runs)
            or any(a[1] > b[0] for a, b in pairwise(runs))):
        raise bad(f"`audio.nonfinite` must be at most {MAX_NONFINITE_RUNS} sorted [start, stop) sample runs, "
                  f"got {short(runs)}")


def _check_tracks_held(rec: Path, video: Any, audio: Any, bad: _Bad) -> None:
    """At least one track, and no track's files in the folder when meta.json says it has none."""
    if video is None and audio is None:
        raise bad("has neither `video` nor `audio`")
    if video is None:                    # a damaged meta.json must not hide a track silently
        held = [n for n in (SEGMENTS_DIR, VIDEO_FILE, TIMESTAMPS_FILE) if os.path.lexists(rec / n)]
        if held:
            raise bad(f"`video` is null but the recording holds video ({', '.join(held)})")
    if audio is None and os.path.lexists(rec / AUDIO_FILE):
        raise bad(f"`audio` is null but the recording holds audio ({AUDIO_FILE})")
    tracks = {"video": video, "audio": audio}
    for track, key, name in CHECKSUM_FILES:      # nor a checksum file: its track would play unverified
        if tracks[track] is not None and tracks[track][key] is None and os.path.lexists(rec / name):
            raise bad(f"the recording holds '{name}' but meta.json does not name it (`{track}.{key}` is "
                      "null): its checksums would go unchecked; name it, or move it away if it is not this "
                      "recording's")


def _check_top_level(meta: dict[str, Any], bad: _Bad) -> None:
    """``complete``, ``audio_offset_s``, ``start_unix``, ``notes``, ``sources`` and the counts."""
    meta.setdefault("complete", False)
    if not isinstance(meta["complete"], bool):
        raise bad(f"`complete` must be true or false, got {short(meta['complete'])}")
    meta.setdefault("audio_offset_s", 0.0)
    if not _is_num(meta["audio_offset_s"]):
        raise bad(f"`audio_offset_s` must be a number, got {short(meta['audio_offset_s'])}")
    meta.setdefault("start_unix", None)
    if meta["start_unix"] is not None and not _is_num(meta["start_unix"]):
        raise bad(f"`start_unix` must be a number or null, got {short(meta['start_unix'])}")
    meta.setdefault("notes", "")
    if not isinstance(meta["notes"], str):
        raise bad(f"`notes` must be a string, got {short(meta['notes'])}")
    meta.setdefault("sources", [])
    if not isinstance(meta["sources"], list) or not all(isinstance(s, str) for s in meta["sources"]):
        raise bad(f"`sources` must be a list of strings, got {short(meta['sources'])}")
    for key in ("frames", "audio_samples"):
        meta.setdefault(key, None)
        v = meta[key]
        if v is not None and (not _is_int(v) or v < 0):
            raise bad(f"`{key}` must be a non-negative integer, got {short(v)}")


def named_files(video: dict[str, Any] | None, audio: dict[str, Any] | None,
                version: int) -> list[tuple[str, str, str]]:
    """Every file and folder a checked ``meta.json`` names, as ``(what, name, kind)`` with
    ``kind`` "file", "folder" or "optional" (a file only players use: v2's playlist), in the
    order replay needs them: video (v1's file, v2's segments folder), timestamps, playlist,
    audio, the checksum files."""
    named: list[tuple[str, str, str]] = []
    if video is not None:
        named += [("video file", video["file"], "file") if version == 1
                  else ("video folder", video["segments"], "folder"),
                  ("timestamps file", video["timestamps"], "file")]
        if version != 1:
            named.append(("playlist", video["playlist"], "optional"))
    if audio is not None:
        named.append(("audio file", audio["file"], "file"))
    named += [("checksum file", t["checksums"], "file") for t in (video, audio) if t is not None and t["checksums"]]
    if video is not None and video["timestamps_checksums"]:
        named.append(("timestamps checksum file", video["timestamps_checksums"], "file"))
    return named


def _check_named_files(rec: Path, label: str, video: Any, audio: Any, version: int) -> None:
    """Every file meta.json names is a file (not a folder, a FIFO, a device), if it is there."""
    for _, name, kind in named_files(video, audio, version):
        odd = file_kind(rec / name) if kind != "folder" else None
        if odd is not None:
            raise RecordingError(f"'{label}/{name}' is {odd}, not a file")


def missing_named_files(rec: Path, meta: dict[str, Any]) -> list[str]:
    """The files ``meta.json`` names that are not there, each as "what 'name'" (``video file
    'video.mkv'``, ``checksum file 'video_crc.csv'``), in the order replay needs them. Replay
    refuses a recording for which this is not empty, complete or not (the playlist, which only
    players read, is not needed)."""
    return [f"{what} '{name}'" for what, name, kind in named_files(meta["video"], meta["audio"], meta["version"])
            if kind != "optional" and not ((rec / name).is_dir() if kind == "folder" else (rec / name).is_file())]


def write_json_atomic(path: Path, data: dict[str, Any], *, fsync: bool = True) -> None:
    """Write ``data`` as indented JSON to ``path`` via a temporary file and ``os.replace``; with
    ``fsync`` the file and then its folder are fsynced (without the folder a power cut soon
    after could lose the rename and bring the previous ``meta.json`` back)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(data, indent=2, sort_keys=True) + "\n")
        f.flush()
        if fsync:
            os.fsync(f.fileno())
    os.replace(tmp, path)
    if fsync:
        fsync_folder(path.parent)


def audio_offset_problem(meta: dict[str, Any], last_frame_t: float | None) -> str | None:
    """What is wrong with ``audio_offset_s`` given the last frame's time (``None``: no frames),
    or ``None``. The recorder starts both tracks within the moments its source takes to give
    them, so the audio starts at most ``MAX_TRACK_GAP_S`` before 0 or after the last frame; a
    value beyond is damage (``1e9`` made a replay wait, or an app simulate, 30 years for it)."""
    offset = float(meta["audio_offset_s"])
    last = max(0.0, last_frame_t or 0.0)
    if -MAX_TRACK_GAP_S <= offset <= last + MAX_TRACK_GAP_S:
        return None
    where = "there is no frame" if last_frame_t is None else f"the last frame is at {last:.3f} s"
    return (f"`audio_offset_s` is {short(offset)} s and {where}: a recording's audio starts at most "
            f"{MAX_TRACK_GAP_S:g} s before 0 or after its last frame (is meta.json damaged?)")


# --- timestamps -----------------------------------------------------------------

def timestamps_cap(frames: int | None, *, complete: bool = True) -> int:
    """The most bytes a ``video_ts.csv`` of ``frames`` rows (``None``: unknown) may have.

    An unfinished recording (``complete=False``: being written, killed, or stopped by a full
    disk) may also hold the rows of frames not committed yet - the recorder writes a frame's row
    before the segment holding it is committed, and ``meta.json`` counts committed frames only -
    so it may hold ``UNCOMMITTED_ROWS`` more.
    """
    if frames is None:
        return MAX_TIMESTAMPS_BYTES
    rows = frames + 1 + (0 if complete else UNCOMMITTED_ROWS)
    return min(MAX_TIMESTAMPS_BYTES, len(TIMESTAMPS_HEADER) + 1 + rows * _MAX_TS_ROW_BYTES)


def read_timestamps(path: Path, *, complete: bool, max_bytes: int = MAX_TIMESTAMPS_BYTES,
                    row_crcs: np.ndarray | None = None,
                    warn: Callable[[str], None] | None = None) -> np.ndarray:
    """Parse ``video_ts.csv`` into a float64 array of frame times.

    For a complete recording any bad row is a ``RecordingError``; for an
    incomplete one the intact prefix is returned (a killed recorder may leave a
    partial last line). A file that is not a regular file or is longer than
    ``max_bytes`` (see ``timestamps_cap``) is a ``RecordingError`` before it is read.
    ``row_crcs`` (``video_ts_crc.csv``, when the recording has it) are the rows' CRC-32s: a
    row that does not match is a bad row; rows past them (a killed recorder's last ones, in an
    incomplete recording) are read unverified. In an incomplete recording the times stop
    before a row that does not match, and ``warn`` is told so in one line.
    """
    name = path.name
    lines = _timestamp_lines(path, complete=complete, max_bytes=max_bytes)
    if not lines:
        return np.zeros(0)
    if lines[0].strip() != TIMESTAMPS_HEADER.encode():
        raise RecordingError(f"'{name}' does not start with the header {TIMESTAMPS_HEADER!r}, "
                             f"got {lines[0][:40]!r}")
    times: list[float] = []
    prev = -math.inf
    for n, line in enumerate(lines[1:]):
        t, problem = _timestamp_row(line, n, prev)
        if problem is None and row_crcs is not None and _row_damaged(name, line, n, row_crcs, complete, warn):
            break
        if problem is not None:
            if complete:
                raise RecordingError(f"'{name}' row {n + 2} is invalid ({problem}): "
                                     f"{line[:60].decode('utf-8', 'replace')!r}")
            break
        times.append(t)
        prev = t
    return np.asarray(times, dtype=np.float64)


def read_video_times(rec: Path, video: dict[str, Any], frames: int | None, *, complete: bool,
                     warn: Callable[[str], None] | None = None) -> np.ndarray:
    """A recording's frame times (``video_ts.csv``, capped by ``timestamps_cap``), each row checked
    against ``video_ts_crc.csv`` when the recording has it (``video.timestamps_checksums``;
    recordings made before it are read unverified). See ``read_timestamps``."""
    crcs = None
    if video.get("timestamps_checksums"):
        rows = None if frames is None else frames + (0 if complete else UNCOMMITTED_ROWS)
        crcs = read_checksums(rec / video["timestamps_checksums"], TIMESTAMPS_CRC_HEADER, complete=complete,
                              max_bytes=checksums_cap(rows))
    times = read_timestamps(rec / video["timestamps"], complete=complete,
                            max_bytes=timestamps_cap(frames, complete=complete), row_crcs=crcs, warn=warn)
    if complete and crcs is not None and len(crcs) != len(times):
        raise RecordingError(f"'{video['timestamps_checksums']}' lists {len(crcs)} checksums for "
                             f"{len(times)} timestamps")
    return times


def _timestamp_lines(path: Path, *, complete: bool, max_bytes: int) -> list[bytes]:
    """The file's whole lines (an incomplete recording's partial last line dropped)."""
    name = path.name
    lines = recorded_lines(path, complete=complete, max_bytes=max_bytes,
                           missing=f"cannot read '{name}': no such file")
    if not lines and complete:
        raise RecordingError(f"'{name}' is empty (expected the header {TIMESTAMPS_HEADER!r})")
    return lines


def _row_damaged(name: str, line: bytes, n: int, row_crcs: np.ndarray, complete: bool,
                 warn: Callable[[str], None] | None) -> bool:
    """Whether row ``n`` fails its checksum (a ``RecordingError`` in a complete recording; in an
    incomplete one ``warn`` is told, and rows past the checksums play unverified)."""
    if n >= len(row_crcs):
        if not complete:
            return False
        damage = "has no checksum"
    elif zlib.crc32(line) & 0xFFFFFFFF != int(row_crcs[n]):
        damage = "does not match its checksum"
    else:
        return False
    text = f"'{name}' row {n + 2} (frame {n}) {damage}"
    if complete:
        raise RecordingError(f"{text}: the timestamps are damaged")
    if warn is not None:
        warn(f"{text}: the frames from there on are not played")
    return True


def _timestamp_row(line: bytes, n: int, prev: float) -> tuple[float, str | None]:
    """Row ``n`` ("index,t"): its time, or what is wrong with it."""
    parts = line.split(b",")
    if len(parts) != 2:
        return 0.0, "expected 2 columns"
    try:
        idx = int(parts[0])
        t = float(parts[1])
    except ValueError:
        return 0.0, "not numbers"
    if idx != n:
        return t, f"index {idx} where {n} was expected"
    if not math.isfinite(t) or t < prev:
        return t, f"time {t!r} is not finite or goes backwards"
    return t, None


