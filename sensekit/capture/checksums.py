"""Per-frame and per-block CRC-32s of a recording, so damage is named instead of played.

Since this release a recording (format version 2) carries two more files, named in ``meta.json``:

- ``video_crc.csv`` (``video.checksums``): a header ``index,crc32``, then one row per frame,
  ``CRC-32`` of the frame's BGR bytes as 8 hex digits: the very value ``sensekit events
  --records`` prints for that frame (``sensekit.runner.checksum``), since FFV1 is lossless;
- ``audio_crc.csv`` (``audio.checksums``): a header ``block,crc32``, then one row per
  ``audio.checksum_block`` samples of ``audio.wav`` (the recorded block size): the CRC-32 of
  those int16 samples as stored (little-endian, channels interleaved). The last, shorter chunk
  gets its row when the recording closes;
- ``video_ts_crc.csv`` (``video.timestamps_checksums``): a header ``row,crc32``, then one row
  per row of ``video_ts.csv``: the CRC-32 of that row's text (``index,t``, without its newline),
  so a flipped byte that still reads as a valid time is named instead of shifting the replay.

Rows are written with the timestamps and fsynced before the segment they belong to is
committed, so every committed frame has its checksum. Recordings made before (no
``checksums`` or ``timestamps_checksums`` in ``meta.json``) still replay; what they lack cannot
be verified, and ``inspect`` says so.

``ChecksumLog`` appends rows; ``PcmChecksums`` cuts the int16 stream into chunks;
``read_checksums`` reads a file back (``RecordingError`` naming the row on damage; a killed
recorder's partial last line is dropped). Cost: a CRC-32 runs at several GB/s (~0.1 ms for a
640x480 frame).

``missing_checksums(meta)`` names the files a recording made before them lacks
(``sensekit.capture.checksums_add`` writes them: ``sensekit inspect REC --add-checksums``).
"""
from __future__ import annotations

import os
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from sensekit.errors import RecordingError
from sensekit.safe_read import read_regular

__all__ = ["VIDEO_CRC_FILE", "AUDIO_CRC_FILE", "VIDEO_CRC_HEADER", "AUDIO_CRC_HEADER", "crc32_of",
           "TIMESTAMPS_CRC_FILE", "TIMESTAMPS_CRC_HEADER",
           "ChecksumLog", "PcmChecksums", "read_checksums", "checksums_cap", "recorded_lines",
           "missing_checksums"]

VIDEO_CRC_FILE = "video_crc.csv"
AUDIO_CRC_FILE = "audio_crc.csv"
VIDEO_CRC_HEADER = "index,crc32"
AUDIO_CRC_HEADER = "block,crc32"
TIMESTAMPS_CRC_FILE = "video_ts_crc.csv"
TIMESTAMPS_CRC_HEADER = "row,crc32"
CHECKSUM_FILES = (("video", "checksums", VIDEO_CRC_FILE),          # (track, meta key, file)
                  ("video", "timestamps_checksums", TIMESTAMPS_CRC_FILE),
                  ("audio", "checksums", AUDIO_CRC_FILE))
_ROW_BYTES = 21 + 1 + 8 + 1            # index, comma, 8 hex digits, newline
_MAX_BYTES = 256 << 20


def crc32_of(data: Any) -> int:
    """CRC-32 of an array's (or a buffer's) bytes."""
    if isinstance(data, np.ndarray):
        data = np.ascontiguousarray(data).view(np.uint8).ravel()
    return zlib.crc32(data) & 0xFFFFFFFF


def checksums_cap(rows: int | None) -> int:
    """The most bytes a checksum file of ``rows`` rows (``None``: unknown) may have."""
    return _MAX_BYTES if rows is None else min(_MAX_BYTES, 32 + (rows + 1) * _ROW_BYTES)


class ChecksumLog:
    """Appends ``index,crc32`` rows to a checksum file; ``flush()`` makes them durable."""

    def __init__(self, path: Path, header: str, *, fsync: bool = True) -> None:
        self.path = path
        self.rows = 0
        self._fsync = fsync
        self._f = open(path, "w", encoding="ascii", newline="\n")  # noqa: SIM115 (open until close())
        self._f.write(header + "\n")

    def add(self, crc: int) -> None:
        self._f.write(f"{self.rows},{crc:08x}\n")
        self.rows += 1

    def flush(self) -> None:
        self._f.flush()
        if self._fsync:
            os.fsync(self._f.fileno())

    def close(self) -> None:
        if not self._f.closed:
            try:
                self.flush()
            finally:
                self._f.close()


class PcmChecksums:
    """Cuts the int16 sample stream written to a WAV into chunks of ``block`` samples and logs
    each chunk's CRC-32 (``finish()`` logs the shorter last one)."""

    def __init__(self, log: ChecksumLog, block: int, channels: int) -> None:
        self.log = log
        self.block = block
        self._chunk_bytes = block * channels * 2
        self._pending = bytearray()

    def add(self, samples: np.ndarray) -> None:
        self._pending += np.ascontiguousarray(samples, dtype="<i2").tobytes()
        n = self._chunk_bytes
        done = 0
        while len(self._pending) - done >= n:
            self.log.add(zlib.crc32(memoryview(self._pending)[done:done + n]) & 0xFFFFFFFF)
            done += n
        del self._pending[:done]

    def finish(self) -> None:
        if self._pending:
            self.log.add(zlib.crc32(self._pending) & 0xFFFFFFFF)
            self._pending.clear()


def recorded_lines(path: Path, *, complete: bool, max_bytes: int, missing: str) -> list[bytes]:
    """The whole lines of a file a recorder appends to (``RecordingError`` with ``missing`` when
    it is not there; beyond ``max_bytes``, or not a regular file, as ``read_regular`` says): an
    incomplete recording's partial last line (a killed writer's) is dropped."""
    try:
        data = read_regular(path, max_bytes=max_bytes, what=f"'{path.name}'", error=RecordingError)
    except FileNotFoundError:
        raise RecordingError(missing) from None
    lines = data.split(b"\n")
    if data.endswith(b"\n") or not complete:
        lines = lines[:-1]                      # the empty tail, or a killed writer's partial line
    return lines


def read_checksums(path: Path, header: str, *, complete: bool, max_bytes: int = _MAX_BYTES) -> np.ndarray:
    """The CRC-32s of a checksum file, in row order (``uint32``). For a complete recording any
    bad row is a ``RecordingError``; for an incomplete one the rows before it are returned."""
    name = path.name
    lines = recorded_lines(path, complete=complete, max_bytes=max_bytes,
                           missing=f"the checksum file '{name}' is missing")
    if not lines or lines[0].strip() != header.encode():
        raise RecordingError(f"'{name}' does not start with the header {header!r}")
    out = np.zeros(len(lines) - 1, np.uint32)
    for n, line in enumerate(lines[1:]):
        parts = line.split(b",")
        ok = len(parts) == 2 and parts[0] == str(n).encode() and len(parts[1]) == 8
        if ok:
            try:
                out[n] = int(parts[1], 16)
            except ValueError:
                ok = False
        if not ok:
            if complete:
                raise RecordingError(f"'{name}' row {n + 2} is invalid: "
                                     f"{line[:40].decode('ascii', 'replace')!r}")
            return out[:n]
    return out


def missing_checksums(meta: dict[str, Any]) -> list[str]:
    """The checksum files a recording's ``meta.json`` does not name (it was made before them)."""
    return [name for track, key, name in CHECKSUM_FILES if meta.get(track) and not meta[track].get(key)]

