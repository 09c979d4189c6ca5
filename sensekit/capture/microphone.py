"""MicrophoneSource: a ``sounddevice.InputStream`` feeding a bounded queue.

Defaults: the system default input device, its default sample rate (often
48000 Hz; a higher default, such as a studio interface's 96 kHz, is replaced by
48000 Hz when the device takes it, since the clap detector and pitch tracker handle
8-48 kHz: ask for ``sample_rate`` to get the device's own), mono, ``block_size``
512 samples, captured as ``int16`` and delivered as ``float32`` (``value / 32768``,
full scale 1.0) in ``AudioBlock`` items.

- The PortAudio callback only copies the block into a bounded ``queue.Queue``
  (``max_queued_blocks``, 64 = 0.68 s at 48 kHz) and notes the status flags.
  When the queue is full the *oldest* block is dropped (``drop="oldest"``, the
  default: a slow consumer gets the newest audio, lowest latency); with
  ``drop="newest"`` the incoming block is dropped instead, so what is delivered
  is one unbroken stretch from the start (what a recorder or a test wants).
  ``stats()`` counts ``overflows`` and ``underflows`` (the input overflow / underflow
  flags of sounddevice's callback status: the OS buffer overran before the callback ran,
  or PortAudio had too few samples and padded the block) and ``dropped_blocks`` (our
  queue was full). A dropped block leaves a gap in ``index`` (and in ``t``); an overflow
  does not (PortAudio does not say how many samples it lost), so only the count tells.
  ``sensekit events`` prints these when the run ends and ``sensekit record`` writes
  them into the recording's ``meta.json`` (``source_drops``).
- Block ``t`` is ``sample_index / rate``: the sample clock, not wall time, so the
  spacing of blocks is exact. ``captured_at`` is ``time.monotonic()`` when the
  callback ran. After a reconnect the sample clock jumps forward to the wall
  time elapsed since ``open()`` (never backwards), so ``t`` stays comparable
  with other sources; so does a block that arrives after the loss was declared (the
  dead stream's blocked read returning when the device goes on), and one that comes more than
  ``LATE_RESYNC_S`` (0.5 s, or 4 input latencies) after the block before it (a device that went
  quiet and went on by itself, before ``stall_timeout_s``): a gap is a gap, not compressed time
  (``stats()["clock_resyncs"]`` counts the jumps). The stream's buffer holds about its input
  latency, so a block that much later followed samples that were lost; the jump stamps it by
  the wall time, within a buffer's length of when it was heard.
- ``gain`` (0..100, 50 = unity, Flash semantics; see ``sensekit.audio.gain``) is
  stored on the source only. The source delivers RAW samples; the level stage
  applies the gain.
- The microphone is chosen by index or name substring (``devices.find_microphone``; a part
  of several names is refused, naming them).

A device whose driver hangs (a read that never returns) cannot be stopped: after
``STOP_TIMEOUT_S`` (2 s) its stream is left to the system with a warning, no new stream is
opened on it until the stop completes, and PortAudio is not terminated at exit, so ``close()``
and the program's end stay bounded.

Failure modes: no PortAudio library, or no matching device -> ``SourceError`` /
``DeviceNotFoundError`` (worded in ``devices``). A device that cannot be opened (busy, not ready
yet at boot) -> ``DeviceUnavailableError`` (the CLI's exit 75: try again later); one that does not
take the rate asked for (PortAudio's "Invalid sample rate") -> ``SourceError`` naming the rate and
the device's own (exit 2: a setting to change, as a channel count it does not have; waiting does
not change what rates a device takes: a device held by another program is "unavailable", not this).
A stream that dies mid-run (the stream finishes without ``close()``, or no callback for
``stall_timeout_s``, 2 s)
-> one ``SourceLost`` via ``poll_status()``; a watchdog thread retries opening
with exponential backoff (0.25 s doubling to 4 s) and reports ``SourceRestored``
when blocks flow again. ``read`` never raises for a lost device, it returns
``None`` on timeout. Re-plugged USB devices that PortAudio enumerates under a
new index are not found again without restarting the program (PortAudio lists
devices once, at initialisation).

Cost: one small copy per block in the audio thread, one ``float32`` conversion
per block in the consumer.
"""
from __future__ import annotations

import atexit
import logging
import queue
import statistics
import threading
import time
from collections import deque
from typing import Any

import numpy as np

from sensekit.arg_types import checked
from sensekit.capture.base import UNITY_GAIN, AudioBlock, Source
from sensekit.capture.devices import MicrophoneInfo, find_microphone, import_sounddevice
from sensekit.errors import ConfigError, DeviceUnavailableError, SourceError
from sensekit.events import Event, SourceLost, SourceRestored
from sensekit.validate import check_int_range, check_positive, check_range

log = logging.getLogger(__name__)

_SCALE = {"int16": 32768.0, "int32": 2147483648.0, "float32": 1.0}
#: the highest rate the audio detectors take (``sensekit.audio.rates.MAX_RATE``, a floor above this
#: one): a device whose default rate is higher is opened at this rate when it takes it
DEFAULT_MAX_RATE = 48000
_CLOSED = object()
#: a block that comes this much later than the one before it (beyond its own length; or 4 times the
#: stream's input latency when longer: what PortAudio's buffer can hold and hand over in a burst)
#: follows samples the device never delivered: the sample clock jumps to the wall time
LATE_RESYNC_S = 0.5
#: how long stopping a stream may take before the device counts as hung (``_abort_stream``)
STOP_TIMEOUT_S = 2.0
_PA_INVALID_SAMPLE_RATE = -9997


def _refused_rate(exc: BaseException) -> bool:
    """PortAudio's ``paInvalidSampleRate`` (-9997): the device does not take the rate asked for.
    A busy device or one not there yet is another code (``paDeviceUnavailable``, -9985...)."""
    args: tuple[Any, ...] = tuple(getattr(exc, "args", ()))
    return (len(args) > 1 and args[1] == _PA_INVALID_SAMPLE_RATE) or "Invalid sample rate" in str(exc)


def _no_portaudio_exit(sd: Any) -> None:
    """Skip sounddevice's exit handler: it stops the last stream and terminates PortAudio,
    which waits for every stream - for ever on one whose driver hangs, so the program could
    not end. The system releases the devices when the process ends."""
    handler = getattr(sd, "_exit_handler", None)
    if handler is not None:
        atexit.unregister(handler)


class MicrophoneSource(Source):
    """A live microphone; see the module docstring for defaults and failure modes."""

    kind = "microphone"
    is_live = True
    has_audio = True

    @checked
    def __init__(
        self,
        device: int | str | None = None,
        *,
        sample_rate: int | None = None,
        block_size: int = 512,
        channels: int = 1,
        dtype: str = "int16",
        gain: float = UNITY_GAIN,
        max_queued_blocks: int = 64,
        drop: str = "oldest",
        backoff_initial_s: float = 0.25,
        backoff_max_s: float = 4.0,
        stall_timeout_s: float = 2.0,
    ) -> None:
        if dtype not in _SCALE:
            raise SourceError(f"microphone dtype must be one of {sorted(_SCALE)}, got {dtype!r}")
        self.device = device
        self.requested_rate = (None if sample_rate is None
                               else check_int_range("sample_rate", sample_rate, 1000, 768_000))
        self.block_size = check_int_range("block_size", block_size, 1, 1 << 20)
        self.channels = check_int_range("channels", channels, 1, 64)
        self.dtype = dtype
        self._gain = check_range("gain", gain, 0, 100)
        self.max_queued_blocks = check_int_range("max_queued_blocks", max_queued_blocks, 1, 1 << 20)
        if drop not in ("oldest", "newest"):
            raise ConfigError(f"`drop` must be 'oldest' or 'newest', got {drop!r}")
        self.drop = drop
        self.backoff_initial_s = check_positive("backoff_initial_s", backoff_initial_s)
        self.backoff_max_s = max(self.backoff_initial_s, check_positive("backoff_max_s", backoff_max_s))
        self.stall_timeout_s = check_positive("stall_timeout_s", stall_timeout_s)

        self.info: MicrophoneInfo | None = None
        self.started_at: float | None = None  # time.monotonic() at open
        self._sd: Any = None
        self._stream: Any = None
        self._queue: queue.Queue[Any] = queue.Queue(     # blocks, or the _CLOSED sentinel
           maxsize=self.max_queued_blocks)
        self._opened = False
        self._closing = threading.Event()
        self._stream_died = threading.Event()
        self._watchdog: threading.Thread | None = None
        self._stopping: threading.Thread | None = None     # a stream's stop that hangs
        self._lock = threading.Lock()
        self._status: list[Event] = []
        self._lost = False
        self._lost_reason = ""
        # written by the audio callback only
        self._sample_index = 0
        self._block_index = 0
        self._last_callback = 0.0
        self._overflows = 0
        self._underflows = 0
        self._dropped = 0
        self._callbacks = 0
        self._prev_callback: float | None = None   # this stream's previous callback
        self._late_s = LATE_RESYNC_S
        self._resyncs = 0
        # consumer side
        self._delivered = 0
        self._latencies: deque[float] = deque(maxlen=256)

    # -- settings --------------------------------------------------------------
    @property
    def gain(self) -> float:
        """0..100, 50 = unity; applied by the level stage, not here."""
        return self._gain

    @gain.setter
    def gain(self, value: float) -> None:
        self._gain = check_range("gain", value, 0, 100)

    @property
    def description(self) -> str:
        name = self.info.name if self.info is not None else (self.device or "default")
        return f"mic:{name}"

    # -- the audio callback ----------------------------------------------------
    def _callback(self, indata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        captured_at = time.monotonic()
        if status:
            if status.input_overflow:
                self._overflows += 1
            if status.input_underflow:
                self._underflows += 1
        prev, self._prev_callback = self._prev_callback, captured_at
        late = prev is not None and captured_at - prev - frames / (self.sample_rate or 1) > self._late_s
        if (self._lost or late) and self.started_at is not None:
            # a stream being stopped after a loss hands over what its blocked read returns when
            # the device goes on, and a device that went quiet for a while and goes on by itself
            # delivers samples heard now: not where the sample clock stopped (a gap is a gap)
            before = self._sample_index
            self._sample_index = max(self._sample_index, int(round(
                (captured_at - self.started_at) * (self.sample_rate or 0))) - frames)
            self._resyncs += self._sample_index > before
        item = (self._block_index, self._sample_index, indata.copy(), captured_at)
        self._last_callback = captured_at
        self._callbacks += 1
        q = self._queue
        while True:
            try:
                q.put_nowait(item)
                break
            except queue.Full:
                if self.drop == "newest":
                    self._dropped += 1
                    break
                try:
                    q.get_nowait()
                    self._dropped += 1
                except queue.Empty:
                    pass
        # counted after the block is queued, so ``horizon()`` never runs ahead of the queue
        self._block_index += 1
        self._sample_index += frames

    def _finished(self) -> None:
        if not self._closing.is_set():
            self._stream_died.set()

    # -- opening ---------------------------------------------------------------
    def _start_stream(self) -> None:
        sd = self._sd
        info = self.info
        assert info is not None
        try:
            stream = sd.InputStream(device=info.index, samplerate=self.sample_rate,
                                    blocksize=self.block_size, channels=self.channels,
                                    dtype=self.dtype, callback=self._callback,
                                    finished_callback=self._finished)
            self._stream_died.clear()
            self._last_callback = time.monotonic()
            self._prev_callback = None
            self._late_s = max(LATE_RESYNC_S, 4.0 * float(getattr(stream, "latency", 0.0) or 0.0))
            stream.start()
        except Exception as exc:  # noqa: BLE001 - PortAudioError, ValueError from sounddevice
            if _refused_rate(exc):          # a setting to change, as a wrong channel count: exit 2
                raise SourceError(
                    f"microphone [{info.index}] {info.name!r} does not take {self.sample_rate} Hz "
                    f"({exc}); its own rate is {int(round(info.default_samplerate))} Hz: ask for "
                    "that, or give no rate") from None
            raise DeviceUnavailableError(   # busy, or not ready yet at boot: try again later
                f"cannot open microphone [{info.index}] {info.name!r} at {self.sample_rate} Hz, "
                f"{self.channels} channel(s), {self.dtype}: {exc}") from None
        self._stream = stream

    def _default_rate(self) -> int:
        """The device's default rate, or ``DEFAULT_MAX_RATE`` when the default is higher and the
        device takes that rate (PortAudio checks it without opening a stream)."""
        assert self.info is not None
        rate = int(round(self.info.default_samplerate))
        if rate > DEFAULT_MAX_RATE:
            try:
                self._sd.check_input_settings(device=self.info.index, samplerate=DEFAULT_MAX_RATE,
                                              channels=self.channels, dtype=self.dtype)
            except Exception:  # noqa: BLE001 - PortAudioError, ValueError: keep the device's own
                return rate
            return DEFAULT_MAX_RATE
        return rate

    def open(self) -> None:
        if self._opened:
            return
        self._sd = import_sounddevice()
        self.info = find_microphone(self.device)
        if self.channels is not None and self.channels > self.info.channels:
            raise SourceError(f"microphone [{self.info.index}] {self.info.name!r} has "
                              f"{self.info.channels} input channel(s), {self.channels} requested")
        self.sample_rate = self.requested_rate or self._default_rate()
        self._queue = queue.Queue(maxsize=self.max_queued_blocks)
        self._closing.clear()
        self._lost = False
        self._sample_index = self._block_index = 0
        self.started_at = time.monotonic()
        self._start_stream()
        self._opened = True
        self._watchdog = threading.Thread(target=self._watch, name=f"watch:{self.description}",
                                          daemon=True)
        self._watchdog.start()

    def _abort_stream(self) -> None:
        """Stop and close the stream, waiting at most ``STOP_TIMEOUT_S``: a driver whose read
        blocks (a hung device) blocks PortAudio's abort with it, for as long as it hangs. Such a
        stream is left to the OS (``_stopping`` keeps the stop going on a daemon thread; no
        new stream is opened on the device meanwhile) and PortAudio is not terminated at exit
        (it would wait for the stream for ever)."""
        stream, self._stream = self._stream, None
        if stream is None:
            return
        done = threading.Event()

        def stop() -> None:
            try:
                stream.abort(ignore_errors=True)
                stream.close(ignore_errors=True)
            except Exception as exc:  # noqa: BLE001 - a dead device may fail to close
                log.debug("%s: closing the dead stream failed: %s", self.description, exc)
            finally:
                done.set()

        stopping = threading.Thread(target=stop, name=f"stop:{self.description}", daemon=True)
        stopping.start()
        if not done.wait(STOP_TIMEOUT_S):
            self._stopping = stopping
            log.warning("%s: the device did not stop within %g s (its driver hangs); it is left to "
                        "the system", self.description, STOP_TIMEOUT_S)
            _no_portaudio_exit(self._sd)

    def _still_stopping(self) -> bool:
        """A stream left to the OS has not stopped yet (the device still hangs)."""
        return self._stopping is not None and self._stopping.is_alive()

    def close(self) -> None:
        if not self._opened:
            return
        self._opened = False
        self._closing.set()
        self._abort_stream()
        if self._watchdog is not None:
            self._watchdog.join(timeout=2.0)
            self._watchdog = None
        while True:                       # a closed microphone delivers nothing more
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break
        self._queue.put_nowait(_CLOSED)   # wake a blocked read()

    # -- loss and recovery -------------------------------------------------------
    def _report(self, event: Event) -> None:
        with self._lock:
            self._status.append(event)

    def _now_t(self) -> float:
        return time.monotonic() - (self.started_at or 0.0)

    def _watch(self) -> None:
        backoff = self.backoff_initial_s
        while not self._closing.wait(0.05):
            if not self._lost:
                if self._noticed_loss():
                    backoff = self.backoff_initial_s
                    if self._closing.wait(backoff):
                        return
                continue
            if self._still_stopping():          # the hung device has not let go yet
                if self._closing.wait(backoff):
                    return
                continue
            outcome = self._reopen(backoff)
            if outcome == "closing":
                return
            if outcome == "failed":
                backoff = min(backoff * 2.0, self.backoff_max_s)
                if self._closing.wait(backoff):
                    return
                continue
            self._lost = False
            log.info("%s: restored", self.description)
            self._report(SourceRestored(t=self._now_t(), source=self.description))

    def _noticed_loss(self) -> bool:
        """The stream died or went quiet for ``stall_timeout_s``: report it, drop the stream."""
        stalled = time.monotonic() - self._last_callback > self.stall_timeout_s
        stream = self._stream
        died = self._stream_died.is_set() or (stream is not None and not stream.active)
        if not (died or stalled):
            return False
        reason = ("audio stream stopped unexpectedly" if died
                  else f"no audio for {self.stall_timeout_s:g} s")
        self._lost, self._lost_reason = True, reason
        log.warning("%s: lost (%s); reconnecting", self.description, reason)
        self._report(SourceLost(t=self._now_t(), source=self.description, reason=reason))
        self._abort_stream()
        return True

    def _reopen(self, backoff: float) -> str:
        """Open the stream again and wait for a block: ``"restored"``, ``"failed"`` or ``"closing"``."""
        try:
            # keep the sample clock near wall time across the gap
            # (never backwards: block t stays increasing)
            self._sample_index = max(self._sample_index,
                                     int(round(self._now_t() * (self.sample_rate or 0))))
            self._start_stream()
        except SourceError as exc:
            log.debug("%s: reopen failed (%s); next try in %.2f s", self.description, exc, backoff)
            return "failed"
        # wait for a block to arrive before calling it restored
        before = self._callbacks
        deadline = time.monotonic() + self.stall_timeout_s
        while self._callbacks == before and time.monotonic() < deadline:
            if self._closing.wait(0.01):
                return "closing"
        if self._callbacks == before or self._stream_died.is_set():
            self._abort_stream()
            return "failed"
        return "restored"

    # -- consumer side -----------------------------------------------------------
    def read(self, timeout: float | None = None) -> AudioBlock | None:
        """The oldest queued block; ``None`` on timeout (also while lost)."""
        if not self._opened:
            raise EOFError(f"{self.description} is closed")
        try:
            if timeout is not None and timeout <= 0:
                item = self._queue.get_nowait()
            else:
                item = self._queue.get(timeout=timeout)
        except queue.Empty:
            return None
        if item is _CLOSED:
            raise EOFError(f"{self.description} is closed")
        block_index, sample_index, data, captured_at = item
        samples = data.astype(np.float32)
        scale = _SCALE[self.dtype]
        if scale != 1.0:
            samples *= np.float32(1.0 / scale)
        if self.channels == 1:
            samples = samples.reshape(-1)
        rate = int(self.sample_rate or 0)
        self._delivered += 1
        self._latencies.append((time.monotonic() - captured_at) * 1000.0)
        return AudioBlock(block_index, sample_index / rate, samples, rate, captured_at)

    def poll_status(self) -> list[Event]:
        with self._lock:
            events, self._status = self._status, []
        return events

    def horizon(self) -> float | None:
        """A time no block delivered from now on can start before (``t`` seconds): the start
        of the next block the device will hand over (queued blocks are earlier; read them
        first). ``CombinedSource`` uses it to hand out camera frames without waiting."""
        rate = self.sample_rate
        return self._sample_index / rate if self._opened and rate else None

    def stats(self) -> dict[str, Any]:
        lat = list(self._latencies)
        return {
            "blocks_captured": self._block_index,
            "blocks_delivered": self._delivered,
            "dropped_blocks": self._dropped,
            "overflows": self._overflows,
            "underflows": self._underflows,
            "clock_resyncs": self._resyncs,
            "queued_blocks": self._queue.qsize(),
            "latency_ms": statistics.median(lat) if lat else None,
            "lost": self._lost,
            "gain": self._gain,
        }
