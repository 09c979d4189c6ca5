"""``record_source(source, path, seconds)``: record any source with a ``Recorder``.

It records until ``seconds`` have passed, the source ends, Ctrl-C, SIGTERM or SIGHUP (all finish
cleanly, complete). It first reads until the formats are known (a live camera's size, a
microphone's rate); a live camera's frame rate is measured from its timestamps
(``fps=None``); a file's or replay's is taken from the source. Live sources are timed by the
clock, files and replays by their item times. When the source fails part-way, the files are
kept, marked incomplete, and ``RecordingError`` says so.

A live camera that comes back at another size (a USB camera plugged back in at its default
size, a stream server restarted at another resolution: ``CameraSource`` reconnects by itself)
hands over pictures the recorder would refuse, which stopped a weeks-long recording there. Each
such frame is scaled to fit the recording's size keeping its aspect ratio (``letterboxed``:
``cv2.resize``, area when shrinking, linear when growing, then black bands at the sides or at top
and bottom; a frame of the same aspect fills it, as before), a warning says it once per new size,
and ``meta.json``'s ``source_drops`` counts them (``resized_frames``; ``inspect`` shows the count).
A 16:9 camera in a 4:3 recording is no longer stretched: what a replay's tracker and zones see keeps
its shape. Anything else that is not the recording's
picture (a grey or float frame) is still the recorder's error; files and replays are not scaled.

Cost: the recorder's (one FFV1 encode per frame); the loop itself is a few attribute reads
per item.
"""
from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from sensekit.capture.base import RESIZED_FRAMES, UNITY_GAIN, AudioBlock, Item, Source, VideoFrame, drop_counts
from sensekit.capture.recorder import FLUSH_INTERVAL_S, Recorder
from sensekit.clock import Clock, MonotonicClock
from sensekit.errors import RecordingError, SensekitError
from sensekit.stop_signals import terminating_signals
from sensekit.validate import check_positive

__all__ = ["record_source"]

log = logging.getLogger(__name__)


def _start_unix(item: Item) -> float:
    """Wall-clock time of a live item's capture (its ``captured_at`` is ``time.monotonic()``)."""
    if item.captured_at is None:
        return time.time()
    return time.time() - max(0.0, time.monotonic() - item.captured_at)


def record_source(
    source: Source,
    path: str | os.PathLike[str],
    seconds: float | None = None,
    progress: bool = True,
    *,
    notes: str = "",
    clock: Clock | None = None,
) -> dict[str, Any]:
    """Record any source into ``path`` until ``seconds`` have passed, it ends, or Ctrl-C.

    Live sources are timed by ``clock`` (default wall clock); files and replays by
    their item times. Ctrl-C, SIGTERM and SIGHUP finish cleanly: the files are closed and
    meta is marked complete. A source that fails part-way leaves the recording
    marked incomplete and raises ``RecordingError`` naming the cause. Returns a
    summary: frames, audio_samples, duration_s, interrupted, stopped_by ("Ctrl-C",
    "SIGTERM", "SIGHUP" or None), source_drops (a live source's ``capture.base.drop_counts``, also in
    ``meta.json``; empty for files and replays).
    """
    if seconds is not None:
        seconds = check_positive("seconds", seconds)
    clock = clock or MonotonicClock()
    stop = _Stop()
    old_handlers = stop.install()
    interrupted = False
    failed: BaseException | None = None
    crashed = False
    bar = None
    rec: Recorder | None = None
    try:
        source.open()
        t_start = clock.now()

        def timed_out() -> bool:
            return seconds is not None and source.is_live and clock.now() - t_start >= seconds

        pending, ended = _peek(source, stop, timed_out)
        video, audio = _track_formats(source, pending)
        if video is None and audio is None:
            if stop.flag:
                return {"frames": 0, "audio_samples": 0, "duration_s": 0.0, "interrupted": True,
                        "stopped_by": stop.by}
            raise RecordingError(f"source '{source.description}' gave nothing to record")
        rec = _open_recorder(source, path, video, audio, pending, notes)
        bar = _progress_bar(path, seconds) if progress else None
        _copy(source, rec, _Copy(pending, ended, stop, clock, t_start, seconds, bar))
        interrupted = stop.flag
    except KeyboardInterrupt:
        interrupted = True
        stop.by = stop.by or "Ctrl-C"
    except (SensekitError, OSError) as exc:
        failed = exc
    except BaseException:
        crashed = True
        raise
    finally:
        _restore_handlers(old_handlers)
        failed = _close_keeping_reason(source, rec, bar, failed, crashed=crashed)
    if failed is not None:
        _stopped_early(path, rec, failed)
    return {"frames": rec.frames if rec else 0, "audio_samples": rec.audio_samples if rec else 0,
            "duration_s": rec.duration_s if rec else 0.0, "interrupted": interrupted,
            "stopped_by": stop.by if interrupted else None,
            "source_drops": dict(rec.meta.get("source_drops", {})) if rec else {}}


def _stopped_early(path: str | os.PathLike[str], rec: Recorder | None, failed: BaseException) -> None:
    """Raise the failure: as it was before the recording began, else saying what is kept."""
    if rec is None:
        raise failed
    reason = (f"{failed.strerror or failed}" if isinstance(failed, OSError)
              else str(failed))
    raise RecordingError(
        f"recording '{Path(path).name}' stopped early: {reason}; the {rec.duration_s:.1f} s "
        f"recorded so far are kept, marked incomplete") from failed


class _Stop:
    """Ctrl-C / SIGTERM / SIGHUP seen (``flag``) and which (``by``), set by the signal handlers."""

    def __init__(self) -> None:
        self.flag = False
        self.by: str | None = None
        self._names: dict[int, str] = {}

    def install(self) -> dict[int, Any]:
        """Catch SIGINT, SIGTERM and SIGHUP unless ignored (``nohup``), on the main thread
        only; returns the handlers replaced."""
        old: dict[int, Any] = {}
        if threading.current_thread() is threading.main_thread():
            self._names = {int(signal.SIGINT): "Ctrl-C", **terminating_signals()}
            for sig in self._names:
                old[sig] = signal.signal(sig, self._on_signal)
        return old

    def _on_signal(self, signum: int, frame: Any) -> None:
        self.flag = True
        self.by = self.by or self._names.get(signum, "Ctrl-C")


def _close_keeping_reason(source: Source, rec: Recorder | None, bar: Any, failed: BaseException | None,
                          *, crashed: bool) -> BaseException | None:
    """``_close_all``; returns why the recording stopped early: ``failed``, else a failure of the
    closing itself. The full disk that stopped the copy fails the closing flush too: the first
    reason is kept, and either way the caller says what is kept (meta.json was not marked
    complete)."""
    try:
        _close_all(source, rec, bar, complete=failed is None and not crashed)
    except (SensekitError, OSError) as exc:
        if crashed:
            raise
        return failed or exc
    return failed


def _close_all(source: Source, rec: Recorder | None, bar: Any, *, complete: bool) -> None:
    """Close the recording (marked ``complete`` or not), then the progress bar and the source (a
    live source first, so that what it lost, noted in ``meta.json``, is final)."""
    try:
        if rec is not None:
            if source.is_live:     # stopped first: a camera still grabbing counted drops after the note
                source.close()
                rec.note_source_drops(drop_counts(source.stats() or {}))
            rec.close(complete=complete)
    finally:
        if bar is not None:
            bar.close()
        source.close()


def _restore_handlers(old: dict[int, Any]) -> None:
    for signum, handler in old.items():
        if handler is not None:
            signal.signal(signum, handler)


def _peek(source: Source, stop: _Stop, timed_out: Callable[[], bool]) -> tuple[list[Item], bool]:
    """Read until the formats are known (a live camera's size, a microphone's rate) and, for
    live sources, until the first item sets the recording's time origin. Returns the items
    read and whether the source ended."""
    pending: list[Item] = []
    need_frame = source.has_video and (source.frame_size is None or not source.fps)
    need_block = source.has_audio and not source.sample_rate
    while ((need_frame or need_block or (source.is_live and not pending))
           and not stop.flag and not timed_out()):
        try:
            item = source.read(timeout=0.2 if source.is_live else None)
        except EOFError:
            return pending, True
        if item is None:
            continue
        pending.append(item)
        if isinstance(item, VideoFrame):
            need_frame = False
        else:
            need_block = False
    return pending, False


def _track_formats(source: Source, pending: list[Item]) -> tuple[tuple[int, int, float | None] | None,
                                                                  tuple[int, int] | None]:
    """``(width, height, fps)`` of the video and ``(rate, channels)`` of the audio, ``None``
    for a track the source lacks or has not shown yet."""
    first_frame = next((i for i in pending if isinstance(i, VideoFrame)), None)
    first_block = next((i for i in pending if isinstance(i, AudioBlock)), None)
    video = None
    if source.has_video:
        size = source.frame_size or (
            (first_frame.image.shape[1], first_frame.image.shape[0]) if first_frame else None)
        if size is not None:
            # A live camera's rate is measured from its timestamps: the device's
            # claim (MJPEG streams say 25 whatever they send) is only a fallback.
            fps = None if source.is_live else float(source.fps or 30.0)
            video = (int(size[0]), int(size[1]), fps)
    audio = None
    if source.has_audio:
        rate = source.sample_rate or (first_block.rate if first_block else None)
        channels = source.channels or (
            first_block.samples.shape[1] if first_block is not None
            and np.ndim(first_block.samples) == 2 else 1)
        if rate:
            audio = (int(rate), int(channels))
    return video, audio


def _open_recorder(source: Source, path: str | os.PathLike[str], video: tuple[int, int, float | None] | None,
                   audio: tuple[int, int] | None, pending: list[Item], notes: str) -> Recorder:
    """The ``Recorder`` for ``source``: its time origin, gain and block size."""
    t0 = pending[0].t if source.is_live and pending else 0.0
    start_unix = _start_unix(pending[0]) if source.is_live and pending else None
    audio_part = getattr(source, "audio", None) or source     # CombinedSource keeps its parts
    gain: Any = getattr(source, "gain", None)
    gain = getattr(audio_part, "gain", UNITY_GAIN) if gain is None else gain
    block_size = getattr(source, "block_size", None) or getattr(audio_part, "block_size", None)
    return Recorder(path, video=video, audio=audio, gain=float(gain),
                    sources=[source.description], notes=notes, t0=t0, start_unix=start_unix,
                    block_size=block_size if isinstance(block_size, int) else None,
                    fps_hint=source.fps if video is not None else None)


def _progress_bar(path: str | os.PathLike[str], seconds: float | None) -> Any:
    from tqdm import tqdm
    return tqdm(total=seconds, unit="s", desc=f"recording {Path(path).name}",
                bar_format="{l_bar}{bar}| {n:.1f}/{total_fmt} s" if seconds else
                "{desc}: {n:.1f} s", leave=True, file=sys.stderr)


@dataclass
class _Copy:
    """The state of the copying loop."""
    pending: list[Item]
    ended: bool
    stop: _Stop
    clock: Clock
    t_start: float
    seconds: float | None
    bar: Any
    last_shown: float = 0.0
    last_flush: float = 0.0
    resized: int = 0
    sizes_said: set[tuple[int, int]] = field(default_factory=set)


def _copy(source: Source, rec: Recorder, c: _Copy) -> None:
    """Write the peeked items, then what the source gives, until the limit, its end or a stop."""
    c.last_flush = c.clock.now()
    try:
        _copy_items(source, rec, c)
    finally:
        if c.resized:
            rec.note_source_drops({RESIZED_FRAMES: c.resized})


def _fitted(rec: Recorder, item: Item | None, c: _Copy) -> Item | None:
    """A live frame of another size than the recording's (a camera reconnected at another
    resolution) scaled to it, counted, and said once per size; every other item as it is."""
    v = rec.meta.get("video")
    if not isinstance(item, VideoFrame) or not isinstance(v, dict):
        return item
    image, size = item.image, (int(v["width"]), int(v["height"]))
    if not (isinstance(image, np.ndarray) and image.dtype == np.uint8 and image.ndim == 3
            and image.shape[2] == 3 and image.shape[0] > 0 and image.shape[1] > 0) \
            or (image.shape[1], image.shape[0]) == size:
        return item

    got = (image.shape[1], image.shape[0])
    if got not in c.sizes_said:
        c.sizes_said.add(got)
        log.warning("the camera gives %dx%d frames now, the recording is %dx%d (reconnected at another "
                    "size?): they are scaled to fit %dx%d, their aspect kept (black bands), and counted in "
                    "meta.json (source_drops: %s)",
                    *got, *size, *size, RESIZED_FRAMES)
    c.resized += 1
    return replace(item, image=letterboxed(image, size))


def letterboxed(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``image`` (H x W x 3, uint8) scaled to fit ``size`` (width, height) with its aspect ratio
    kept, centred on black: bands at the sides or at top and bottom where the aspects differ
    (area interpolation when shrinking, linear when growing)."""
    import cv2

    (w, h), (W, H) = (image.shape[1], image.shape[0]), size
    scale = min(W / w, H / h)
    fit = (min(W, max(1, round(w * scale))), min(H, max(1, round(h * scale))))
    scaled = cv2.resize(image, fit, interpolation=cv2.INTER_AREA if fit[0] * fit[1] < w * h else cv2.INTER_LINEAR)
    if fit == (W, H):
        return np.asarray(scaled)
    out = np.zeros((H, W, image.shape[2]), np.uint8)
    x0, y0 = (W - fit[0]) // 2, (H - fit[1]) // 2
    out[y0:y0 + fit[1], x0:x0 + fit[0]] = scaled
    return out


def _copy_items(source: Source, rec: Recorder, c: _Copy) -> None:
    while not c.stop.flag:
        if c.pending:
            item: Item | None = c.pending.pop(0)
        elif c.ended:
            break
        else:
            try:
                item = source.read(timeout=0.2 if source.is_live else None)
            except EOFError:
                break
        elapsed = _write_live(rec, item, c) if source.is_live else _write_file_item(rec, item, c)
        if elapsed is None:
            break
        if c.bar is not None and elapsed - c.last_shown >= 0.1:
            c.bar.update(elapsed - c.last_shown)
            c.last_shown = elapsed


def _write_live(rec: Recorder, item: Item | None, c: _Copy) -> float | None:
    """A live item was captured before we noticed the limit: keep it, then stop (``None``).
    A stalled source's items are flushed every ``FLUSH_INTERVAL_S``. Returns the elapsed time."""
    now = c.clock.now()
    elapsed = now - c.t_start
    item = _fitted(rec, item, c)
    if item is not None:
        rec.write(item)
        if not rec.unflushed:
            c.last_flush = now
    elif rec.unflushed and now - c.last_flush >= FLUSH_INTERVAL_S:
        rec.flush()                  # the source stalled: keep what came durable
        c.last_flush = now
    if c.seconds is not None and elapsed >= c.seconds:
        return None
    return elapsed


def _write_file_item(rec: Recorder, item: Item | None, c: _Copy) -> float | None:
    """Files and replays stop exactly at the limit, on their own timestamps (``None``: stop)."""
    elapsed = item.t if item is not None else 0.0
    if c.seconds is not None and elapsed >= c.seconds:
        return None
    if item is not None:
        rec.write(item)
    return elapsed
