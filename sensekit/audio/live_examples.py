"""Examples of a sound or word caught from a live source, one voiced segment per prompt.

``SegmentCatcher`` cuts audio blocks into voiced segments exactly as the voice stage does (mono,
``soxr``'s streaming resampler to 16 kHz, ``SpeechSegmenter``), so an example caught live is cut
like the sounds it will later be matched against. ``catch_examples(source, names, count=...)``
prompts for each example in turn ("make NAME now (k of n)") and keeps the next segment that
closes after the prompt; nothing heard within ``timeout_s`` of the source's time is a
``ConfigError`` naming the example. A recording or file replays as if live: its block times
drive the timeouts, so the same recording always gives the same examples. A live source that
delivers nothing at all is given up on after ``timeout_s`` of wall-clock time as well, so
nothing hangs. Needs the voice extra.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from sensekit.audio.level import mono
from sensekit.audio.vad import RATE, Segment, SpeechSegmenter, to_pcm16
from sensekit.capture.base import AudioBlock
from sensekit.errors import ConfigError

__all__ = ["SegmentCatcher", "catch_examples", "MAX_TIMEOUT_S", "MAX_EXAMPLES", "DEFAULT_EXAMPLES", "DEFAULT_TIMEOUT_S"]

MAX_TIMEOUT_S = 600.0          # the longest wait for one example
DEFAULT_TIMEOUT_S = 8.0        # the wait for one example when none is given
MAX_EXAMPLES = 20              # the most examples of one name
DEFAULT_EXAMPLES = 3           # examples of each name when no count is given (3 to 5 work best)


class SegmentCatcher:
    """Audio blocks in, closed voiced segments out (the voice stage's cut)."""

    def __init__(self, *, transients: bool = False) -> None:
        self.segmenter = SpeechSegmenter(transients=transients)
        self._rate: int | None = None
        self._resampler: Any = None
        self._t0 = 0.0
        self._n_out = 0

    def feed(self, block: AudioBlock) -> list[Segment]:
        """The segments that closed in ``block`` (blocks of NaN/Inf restart the stream)."""
        import soxr    # the voice extra

        x = mono(block.samples)
        if len(x) == 0:
            return []
        if not np.isfinite(x).all():
            self._rate = None
            return []
        if block.rate != self._rate:
            if block.rate < 8000:
                raise ConfigError(f"examples are caught from audio at 8000 Hz or more, got {block.rate} Hz")
            self._rate = block.rate
            self._resampler = soxr.ResampleStream(block.rate, RATE, 1, dtype="float32")
            self._t0, self._n_out = block.t, 0
            self.segmenter.reset()
        y = self._resampler.resample_chunk(x)
        t = self._t0 + self._n_out / RATE
        self._n_out += len(y)
        return self.segmenter.feed(to_pcm16(y), t)

    def finish(self) -> list[Segment]:
        """The segment still open when the source ended."""
        if self._rate is None:
            return []
        self._rate = None
        return self.segmenter.flush(self._t0 + self._n_out / RATE)


def catch_examples(source: Any, names: Sequence[str], *, count: int = DEFAULT_EXAMPLES,
                   timeout_s: float = DEFAULT_TIMEOUT_S,
                   say: Callable[[str], None] = print, verb: str = "make",
                   counts: Mapping[str, int] | None = None,
                   transients: bool = False) -> dict[str, list[Segment]]:
    """``count`` examples of each name (``counts[name]`` if given) from an opened ``source``,
    prompted through ``say``."""
    wanted = {name: (counts or {}).get(name, count) for name in names}
    if not all(1 <= n <= MAX_EXAMPLES for n in wanted.values()):
        raise ConfigError(f"examples per name must be 1 to {MAX_EXAMPLES}, got {sorted(set(wanted.values()))}")
    if not 0 < timeout_s <= MAX_TIMEOUT_S:          # inf waited for ever on a silent microphone
        raise ConfigError(f"the timeout per example must be over 0 s and at most {MAX_TIMEOUT_S:g} s, "
                          f"got {timeout_s:g}")
    catcher = SegmentCatcher(transients=transients)
    ready: list[Segment] = []
    out: dict[str, list[Segment]] = {}
    ended = False
    for name, count in wanted.items():
        for k in range(1, count + 1):
            say(f"{verb} {name} now ({k} of {count})")
            what = f"{name} ({k} of {count})"
            seg = _next_segment(source, catcher, ready, timeout_s, what, ended)
            if seg is None:
                ended = True
                raise ConfigError(f"the source ended before {what} was heard")
            say(f"  heard {name}: {seg.end - seg.start:.2f} s at {seg.start:.2f} s")
            out.setdefault(name, []).append(seg)
    return out


def _next_segment(source: Any, catcher: SegmentCatcher, ready: list[Segment], timeout_s: float,
                  what: str, ended: bool) -> Segment | None:
    """The first segment closing after now, within ``timeout_s`` of source time (and wall time)."""
    ready.clear()              # a segment that closed before the prompt is not this example
    deadline: float | None = None
    wall_deadline = time.monotonic() + timeout_s + 1.0
    while not ended:
        try:
            item = source.read(timeout=0.25)
        except EOFError:
            ready.extend(catcher.finish())
            return ready.pop(0) if ready else None
        if item is None:
            if time.monotonic() > wall_deadline:
                raise ConfigError(f"nothing heard for {what} in {timeout_s:g} s (the source delivers no audio)")
            continue
        if not isinstance(item, AudioBlock):
            continue
        wall_deadline = time.monotonic() + timeout_s + 1.0
        if deadline is None:
            deadline = item.t + timeout_s
        ready.extend(catcher.feed(item))
        if ready:
            return ready.pop(0)
        if item.t >= deadline and not catcher.segmenter.in_speech:
            if not getattr(source, "is_live", True):     # a recording: no microphone to come closer to
                raise ConfigError(
                    f"nothing heard for {what} in {timeout_s:g} s ({deadline - timeout_s:.2f}-{item.t:.2f} s of "
                    f"{getattr(source, 'description', 'the source')}): no voiced sound there stands 12 dB over "
                    "the background; teach from another recording, or give the examples as NAME=FILE@START-END")
            raise ConfigError(f"nothing heard for {what} in {timeout_s:g} s: make it louder or closer "
                              "to the microphone (it must stand 12 dB over the background)")
    return None
