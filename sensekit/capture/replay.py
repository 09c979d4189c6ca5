"""``ReplaySource``: play a recording back, bit for bit, as fast as possible or paced by a clock.

Reads format versions 1 (one ``video.mkv``) and 2 (half-second segments under
``video/``). Replay is deterministic: frames carry their recorded ``t``; audio
is cut into blocks of ``block_size`` samples (default 512, or as recorded) with
``t = audio_offset_s + first_sample / rate``; both are interleaved by ``t`` with
video first on ties. ``realtime=True`` paces by a clock (``sensekit.clock``), so
results never depend on the machine; ``loop=True`` restarts and keeps ``t`` and
``index`` increasing.

What is played:

- A recording marked **complete** must be whole. Missing or overlapping
  segments, a timestamp count that differs from ``frames``, or a WAV shorter
  than ``audio_samples`` raise ``RecordingError`` when the source opens; a
  segment (or version 1 file) that decodes fewer frames than it should raises
  when the decoder runs out; one deleted during the replay is named as missing.
- A recording marked **incomplete** (the recorder was killed, or its source
  failed) plays what is intact: version 2 plays every committed segment that
  decodes exactly the frames its name promises (a damaged one is skipped with
  a warning: never a frame with the wrong time), ignores the ``.partial``
  segment a killed recorder leaves, and plays the WAV up to its last patched
  header (a WAV cut short during the replay ends the audio there, with a warning,
  and the frames play on); version 1 plays the frames that decode, up to the timestamps.
  A WAV header or ``audio_crc.csv`` header too damaged to read skips the audio, with one
  warning, and the video plays (``stats()["audio_skipped"]`` says why).
  ``stats()["truncated_frames"]`` counts listed frames that were not played.
- **Checksums** (``sensekit.capture.checksums``; recordings made since they exist): every
  decoded frame and every stored chunk of samples is compared with its CRC-32. In a complete
  recording a mismatch raises ``RecordingError`` naming the frame or the samples; in an
  incomplete one the frame is skipped and the samples play as silence, each with a warning
  (``stats()["corrupt_frames"]``, ``["corrupt_blocks"]``). Older recordings play unverified.

Cost: one FFV1 decode per frame (~1-5 ms at 320x240); audio blocks are read
straight from the file; nothing is loaded whole. For incomplete version 2
recordings each segment is decoded once more, without colour conversion, to
check it before it plays.
"""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Generator, Iterator

import numpy as np

from sensekit.arg_types import checked
from sensekit.capture.base import UNITY_GAIN, AudioBlock, Item, Source, VideoFrame, merge_by_time
from sensekit.capture.checksums import (AUDIO_CRC_HEADER, VIDEO_CRC_HEADER, checksums_cap, crc32_of,
                                        read_checksums)
from sensekit.capture.recording_meta import (DEFAULT_BLOCK_SIZE, UNCOMMITTED_ROWS, audio_offset_problem,
                                             missing_named_files, read_meta, read_video_times)
from sensekit.capture.video_segments import (count_decodable, list_segments, open_capture,
                                             plan_segments)
from sensekit.capture.wav import WavInfo, int16_to_float, mark_nonfinite, read_wav_info
from sensekit.clock import Clock, MonotonicClock
from sensekit.errors import ConfigError, RecordingError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class VideoUnit:
    """One video file to decode: rows ``first``.. of the timestamps, ``count`` of them.

    ``exact``: the file must hold exactly ``count`` frames (a version 2 segment);
    otherwise (version 1) it holds up to ``count`` and the rest is truncation.
    """

    path: Path
    first: int
    count: int
    exact: bool

    @property
    def label(self) -> str:
        return f"{self.path.parent.parent.name}/{self.path.parent.name}/{self.path.name}" \
            if self.exact else f"{self.path.parent.name}/{self.path.name}"


def frame_checksum_rows(meta: dict[str, Any], rows: int | None, *, complete: bool,
                        times_cut: bool) -> int | None:
    """The rows the frame checksum file may hold, given the ``rows`` the timestamps list
    (``None``: unknown). Those rows, unless the recording is incomplete and its times were cut
    at a row that failed its checksum (``times_cut``: the timestamps file is the damaged one, the
    frames past it were written): then also those frames and the ones not committed yet, as for
    the timestamp checksums (meta.json's count plus ``UNCOMMITTED_ROWS``); the checksums past the
    times are not used. (A damaged row early in the times once put a whole recording's checksums
    over the cap of the rows left, and refused it.) Times cut short with no damage named (an
    emptied file) still make a longer checksum file an error: which of the two is wrong cannot
    be told."""
    if complete or rows is None or not times_cut:
        return rows
    counted = meta.get("frames")
    return max(rows, counted if isinstance(counted, int) and counted >= 0 else 0) + UNCOMMITTED_ROWS


def skips_damaged_audio(meta: dict[str, Any]) -> bool:
    """Does a replay play the video alone when the audio cannot be read (a WAV header or an
    ``audio_crc.csv`` header that is damaged)? Only in an incomplete recording with video: a
    complete one must be whole, and an audio-only one would play nothing."""
    return not meta["complete"] and meta["video"] is not None and meta["audio"] is not None


def video_units(path: Path, meta: dict[str, Any], rows: int) -> tuple[list[VideoUnit], list[str]]:
    """The files that hold a recording's frames, in order, and what is wrong with the layout."""
    v = meta["video"]
    if meta["version"] == 1:
        return [VideoUnit(path / v["file"], 0, rows, exact=False)], []
    segments, _, _ = list_segments(path / v["segments"])
    usable, problems = plan_segments(segments, rows)
    return [VideoUnit(s.path, s.first, s.count, exact=True) for s in usable], problems


class ReplaySource(Source):
    """Play a recording back, as fast as possible or paced by a clock; optionally looping.

    Defaults: ``realtime=False``, ``loop=False``, ``clock=MonotonicClock()`` (used
    only when realtime). ``is_live`` is False: times come from the recording.
    """

    kind = "replay"
    is_live = False

    @checked
    def __init__(self, path: str | os.PathLike[str], *, realtime: bool = False, loop: bool = False,
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
        self.gain = float(a["gain"]) if a else UNITY_GAIN
        if block_size is not None and (not isinstance(block_size, int) or isinstance(block_size, bool)
                                       or block_size <= 0):
            raise ConfigError(f"`block_size` must be a positive integer, got {block_size!r}")
        self.block_size = block_size or (a["block_size"] if a else DEFAULT_BLOCK_SIZE)
        self.audio_offset_s = float(self.meta["audio_offset_s"])
        missing = missing_named_files(self.path, self.meta)
        if missing:
            raise RecordingError(f"recording '{self.path.name}' is missing its {missing[0]}")
        self._say_dropped_entries()
        self._times = np.zeros(0)
        self._units: list[VideoUnit] = []
        self._bad_units: set[Path] = set()
        self._wav: WavInfo | None = None
        self._n_audio = 0
        self._opened = False
        self._gen: Generator[Item, None, None] | None = None
        self._pending: Item | None = None
        self._audio_file: BinaryIO | None = None
        self._caps: list[Any] = []
        self._counts = {"frames": 0, "blocks": 0, "loops": 0}
        self._delivered = {"frames": 0, "blocks": 0}
        self._decoded: int | None = None          # version 1: frames that decode, once known
        self._frame_crcs: np.ndarray | None = None
        self._block_crcs: np.ndarray | None = None
        self._checked_chunks: dict[int, bool] = {}
        self._audio_skipped: str | None = None    # why a damaged audio track is not played
        self._corrupt = {"frames": 0, "blocks": 0}     # skipped frames, blocks played as silence
        self._skipped: dict[Path, list[int]] = {}      # frames of the unit playing that were skipped
        self._told: set[Path] = set()                   # units whose skipped frames were said
        self._told_unchecked = False                    # frames past the checksum file said
        self._clock_t0 = 0.0

    def _say_dropped_entries(self) -> None:
        """One warning a replay naming the damaged entries of ``audio_gaps``, ``audio_jumps`` and
        ``source_drops`` that ``inspect`` leaves out (``meta_reported.dropped_entries``); replay
        reads none of them."""
        from sensekit.capture.meta_reported import dropped_entries

        held = self.meta.get("audio_samples") if self.complete and self.has_audio else None
        dropped = dropped_entries(self.meta, held if isinstance(held, int) else None)
        if dropped:
            log.warning("'%s/meta.json' is damaged: %s (notes for people, which replay does not read; "
                        "`sensekit inspect` shows the rest)", self.path.name,
                        "; ".join(f"`{key}`: {why}" for key, why in dropped.items()))

    @property
    def description(self) -> str:
        return f"replay:{self.path.name}"

    def _playable_rows(self) -> list[int]:
        """Row indices that can play (as far as known before decoding version 1)."""
        rows: list[int] = []
        for u in self._units:
            if u.path in self._bad_units:
                continue
            n = u.count if u.exact or self._decoded is None else min(u.count, self._decoded)
            rows.extend(range(u.first, u.first + n))
        return rows

    @property
    def duration_s(self) -> float:
        """Length of one pass: last playable frame's end or last sample, whichever is later."""
        self.open()
        d = 0.0
        rows = self._playable_rows()
        if rows:
            d = float(self._times[rows[-1]]) + 1.0 / float(self.fps or 1.0)
        if self._n_audio:
            assert self.sample_rate is not None
            d = max(d, self.audio_offset_s + self._n_audio / self.sample_rate)
        return d

    @property
    def frame_count(self) -> int:
        self.open()
        return len(self._playable_rows())

    @property
    def audio_sample_count(self) -> int:
        self.open()
        return self._n_audio

    def open(self) -> None:
        if self._opened:
            return
        v, a = self.meta["video"], self.meta["audio"]
        if v is not None:
            self._open_video(v)
        if a is not None:
            problem = audio_offset_problem(self.meta, float(self._times[-1]) if len(self._times) else None)
            if problem is not None:
                raise RecordingError(f"'{self.path.name}/meta.json': {problem}")
            self._open_audio(a)
        self._opened = True
        self._gen = self._items()
        self._pending = None
        self._counts = {"frames": 0, "blocks": 0, "loops": 0}
        self._delivered = {"frames": 0, "blocks": 0}
        self._clock_t0 = self.clock.now() if self.realtime else 0.0

    def _open_video(self, v: dict[str, Any]) -> None:
        """Read the timestamps, the frame checksums and the segment list (checked when complete)."""
        name = self.path.name
        said: list[str] = []

        def warn(text: str) -> None:
            said.append(text)
            log.warning("'%s': %s", name, text)

        self._times = read_video_times(self.path, v, self.meta["frames"], complete=self.complete, warn=warn)
        rows = len(self._times)
        if self.complete and rows != self.meta["frames"]:
            raise RecordingError(
                f"'{name}/{v['timestamps']}' lists {rows} frames but meta.json "
                f"says {self.meta['frames']}")
        if v["checksums"]:
            self._read_frame_checksums(v, rows, times_cut=bool(said))
        self._units, problems = video_units(self.path, self.meta, rows)
        if not self.complete:
            for p in problems:
                log.warning("'%s': %s", name, p)
            return
        end = self._units[-1].first + self._units[-1].count if self._units else 0
        if not problems and end < rows:
            problems = [f"frames {end}-{rows - 1} have no segment file"]
        if problems:
            raise RecordingError(f"'{name}/{v['segments']}' is damaged: {problems[0]} "
                                 "(recording is marked complete)")

    def _read_frame_checksums(self, v: dict[str, Any], rows: int, *, times_cut: bool) -> None:
        """The frame checksums, checked against the ``rows`` the timestamps list."""
        name = self.path.name
        cap = checksums_cap(frame_checksum_rows(self.meta, rows, complete=self.complete, times_cut=times_cut))
        try:                                      # more rows than the times: one file is damaged
            too_long = (self.path / v["checksums"]).stat().st_size > cap
        except OSError:
            too_long = False                      # read_checksums names the problem
        if too_long:
            raise RecordingError(f"'{name}/{v['checksums']}' holds more checksums than the {rows} "
                                 f"frames '{v['timestamps']}' lists (one of the two is damaged)")
        self._frame_crcs = read_checksums(self.path / v["checksums"], VIDEO_CRC_HEADER,
                                          complete=self.complete, max_bytes=cap)
        if self.complete and len(self._frame_crcs) != rows:
            raise RecordingError(f"'{name}/{v['checksums']}' lists {len(self._frame_crcs)} "
                                 f"checksums for {rows} frames")

    def _open_audio(self, a: dict[str, Any]) -> None:
        """Check the WAV against meta.json, read the block checksums, open the file. An
        incomplete recording with video whose WAV header or checksum file is damaged plays its
        video without the audio, with one warning (``stats()["audio_skipped"]``)."""
        try:
            self._read_audio(a)
        except RecordingError as exc:
            if not skips_damaged_audio(self.meta):
                raise
            self._wav, self._n_audio, self._block_crcs = None, 0, None
            self._audio_skipped = str(exc)
            log.warning("'%s': %s; the audio is damaged and skipped, the video plays "
                        "(recording is marked incomplete)", self.path.name, exc)

    def _read_audio(self, a: dict[str, Any]) -> None:
        name = self.path.name
        info = read_wav_info(self.path / a["file"])
        if info.rate != a["sample_rate"] or info.channels != a["channels"]:
            raise RecordingError(
                f"'{name}/{a['file']}' is {info.rate} Hz x {info.channels} channels but "
                f"meta.json says {a['sample_rate']} Hz x {a['channels']}")
        if self.complete:
            want = self.meta["audio_samples"]
            if info.declared_frames != want or info.available_frames < want:
                raise RecordingError(
                    f"'{name}/{a['file']}' has the wrong length: its header says "
                    f"{info.declared_frames} samples per channel, the file holds "
                    f"{info.available_frames}, meta.json says {want}")
            self._n_audio = want
        else:
            self._n_audio = min(info.declared_frames, info.available_frames)
        self._wav = info
        if a["checksums"]:
            chunks = -(-self._n_audio // a["checksum_block"])
            # an incomplete recording's checksums may run past the samples it plays (a WAV cut
            # short, a header patched before the rows were): capped by what the WAV claims or holds
            held = chunks if self.complete else \
                -(-max(info.declared_frames, info.available_frames) // a["checksum_block"])
            self._block_crcs = read_checksums(self.path / a["checksums"], AUDIO_CRC_HEADER,
                                              complete=self.complete, max_bytes=checksums_cap(held))
            if self.complete and len(self._block_crcs) != chunks:
                raise RecordingError(f"'{name}/{a['checksums']}' lists {len(self._block_crcs)} "
                                     f"checksums for {chunks} blocks of {a['checksum_block']} samples")
        try:
            self._audio_file = open(self.path / a["file"], "rb")  # noqa: SIM115 (open until close())
        except OSError as exc:
            raise RecordingError(f"cannot open '{name}/{a['file']}': {exc.strerror or exc}") from None

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
    def _usable(self, unit: VideoUnit) -> bool:
        """Incomplete version 2: does this segment decode exactly as promised? (checked once)"""
        if unit.path in self._bad_units:
            return False
        if self.complete or not unit.exact:
            return True
        assert self.frame_size is not None
        n, why = count_decodable(unit.path, self.frame_size, limit=unit.count + 1)
        if n != unit.count:
            log.warning("'%s' %s; skipping its %d frames", unit.label,
                        why or f"decodes {n} frames, not {unit.count}", unit.count)
            self._bad_units.add(unit.path)
            return False
        return True

    def _video_items(self, t_offset: float) -> Iterator[VideoFrame]:
        v = self.meta["video"]
        if v is None:
            return
        shape = (v["height"], v["width"], 3)
        for unit in self._units:
            if not self._usable(unit):
                continue
            limit = unit.count if unit.exact or self._decoded is None else min(unit.count, self._decoded)
            if limit == 0:
                continue
            cap = self._open_unit(unit)
            if cap is None:
                continue
            self._caps.append(cap)
            try:
                yield from self._unit_frames(unit, cap, limit, shape, t_offset)
                self._tell_skipped(unit)
            finally:
                cap.release()
                if cap in self._caps:
                    self._caps.remove(cap)

    def _open_unit(self, unit: VideoUnit) -> Any:
        """The capture of one segment (or of a version 1 video), ``None`` if it cannot decode."""
        cap = open_capture(unit.path)
        if cap is None:
            what = ("is missing (deleted or moved during the replay)" if not unit.path.is_file()
                    else "cannot be decoded (is it an FFV1/MKV video?)")
            if self.complete:
                raise RecordingError(f"'{unit.label}' {what}")
            log.warning("'%s' %s; replaying without its frames", unit.label, what)
            self._decoded = 0 if not unit.exact else self._decoded
            self._bad_units.add(unit.path)
        return cap

    def _unit_frames(self, unit: VideoUnit, cap: Any, limit: int, shape: tuple[int, int, int],
                     t_offset: float) -> Iterator[VideoFrame]:
        """The frames of one unit, up to ``limit``; stops at the first that does not decode."""
        import cv2
        for i in range(limit):
            try:
                ok, image = cap.read()
            except cv2.error:
                ok, image = False, None
            if not self._decodes(unit, i, image if ok else None, shape):
                if not unit.exact:
                    self._decoded = i
                return
            if not self._frame_ok(unit, i, image):
                continue
            index = self._counts["frames"]
            self._counts["frames"] += 1
            yield VideoFrame(index, t_offset + float(self._times[unit.first + i]), image, None)
        if not unit.exact and self._decoded is None:
            self._decoded = limit

    def _decodes(self, unit: VideoUnit, i: int, image: np.ndarray | None, shape: tuple[int, int, int]) -> bool:
        """Frame ``i`` decoded at the recorded size; a complete recording's failure raises."""
        if image is None:
            if self.complete:
                raise RecordingError(
                    f"'{unit.label}' is truncated or corrupt: only {i} of its "
                    f"{unit.count} frames decode (recording is marked complete)")
            log.warning("'%s': %d of %d frames decode; replaying those", unit.label, i, unit.count)
            return False
        if image.shape != shape:
            what = (f"'{unit.label}' frame {i} is {image.shape[1]}x{image.shape[0]} "
                    f"but meta.json says {shape[1]}x{shape[0]}")
            if self.complete:
                raise RecordingError(what)
            log.warning("%s; replaying without its frames", what)
            return False
        return True

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
                what = f"'{self.path.name}/{a['file']}' ended early while reading"
                if self.complete:
                    raise RecordingError(what)
                # incomplete: what is there plays; audio cut short ends there, the frames go on
                log.warning("%s (at %.2f s of %.2f s: cut during the replay?); the audio ends there",
                            what, start / rate, n / rate)
                return
            if self._block_crcs is not None and not self._pcm_ok(start, count):
                raw = bytes(len(raw))                   # named in a warning, played as silence
            s = int16_to_float(np.frombuffer(raw, dtype="<i2"))
            if ch > 1:
                s = s.reshape(count, ch)
            if a["nonfinite"]:                          # NaN/Inf when recorded: as the live run had
                mark_nonfinite(s, start, a["nonfinite"])
            index = self._counts["blocks"]
            self._counts["blocks"] += 1
            yield AudioBlock(index, t_offset + self.audio_offset_s + start / rate, s, rate, None)

    def _frame_ok(self, unit: VideoUnit, i: int, image: np.ndarray) -> bool:
        """Does frame ``i`` of ``unit`` match its stored checksum? A mismatch raises for a
        complete recording; for an incomplete one the frame is skipped with a warning."""
        crcs = self._frame_crcs
        if crcs is None:
            return True
        row = unit.first + i
        if row < len(crcs) and crc32_of(image) == int(crcs[row]):
            return True
        what = (f"'{unit.label}' frame {row} does not match its checksum" if row < len(crcs)
                else f"'{unit.label}' frame {row} has no checksum")
        if self.complete:
            raise RecordingError(f"{what}: the video is damaged (recording is marked complete)")
        self._corrupt["frames"] += 1
        if row >= len(crcs):                  # the checksum file ends before: one cause, one line
            if not self._told_unchecked:
                self._told_unchecked = True
                log.warning("%s ('%s' ends at frame %d); skipping the frames from there on", what,
                            self.meta["video"]["checksums"], len(crcs))
            return False
        skipped = self._skipped.setdefault(unit.path, [])
        skipped.append(row)
        if len(skipped) == 1 and unit.path not in self._told:       # the rest: one line at the unit's end
            log.warning("%s; skipping it", what)
        return False

    def _tell_skipped(self, unit: VideoUnit) -> None:
        """One line for the frames of ``unit`` skipped after its first (a damaged segment, or a
        checksum file cut short, used to give a warning a frame); said once a replay, not once a
        loop (``stats()["corrupt_frames"]`` counts them all)."""
        skipped = self._skipped.pop(unit.path, [])
        if len(skipped) > 1 and unit.path not in self._told:
            shown = ", ".join(map(str, skipped[:5])) + (f" and {len(skipped) - 5} more" if len(skipped) > 5 else "")
            log.warning("'%s': %d of its frames skipped (%s): they do not match their checksums",
                        unit.label, len(skipped), shown)
        if skipped:
            self._told.add(unit.path)

    def _pcm_ok(self, start: int, count: int) -> bool:
        """Do the stored samples ``start .. start+count`` match their chunks' checksums? A
        mismatch raises for a complete recording; an incomplete one plays silence there
        (chunks after the last checksum row, a killed recorder's tail, play unverified)."""
        a, info, crcs = self.meta["audio"], self._wav, self._block_crcs
        assert info is not None and crcs is not None and self._audio_file is not None
        cb, ch = a["checksum_block"], info.channels
        ok = True
        for k in range(start // cb, min(len(crcs), (start + count - 1) // cb + 1)):
            fresh = k not in self._checked_chunks           # said once: not again on each loop
            if fresh:
                n = min(cb, self._n_audio - k * cb) if self.complete else cb
                self._audio_file.seek(info.data_offset + k * cb * 2 * ch)
                raw = self._audio_file.read(n * 2 * ch)
                self._checked_chunks[k] = crc32_of(raw) == int(crcs[k])
            if not self._checked_chunks[k]:
                what = (f"'{self.path.name}/{a['file']}' samples {k * cb}-{(k + 1) * cb - 1} "
                        f"(t = {self.audio_offset_s + k * cb / info.rate:.3f} s) do not match their checksum")
                if self.complete:
                    raise RecordingError(f"{what}: the audio is damaged (recording is marked complete)")
                if fresh:
                    log.warning("%s; playing silence there", what)
                ok = False
        if not ok:
            self._corrupt["blocks"] += 1
        return ok

    def _items(self) -> Generator[Item, None, None]:
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

    @property
    def loops(self) -> int:
        """Passes completed by a looping replay (the runner finishes its stages' stream at each)."""
        return int(self._counts["loops"])

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
        known = self._decoded is not None or self.meta["version"] > 1
        return {"frames": self._delivered["frames"], "blocks": self._delivered["blocks"],
                "loops": self._counts["loops"], "dropped_frames": 0,
                "truncated_frames": max(0, rows - len(self._playable_rows())) if known else 0,
                "corrupt_frames": self._corrupt["frames"], "corrupt_blocks": self._corrupt["blocks"],
                "complete": self.complete, "audio_skipped": self._audio_skipped}
