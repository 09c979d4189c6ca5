"""Recording video as half-second FFV1 segments that survive a kill, and reading them back.

Format version 2 stores a recording's video in a folder (``video/``) of short,
self-contained FFV1/Matroska files:

- While frames arrive, the current segment is written to
  ``NNNNNN.partial.mkv`` (``NNNNNN`` = index of its first frame).
- ``SegmentWriter.commit()`` (the recorder calls it every half second of
  recording time) closes that file, counts its frames in the container
  (``count_blocks``: OpenCV's writer does not report a failed write, e.g. a full disk:
  a short segment is left as ``.partial`` and ``RecordingError`` is raised,
  so the committed segments before it stay complete), fsyncs it, renames it to
  ``FIRST-LAST.mkv`` (frame indices, inclusive) and fsyncs the folder. The
  rename is the commit point: a committed segment is complete, so a recorder
  killed at any moment loses only its ``.partial`` segment (half a second,
  plus the time a commit takes: well under 1 s).
  ``video.ffconcat`` beside the folder lists the committed segments in order,
  so ``ffplay NAME.skrec/video.ffconcat`` plays the whole video.
- **Frame rate.** With ``fps=None`` the rate is *measured* from the frame
  timestamps (live cameras: MJPEG streams report a placeholder 25 fps): the
  camera's rate, ``1 / median`` of the last 64 frame intervals, unless the
  mean recorded rate, ``(frames - 1) / (last t - first t)``, is more than 5 %
  lower over at least 2 s (the recorder could not keep up; then that, so the
  video plays as long as it took); rounded to a standard rate (15, 25, 29.97, 30, ...) when within
  1.5 % of one, else to 0.01 fps. Frames a stream delivers back to back when
  it connects (its buffered backlog: leading intervals under half the
  median) are left out of the mean. The first frames are held in memory
  until 8 intervals are measured (about 0.3 s at 30 fps; at most until the
  first commit, half a second in), so the first segment's container already
  carries the measured rate; later segments are opened with the running estimate. With a
  declared ``fps`` (files, replays, the synth) every segment uses it.

Reading: ``list_segments`` parses the folder (committed segments, leftovers),
``plan_segments`` checks that the committed ones tile the timestamp rows,
``count_decodable`` decodes a file with the same OpenCV/FFmpeg path replay
uses and says how many frames really decode, ``open_capture`` opens one.
``make_mkv_reproducible`` fixes the random UIDs FFmpeg writes, for
byte-identical output (it and ``count_blocks`` read the container's bytes: ``mkv.py``).

Cost: opening and closing a segment costs a few ms; two segments a second
(7,200 files an hour), each with an fsync of the file and of the folder; the
frames held while measuring are encoded at once when the first segment opens
(at most 8 frames or half a second). Decoding costs what FFV1 costs (~1-20 ms
a frame, by size and content).

Failure modes: an FFV1 writer that cannot be opened (OpenCV without FFmpeg)
raises ``RecordingError``; damaged segments are reported by the readers as
problems, never as exceptions other than ``RecordingError``.
"""
from __future__ import annotations

import math
import os
import re
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from sensekit.capture.mkv import count_blocks as count_blocks  # re-exported: importable here as before
from sensekit.capture.mkv import make_mkv_reproducible as make_mkv_reproducible
from sensekit.errors import RecordingError

PARTIAL_SUFFIX = ".partial.mkv"
FPS_SNAP_TOLERANCE = 0.015
DROP_TOLERANCE = 0.05             # more frames missing than this: state the recorded rate
_DROP_SPAN_S = 2.0                # ... judged on a mean over at least this long
#: Nominal camera and video rates a measured rate is rounded to when close.
STANDARD_FPS = (1.0, 2.0, 5.0, 6.0, 7.5, 10.0, 12.0, 12.5, 15.0, 20.0, 23.976, 24.0, 25.0,
                29.97, 30.0, 48.0, 50.0, 59.94, 60.0, 90.0, 100.0, 120.0, 144.0, 240.0)
FALLBACK_FPS = 30.0
_MEASURE_INTERVALS = 8            # frame intervals measured before the first segment opens
_MAX_BUFFERED_FRAMES = 60         # frames held in memory at most while measuring
_HEAD_FRAMES = 32                 # frames looked at to find a stream's connect backlog
_RECENT_INTERVALS = 64            # intervals whose median gives the camera's current rate
_COMMITTED = re.compile(r"^(\d{6,})-(\d{6,})\.mkv$")
_PARTIAL = re.compile(r"^(\d{6,})\.partial\.mkv$")


def nominal_fps(rate: float) -> float:
    """``rate`` rounded to a standard rate within 1.5 %, else to 0.01 fps."""
    best = min(STANDARD_FPS, key=lambda s: abs(s - rate))
    if abs(best - rate) <= FPS_SNAP_TOLERANCE * best:
        return best
    return round(rate, 2)


def backlog_frames(head_t: Sequence[float]) -> int:
    """How many leading frames came back to back (a stream's buffered backlog at connect).

    ``head_t``: the first frame times. Leading intervals shorter than half the median
    interval are backlog; the measurement starts after them.
    """
    if len(head_t) < 3:
        return 0
    d = np.diff(np.asarray(head_t, dtype=np.float64))
    short = d < 0.5 * float(np.median(d))
    return int(np.argmin(short)) if not short.all() else 0


def measured_fps(first_t: float, last_t: float, frames: int) -> float | None:
    """The mean frame rate of ``frames`` frames spanning ``first_t``..``last_t`` (None if unknown)."""
    span = last_t - first_t
    if frames < 2 or not math.isfinite(span) or span <= 0:
        return None
    return (frames - 1) / span


def segment_name(first: int, last: int) -> str:
    return f"{first:06d}-{last:06d}.mkv"


def _fsync_path(path: Path) -> None:
    """fsync a file or a folder by path (a folder's entries: new and renamed files)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:          # some file systems cannot fsync a folder; nothing more to do
        pass
    finally:
        os.close(fd)


# --- writing ------------------------------------------------------------------------

class SegmentWriter:
    """Write frames into half-second FFV1 segments; ``commit()`` makes them durable.

    ``SegmentWriter(folder, (width, height), fps=None, fps_hint=None,
    playlist=None)``: ``fps=None`` measures the rate (see the module doc);
    ``fps_hint`` is used only when it cannot be measured (a single frame).
    ``committed`` counts frames in committed segments, ``written`` all frames.
    """

    def __init__(self, folder: str | os.PathLike[str], size: tuple[int, int], *,
                 fps: float | None = None, fps_hint: float | None = None,
                 playlist: str | os.PathLike[str] | None = None, reproducible: bool = False,
                 fsync: bool = True) -> None:
        self.folder = Path(folder)
        self.size = (int(size[0]), int(size[1]))
        self.declared_fps = fps
        self.fps_hint = fps_hint
        self.playlist = None if playlist is None else Path(playlist)
        self.reproducible = reproducible
        self._fsync = fsync
        self.committed = 0
        self.failed = 0                         # frames of segments that failed their check
        self.written = 0
        self.segments = 0
        self._head_t: list[float] = []          # the first frame times, to find the backlog
        self._recent_dt: deque[float] = deque(maxlen=_RECENT_INTERVALS)
        self._last_t = 0.0
        self._writer: Any = None
        self._partial: Path | None = None
        self._seg_first = 0
        self._seg_count = 0
        self._buffer: list[np.ndarray] = []
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.playlist is not None:
            with open(self.playlist, "w", encoding="ascii", newline="\n") as f:
                f.write("ffconcat version 1.0\n")

    @property
    def measured_fps(self) -> float | None:
        """Mean rate of the frames so far after the connect backlog, unrounded (None: unknown)."""
        if not self._head_t:
            return None
        skip = backlog_frames(self._head_t)
        return measured_fps(self._head_t[skip], self._last_t, self.written - skip)

    @property
    def fps(self) -> float:
        """The rate new segments get: declared, else measured (rounded), else the hint, else 30.

        Measured: the camera's rate (from the median of the last intervals, which
        jitter does not move) unless more than 5 % fewer frames were recorded
        over at least 2 s (the recorder could not keep up), in which case the
        mean recorded rate, so the video plays as long as it took.
        """
        if self.declared_fps is not None:
            return float(self.declared_fps)
        mean = self.measured_fps
        if mean is None:
            return float(self.fps_hint or FALLBACK_FPS)
        median_dt = float(np.median(self._recent_dt)) if len(self._recent_dt) >= 2 else 0.0
        camera = 1.0 / median_dt if median_dt > 0 else mean
        settled = self._last_t - self._head_t[0] >= _DROP_SPAN_S    # a mean over enough time
        dropping = settled and mean < camera * (1 - DROP_TOLERANCE)
        return nominal_fps(mean if dropping else camera)

    def write(self, image: np.ndarray, t: float) -> None:
        """Append one BGR frame captured at ``t`` (seconds)."""
        if self._seg_count == 0:
            self._seg_first = self.written
        if len(self._head_t) < _HEAD_FRAMES:
            self._head_t.append(t)
        if self.written:
            self._recent_dt.append(t - self._last_t)
        self._last_t = t
        self.written += 1
        self._seg_count += 1
        if self._writer is None:
            if self.declared_fps is None and self.committed == 0 and not self._measurable():
                self._buffer.append(image.copy())
                return
            self._open()
        self._writer.write(image)

    def _measurable(self) -> bool:
        """Enough frame intervals after the connect backlog to state the rate (or too many held)."""
        head = self._head_t
        return (len(head) - backlog_frames(head) - 1 >= _MEASURE_INTERVALS
                or len(self._buffer) >= _MAX_BUFFERED_FRAMES)

    def _open(self) -> None:
        import cv2

        self._partial = self.folder / f"{self._seg_first:06d}{PARTIAL_SUFFIX}"
        writer = cv2.VideoWriter(str(self._partial), cv2.CAP_FFMPEG, cv2.VideoWriter.fourcc(*"FFV1"),
                                 self.fps, self.size)
        if not writer.isOpened():
            raise RecordingError(f"cannot open an FFV1 video writer for '{self._partial}' "
                                 "(does this OpenCV build include FFmpeg?)")
        self._writer = writer
        for image in self._buffer:
            writer.write(image)
        self._buffer.clear()

    def commit(self) -> None:
        """Close the current segment, fsync it and rename it to its final name."""
        if self._seg_count == 0:
            return
        if self._writer is None:
            self._open()                       # the buffered first segment, at the measured rate
        self._writer.release()
        self._writer = None
        partial, self._partial = self._partial, None
        assert partial is not None
        count, self._seg_count = self._seg_count, 0
        if self.reproducible:
            make_mkv_reproducible(partial)
        held = count_blocks(partial)
        if held != count:              # OpenCV's writer does not report a failed write (disk full)
            self.failed += count
            raise RecordingError(
                f"the video segment '{partial.name}' holds {held} of its {count} frames after "
                f"writing (is the disk full?); it was not committed, the "
                f"{self.committed} frames before it are kept")
        if self._fsync:
            _fsync_path(partial)
        name = segment_name(self._seg_first, self._seg_first + count - 1)
        os.replace(partial, self.folder / name)
        if self._fsync:
            _fsync_path(self.folder)
        if self.playlist is not None:
            # A convenience for ffplay/ffmpeg (readers use the segment names): not fsync'd.
            with open(self.playlist, "a", encoding="ascii", newline="\n") as f:
                f.write(f"file {self.folder.name}/{name}\n")
        self.committed += count
        self.segments += 1

    def close(self) -> None:
        """Commit what is left. Idempotent."""
        self.commit()

    def release(self) -> None:
        """Close the open segment's writer without committing it (its ``.partial`` file stays,
        as after a kill). Idempotent."""
        if self._writer is not None:
            self._writer.release()
            self._writer = None


# --- reading ------------------------------------------------------------------------

@dataclass(frozen=True)
class Segment:
    """A committed segment: frames ``first``..``last`` (inclusive) in ``path``."""

    first: int
    last: int
    path: Path

    @property
    def count(self) -> int:
        return self.last - self.first + 1


def list_segments(folder: Path) -> tuple[list[Segment], list[Path], list[Path]]:
    """Committed segments sorted by first frame, ``.partial`` leftovers, and other files."""
    segments: list[Segment] = []
    partial: list[Path] = []
    other: list[Path] = []
    try:
        entries = sorted(folder.iterdir())
    except OSError as exc:
        raise RecordingError(f"cannot list '{folder.parent.name}/{folder.name}': "
                             f"{exc.strerror or exc}") from None
    for p in entries:
        m = _COMMITTED.match(p.name)
        if m and p.is_file() and int(m.group(2)) >= int(m.group(1)):
            segments.append(Segment(int(m.group(1)), int(m.group(2)), p))
        elif _PARTIAL.match(p.name):
            partial.append(p)
        else:
            other.append(p)
    segments.sort(key=lambda s: (s.first, s.last))
    return segments, partial, other


def plan_segments(segments: Sequence[Segment], rows: int) -> tuple[list[Segment], list[str]]:
    """The segments that tile timestamp rows ``0..rows-1`` in order, and what is wrong.

    A segment that overlaps an earlier one or reaches past the last row is left
    out (it cannot be given times); a gap between segments means frames whose
    segment is gone. Frames after the last segment are not a problem here (a
    killed recorder lists frames it never committed); callers compare totals.
    """
    usable: list[Segment] = []
    problems: list[str] = []
    past: list[Segment] = []          # said in one line: timestamps cut early leave many of them
    expected = 0
    for seg in segments:
        if seg.first < expected:
            problems.append(f"segment '{seg.path.name}' overlaps frames already covered; ignored")
            continue
        if seg.last >= rows:
            past.append(seg)
            continue
        if seg.first > expected:
            problems.append(f"frames {expected}-{seg.first - 1} have no segment file")
        usable.append(seg)
        expected = seg.last + 1
    if len(past) == 1:
        problems.append(f"segment '{past[0].path.name}' holds frames {past[0].first}-{past[0].last} but "
                        f"the timestamps list only {rows}; ignored")
    elif past:
        problems.append(f"{len(past)} segments ('{past[0].path.name}' .. '{past[-1].path.name}') hold frames "
                        f"{min(s.first for s in past)}-{max(s.last for s in past)} but the timestamps "
                        f"list only {rows}; ignored")
    return usable, problems


def open_capture(path: Path) -> Any:
    """An opened ``cv2.VideoCapture`` on ``path`` (FFmpeg backend), or ``None``."""
    import cv2

    from sensekit.capture.devices import _quiet_ffmpeg_env, quiet_opencv

    _quiet_ffmpeg_env()
    try:
        with quiet_opencv():
            cap = cv2.VideoCapture(str(path), cv2.CAP_FFMPEG)
    except cv2.error:
        return None
    if not cap.isOpened():
        cap.release()
        return None
    return cap


def count_decodable(path: Path, size: tuple[int, int], limit: int | None = None) -> tuple[int, str | None]:
    """How many frames of ``path`` decode (up to ``limit``), and why it stopped early if it did.

    Uses the same OpenCV/FFmpeg path as replay, without the colour conversion.
    A file whose frames are not ``size`` (width, height) counts 0.
    """
    import cv2

    if not path.is_file():
        return 0, "missing"
    if path.stat().st_size == 0:
        return 0, "empty (0 bytes)"
    cap = open_capture(path)
    if cap is None:
        return 0, "cannot be opened as video"
    try:
        w, h = int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
        if (w, h) != tuple(size):
            return 0, f"frames are {w}x{h}, not {size[0]}x{size[1]}"
        n = 0
        while limit is None or n < limit:
            try:
                ok = cap.grab()
            except cv2.error:
                ok = False
            if not ok:
                break
            n += 1
        return n, None
    finally:
        cap.release()
