"""PCM int16 WAV for recordings: sample conversion, a crash-safe writer, a header reader.

- ``float_to_int16`` / ``int16_to_float``: float samples (full scale 1.0) are
  clipped to [-1, 1), scaled by 32768 and rounded, so int16 microphones
  round-trip exactly; the inverse divides by 32768.
- ``WavWriter(path, rate, channels)``: the header starts with zero sizes;
  ``flush()`` patches the RIFF and data sizes to what has been written so far
  and fsyncs, so a killed writer leaves a WAV that ordinary tools read up to
  its last flush. Limit: 4 GB of data (``RecordingError`` beyond).
- ``read_wav_info(path)``: where the samples start and how many there are,
  both as the header *claims* (``declared_frames``) and as the file really
  *holds* (``available_frames``, from its size). Callers trust the smaller.

Cost: a header read is two small reads; writing is one ``write`` per block.
Failure modes: anything that is not RIFF/WAVE PCM int16 with a sane fmt chunk
raises ``RecordingError`` naming the file.
"""
from __future__ import annotations

import bisect
import os
import struct
from pathlib import Path
from typing import BinaryIO

import numpy as np

from sensekit.errors import RecordingError

_MAX_WAV_DATA = 0xFFFFFFFF - 36


# --- sample conversion --------------------------------------------------------

def pcm_to_float(x: np.ndarray) -> np.ndarray:
    """Integer PCM samples to float32 with full scale 1.0 (int16: / 32768, as ``int16_to_float``;
    unsigned samples are centred first, as in 8-bit WAV)."""
    info = np.iinfo(x.dtype)
    full = float(-info.min) if info.min < 0 else (info.max + 1) / 2.0
    centre = 0.0 if info.min < 0 else full
    return ((x.astype(np.float64) - centre) / full).astype(np.float32)


def float_to_int16(samples: np.ndarray) -> np.ndarray:
    """Float samples (full scale 1.0) to int16: clip to [-1, 1), x32768, round.

    int16 input is returned unchanged; other integer PCM (int32, uint8, ...) is read at its own
    full scale first (``pcm_to_float``, as the audio stages read it: an int32 block was clipped to
    a full-scale square wave). NaN and Inf become 0 (the recorder lists where they were,
    ``nonfinite_runs``, so a replay skips those blocks as the live run did).
    """
    a = np.asarray(samples)
    if a.dtype == np.int16:
        return a
    if a.dtype.kind in "iu":
        a = pcm_to_float(a)
    f = np.nan_to_num(a.astype(np.float64, copy=False), nan=0.0, posinf=0.0, neginf=0.0)
    return np.clip(np.rint(f * 32768.0), -32768, 32767).astype(np.int16)


#: most runs of NaN/Inf samples a recording lists (``audio.nonfinite`` in meta.json)
MAX_NONFINITE_RUNS = 4096


def nonfinite_runs(samples: np.ndarray) -> list[tuple[int, int]]:
    """The runs ``[start, stop)`` of sample frames (rows) holding a NaN or Inf in any channel;
    ``[]`` for integer samples and for the usual all-finite block."""
    a = np.asarray(samples)
    if a.dtype.kind != "f" or a.size == 0:
        return []
    bad = ~np.isfinite(a.reshape(len(a), -1)).all(axis=1)
    if not bad.any():
        return []
    edges = np.flatnonzero(np.diff(np.concatenate(([0], bad.view(np.int8), [0]))))
    return [(int(a_), int(b_)) for a_, b_ in zip(edges[::2], edges[1::2])]


def mark_nonfinite(samples: np.ndarray, start: int, runs: list[list[int]] | list[tuple[int, int]]) -> np.ndarray:
    """``samples`` (float, the sample frames from ``start`` on) with NaN put back where
    ``runs`` (absolute ``[start, stop)``, sorted) say the recorded block had NaN/Inf: a replay
    hands the stages what the live run had, and they skip it as they did then."""
    stop = start + len(samples)
    for a, b in runs[bisect.bisect_right(runs, start, key=lambda r: r[1]):]:   # the first ending after start
        if a >= stop:
            break
        samples[max(a, start) - start:min(b, stop) - start] = np.nan
    return samples


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

    def __init__(self, path: str | os.PathLike[str], rate: int, channels: int) -> None:
        self.path = Path(path)
        self.rate = int(rate)
        self.channels = int(channels)
        self.frames = 0                      # samples per channel written
        self._f: BinaryIO | None = open(self.path, "wb")  # noqa: SIM115 (open until close())
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
        """Patch the header and close; the file is closed even if that last write fails."""
        if self._f is not None:
            try:
                self.flush()
            finally:
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


def _data_chunk(name: str, fmt: tuple[int, ...] | None, pos: int, csize: int, size: int) -> WavInfo:
    """What the fmt chunk says, checked, for the data chunk at ``pos`` (``csize`` bytes)."""
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
                    return _data_chunk(name, fmt, pos, csize, size)
                pos += 8 + csize + (csize & 1)
                if pos >= size:
                    raise RecordingError(f"'{name}' has no data chunk")
    except OSError as exc:
        raise RecordingError(f"cannot read '{name}': {exc.strerror or exc}") from None


