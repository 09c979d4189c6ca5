"""The recording format: ``Recorder`` writes it, ``ReplaySource`` plays it back.

A recording is a folder ``NAME.skrec/`` holding

- ``meta.json``: format name and version, the sources, the video and audio
  parameters, the wall-clock start, the audio offset, free notes, ``complete``
  and the counts. Written when recording starts (``complete: false``), rewritten
  atomically (temp file + ``os.replace``) at every flush and on close.
- ``video.mkv``: lossless FFV1 in Matroska, written with ``cv2.VideoWriter``;
  it reads back bit-exact.
- ``video_ts.csv``: ``index,t`` then one row per frame, ``t`` in seconds from the
  recording start with 6 decimals.
- ``audio.wav``: PCM int16. Float samples are clipped to [-1, 1), scaled by
  32768 and rounded, so int16 microphones round-trip exactly. Audio is stored
  contiguously: when a block starts later than the samples so far reach (the
  microphone dropped blocks), the gap, up to 10 s, is filled with silence so
  audio stays in sync with video (counted in ``audio_padded_samples``).

Crash safety: once per second of recording time the timestamps are flushed and
fsync'd, the WAV header's RIFF and data sizes are patched and fsync'd, and
``meta.json`` is rewritten. A recorder killed with SIGKILL therefore leaves a
recording that replays up to its last flushed second (the FFV1 writer keeps a few
frames in its own buffers; replay uses ``min(decoded frames, timestamp rows)``).

Replay is bit-for-bit deterministic: frames carry their recorded ``t``; audio is
cut into blocks of ``block_size`` samples (default 512, or as recorded) with
``t = audio_offset_s + first_sample / rate``; both are interleaved by ``t`` with
video first on ties. ``realtime=True`` paces by a clock (``sensekit.clock``), so
results never depend on the machine; ``loop=True`` restarts and keeps ``t`` and
``index`` increasing.

Cost: replay decodes one FFV1 frame per video item (~1-5 ms at 320x240) and reads
audio blocks straight from the file; nothing is loaded whole.

Failure modes: every bad recording raises ``RecordingError`` naming the file and
the problem (missing ``meta.json``, invalid meta, missing files, timestamps that
do not parse, a WAV whose length disagrees with meta, a video with fewer
decodable frames than timestamps). A recording marked *incomplete* (the recorder
was killed) replays whatever is intact instead. A truncated video is detected
while reading, when the decoder runs out before the timestamps do.
"""
from __future__ import annotations

import json
import logging
import math
import os
import signal
import struct
import sys
import threading
import time
import zlib
from pathlib import Path
from typing import Any, BinaryIO, Iterator, Sequence

import numpy as np

from sensekit.capture.base import AudioBlock, Item, Source, VideoFrame, merge_by_time
from sensekit.clock import Clock, MonotonicClock
from sensekit.errors import ConfigError, RecordingError
from sensekit.validate import check_positive, check_range

log = logging.getLogger(__name__)

FORMAT = "sensekit-recording"
VERSION = 1
META_FILE = "meta.json"
VIDEO_FILE = "video.mkv"
TIMESTAMPS_FILE = "video_ts.csv"
AUDIO_FILE = "audio.wav"
TIMESTAMPS_HEADER = "index,t"
DEFAULT_BLOCK_SIZE = 512
FLUSH_INTERVAL_S = 1.0
MAX_PAD_S = 10.0           # longest audio gap the recorder fills with silence
_MAX_META_BYTES = 1 << 20
_MAX_WAV_DATA = 0xFFFFFFFF - 36


# --- sample conversion --------------------------------------------------------

def float_to_int16(samples: np.ndarray) -> np.ndarray:
    """Float samples (full scale 1.0) to int16: clip to [-1, 1), x32768, round.

    int16 input is returned unchanged; NaN becomes 0.
    """
    a = np.asarray(samples)
    if a.dtype == np.int16:
        return a
    f = np.nan_to_num(a.astype(np.float64, copy=False), nan=0.0, posinf=1.0, neginf=-1.0)
    return np.clip(np.rint(f * 32768.0), -32768, 32767).astype(np.int16)


def int16_to_float(samples: np.ndarray) -> np.ndarray:
    """int16 samples to float32 with full scale 1.0 (exact inverse of ``float_to_int16``)."""
    return (np.asarray(samples, dtype=np.int16).astype(np.float32) / np.float32(32768.0))


# --- WAV ----------------------------------------------------------------------

class WavWriter:
    """A PCM int16 WAV writer whose header is valid after every ``flush()``.

    The header starts with zero sizes; ``flush()`` patches the RIFF and data
    sizes to what has been written so far and fsyncs, so a killed writer leaves a
    WAV that ordinary tools read up to its last flush.
    """

    def __init__(self, path: str | os.PathLike, rate: int, channels: int) -> None:
        self.path = Path(path)
        self.rate = int(rate)
        self.channels = int(channels)
        self.frames = 0                      # samples per channel written
        self._f: BinaryIO | None = open(self.path, "wb")
        block_align = 2 * self.channels
        header = struct.pack(
            "<4sI4s4sIHHIIHH4sI",
            b"RIFF", 36, b"WAVE", b"fmt ", 16, 1, self.channels, self.rate,
            self.rate * block_align, block_align, 16, b"data", 0,
        )
        self._f.write(header)

    def write(self, samples: np.ndarray) -> None:
        """Append int16 samples shaped ``(n,)`` (mono) or ``(n, channels)``."""
        if self._f is None:
            raise RecordingError(f"WAV writer for '{self.path}' is closed")
        data = np.ascontiguousarray(samples, dtype="<i2")
        n = data.shape[0]
        if (self.frames + n) * 2 * self.channels > _MAX_WAV_DATA:
            raise RecordingError(f"'{self.path}' would exceed the 4 GB WAV limit")
        self._f.write(data.tobytes())
        self.frames += n

    def flush(self, *, fsync: bool = True) -> None:
        """Patch the header sizes to the samples written so far, then fsync."""
        if self._f is None:
            return
        f = self._f
        data_bytes = self.frames * 2 * self.channels
        f.flush()
        end = f.tell()
        f.seek(4)
        f.write(struct.pack("<I", 36 + data_bytes))
        f.seek(40)
        f.write(struct.pack("<I", data_bytes))
        f.seek(end)
        f.flush()
        if fsync:
            os.fsync(f.fileno())

    def close(self) -> None:
        if self._f is not None:
            self.flush()
            self._f.close()
            self._f = None


class WavInfo:
    """Where the samples are in a PCM int16 WAV file and how many there are."""

    def __init__(self, rate: int, channels: int, data_offset: int, declared_frames: int,
                 available_frames: int) -> None:
        self.rate = rate
        self.channels = channels
        self.data_offset = data_offset
        self.declared_frames = declared_frames      # from the data chunk's size
        self.available_frames = available_frames    # what the file actually holds


def read_wav_info(path: Path) -> WavInfo:
    """Parse a PCM int16 WAV header; ``RecordingError`` naming the file on anything odd."""
    name = path.name
    try:
        size = path.stat().st_size
        with open(path, "rb") as f:
            head = f.read(12)
            if len(head) < 12 or head[:4] != b"RIFF" or head[8:12] != b"WAVE":
                raise RecordingError(f"'{name}' is not a WAV file (no RIFF/WAVE header)")
            pos = 12
            fmt: tuple[int, ...] | None = None
            while True:
                f.seek(pos)
                ch = f.read(8)
                if len(ch) < 8:
                    raise RecordingError(f"'{name}' has no data chunk")
                cid, csize = ch[:4], struct.unpack("<I", ch[4:])[0]
                if cid == b"fmt ":
                    body = f.read(min(csize, 64))
                    if len(body) < 16:
                        raise RecordingError(f"'{name}' has a truncated fmt chunk")
                    fmt = struct.unpack("<HHIIHH", body[:16])
                elif cid == b"data":
                    if fmt is None:
                        raise RecordingError(f"'{name}' has a data chunk before its fmt chunk")
                    tag, channels, rate, _, align, bits = fmt
                    if tag not in (1, 0xFFFE) or bits != 16:
                        raise RecordingError(
                            f"'{name}' is not PCM int16 (format tag {tag}, {bits} bits)")
                    if channels < 1 or rate < 1 or align != 2 * channels:
                        raise RecordingError(
                            f"'{name}' has an invalid fmt chunk ({channels} channels, "
                            f"{rate} Hz, block align {align})")
                    data_offset = pos + 8
                    available = max(0, size - data_offset) // align
                    return WavInfo(rate, channels, data_offset, csize // align, available)
                pos += 8 + csize + (csize & 1)
                if pos >= size:
                    raise RecordingError(f"'{name}' has no data chunk")
    except OSError as exc:
        raise RecordingError(f"cannot read '{name}': {exc.strerror or exc}") from None


# --- meta.json ------------------------------------------------------------------

def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(float(v)))


def _plain_name(v: Any) -> bool:
    return isinstance(v, str) and v != "" and Path(v).name == v and v not in (".", "..")


def read_meta(path: str | os.PathLike) -> dict[str, Any]:
    """Read and validate a recording's ``meta.json``; ``RecordingError`` if anything is off.

    Returns the parsed dict with defaults filled in (``notes``, ``audio_offset_s``,
    ``sources``, counts and ``audio.block_size``).
    """
    rec = Path(path)
    label = rec.name or str(rec)
    if not rec.exists():
        raise RecordingError(f"recording '{label}' does not exist ({rec})")
    if not rec.is_dir():
        raise RecordingError(f"recording '{label}' is not a folder (is it a recording?)")
    meta_path = rec / META_FILE
    if not meta_path.is_file():
        raise RecordingError(f"recording '{label}' has no meta.json (is it a recording folder?)")
    try:
        raw = meta_path.read_bytes()[: _MAX_META_BYTES + 1]
    except OSError as exc:
        raise RecordingError(f"cannot read '{label}/meta.json': {exc.strerror or exc}") from None
    if len(raw) > _MAX_META_BYTES:
        raise RecordingError(f"'{label}/meta.json' is larger than 1 MB; not a sensekit meta file")
    try:
        meta = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise RecordingError(f"'{label}/meta.json' is not valid JSON: {exc}") from None

    def bad(what: str) -> RecordingError:
        return RecordingError(f"'{label}/meta.json': {what}")

    if not isinstance(meta, dict):
        raise bad(f"expected a JSON object, got {type(meta).__name__}")
    if meta.get("format") != FORMAT:
        raise bad(f"`format` must be {FORMAT!r}, got {meta.get('format')!r}")
    if meta.get("version") != VERSION or not _is_int(meta.get("version")):
        raise bad(f"unsupported `version` {meta.get('version')!r} (this sensekit reads {VERSION})")

    for key in ("video", "audio"):
        if key not in meta:
            raise bad(f"missing `{key}` (null when the recording has no {key})")
    video = meta["video"]
    if video is not None:
        if not isinstance(video, dict):
            raise bad(f"`video` must be an object or null, got {video!r}")
        for key in ("width", "height"):
            if not _is_int(video.get(key)) or not 0 < video[key] <= 16384:
                raise bad(f"`video.{key}` must be a positive integer, got {video.get(key)!r}")
        if not _is_num(video.get("fps")) or not 0 < video["fps"] <= 1000:
            raise bad(f"`video.fps` must be a positive number, got {video.get('fps')!r}")
        video.setdefault("file", VIDEO_FILE)
        video.setdefault("timestamps", TIMESTAMPS_FILE)
        for key in ("file", "timestamps"):
            if not _plain_name(video[key]):
                raise bad(f"`video.{key}` must be a file name, got {video[key]!r}")
    audio = meta["audio"]
    if audio is not None:
        if not isinstance(audio, dict):
            raise bad(f"`audio` must be an object or null, got {audio!r}")
        if not _is_int(audio.get("sample_rate")) or not 0 < audio["sample_rate"] <= 1_000_000:
            raise bad(f"`audio.sample_rate` must be a positive integer, "
                      f"got {audio.get('sample_rate')!r}")
        if not _is_int(audio.get("channels")) or not 0 < audio["channels"] <= 64:
            raise bad(f"`audio.channels` must be 1..64, got {audio.get('channels')!r}")
        audio.setdefault("gain", 50)
        if not _is_num(audio["gain"]) or not 0 <= audio["gain"] <= 100:
            raise bad(f"`audio.gain` must be 0..100, got {audio['gain']!r}")
        audio.setdefault("sample_format", "int16")
        if audio["sample_format"] != "int16":
            raise bad(f"`audio.sample_format` must be 'int16', got {audio['sample_format']!r}")
        audio.setdefault("file", AUDIO_FILE)
        if not _plain_name(audio["file"]):
            raise bad(f"`audio.file` must be a file name, got {audio['file']!r}")
        bs = audio.get("block_size")
        if bs is None:
            audio["block_size"] = DEFAULT_BLOCK_SIZE
        elif not _is_int(bs) or not 0 < bs <= 1 << 20:
            raise bad(f"`audio.block_size` must be a positive integer, got {bs!r}")
    if video is None and audio is None:
        raise bad("has neither `video` nor `audio`")

    meta.setdefault("complete", False)
    if not isinstance(meta["complete"], bool):
        raise bad(f"`complete` must be true or false, got {meta['complete']!r}")
    meta.setdefault("audio_offset_s", 0.0)
    if not _is_num(meta["audio_offset_s"]):
        raise bad(f"`audio_offset_s` must be a number, got {meta['audio_offset_s']!r}")
    meta.setdefault("start_unix", None)
    if meta["start_unix"] is not None and not _is_num(meta["start_unix"]):
        raise bad(f"`start_unix` must be a number or null, got {meta['start_unix']!r}")
    meta.setdefault("notes", "")
    if not isinstance(meta["notes"], str):
        raise bad(f"`notes` must be a string, got {meta['notes']!r}")
    meta.setdefault("sources", [])
    if not isinstance(meta["sources"], list) or not all(isinstance(s, str) for s in meta["sources"]):
        raise bad(f"`sources` must be a list of strings, got {meta['sources']!r}")
    for key in ("frames", "audio_samples"):
        meta.setdefault(key, None)
        v = meta[key]
        if v is not None and (not _is_int(v) or v < 0):
            raise bad(f"`{key}` must be a non-negative integer, got {v!r}")
    if meta["complete"]:
        if video is not None and meta["frames"] is None:
            raise bad("recording is marked complete but has no `frames` count")
        if audio is not None and meta["audio_samples"] is None:
            raise bad("recording is marked complete but has no `audio_samples` count")
    return meta


def _write_json_atomic(path: Path, data: dict[str, Any], *, fsync: bool = True) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(data, indent=2, sort_keys=True) + "\n")
        f.flush()
        if fsync:
            os.fsync(f.fileno())
    os.replace(tmp, path)


# --- timestamps -----------------------------------------------------------------

def read_timestamps(path: Path, *, complete: bool) -> np.ndarray:
    """Parse ``video_ts.csv`` into a float64 array of frame times.

    For a complete recording any bad row is a ``RecordingError``; for an
    incomplete one the intact prefix is returned (a killed recorder may leave a
    partial last line).
    """
    name = path.name
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RecordingError(f"cannot read '{name}': {exc.strerror or exc}") from None
    lines = data.split(b"\n")
    if not data.endswith(b"\n"):
        if not complete:
            lines = lines[:-1]            # a partial line from a killed recorder
    else:
        lines = lines[:-1]
    if not lines:
        if complete:
            raise RecordingError(f"'{name}' is empty (expected the header {TIMESTAMPS_HEADER!r})")
        return np.zeros(0)
    if lines[0].strip() != TIMESTAMPS_HEADER.encode():
        raise RecordingError(f"'{name}' does not start with the header {TIMESTAMPS_HEADER!r}, "
                             f"got {lines[0][:40]!r}")
    times: list[float] = []
    prev = -math.inf
    for n, line in enumerate(lines[1:]):
        problem = None
        parts = line.split(b",")
        if len(parts) != 2:
            problem = "expected 2 columns"
        else:
            try:
                idx = int(parts[0])
                t = float(parts[1])
            except ValueError:
                problem = "not numbers"
            else:
                if idx != n:
                    problem = f"index {idx} where {n} was expected"
                elif not math.isfinite(t) or t < prev:
                    problem = f"time {t!r} is not finite or goes backwards"
        if problem is not None:
            if complete:
                raise RecordingError(f"'{name}' row {n + 2} is invalid ({problem}): "
                                     f"{line[:60].decode('utf-8', 'replace')!r}")
            break
        times.append(t)
        prev = t
    return np.asarray(times, dtype=np.float64)


# --- making MKV files reproducible ------------------------------------------------

_EBML_MASTERS = {0x18538067, 0x1549A966, 0x1654AE6B, 0x1254C367, 0xAE, 0x7373, 0x63C0}
_FIXED_UIDS = {0x73A4: b"sensekit-skrec-1", 0x73C5: None, 0x63C5: None}  # None: integer 1
_DATE_UTC = 0x4461


def _vint(buf: bytes | bytearray, pos: int, *, keep_marker: bool) -> tuple[int, int]:
    first = buf[pos]
    length = 9 - first.bit_length() if first else 9
    if length > 8 or pos + length > len(buf):
        raise ValueError("bad EBML variable-length integer")
    value = first if keep_marker else first & (0xFF >> length)
    for b in buf[pos + 1: pos + length]:
        value = (value << 8) | b
    return value, length


def make_mkv_reproducible(path: str | os.PathLike) -> None:
    """Replace the random UIDs FFmpeg's Matroska muxer writes with fixed ones.

    The muxer stores a random SegmentUID and TrackUID (and a TagTrackUID that
    repeats it) plus CRC-32s over those elements. This rewrites the UIDs in place
    (same lengths), zeroes ``DateUTC`` if present and recomputes the CRCs, so a
    recording made twice from the same data is byte-identical. Frames are untouched.
    """
    p = Path(path)
    buf = bytearray(p.read_bytes())

    def walk(start: int, end: int) -> None:
        pos = start
        while pos < end:
            eid, n_id = _vint(buf, pos, keep_marker=True)
            size, n_size = _vint(buf, pos + n_id, keep_marker=False)
            data = pos + n_id + n_size
            unknown = size == (1 << (7 * n_size)) - 1
            stop = end if unknown else min(end, data + size)
            if eid in _EBML_MASTERS:
                walk(data, stop)
                if eid != 0x18538067 and stop - data >= 6 and buf[data] == 0xBF and buf[data + 1] == 0x84:
                    crc = zlib.crc32(bytes(buf[data + 6: stop])) & 0xFFFFFFFF
                    buf[data + 2: data + 6] = crc.to_bytes(4, "little")
            elif eid in _FIXED_UIDS:
                fixed = _FIXED_UIDS[eid]
                width = stop - data
                if fixed is None:
                    buf[data:stop] = (1).to_bytes(width, "big")
                else:
                    buf[data:stop] = fixed[:width].ljust(width, b"\0")
            elif eid == _DATE_UTC:
                buf[data:stop] = bytes(stop - data)
            elif eid == 0x1F43B675:      # Cluster: frames, nothing to fix; stop early
                pass
            pos = stop

    try:
        walk(0, len(buf))
    except (ValueError, IndexError) as exc:
        raise RecordingError(f"'{p.name}' is not a Matroska file this can normalise: {exc}") from None
    p.write_bytes(bytes(buf))


# --- Recorder ----------------------------------------------------------------------

class Recorder:
    """Write a recording folder from ``VideoFrame``/``AudioBlock`` items.

    ``Recorder(path, video=(width, height, fps), audio=(rate, channels), gain=50,
    sources=[...], notes="")``; at least one of ``video``/``audio``. Times are
    stored as ``item.t - t0`` (``t0`` default 0: the source's own times).
    ``block_size`` is stored so a replay cuts audio the same way (default: the
    length of the first block). ``start_unix`` defaults to ``time.time()``;
    ``reproducible=True`` also fixes the MKV's random UIDs on close (the synth
    uses it so its bundle is byte-identical run to run).

    Flushes once per second of recording time (see the module docstring). Raises
    ``ConfigError`` for bad parameters or items that do not match the declared
    tracks, ``RecordingError`` if the folder exists or the video cannot be opened.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        video: tuple[int, int, float] | None = None,
        audio: tuple[int, int] | None = None,
        gain: float = 50,
        sources: Sequence[str] = (),
        notes: str = "",
        block_size: int | None = None,
        t0: float = 0.0,
        start_unix: float | None = None,
        reproducible: bool = False,
        fsync: bool = True,
    ) -> None:
        self.path = Path(path)
        if video is None and audio is None:
            raise ConfigError("a recording needs `video` or `audio` (both are None)")
        self._meta: dict[str, Any] = {
            "format": FORMAT, "version": VERSION,
            "sources": [str(s) for s in sources],
            "video": None, "audio": None,
            "start_unix": float(time.time() if start_unix is None else start_unix),
            "audio_offset_s": 0.0, "notes": str(notes), "complete": False,
            "frames": 0, "audio_samples": 0, "duration_s": 0.0,
        }
        if video is not None:
            try:
                w, h, fps = video
            except (TypeError, ValueError):
                raise ConfigError(f"`video` must be (width, height, fps), got {video!r}") from None
            if not _is_int(w) or not _is_int(h) or w <= 0 or h <= 0:
                raise ConfigError(f"`video` width and height must be positive integers, got {video!r}")
            fps = check_range("video fps", fps, 0.001, 1000)
            self._meta["video"] = {"width": w, "height": h, "fps": fps, "codec": "FFV1",
                                   "file": VIDEO_FILE, "timestamps": TIMESTAMPS_FILE}
        if audio is not None:
            try:
                rate, channels = audio
            except (TypeError, ValueError):
                raise ConfigError(f"`audio` must be (sample_rate, channels), got {audio!r}") from None
            if not _is_int(rate) or not 0 < rate <= 1_000_000:
                raise ConfigError(f"`audio` sample rate must be a positive integer, got {rate!r}")
            if not _is_int(channels) or not 0 < channels <= 64:
                raise ConfigError(f"`audio` channels must be 1..64, got {channels!r}")
            if block_size is not None and (not _is_int(block_size) or block_size <= 0):
                raise ConfigError(f"`block_size` must be a positive integer, got {block_size!r}")
            self._meta["audio"] = {"sample_rate": rate, "channels": channels,
                                   "gain": check_range("gain", gain, 0, 100),
                                   "file": AUDIO_FILE, "sample_format": "int16",
                                   "block_size": block_size}
        self.t0 = float(t0)
        self.reproducible = reproducible
        self._fsync = fsync
        if self.path.exists() and (not self.path.is_dir() or any(self.path.iterdir())):
            raise RecordingError(f"recording '{self.path.name}' already exists ({self.path}); "
                                 "choose another name or delete it")
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RecordingError(f"cannot create recording folder '{self.path}': "
                                 f"{exc.strerror or exc}") from None
        self.frames = 0
        self.audio_samples = 0
        self.padded_samples = 0
        self._audio_started = False
        self._last_flush_t = 0.0
        self._max_t = 0.0
        self._closed = False
        self._writer: Any = None
        self._ts: Any = None
        self._wav: WavWriter | None = None
        if video is not None:
            import cv2
            vw = cv2.VideoWriter(str(self.path / VIDEO_FILE), cv2.CAP_FFMPEG,
                                 cv2.VideoWriter_fourcc(*"FFV1"), float(fps), (w, h))
            if not vw.isOpened():
                raise RecordingError(f"cannot open an FFV1 video writer for '{self.path / VIDEO_FILE}' "
                                     "(does this OpenCV build include FFmpeg?)")
            self._writer = vw
            self._ts = open(self.path / TIMESTAMPS_FILE, "w", encoding="ascii", newline="\n")
            self._ts.write(TIMESTAMPS_HEADER + "\n")
        if audio is not None:
            self._wav = WavWriter(self.path / AUDIO_FILE, rate, channels)
        self.flush()

    # -- context manager -------------------------------------------------------
    def __enter__(self) -> "Recorder":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def meta(self) -> dict[str, Any]:
        return json.loads(json.dumps(self._meta))

    @property
    def duration_s(self) -> float:
        d = 0.0
        v, a = self._meta["video"], self._meta["audio"]
        if v is not None and self.frames:
            d = max(d, self._last_frame_t + 1.0 / v["fps"])
        if a is not None and self.audio_samples:
            d = max(d, self._meta["audio_offset_s"] + self.audio_samples / a["sample_rate"])
        return d

    # -- writing ---------------------------------------------------------------
    def write(self, item: Item) -> None:
        """Append one frame or audio block; flushes once per second of recording time."""
        if self._closed:
            raise RecordingError(f"recording '{self.path.name}' is closed")
        t = float(item.t) - self.t0
        if isinstance(item, VideoFrame):
            self._write_frame(item.image, t)
        elif isinstance(item, AudioBlock):
            self._write_block(item, t)
        else:
            raise ConfigError(f"can only record VideoFrame or AudioBlock, got {type(item).__name__}")
        self._max_t = max(self._max_t, t)
        if self._max_t - self._last_flush_t >= FLUSH_INTERVAL_S:
            self.flush()
            self._last_flush_t = self._max_t

    def _write_frame(self, image: np.ndarray, t: float) -> None:
        v = self._meta["video"]
        if v is None:
            raise ConfigError(f"recording '{self.path.name}' has no video track; got a frame")
        shape = (v["height"], v["width"], 3)
        if not isinstance(image, np.ndarray) or image.shape != shape or image.dtype != np.uint8:
            got = (image.shape, image.dtype) if isinstance(image, np.ndarray) else type(image).__name__
            raise ConfigError(f"frame must be a {shape} uint8 array for this recording, got {got}")
        if not math.isfinite(t):
            raise ConfigError(f"frame time must be finite, got {t!r}")
        self._writer.write(np.ascontiguousarray(image))
        self._ts.write(f"{self.frames},{t:.6f}\n")
        self._last_frame_t = round(t, 6)
        self.frames += 1

    def _write_block(self, block: AudioBlock, t: float) -> None:
        a = self._meta["audio"]
        if a is None:
            raise ConfigError(f"recording '{self.path.name}' has no audio track; got an audio block")
        if block.rate != a["sample_rate"]:
            raise ConfigError(f"audio block rate must be {a['sample_rate']} Hz for this recording, "
                              f"got {block.rate!r}")
        s = np.asarray(block.samples)
        ch = a["channels"]
        if s.ndim == 2 and s.shape[1] == ch:
            pass
        elif s.ndim == 1 and ch == 1:
            s = s[:, None]
        else:
            raise ConfigError(f"audio block must be shaped (n,) or (n, {ch}), got {s.shape}")
        if not self._audio_started:
            self._audio_started = True
            self._meta["audio_offset_s"] = round(t, 6)
            if a["block_size"] is None:
                a["block_size"] = int(s.shape[0]) or DEFAULT_BLOCK_SIZE
        else:
            # A block that starts later than the samples so far reach (the microphone
            # dropped blocks) is preceded by silence, so audio stays in sync with video.
            gap = int(round((t - self._meta["audio_offset_s"]) * a["sample_rate"])) - self.audio_samples
            if gap > max(1, s.shape[0] // 2):
                if gap <= MAX_PAD_S * a["sample_rate"]:
                    self._wav.write(np.zeros((gap, ch), np.int16))
                    self.audio_samples += gap
                    self.padded_samples += gap
                else:
                    log.warning("audio jumps %.1f s ahead at t=%.3f; not padding", gap / a["sample_rate"], t)
        self._wav.write(float_to_int16(s))
        self.audio_samples += s.shape[0]

    def flush(self) -> None:
        """Make everything written so far durable: timestamps, WAV header, meta.json."""
        if self._ts is not None:
            self._ts.flush()
            if self._fsync:
                os.fsync(self._ts.fileno())
        if self._wav is not None:
            self._wav.flush(fsync=self._fsync)
        self._update_meta()
        _write_json_atomic(self.path / META_FILE, self._meta, fsync=self._fsync)

    def _update_meta(self) -> None:
        self._meta["frames"] = self.frames
        self._meta["audio_samples"] = self.audio_samples
        if self._meta["audio"] is not None:
            self._meta["audio_padded_samples"] = self.padded_samples
        self._meta["duration_s"] = round(self.duration_s, 6)

    def close(self) -> None:
        """Finish the files and mark the recording complete. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._writer is not None:
            self._writer.release()
            if self.reproducible:
                make_mkv_reproducible(self.path / VIDEO_FILE)
        if self._ts is not None:
            self._ts.flush()
            if self._fsync:
                os.fsync(self._ts.fileno())
            self._ts.close()
        if self._wav is not None:
            self._wav.close()
        a = self._meta["audio"]
        if a is not None and a["block_size"] is None:
            a["block_size"] = DEFAULT_BLOCK_SIZE
        self._meta["complete"] = True
        self._update_meta()
        _write_json_atomic(self.path / META_FILE, self._meta, fsync=self._fsync)

    _last_frame_t = 0.0


def record_source(
    source: Source,
    path: str | os.PathLike,
    seconds: float | None = None,
    progress: bool = True,
    *,
    notes: str = "",
    clock: Clock | None = None,
) -> dict[str, Any]:
    """Record any source into ``path`` until ``seconds`` have passed, it ends, or Ctrl-C.

    Live sources are timed by ``clock`` (default wall clock); files and replays by
    their item times. Ctrl-C finishes cleanly: the files are closed and meta is
    marked complete. Returns a summary: frames, audio_samples, duration_s,
    interrupted.
    """
    if seconds is not None:
        seconds = check_positive("seconds", seconds)
    clock = clock or MonotonicClock()
    stop = {"flag": False}
    old_handler = None
    in_main = threading.current_thread() is threading.main_thread()
    if in_main:
        def _on_sigint(signum: int, frame: Any) -> None:
            stop["flag"] = True
        old_handler = signal.signal(signal.SIGINT, _on_sigint)
    interrupted = False
    bar = None
    rec: Recorder | None = None
    try:
        source.open()
        t_start = clock.now()

        def timed_out() -> bool:
            return seconds is not None and source.is_live and clock.now() - t_start >= seconds

        # Peek until the formats are known (a live camera's size, a microphone's rate)
        # and, for live sources, until the first item sets the recording's time origin.
        pending: list[Item] = []
        ended = False
        need_frame = source.has_video and (source.frame_size is None or not source.fps)
        need_block = source.has_audio and not source.sample_rate
        while ((need_frame or need_block or (source.is_live and not pending))
               and not stop["flag"] and not timed_out()):
            try:
                item = source.read(timeout=0.2 if source.is_live else None)
            except EOFError:
                ended = True
                break
            if item is None:
                continue
            pending.append(item)
            if isinstance(item, VideoFrame):
                need_frame = False
            else:
                need_block = False
        first_frame = next((i for i in pending if isinstance(i, VideoFrame)), None)
        first_block = next((i for i in pending if isinstance(i, AudioBlock)), None)
        video = None
        if source.has_video:
            size = source.frame_size or (
                (first_frame.image.shape[1], first_frame.image.shape[0]) if first_frame else None)
            if size is not None:
                video = (int(size[0]), int(size[1]), float(source.fps or 30.0))
        audio = None
        if source.has_audio:
            rate = source.sample_rate or (first_block.rate if first_block else None)
            channels = source.channels or (
                first_block.samples.shape[1] if first_block is not None
                and np.ndim(first_block.samples) == 2 else 1)
            if rate:
                audio = (int(rate), int(channels))
        if video is None and audio is None:
            if stop["flag"]:
                return {"frames": 0, "audio_samples": 0, "duration_s": 0.0, "interrupted": True}
            raise RecordingError(f"source '{source.description}' gave nothing to record")
        t0 = pending[0].t if source.is_live and pending else 0.0
        audio_part = getattr(source, "audio", None) or source     # CombinedSource keeps its parts
        gain = getattr(source, "gain", None)
        gain = getattr(audio_part, "gain", 50) if gain is None else gain
        block_size = getattr(source, "block_size", None) or getattr(audio_part, "block_size", None)
        rec = Recorder(path, video=video, audio=audio, gain=float(gain),
                       sources=[source.description], notes=notes, t0=t0,
                       block_size=block_size if isinstance(block_size, int) else None)
        if progress:
            from tqdm import tqdm
            bar = tqdm(total=seconds, unit="s", desc=f"recording {Path(path).name}",
                       bar_format="{l_bar}{bar}| {n:.1f}/{total_fmt} s" if seconds else
                       "{desc}: {n:.1f} s", leave=True, file=sys.stderr)
        last_shown = 0.0
        while not stop["flag"]:
            if pending:
                item = pending.pop(0)
            elif ended:
                break
            else:
                try:
                    item = source.read(timeout=0.2 if source.is_live else None)
                except EOFError:
                    break
            if source.is_live:
                # A live item was captured before we noticed the limit: keep it, then stop.
                elapsed = clock.now() - t_start
                if item is not None:
                    rec.write(item)
                if seconds is not None and elapsed >= seconds:
                    break
            else:
                # Files and replays stop exactly at the limit, on their own timestamps.
                elapsed = item.t if item is not None else 0.0
                if seconds is not None and elapsed >= seconds:
                    break
                if item is not None:
                    rec.write(item)
            if bar is not None and elapsed - last_shown >= 0.1:
                bar.update(elapsed - last_shown)
                last_shown = elapsed
        interrupted = stop["flag"]
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if in_main and old_handler is not None:
            signal.signal(signal.SIGINT, old_handler)
        if rec is not None:
            rec.close()
        if bar is not None:
            bar.close()
        source.close()
    return {"frames": rec.frames if rec else 0, "audio_samples": rec.audio_samples if rec else 0,
            "duration_s": rec.duration_s if rec else 0.0, "interrupted": interrupted}


# --- ReplaySource -------------------------------------------------------------------

class ReplaySource(Source):
    """Play a recording back, as fast as possible or paced by a clock; optionally looping.

    Defaults: ``realtime=False``, ``loop=False``, ``clock=MonotonicClock()`` (used
    only when realtime). ``is_live`` is False: times come from the recording.
    """

    kind = "replay"
    is_live = False

    def __init__(self, path: str | os.PathLike, *, realtime: bool = False, loop: bool = False,
                 clock: Clock | None = None, block_size: int | None = None) -> None:
        self.path = Path(path)
        self.meta = read_meta(self.path)
        self.realtime = bool(realtime)
        self.loop = bool(loop)
        self.clock: Clock = clock if clock is not None else MonotonicClock()
        self.complete: bool = self.meta["complete"]
        v, a = self.meta["video"], self.meta["audio"]
        self.has_video = v is not None
        self.has_audio = a is not None
        self.frame_size = (v["width"], v["height"]) if v else None
        self.fps = float(v["fps"]) if v else None
        self.sample_rate = a["sample_rate"] if a else None
        self.channels = a["channels"] if a else None
        self.gain = float(a["gain"]) if a else 50.0
        if block_size is not None and (not _is_int(block_size) or block_size <= 0):
            raise ConfigError(f"`block_size` must be a positive integer, got {block_size!r}")
        self.block_size = block_size or (a["block_size"] if a else DEFAULT_BLOCK_SIZE)
        self.audio_offset_s = float(self.meta["audio_offset_s"])
        for kind, info, key in (("video", v, "file"), ("timestamps", v, "timestamps"),
                                ("audio", a, "file")):
            if info is not None and not (self.path / info[key]).is_file():
                raise RecordingError(f"recording '{self.path.name}' is missing its {kind} file "
                                     f"'{info[key]}'")
        self._times = np.zeros(0)
        self._wav: WavInfo | None = None
        self._n_audio = 0
        self._opened = False
        self._gen: Iterator[Item] | None = None
        self._pending: Item | None = None
        self._audio_file: BinaryIO | None = None
        self._caps: list[Any] = []
        self._counts = {"frames": 0, "blocks": 0, "loops": 0}
        self._delivered = {"frames": 0, "blocks": 0}
        self._decoded: int | None = None
        self._clock_t0 = 0.0

    @property
    def description(self) -> str:
        return f"replay:{self.path.name}"

    @property
    def duration_s(self) -> float:
        """Length of one pass: last frame end or last sample, whichever is later."""
        self.open()
        d = 0.0
        if len(self._times):
            d = float(self._times[-1]) + 1.0 / float(self.fps or 1.0)
        if self._n_audio:
            d = max(d, self.audio_offset_s + self._n_audio / self.sample_rate)
        return d

    @property
    def frame_count(self) -> int:
        self.open()
        return len(self._times) if self._decoded is None else min(self._decoded, len(self._times))

    @property
    def audio_sample_count(self) -> int:
        self.open()
        return self._n_audio

    def open(self) -> None:
        if self._opened:
            return
        v, a = self.meta["video"], self.meta["audio"]
        name = self.path.name
        if v is not None:
            self._times = read_timestamps(self.path / v["timestamps"], complete=self.complete)
            if self.complete and len(self._times) != self.meta["frames"]:
                raise RecordingError(
                    f"'{name}/{v['timestamps']}' lists {len(self._times)} frames but meta.json "
                    f"says {self.meta['frames']}")
        if a is not None:
            info = read_wav_info(self.path / a["file"])
            if info.rate != a["sample_rate"] or info.channels != a["channels"]:
                raise RecordingError(
                    f"'{name}/{a['file']}' is {info.rate} Hz x {info.channels} channels but "
                    f"meta.json says {a['sample_rate']} Hz x {a['channels']}")
            if self.complete:
                want = self.meta["audio_samples"]
                if info.declared_frames != want or info.available_frames < want:
                    raise RecordingError(
                        f"'{name}/{a['file']}' has the wrong length: it holds "
                        f"{min(info.declared_frames, info.available_frames)} samples per channel "
                        f"but meta.json says {want}")
                self._n_audio = want
            else:
                self._n_audio = min(info.declared_frames, info.available_frames)
            self._wav = info
            try:
                self._audio_file = open(self.path / a["file"], "rb")
            except OSError as exc:
                raise RecordingError(f"cannot open '{name}/{a['file']}': {exc.strerror or exc}") from None
        self._opened = True
        self._gen = self._items()
        self._pending = None
        self._counts = {"frames": 0, "blocks": 0, "loops": 0}
        self._delivered = {"frames": 0, "blocks": 0}
        self._clock_t0 = self.clock.now() if self.realtime else 0.0

    def close(self) -> None:
        if self._gen is not None:
            self._gen.close()
            self._gen = None
        for cap in self._caps:
            cap.release()
        self._caps.clear()
        if self._audio_file is not None:
            self._audio_file.close()
            self._audio_file = None
        self._opened = False

    # -- item streams ------------------------------------------------------------
    def _video_items(self, t_offset: float) -> Iterator[VideoFrame]:
        v = self.meta["video"]
        n_rows = len(self._times)
        if v is None or n_rows == 0:
            return
        import cv2
        name = f"{self.path.name}/{v['file']}"
        cap = cv2.VideoCapture(str(self.path / v["file"]), cv2.CAP_FFMPEG)
        self._caps.append(cap)
        try:
            if not cap.isOpened():
                if self.complete:
                    raise RecordingError(f"'{name}' cannot be decoded (is it an FFV1/MKV video?)")
                log.warning("'%s' cannot be decoded; replaying without video", name)
                self._decoded = 0
                return
            shape = (v["height"], v["width"], 3)
            limit = n_rows if self._decoded is None else min(n_rows, self._decoded)
            for i in range(limit):
                try:
                    ok, image = cap.read()
                except cv2.error:
                    ok, image = False, None
                if not ok or image is None:
                    if self.complete:
                        raise RecordingError(
                            f"'{name}' is truncated or corrupt: only {i} frames decode but "
                            f"'{v['timestamps']}' lists {n_rows} (recording is marked complete)")
                    log.warning("'%s': %d of %d frames decode; replaying those", name, i, n_rows)
                    self._decoded = i
                    return
                if image.shape != shape:
                    raise RecordingError(f"'{name}' frame {i} is {image.shape[1]}x{image.shape[0]} "
                                         f"but meta.json says {shape[1]}x{shape[0]}")
                index = self._counts["frames"]
                self._counts["frames"] += 1
                yield VideoFrame(index, t_offset + float(self._times[i]), image, None)
            if self._decoded is None:
                self._decoded = limit
        finally:
            cap.release()
            if cap in self._caps:
                self._caps.remove(cap)

    def _audio_items(self, t_offset: float) -> Iterator[AudioBlock]:
        a = self.meta["audio"]
        info = self._wav
        n = self._n_audio
        if n == 0 or info is None or self._audio_file is None:
            return
        f = self._audio_file
        ch = info.channels
        bs = self.block_size
        rate = info.rate
        for start in range(0, n, bs):
            count = min(bs, n - start)
            f.seek(info.data_offset + start * 2 * ch)
            raw = f.read(count * 2 * ch)
            if len(raw) != count * 2 * ch:
                raise RecordingError(f"'{self.path.name}/{a['file']}' ended early while reading")
            s = int16_to_float(np.frombuffer(raw, dtype="<i2"))
            if ch > 1:
                s = s.reshape(count, ch)
            index = self._counts["blocks"]
            self._counts["blocks"] += 1
            yield AudioBlock(index, t_offset + self.audio_offset_s + start / rate, s, rate, None)

    def _items(self) -> Iterator[Item]:
        t_offset = 0.0
        while True:
            produced = False
            for item in merge_by_time(self._video_items(t_offset), self._audio_items(t_offset)):
                produced = True
                yield item
            length = self.duration_s
            if not self.loop or not produced or length <= 0:
                return
            t_offset += length
            self._counts["loops"] += 1

    def read(self, timeout: float | None = None) -> Item | None:
        if not self._opened:
            self.open()
        if self._gen is None:
            raise EOFError
        item = self._pending
        self._pending = None
        if item is None:
            try:
                item = next(self._gen)
            except StopIteration:
                raise EOFError from None
        if self.realtime:
            due = self._clock_t0 + item.t
            now = self.clock.now()
            if timeout is not None and due > now + timeout:
                self.clock.sleep_until(now + timeout)
                self._pending = item
                return None
            self.clock.sleep_until(due)
        self._delivered["frames" if isinstance(item, VideoFrame) else "blocks"] += 1
        return item

    def stats(self) -> dict[str, Any]:
        rows = len(self._times)
        decoded = self._decoded
        return {"frames": self._delivered["frames"], "blocks": self._delivered["blocks"],
                "loops": self._counts["loops"], "dropped_frames": 0,
                "truncated_frames": 0 if decoded is None else max(0, rows - decoded),
                "complete": self.complete}
