"""MediaFileSource: a video file (with its audio track) or an audio file, as a source.

``MediaFileSource(path, realtime=False)``:

- **Audio files** (anything ``soundfile`` reads: WAV, FLAC, OGG/Vorbis, AIFF...)
  are delivered as float32 ``AudioBlock`` s of ``block_size`` (512) samples,
  shape ``(n,)`` for mono and ``(n, channels)`` otherwise; the last block may be
  shorter. Block ``t`` = first sample index / sample rate.
- **Video files** (anything OpenCV's FFmpeg backend decodes) give BGR
  ``VideoFrame`` s with ``t`` = frame index / fps (fps from the container; 30
  if it has none). The **audio track** is decoded too when there is one: first
  with OpenCV 5's own audio support (``CAP_PROP_AUDIO_STREAM``), and when this
  OpenCV build cannot (the pip wheels' FFmpeg backend refuses audio parameters)
  with the ``ffmpeg`` command-line tool if it is on ``PATH``; otherwise the
  file plays as frames only and a log line says so.
- Frames and blocks are interleaved by ``t`` (``merge_by_time``; video first on
  ties). ``captured_at`` is ``None``: nothing here is live.
- ``realtime=False`` (default) delivers as fast as the consumer reads;
  ``realtime=True`` waits on ``clock`` (a ``MonotonicClock`` started at the first
  ``read`` unless one is given) until each item's ``t``.

Cost: video frames are decoded one per ``read``. An audio *file* is read
block by block; a video's audio *track* is decoded to memory when the source is
opened (about 4 bytes per sample per channel, and an ``ffmpeg`` run).

Failure modes (``SourceError`` naming the path): the file does not exist or is a
folder; it is neither audio ``soundfile`` can read nor video OpenCV can decode;
an audio file with no samples; a video with no readable frame. A WAV whose header gives no
length (a data size of 0: the program writing it stopped before finishing it) plays the
samples the file holds, with a warning (16/32-bit integer, 8-bit, float and double PCM). A truncated video
plays the frames that decode and logs how many the container promised.
"""
from __future__ import annotations

import logging
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from sensekit.arg_types import checked
from sensekit.capture.base import AudioBlock, Item, Source, VideoFrame, as_bgr, merge_by_time
from sensekit.clock import Clock, MonotonicClock
from sensekit.errors import SourceError
from sensekit.validate import check_int_range

log = logging.getLogger(__name__)

DEFAULT_FPS = 30.0
FFMPEG_TIMEOUT_S = 120.0


def _retrieve_channels(cap: Any, base: int, channels: int) -> np.ndarray | None:
    """The grabbed chunk's samples, (n, channels) int16; ``None`` if a channel is missing or empty."""
    per_channel = []
    for ch in range(channels):
        ok, data = cap.retrieve(None, base + ch)
        if not ok or data is None:
            return None
        per_channel.append(np.asarray(data, dtype=np.int16).reshape(-1))
    return np.stack(per_channel, axis=1) if per_channel[0].size else None


def _decode_track_opencv(path: str) -> tuple[np.ndarray, int] | None:
    """The first audio track via OpenCV's own audio support, or ``None`` if it cannot."""
    import cv2

    needed = ("CAP_PROP_AUDIO_STREAM", "CAP_PROP_VIDEO_STREAM", "CAP_PROP_AUDIO_DATA_DEPTH",
              "CAP_PROP_AUDIO_BASE_INDEX", "CAP_PROP_AUDIO_TOTAL_CHANNELS",
              "CAP_PROP_AUDIO_SAMPLES_PER_SECOND")
    if not all(hasattr(cv2, n) for n in needed):
        return None
    from sensekit.capture.devices import quiet_opencv

    params = [cv2.CAP_PROP_AUDIO_STREAM, 0, cv2.CAP_PROP_VIDEO_STREAM, -1,
              cv2.CAP_PROP_AUDIO_DATA_DEPTH, cv2.CV_16S]
    try:
        with quiet_opencv():
            cap = cv2.VideoCapture(path, cv2.CAP_FFMPEG, params)
    except cv2.error:
        return None
    try:
        if not cap.isOpened():
            return None
        base = int(cap.get(cv2.CAP_PROP_AUDIO_BASE_INDEX))
        channels = int(cap.get(cv2.CAP_PROP_AUDIO_TOTAL_CHANNELS))
        rate = int(cap.get(cv2.CAP_PROP_AUDIO_SAMPLES_PER_SECOND))
        if base < 0 or channels < 1 or rate < 1:
            return None
        chunks: list[np.ndarray] = []
        while cap.grab():
            chunk = _retrieve_channels(cap, base, channels)
            if chunk is not None:
                chunks.append(chunk)
        if not chunks:
            return None
        samples = np.concatenate(chunks).astype(np.float32) / np.float32(32768.0)
        return (samples[:, 0] if channels == 1 else samples), rate
    except cv2.error:
        return None
    finally:
        cap.release()


def _decode_track_ffmpeg(path: str) -> tuple[np.ndarray, int] | str | None:
    """The first audio track via the ``ffmpeg`` CLI; ``None`` if there is none; a reason string
    if it could not be decoded."""
    import soundfile as sf

    exe = shutil.which("ffmpeg")
    if exe is None:
        return "ffmpeg is not on PATH"
    with tempfile.TemporaryDirectory(prefix="sensekit-audio-") as tmp:
        out = os.path.join(tmp, "track.wav")
        cmd = [exe, "-nostdin", "-v", "error", "-i", path, "-map", "0:a:0?", "-vn",
               "-c:a", "pcm_s16le", "-f", "wav", out]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=FFMPEG_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"ffmpeg failed: {exc}"
        if proc.returncode != 0:
            if "does not contain any stream" in proc.stderr or not os.path.exists(out):
                return None          # no audio track
            return f"ffmpeg failed: {proc.stderr.strip().splitlines()[-1:]}"
        if not os.path.exists(out):
            return None
        try:
            samples, rate = sf.read(out, dtype="float32", always_2d=False)
        except Exception as exc:  # noqa: BLE001 - libsndfile errors
            return f"cannot read ffmpeg's output: {exc}"
    if len(samples) == 0:
        return None
    return samples, int(rate)


#: the WAV sample formats read directly when the header gives no length: NumPy type, full scale
_HELD_FORMATS = {"PCM_16": ("<i2", 32768.0), "PCM_32": ("<i4", 2147483648.0), "FLOAT": ("<f4", 1.0),
                 "DOUBLE": ("<f8", 1.0), "PCM_U8": ("u1", 128.0)}


def _unfinished_wav(path: Path, subtype: str, channels: int) -> tuple[int, int] | None:
    """``(offset, frames)`` of the samples after a WAV's ``data`` chunk header when that chunk
    declares 0 bytes (a writer stopped before it patched the sizes) and the file holds some;
    ``None`` otherwise (libsndfile then read the header right: the file is empty)."""
    if subtype not in _HELD_FORMATS:
        return None
    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        head = fh.read(12)
        if head[:4] != b"RIFF" or head[8:12] != b"WAVE":
            return None
        pos = 12
        for _ in range(64):                          # the chunks before `data` (fmt, LIST, fact...)
            fh.seek(pos)
            chunk = fh.read(8)
            if len(chunk) < 8:
                return None
            csize = int.from_bytes(chunk[4:], "little")
            if chunk[:4] == b"data":
                frames = (size - pos - 8) // (channels * np.dtype(_HELD_FORMATS[subtype][0]).itemsize)
                return (pos + 8, frames) if csize == 0 and frames > 0 else None
            pos += 8 + csize + (csize & 1)
    return None


class _HeldSamples:
    """The samples an unfinished WAV holds, read as ``soundfile.SoundFile.read`` gives them
    (float32, full scale 1.0; ``(n,)`` mono, ``(n, channels)`` otherwise); ``seek``, ``frames``
    and ``channels`` as a ``SoundFile`` has them."""

    def __init__(self, path: Path, offset: int, frames: int, subtype: str, channels: int) -> None:
        kind, self._scale = _HELD_FORMATS[subtype]
        self.frames, self.channels = frames, channels
        self._data: np.ndarray | None = np.memmap(path, dtype=kind, mode="r", offset=offset,
                                                  shape=(frames, channels))
        self._unsigned = kind == "u1"
        self._pos = 0

    def read(self, n: int, dtype: str = "float32", always_2d: bool = False) -> np.ndarray:
        assert self._data is not None, "closed"
        x = self._data[self._pos:self._pos + n].astype(np.float64)
        self._pos += len(x)
        if self._unsigned:
            x -= 128.0
        y = (x / self._scale).astype(dtype)
        return y if always_2d or y.shape[1] > 1 else y[:, 0]

    def seek(self, frame: int) -> int:
        assert self._data is not None, "closed"
        self._pos = min(max(0, int(frame)), self.frames)
        return self._pos

    def close(self) -> None:
        self._data = None


def open_audio_file(path: Path) -> tuple[Any, int, int]:
    """``(reader, sample rate, channels)`` of an audio file ``soundfile`` opens: its
    ``SoundFile``, or for a WAV whose header gives no length (a data size of 0) the samples the
    file holds, with a warning. The reader has ``frames``, ``seek(frame)``, ``read(n, dtype,
    always_2d)`` and ``close()``. libsndfile's error if it cannot open it; ``SourceError`` if
    it holds no samples. Every path that reads an audio file by name uses this."""
    import soundfile as sf

    f = sf.SoundFile(str(path))
    rate, channels = int(f.samplerate), int(f.channels)
    if f.frames > 0:
        return f, rate, channels
    f.close()
    held = _unfinished_wav(path, f.subtype, channels)
    if held is None:
        raise SourceError(f"audio file '{path}' is empty (0 samples)")
    log.warning("'%s': the WAV header gives no length (the program that wrote it stopped before "
                "finishing it); reading the %.2f s the file holds", path.name, held[1] / rate)
    return _HeldSamples(path, *held, f.subtype, channels), rate, channels


class MediaFileSource(Source):
    """A video file (frames + audio track) or an audio file; see the module docstring."""

    kind = "file"
    is_live = False

    @checked
    def __init__(self, path: str | os.PathLike[str], *, realtime: bool = False,
                 clock: Clock | None = None, block_size: int = 512,
                 audio_track: bool = True) -> None:
        self.path = Path(path)
        self.realtime = bool(realtime)
        self.clock = clock
        self.block_size = check_int_range("block_size", block_size, 1, 1 << 20)
        self.audio_track = audio_track
        self.is_video_file = False
        self.audio_decoder: str | None = None    # "soundfile" | "opencv" | "ffmpeg"
        self.frame_count_hint: int | None = None
        self._cap: Any = None
        self._sf: Any = None
        self._items: Iterator[Item] | None = None
        self._pending: Item | None = None
        self._first: np.ndarray | None = None
        self._track: np.ndarray | None = None
        self._frames = 0
        self._blocks = 0

    @property
    def description(self) -> str:
        return f"file:{self.path.name}"

    # -- opening ---------------------------------------------------------------
    def open(self) -> None:
        if self._items is not None:
            return
        p = self.path
        if not p.exists():
            raise SourceError(f"media file not found: '{p}'")
        if not p.is_file():
            raise SourceError(f"media path is not a file: '{p}'")
        if p.stat().st_size == 0:
            raise SourceError(f"media file is empty (0 bytes): '{p}'")
        audio_error = self._open_audio_file()
        if self._sf is not None:
            items: Iterator[Item] = self._audio_file_blocks()
        else:
            self._open_video(audio_error)
            streams: list[Iterator[Item]] = [self._video_frames()]
            if self.has_audio:
                streams.append(self._track_blocks())
            items = merge_by_time(*streams) if len(streams) > 1 else streams[0]
        self._items = items

    def _open_audio_file(self) -> str | None:
        try:
            self._sf, self.sample_rate, self.channels = open_audio_file(self.path)
        except SourceError:
            raise
        except Exception as exc:  # noqa: BLE001 - libsndfile: not audio, or corrupt
            return str(exc)
        self.has_audio, self.has_video = True, False
        self.audio_decoder = "soundfile"
        return None

    def _open_video(self, audio_error: str | None) -> None:
        import cv2

        from sensekit.capture.devices import _quiet_ffmpeg_env, quiet_opencv

        _quiet_ffmpeg_env()
        with quiet_opencv():
            cap = cv2.VideoCapture(str(self.path), cv2.CAP_FFMPEG)
            if not cap.isOpened():
                cap = cv2.VideoCapture(str(self.path))
        if not cap.isOpened():
            cap.release()
            raise SourceError(
                f"cannot read media file '{self.path}': OpenCV cannot decode it as video and "
                f"soundfile cannot read it as audio ({audio_error})")
        ok, first = cap.read()
        if not ok or first is None:
            cap.release()
            raise SourceError(f"video file '{self.path}' has no readable frames")
        fps = cap.get(cv2.CAP_PROP_FPS)
        if not fps or not np.isfinite(fps) or fps <= 0 or fps > 1000:
            log.warning("%s: no frame rate in the container; assuming %g fps", self.path, DEFAULT_FPS)
            fps = DEFAULT_FPS
        count = cap.get(cv2.CAP_PROP_FRAME_COUNT)
        self.frame_count_hint = int(count) if count and np.isfinite(count) and count > 0 else None
        self._cap, self._first = cap, first
        self.is_video_file = True
        self.has_video = True
        self.fps = float(fps)
        self.frame_size = (int(first.shape[1]), int(first.shape[0]))
        self.has_audio = False
        if self.audio_track:
            self._load_track()

    def _load_track(self) -> None:
        track = _decode_track_opencv(str(self.path))
        if track is not None:
            self.audio_decoder = "opencv"
        else:
            result = _decode_track_ffmpeg(str(self.path))
            if isinstance(result, str):
                log.info("%s: audio track not decoded (this OpenCV build has no audio support "
                         "and %s); playing frames only", self.path, result)
                return
            track = result
            self.audio_decoder = "ffmpeg" if track is not None else None
        if track is None:
            return
        samples, rate = track
        self._track, self.sample_rate = samples, int(rate)
        self.channels = 1 if samples.ndim == 1 else int(samples.shape[1])
        self.has_audio = True

    # -- item generators ---------------------------------------------------------
    def _video_frames(self) -> Iterator[VideoFrame]:
        assert self.fps is not None
        image, i = self._first, 0
        self._first = None
        while image is not None:
            self._frames += 1
            yield VideoFrame(i, i / self.fps, as_bgr(image), None)
            i += 1
            ok, image = self._cap.read()
            if not ok:
                image = None
        hint = self.frame_count_hint
        if hint is not None and i < hint - 1:
            log.warning("%s: video ended after %d of %d frames (truncated?)", self.path, i, hint)

    def _track_blocks(self) -> Iterator[AudioBlock]:
        samples, rate, n = self._track, int(self.sample_rate or 0), self.block_size
        assert samples is not None, "no audio track"
        for k, start in enumerate(range(0, len(samples), n)):
            self._blocks += 1
            yield AudioBlock(k, start / rate, samples[start:start + n], rate, None)

    def _audio_file_blocks(self) -> Iterator[AudioBlock]:
        f, rate, n = self._sf, int(self.sample_rate or 0), self.block_size
        k = 0
        while True:
            data = f.read(n, dtype="float32", always_2d=False)
            if len(data) == 0:
                return
            self._blocks += 1
            yield AudioBlock(k, k * n / rate, data, rate, None)
            k += 1

    # -- reading -------------------------------------------------------------------
    def read(self, timeout: float | None = None) -> Item | None:
        """The next item in time order; with ``realtime``, waits until its ``t``."""
        if self._items is None:
            raise EOFError(f"{self.description} is not open")
        if self._pending is None:
            try:
                self._pending = next(self._items)
            except StopIteration:
                raise EOFError(f"{self.description} ended") from None
        if self.realtime:
            if self.clock is None:      # started at the first read, so nothing is "late"
                self.clock = MonotonicClock()
            now = self.clock.now()
            if timeout is not None and self._pending.t - now > timeout:
                self.clock.sleep_until(now + max(0.0, timeout))
                return None
            self.clock.sleep_until(self._pending.t)
        item, self._pending = self._pending, None
        return item

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None
        if self._sf is not None:
            self._sf.close()
            self._sf = None
        self._items = None
        self._pending = None
        self._track = None

    def stats(self) -> dict[str, Any]:
        return {"frames": self._frames, "blocks": self._blocks,
                "audio_decoder": self.audio_decoder}


def read_video(path: str | os.PathLike[str]) -> list[VideoFrame]:
    """Every frame of a video file in memory, through ``MediaFileSource`` (no audio track):
    ``t`` = index / the container's fps. For evaluations and tests on short clips (a 640x480
    frame is 0.9 MB). ``SourceError`` as the source's."""
    with MediaFileSource(path, audio_track=False) as source:
        return [item for item in source if isinstance(item, VideoFrame)]
