"""Matroska at the byte level: how many frames a segment holds whole, and fixed UIDs.

A recording's video segments (``video_segments.py``) are FFV1 in Matroska. Two things are read
or written straight from the container's EBML elements, with no decoder:

- ``count_blocks(path)``: the frames (Matroska blocks) a file holds whole; the segment writer checks
  each segment with it before the commit (OpenCV's writer does not report a failed write, e.g. a
  full disk). A file cut short counts only the blocks that end inside it; anything that is not a
  regular Matroska file counts 0. Cost: one read of the file, ~1 ms per MB.
- ``make_mkv_reproducible(path)``: the random UIDs and ``DateUTC`` FFmpeg's muxer writes replaced
  by fixed ones and the CRC-32s recomputed, so a recording made twice is byte-identical.
  ``RecordingError`` (naming the file) for a file it cannot walk.

Both names are importable from ``sensekit.capture.video_segments`` too.
"""
from __future__ import annotations

import contextlib
import os
import zlib
from pathlib import Path

from sensekit.errors import RecordingError

__all__ = ["count_blocks", "make_mkv_reproducible"]

#: Matroska element ids: the Segment, a Cluster (frames), the two kinds of block (one frame each)
_SEGMENT, _CLUSTER, _SIMPLE_BLOCK, _BLOCK_GROUP = 0x18538067, 0x1F43B675, 0xA3, 0xA0
_EBML_MASTERS = {_SEGMENT, 0x1549A966, 0x1654AE6B, 0x1254C367, 0xAE, 0x7373, 0x63C0}
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


def _element(buf: bytes | bytearray, pos: int) -> tuple[int, int, int | None]:
    """The EBML element header at ``pos``: its id, where its data starts, and its data size
    (``None``: unknown, the element runs to the end of its parent). ``ValueError`` or
    ``IndexError`` where the header is cut or not EBML."""
    eid, n_id = _vint(buf, pos, keep_marker=True)
    size, n_size = _vint(buf, pos + n_id, keep_marker=False)
    return eid, pos + n_id + n_size, None if size == (1 << (7 * n_size)) - 1 else size


def count_blocks(path: Path) -> int:
    """How many frames (Matroska blocks) ``path`` holds whole, read from the container without
    decoding: a file cut short (a full disk) counts only the blocks that end inside it. ``0``
    for anything that is not a regular file or not Matroska. Cost: one read of the file and a
    walk over its elements (~1 ms per MB), a small fraction of decoding it."""
    if not path.is_file():
        return 0
    buf = path.read_bytes()
    end, n = len(buf), 0

    def walk(pos: int, stop: int, depth: int) -> None:
        nonlocal n
        while pos < stop:
            eid, data, size = _element(buf, pos)
            last = stop if size is None else data + size
            if eid in (_SEGMENT, _CLUSTER) and depth < 2:
                walk(data, min(last, stop), depth + 1)
            elif eid in (_SIMPLE_BLOCK, _BLOCK_GROUP) and depth == 2 and last <= end:
                n += 1
            if last > stop:
                return
            pos = last

    with contextlib.suppress(ValueError, IndexError):   # cut inside an element header:
        walk(0, end, 0)                                  # the blocks before it count
    return n


def make_mkv_reproducible(path: str | os.PathLike[str]) -> None:
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
            eid, data, size = _element(buf, pos)
            stop = end if size is None else min(end, data + size)
            if eid in _EBML_MASTERS:
                walk(data, stop)
                if eid != _SEGMENT and stop - data >= 6 and buf[data] == 0xBF and buf[data + 1] == 0x84:
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
            elif eid == _CLUSTER:        # frames, nothing to fix; stop early
                pass
            pos = stop

    try:
        walk(0, len(buf))
    except (ValueError, IndexError) as exc:
        raise RecordingError(f"'{p.name}' is not a Matroska file this can normalise: {exc}") from None
    p.write_bytes(bytes(buf))


