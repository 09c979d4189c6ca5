"""Writing recordings: ``Recorder`` takes items (``record_loop.record_source`` drives it from a source).

``Recorder(path, video=(width, height, fps), audio=(rate, channels))`` writes
format version 2 (see ``docs/RECORDING_FORMAT.md``): ``meta.json``, the video
as half-second FFV1 segments under ``video/`` (``video_segments``), their
timestamps in ``video_ts.csv`` and the audio in ``audio.wav`` (``wav``).

Crash safety: ``meta.json`` is written first (``complete: false``). Every half
second of recording time ``flush()`` fsyncs the timestamps, commits the video
segment (close, fsync, rename, fsync of ``video/``), patches and fsyncs the WAV header and
rewrites ``meta.json`` atomically with the counts so far, then fsyncs the recording's folder
(so a power cut cannot undo the rename and bring back the previous ``meta.json``; the folder's
own name in its parent is fsynced once, at the start). A recorder killed with
SIGKILL at any moment therefore loses at most the last half second of video
and audio, plus the time a flush takes (well under 1 s); ``close()`` marks the recording ``complete: true``, and
``close(complete=False)`` closes the files but leaves it marked incomplete
(a source that failed part-way).

Cost: one FFV1 encode per frame (~2-20 ms by size and content); per flush (two a
second) a few ms to switch segments and the fsyncs of the timestamps, the checksum files, the
segment and ``video/``, the WAV, ``meta.json`` and the recording's folder; none per frame.

Failure modes: bad parameters or items that do not match the declared tracks
raise ``ConfigError``; an existing folder or a video writer that cannot open
raises ``RecordingError``.
"""
from __future__ import annotations

import json
import logging
import math
import os
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from sensekit.arg_types import checked
from sensekit.atomic import fsync_folder
from sensekit.capture.base import UNITY_GAIN, AudioBlock, Item, VideoFrame
from sensekit.capture.checksums import (AUDIO_CRC_FILE, AUDIO_CRC_HEADER, TIMESTAMPS_CRC_FILE,
                                        TIMESTAMPS_CRC_HEADER, VIDEO_CRC_FILE, VIDEO_CRC_HEADER,
                                        ChecksumLog, PcmChecksums, crc32_of)
from sensekit.capture.recording_meta import (AUDIO_FILE, DEFAULT_BLOCK_SIZE, FORMAT, META_FILE,
                                             PLAYLIST_FILE, SEGMENTS_DIR, TIMESTAMPS_FILE,
                                             TIMESTAMPS_HEADER, VERSION, write_json_atomic)
from sensekit.capture.video_segments import SegmentWriter
from sensekit.capture.wav import MAX_NONFINITE_RUNS, WavWriter, float_to_int16, nonfinite_runs
from sensekit.errors import ConfigError, RecordingError
from sensekit.validate import check_range

log = logging.getLogger(__name__)

FLUSH_INTERVAL_S = 0.5         # commit video, timestamps, WAV and meta this often (recording time)
#: an audio gap is filled with silence when at most this long, or at most as long as the recorder
#: has run (plus this): a live source cannot miss more time than has passed; a longer jump
#: (a source faster than real time, a wrong ``t``) is not filled but kept in ``audio_jumps``
MAX_PAD_S = 10.0
_PAD_CHUNK = 1 << 16          # samples of silence written at a time (bounded memory)
_monotonic = time.monotonic   # the clock the gap rule reads (tests move it by hand)
MAX_GAP_RUNS = 4096           # gaps (and jumps) listed in meta.json; later ones are not listed


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class Recorder:
    """Write a recording folder from ``VideoFrame``/``AudioBlock`` items.

    ``Recorder(path, video=(width, height, fps), audio=(rate, channels), gain=50,
    sources=[...], notes="")``; at least one of ``video``/``audio``. ``fps=None``
    measures the rate from the frame times (``fps_hint`` if it cannot be
    measured). Times are stored as ``item.t - t0`` (``t0`` default 0: the
    source's own times). ``block_size`` is stored so a replay cuts audio the
    same way (default: the length of the first block). ``start_unix`` (the
    wall-clock time of ``t0``) defaults to ``time.time()``; ``reproducible=True``
    fixes the MKV segments' random UIDs (the synth uses it so its bundle is
    byte-identical run to run).

    Flushes every half second of recording time (see the module docstring). Raises
    ``ConfigError`` for bad parameters or items that do not match the declared
    tracks, ``RecordingError`` if the folder exists or the video cannot be opened.
    """

    @checked
    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        video: tuple[int, int, float | None] | None = None,
        audio: tuple[int, int] | None = None,
        gain: float = UNITY_GAIN,
        sources: Sequence[str] = (),
        notes: str = "",
        block_size: int | None = None,
        t0: float = 0.0,
        start_unix: float | None = None,
        reproducible: bool = False,
        fsync: bool = True,
        fps_hint: float | None = None,
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
        fps: float | None = None
        if video is not None:
            self._meta["video"], fps, fps_hint = _video_meta(video, fps_hint)
        if audio is not None:
            self._meta["audio"] = _audio_meta(audio, block_size, gain)
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
        self.audio_samples = 0
        self.padded_samples = 0
        #: ``[at, samples]``: silence filling a gap the source left (meta ``audio_gaps``), and jumps
        #: ahead not filled (meta ``audio_jumps``): ``at`` counts the samples stored before
        self.gaps: list[list[int]] = []
        self.jumps: list[list[int]] = []
        self.jumped_samples = 0
        self._opened_at = self._clock()
        #: runs ``[start, stop)`` of samples that were NaN/Inf (stored as 0; meta ``audio.nonfinite``)
        self.nonfinite: list[list[int]] = []
        self._nonfinite_said = False
        self._nonfinite_full = False
        self._audio_started = False
        self._last_flush_t = 0.0
        self._max_t = 0.0
        self._last_frame_t = 0.0
        self._dirty = False
        self._closed = False
        self._video: SegmentWriter | None = None
        self._ts: Any = None
        self._wav: WavWriter | None = None
        self._frame_crcs: ChecksumLog | None = None
        self._ts_crcs: ChecksumLog | None = None
        self._block_crcs: ChecksumLog | None = None
        self._pcm: PcmChecksums | None = None
        if video is not None:
            v = self._meta["video"]
            self._video = SegmentWriter(self.path / SEGMENTS_DIR, (v["width"], v["height"]), fps=fps, fps_hint=fps_hint,
                                        playlist=self.path / PLAYLIST_FILE,
                                        reproducible=reproducible, fsync=fsync)
            self._ts = open(self.path / TIMESTAMPS_FILE, "w", encoding="ascii", newline="\n")  # noqa: SIM115
            self._ts.write(TIMESTAMPS_HEADER + "\n")
            self._frame_crcs = ChecksumLog(self.path / VIDEO_CRC_FILE, VIDEO_CRC_HEADER, fsync=fsync)
            self._ts_crcs = ChecksumLog(self.path / TIMESTAMPS_CRC_FILE, TIMESTAMPS_CRC_HEADER, fsync=fsync)
        if audio is not None:
            a = self._meta["audio"]
            self._wav = WavWriter(self.path / AUDIO_FILE, a["sample_rate"], a["channels"])
            self._block_crcs = ChecksumLog(self.path / AUDIO_CRC_FILE, AUDIO_CRC_HEADER, fsync=fsync)
        self.flush()                   # its meta.json fsyncs the folder: the new files' names
        if fsync:
            fsync_folder(self.path.parent)    # and the folder's own name in its parent, once

    # -- context manager -------------------------------------------------------
    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        # An exception inside the block leaves the recording marked incomplete.
        self.close(complete=exc_type is None or issubclass(exc_type, KeyboardInterrupt))

    @property
    def meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = json.loads(json.dumps(self._meta))
        return meta

    @property
    def frames(self) -> int:
        """Frames written so far (``committed_frames`` of them are durable)."""
        return self._video.written if self._video is not None else 0

    @property
    def committed_frames(self) -> int:
        return self._video.committed if self._video is not None else 0

    @property
    def unflushed(self) -> bool:
        """True when something was written since the last flush."""
        return self._dirty

    @property
    def duration_s(self) -> float:
        d = 0.0
        a = self._meta["audio"]
        if self._video is not None and self.frames:
            d = max(d, self._last_frame_t + 1.0 / self._video.fps)
        if a is not None and self.audio_samples:
            d = max(d, self._meta["audio_offset_s"] + self.audio_samples / a["sample_rate"])
        return d

    # -- writing ---------------------------------------------------------------
    def write(self, item: Item) -> None:
        """Append one frame or audio block; flushes every half second of recording time."""
        if self._closed:
            raise RecordingError(f"recording '{self.path.name}' is closed")
        t = float(item.t) - self.t0
        if isinstance(item, VideoFrame):
            self._write_frame(item.image, t)
        elif isinstance(item, AudioBlock):
            self._write_block(item, t)
        else:
            raise ConfigError(f"can only record VideoFrame or AudioBlock, got {type(item).__name__}")
        self._dirty = True
        self._max_t = max(self._max_t, t)
        if self._max_t - self._last_flush_t >= FLUSH_INTERVAL_S:
            self.flush()
            self._last_flush_t = self._max_t

    def _write_frame(self, image: np.ndarray, t: float) -> None:
        v = self._meta["video"]
        if v is None or self._video is None:
            raise ConfigError(f"recording '{self.path.name}' has no video track; got a frame")
        shape = (v["height"], v["width"], 3)
        if not isinstance(image, np.ndarray) or image.shape != shape or image.dtype != np.uint8:
            got = (image.shape, image.dtype) if isinstance(image, np.ndarray) else type(image).__name__
            raise ConfigError(f"frame must be a {shape} uint8 array for this recording, got {got}")
        if not math.isfinite(t):
            raise ConfigError(f"frame time must be finite, got {t!r}")
        index = self._video.written
        image = np.ascontiguousarray(image)
        self._video.write(image, t)
        row = f"{index},{t:.6f}"
        self._ts.write(row + "\n")
        assert self._frame_crcs is not None and self._ts_crcs is not None
        self._ts_crcs.add(crc32_of(row.encode("ascii")))
        self._frame_crcs.add(crc32_of(image))
        self._last_frame_t = round(t, 6)

    def _write_block(self, block: AudioBlock, t: float) -> None:
        a = self._meta["audio"]
        if a is None or self._wav is None:
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
            a["checksum_block"] = a["block_size"]
            assert self._block_crcs is not None
            self._pcm = PcmChecksums(self._block_crcs, a["block_size"], a["channels"])
        else:
            # A block that starts later than the samples so far reach (the microphone
            # dropped blocks) is preceded by silence, so audio stays in sync with video.
            gap = (int(round((t - self._meta["audio_offset_s"]) * a["sample_rate"]))
                   - self.audio_samples - self.jumped_samples)
            if gap > max(1, s.shape[0] // 2):
                self._fill_gap(gap, ch, a["sample_rate"], t)
        self._note_nonfinite(s, t)
        self._write_pcm(float_to_int16(s))
        self.audio_samples += s.shape[0]

    def _clock(self) -> float:
        """The clock the gap rule reads (``time.monotonic``; a benchmark's subclass may move it by
        hand: ``benchmarks/_fault_mic.py``)."""
        return _monotonic()

    def _fill_gap(self, gap: int, channels: int, rate: int, t: float) -> None:
        """Silence for a gap of ``gap`` samples before the block at ``t`` (the source dropped
        blocks, or lost its device and reconnected), so the audio stays in sync with the video
        and a replay plays each block when it was heard; a gap longer than the recorder has run
        is a jump no live source makes: not filled, logged and listed."""
        limit_s = MAX_PAD_S + max(0.0, self._clock() - self._opened_at)
        if gap > limit_s * rate:
            log.warning("audio jumps %.1f s ahead at t=%.3f, more than the %.1f s recorded so far "
                        "allow; not padding (listed in meta.json's audio_jumps)", gap / rate, t, limit_s)
            if len(self.jumps) < MAX_GAP_RUNS:
                self.jumps.append([self.audio_samples, gap])
            self.jumped_samples += gap      # the blocks after it follow on: one jump, not one a block
            return
        if len(self.gaps) < MAX_GAP_RUNS:
            self.gaps.append([self.audio_samples, gap])
        left = gap
        while left > 0:
            n = min(left, _PAD_CHUNK)
            self._write_pcm(np.zeros((n, channels), np.int16))
            left -= n
        self.audio_samples += gap
        self.padded_samples += gap

    def _note_nonfinite(self, s: np.ndarray, t: float) -> None:
        """List where the block had NaN/Inf samples (the WAV stores them as 0), so a replay puts
        them back and the stages skip those blocks as they did live; said once in the log."""
        runs = nonfinite_runs(s)
        if not runs:
            return
        if not self._nonfinite_said:
            self._nonfinite_said = True
            log.warning("audio has NaN/Inf samples (first at t=%.3f s): recorded as silence and listed in "
                        "meta.json, so a replay skips those blocks as the live run does", t)
        kept = self.nonfinite
        for a, b in runs:
            a, b = a + self.audio_samples, b + self.audio_samples
            if kept and kept[-1][1] == a:               # a run that goes on from the last block
                kept[-1][1] = b
            elif len(kept) < MAX_NONFINITE_RUNS:
                kept.append([a, b])
            else:
                if not self._nonfinite_full:
                    log.warning("more than %d runs of NaN/Inf audio samples: the rest are recorded as "
                                "silence only", MAX_NONFINITE_RUNS)
                self._nonfinite_full = True
                break

    def _write_pcm(self, pcm: np.ndarray) -> None:
        assert self._wav is not None and self._pcm is not None
        self._wav.write(pcm)
        self._pcm.add(pcm)

    def flush(self) -> None:
        """Make everything written so far durable: timestamps, video segment, WAV, meta.json.

        The timestamps go first, so every committed frame has its row.
        """
        if self._ts is not None:
            self._ts.flush()
            if self._fsync:
                os.fsync(self._ts.fileno())
        for log_ in (self._ts_crcs, self._frame_crcs, self._block_crcs):    # before what they check
            if log_ is not None:
                log_.flush()
        if self._video is not None:
            self._video.commit()
        if self._wav is not None:
            self._wav.flush(fsync=self._fsync)
        self._update_meta()
        write_json_atomic(self.path / META_FILE, self._meta, fsync=self._fsync)
        self._dirty = False

    def _update_meta(self) -> None:
        self._meta["frames"] = self.committed_frames
        self._meta["audio_samples"] = self.audio_samples
        v = self._meta["video"]
        if v is not None and self._video is not None:
            v["fps"] = self._video.fps
            measured = self._video.measured_fps
            if v["fps_from"] == "timestamps" and measured is not None:
                v["fps_measured"] = round(measured, 3)
        if self._meta["audio"] is not None:
            self._meta["audio_padded_samples"] = self.padded_samples
            for key, runs in (("audio_gaps", self.gaps), ("audio_jumps", self.jumps)):
                if runs:
                    self._meta[key] = runs
            if self.nonfinite:
                self._meta["audio"]["nonfinite"] = self.nonfinite
        self._meta["duration_s"] = round(self.duration_s, 6)

    def note_source_drops(self, counts: dict[str, int]) -> None:
        """Keep what the live source lost (``capture.base.drop_counts``) in ``meta.json``'s
        ``source_drops``, written by the next flush or ``close()``: a count replaces the one noted
        before under its name; the other names are kept (``record_loop``'s ``resized_frames``)."""
        drops = dict(self._meta.get("source_drops") or {})
        drops.update({str(k): int(v) for k, v in counts.items()})
        self._meta["source_drops"] = drops

    def close(self, complete: bool = True) -> None:
        """Finish the files; mark the recording complete unless ``complete=False``. Idempotent.

        Every file is closed whatever fails on the way (a full disk fails the closing writes);
        the first error is raised after, and ``meta.json`` is then left as the last flush wrote it."""
        if self._closed:
            return
        self._closed = True
        steps: list[Callable[[], None]] = []
        if self._pcm is not None:
            steps.append(self._pcm.finish)                 # the shorter last chunk
        steps.append(self.flush)
        steps += [f.close for f in (self._ts, self._wav, self._ts_crcs, self._frame_crcs, self._block_crcs)
                  if f is not None]
        if self._video is not None:
            steps.append(self._video.release)              # the segment a failed flush left open
        first = _run_all(steps)
        if first is not None:
            raise first
        a = self._meta["audio"]
        if a is not None and a["block_size"] is None:
            a["block_size"] = DEFAULT_BLOCK_SIZE
        self._meta["complete"] = bool(complete)
        self._update_meta()
        write_json_atomic(self.path / META_FILE, self._meta, fsync=self._fsync)


def _run_all(steps: Sequence[Callable[[], None]]) -> BaseException | None:
    """Run every step even if some fail; the first failure (None if none)."""
    first: BaseException | None = None
    for step in steps:
        try:
            step()
        except BaseException as exc:  # noqa: BLE001 - kept and raised by the caller
            first = exc if first is None else first
    return first


def _video_meta(video: tuple[int, int, float | None],
                fps_hint: float | None) -> tuple[dict[str, Any], float | None, float | None]:
    """meta.json's ``video`` for ``(width, height, fps)`` (``fps=None``: measured from timestamps),
    the checked ``fps`` and the ``fps_hint`` (``None`` when unusable)."""
    try:
        w, h, fps = video
    except (TypeError, ValueError):
        raise ConfigError(f"`video` must be (width, height, fps), got {video!r}") from None
    if not _is_int(w) or not _is_int(h) or w <= 0 or h <= 0:
        raise ConfigError(f"`video` width and height must be positive integers, got {video!r}")
    if fps is not None:
        fps = check_range("video fps", fps, 0.001, 1000)
    if fps_hint is not None and not (isinstance(fps_hint, (int, float))
                                     and math.isfinite(fps_hint) and 0 < fps_hint <= 1000):
        fps_hint = None                      # a device's claim we cannot use
    meta = {"width": w, "height": h, "fps": fps or fps_hint or 30.0,
            "fps_from": "source" if fps is not None else "timestamps",
            "codec": "FFV1", "segments": SEGMENTS_DIR, "playlist": PLAYLIST_FILE,
            "timestamps": TIMESTAMPS_FILE, "checksums": VIDEO_CRC_FILE,
            "timestamps_checksums": TIMESTAMPS_CRC_FILE}
    return meta, fps, fps_hint


def _audio_meta(audio: tuple[int, int], block_size: int | None, gain: float) -> dict[str, Any]:
    """meta.json's ``audio`` for ``(sample_rate, channels)``."""
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
    return {"sample_rate": rate, "channels": channels, "gain": check_range("gain", gain, 0, 100),
            "file": AUDIO_FILE, "sample_format": "int16", "block_size": block_size, "checksums": AUDIO_CRC_FILE,
            "checksum_block": block_size}
