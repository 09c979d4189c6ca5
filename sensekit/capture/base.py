"""What every source yields, and the interface they share.

A source yields ``VideoFrame`` and ``AudioBlock`` items in timestamp order.
``t`` is seconds from the source's start: for a replay it comes from the
recorded timestamps, so results never depend on the machine's speed.
``captured_at`` is the ``time.monotonic()`` reading when a live device handed
the data over (``None`` for files and replays); the runner uses it to measure
capture-to-event latency.
"""
from __future__ import annotations

import heapq
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

import numpy as np

#: a source's microphone gain that leaves the samples as they are (0..100, Flash's scale;
#: ``sensekit.audio.gain`` maps it to dB)
UNITY_GAIN = 50.0


@dataclass(frozen=True, slots=True)
class VideoFrame:
    """One camera or video frame: its number from the source's start, its time ``t`` in seconds,
    the picture and, from a live device, when it was handed over (see the module docstring)."""
    index: int
    t: float
    image: np.ndarray            # HxWx3 uint8, BGR
    captured_at: float | None = None


@dataclass(frozen=True, slots=True)
class AudioBlock:
    """One block of microphone or recorded audio: its number, the time of its first sample,
    the samples (float, full scale 1.0) at ``rate`` Hz and, from a live device, when it was
    handed over."""
    index: int
    t: float                     # time of the block's first sample
    samples: np.ndarray          # float32, shape (n,) mono or (n, channels), full scale = 1.0
    rate: int
    captured_at: float | None = None


Item = VideoFrame | AudioBlock


def as_bgr(image: np.ndarray) -> np.ndarray:
    """A decoded image as HxWx3 BGR: grey and BGRA frames (some cameras and files give
    them) are converted; a BGR image is returned as it is, without a copy."""
    if image.ndim == 3 and image.shape[2] == 3:
        return image
    import cv2

    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)


class Source(ABC):
    """A camera, microphone, media file or replay.

    Use as a context manager or call ``open()``/``close()``. Iterating yields
    items in timestamp order until the source ends (a live source ends only on
    ``close()``). ``read(timeout)`` returns the next item, ``None`` if none came
    within ``timeout`` seconds (live sources), and raises ``EOFError`` at the end.
    """

    #: "camera", "microphone", "file", "replay", ...
    kind: str = "source"
    #: True for devices and streams whose data arrives in wall-clock time.
    is_live: bool = False

    has_video: bool = False
    has_audio: bool = False
    frame_size: tuple[int, int] | None = None   # (width, height)
    fps: float | None = None
    sample_rate: int | None = None
    channels: int | None = None

    def __enter__(self) -> Source:
        self.open()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def open(self) -> None:  # noqa: B027 - optional hook
        """Acquire the device or file. Idempotent."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release everything. Idempotent."""

    @abstractmethod
    def read(self, timeout: float | None = None) -> Item | None:
        """Next item; ``None`` on timeout; ``EOFError`` when the source has ended."""

    def __iter__(self) -> Iterator[Item]:
        while True:
            try:
                item = self.read()
            except EOFError:
                return
            if item is not None:
                yield item

    @property
    def description(self) -> str:
        """A short human label, shown in HUDs and logs."""
        return self.kind

    def stats(self) -> dict[str, Any]:
        """Counters users care about: dropped frames, overflows, latency."""
        return {}

    def poll_status(self) -> list[Any]:
        """``SourceLost``/``SourceRestored`` events that happened since the last call.

        Live sources that lose their device keep running, report the loss here,
        reconnect with backoff and report the return. The runner dispatches these.
        """
        return []


#: what a live source lost, in its ``stats()``: a camera's frames grabbed but never delivered,
#: a microphone's blocks its queue dropped and the overflow / underflow flags PortAudio raised
DROP_COUNTERS = ("dropped_frames", "dropped_blocks", "overflows", "underflows")


def drop_counts(stats: dict[str, Any]) -> dict[str, int]:
    """The ``DROP_COUNTERS`` a source's ``stats()`` holds (whole numbers only), in that order."""
    return {k: int(stats[k]) for k in DROP_COUNTERS
            if isinstance(stats.get(k), int) and not isinstance(stats.get(k), bool)}


#: ``source_drops``' count of frames ``record_loop`` scaled to the recording's size (not lost)
RESIZED_FRAMES = "resized_frames"


def drop_phrases(drops: dict[str, int]) -> tuple[list[str], list[str]]:
    """(what was lost: ``["3 dropped audio blocks", ...]``, what was changed: ``["2 frames of another
    size scaled to the recording's"]``), in the order of ``drops``; zero counts left out."""
    names = {"dropped_frames": "dropped frame", "dropped_blocks": "dropped audio block",
             "overflows": "input overflow", "underflows": "input underflow"}
    lost = [f"{n} {names.get(k, k)}{'' if n == 1 else 's'}" for k, n in drops.items() if n and k != RESIZED_FRAMES]
    n = drops.get(RESIZED_FRAMES, 0)
    scaled = [f"{n} frame{'' if n == 1 else 's'} of another size scaled to the recording's"] if n else []
    return lost, scaled


def drops_text(drops: dict[str, int]) -> str:
    """``"; lost: 3 dropped audio blocks, 1 input overflow"`` (empty when nothing was lost), then
    ``"; 2 frames of another size scaled to the recording's"`` when a camera came back at another
    size: the tail of the last line of ``sensekit record`` and of a live ``sensekit run``."""
    lost, scaled = drop_phrases(drops)
    return ("; lost: " + ", ".join(lost) if lost else "") + "".join(f"; {s}" for s in scaled)


def merge_by_time(*streams: Iterable[Item]) -> Iterator[Item]:
    """Interleave already-sorted item streams by ``t``; on ties earlier streams first."""
    def tagged(k: int, s: Iterable[Item]) -> Iterator[tuple[float, int, int, Item]]:
        for n, item in enumerate(s):
            yield (item.t, k, n, item)

    for _, _, _, item in heapq.merge(*(tagged(k, s) for k, s in enumerate(streams))):
        yield item
