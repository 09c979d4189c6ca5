"""The one loop: pull items from a source, run the stages, dispatch the events.

Live input and replay go through the same ``Runner``. A source already yields its
frames and audio blocks interleaved by timestamp; the runner applies frame
transforms (e.g. mirror), then every enabled stage whose ``consumes`` matches.

Stages are lazy by default: a stage runs only when some handler listens to one
of the event names it ``emits`` (or when it sets ``always_run = True``, for apps
that read a stage's state directly). A pipeline with only motion enabled never
pays for edges.

Who listens is one mechanism, owned here: before every item the runner compares
the dispatcher's ``version`` with the one it last saw, and when it changed it calls
``stage.listen(wanted)`` on every stage that has that method, ``wanted`` being the
stage's event names that have a handler (all of them for a runner with ``lazy=False``;
an ``always_run`` stage is run anyway and decides itself what it keeps running). A stage
can then switch its sub-detectors on and off;
it never needs the dispatcher itself, and a handler attached before the first item
(an app's ``setup``) is in force from the first block on.

At the end of the source the runner calls ``finish()`` on every active stage that has that
(optional) method and dispatches what it returns: a stage holding an unfinished sound (the
voice stage's open speech segment, the clap detector's held close call) reports it then.
A run stopped before the end (Ctrl-C, SIGTERM or SIGHUP, ``events --max-items``, an app's
``--frames`` or quit) does the same through ``stop()``, and a looping source
(``source.loops`` grew: the stream restarted) through the same call before the next
pass's first item: the stages finish the pass, then start a new stream.

``pump(until_t)`` is for fixed-step apps: it processes everything up to the
simulation time (replays and files) or everything that has arrived (live).
"""
from __future__ import annotations

import os
import statistics
import time
import zlib
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Literal, Protocol, runtime_checkable

import numpy as np

from sensekit.arg_types import checked_except
from sensekit.capture.base import AudioBlock, Item, Source, VideoFrame
from sensekit.errors import ConfigError
from sensekit.events import AudioBlockSeen, Dispatcher, Event, FrameSeen
from sensekit.settings.live import SettingsBudget, swap_budget


@runtime_checkable
class Stage(Protocol):
    """A processing step that turns items into events.

    ``consumes`` is ``"video"``, ``"audio"`` or ``"both"``; ``emits`` the event
    names it can produce. ``process`` may keep state (previous frame, timers).
    Optional: ``listen(wanted: frozenset[str])``, called by the runner whenever the
    set of wanted event names may have changed (see the module docstring), and
    ``finish() -> Iterable[Event]``, called once at the end of the source.
    """

    @property
    def consumes(self) -> Literal["video", "audio", "both"]: ...
    @property
    def emits(self) -> frozenset[str]: ...

    def process(self, item: Item) -> Iterable[Event]: ...


_CONSUMES = ("video", "audio", "both")


def _checked_source(source: Any) -> Source:
    """``source`` if it can be read, else a ``ConfigError``: a spec (``Runner("demo", ...)``) is
    opened with ``open_source`` first (it ended in "'str' object has no attribute 'is_live'")."""
    if isinstance(source, (str, os.PathLike)):
        raise ConfigError(f"the Runner takes an open source, not the spec {str(source)!r}: "
                          f"with open_source({str(source)!r}) as source: Runner(source, stages, dispatcher).run()")
    if not callable(getattr(source, "read", None)):
        raise ConfigError(f"the Runner takes a source (open_source(spec) gives one), got a {type(source).__name__}")
    return source  # type: ignore[no-any-return]


def _checked_stage(index: int, stage: Any) -> Stage:
    """``stage`` if it is one (an instance with ``consumes``, ``emits`` and ``process``), else a
    ``ConfigError`` naming the mistake: a class instead of an instance, or a detector passed
    where its stage belongs (``ClapDetector()`` instead of ``AudioStage(clap=ClapDetector())``)."""
    what = f"stage {index} of the Runner"
    if isinstance(stage, type):
        raise ConfigError(f"{what} is the class {stage.__name__}, not an instance: write {stage.__name__}(...)")
    missing = [name for name in ("consumes", "emits", "process") if not hasattr(stage, name)]
    if missing:
        raise ConfigError(f"{what} is a {type(stage).__name__}, not a stage (it has no {', '.join(missing)}): "
                          f"a detector goes inside its stage, e.g. AudioStage(clap=ClapDetector()) or "
                          f"VisionStage(motion=MotionDetector())")
    if stage.consumes not in _CONSUMES:
        raise ConfigError(f"{what} ({type(stage).__name__}) consumes {stage.consumes!r}; "
                          f"a stage consumes one of {', '.join(_CONSUMES)}")
    return stage  # type: ignore[no-any-return]


@runtime_checkable
class MirrorsInput(Protocol):
    """A stage that can mirror its frames itself (``vision.mirror``). ``input_is_mirrored()``
    tells it that the frames reach it mirrored already (an app's host mirrors them), so it
    never flips them back: a picture is mirrored in one place."""

    def input_is_mirrored(self) -> None: ...


@runtime_checkable
class Warns(Protocol):
    """A stage that has something the user should know now (the panel's status line): one
    short sentence a warning, ``[]`` when all is well. Read on the run's thread, about once a
    second, so it must be cheap (the vision stage returns a message it kept)."""

    def warnings(self) -> list[str]: ...


def stage_warnings(stages: Iterable[object]) -> list[str]:
    """What the stages that ``Warns`` say now, in stage order."""
    return [w for s in stages if isinstance(s, Warns) for w in s.warnings()]


def checksum(data: np.ndarray) -> str:
    """CRC-32 of an array's bytes as 8 hex digits (stable across runs and machines)."""
    # an ndarray is a buffer; numpy's stubs declare __buffer__ only for Python 3.12+
    return f"{zlib.crc32(np.ascontiguousarray(data).view(np.uint8).ravel()) & 0xFFFFFFFF:08x}"  # type: ignore[arg-type]


class RecordStage:
    """Emits one ``frame``/``audio_block`` record per item with a data checksum."""

    consumes: Literal["both"] = "both"
    emits = frozenset({"frame", "audio_block"})

    def process(self, item: Item) -> list[Event]:
        if isinstance(item, VideoFrame):
            h, w = item.image.shape[:2]
            return [FrameSeen(t=item.t, index=item.index, width=w, height=h,
                              checksum=checksum(item.image))]
        return [AudioBlockSeen(t=item.t, index=item.index, samples=len(item.samples),
                               rate=item.rate, checksum=checksum(item.samples))]


@dataclass
class RunStats:
    """What a run has processed so far: frames, audio blocks, events (in all and by name) and
    the recent capture-to-dispatch latencies of a live source."""
    frames: int = 0
    blocks: int = 0
    events: int = 0
    event_counts: dict[str, int] = field(default_factory=dict)
    latencies_ms: deque[float] = field(default_factory=lambda: deque(maxlen=256))

    @property
    def latency_ms(self) -> float | None:
        """Median capture-to-dispatch latency over the recent items (live only)."""
        return statistics.median(self.latencies_ms) if self.latencies_ms else None

    def as_dict(self) -> dict[str, Any]:
        """The counts and the median latency as JSON-ready data (event names sorted)."""
        return {"frames": self.frames, "blocks": self.blocks, "events": self.events,
                "event_counts": dict(sorted(self.event_counts.items())),
                "latency_ms": self.latency_ms}


FrameTransform = Callable[[np.ndarray], np.ndarray]


class Runner:
    """The one loop over a source: each item through the ``frame_transforms`` (video), then
    every stage that consumes it and has a listener (all of them with ``lazy=False``), and their
    events to the ``dispatcher``. See the module docstring; ``run`` for a whole source,
    ``pump`` for a fixed-step app, ``process`` for one item."""

    @checked_except("source")   # its own check names a spec or a class given instead
    def __init__(
        self,
        source: Source,
        stages: Iterable[Stage] = (),
        dispatcher: Dispatcher | None = None,
        *,
        frame_transforms: Iterable[FrameTransform] = (),
        lazy: bool = True,
    ) -> None:
        self.source = _checked_source(source)
        self.stages = [_checked_stage(i, stage) for i, stage in enumerate(stages)]
        self.dispatcher = dispatcher if dispatcher is not None else Dispatcher()
        self.frame_transforms = list(frame_transforms)
        self.lazy = lazy
        self.stats = RunStats()
        self.latest_frame: VideoFrame | None = None
        self.latest_block: AudioBlock | None = None
        self.ended = False
        #: How often ``run()`` checks a live source's status while no data arrives.
        self.status_poll_s = 0.2
        #: the time this run's thread may spend applying settings (``sensekit.settings.live``)
        self.settings_budget = SettingsBudget()
        self._pending: Item | None = None
        self._flushed = False            # the stages' finish() called since their last item
        self._loops = int(getattr(source, "loops", 0))   # passes of a looping source seen
        self._heard = -1                 # dispatcher version the stages were last told about

    # -- one item ----------------------------------------------------------
    def _active(self, stage: Stage) -> bool:
        if not self.lazy or getattr(stage, "always_run", False):
            return True
        return self.dispatcher.wants(stage.emits)

    def tell_stages(self) -> None:
        """Call ``listen(wanted)`` on every stage that has it (see the module docstring)."""
        self._heard = getattr(self.dispatcher, "version", 0)
        for stage in self.stages:
            listen = getattr(stage, "listen", None)
            if listen is not None:
                listen(frozenset(stage.emits) if not self.lazy else self.dispatcher.wanted(stage.emits))

    def process(self, item: Item) -> list[Event]:
        """Transform, run stages and dispatch for one item; returns its events."""
        loops = int(getattr(self.source, "loops", 0))
        if loops != self._loops:          # a looping source restarted: the last pass ends here
            self._loops = loops
            self._finish_stages()
        self._flushed = False
        if getattr(self.dispatcher, "version", 0) != self._heard:
            self.tell_stages()
        if isinstance(item, VideoFrame):
            if self.frame_transforms:
                image = item.image
                for transform in self.frame_transforms:
                    image = transform(image)
                item = VideoFrame(item.index, item.t, image, item.captured_at)
            self.latest_frame = item
            self.stats.frames += 1
            kind = "video"
        else:
            self.latest_block = item
            self.stats.blocks += 1
            kind = "audio"
        events: list[Event] = []
        outer = swap_budget(self.settings_budget)
        try:
            for stage in self.stages:
                if stage.consumes in (kind, "both") and self._active(stage):
                    events.extend(stage.process(item))
        finally:
            swap_budget(outer)
        counts = self.stats.event_counts
        for event in events:
            counts[event.name] = counts.get(event.name, 0) + 1
            self.dispatcher.dispatch(event)
        self.stats.events += len(events)
        if item.captured_at is not None:
            self.stats.latencies_ms.append((time.monotonic() - item.captured_at) * 1000.0)
        return events

    def finish(self) -> list[Event]:
        """The end of the source: dispatch what the stages with ``finish()`` still hold."""
        self.ended = True
        return self._finish_stages()

    def stop(self) -> list[Event]:
        """A run stopped before the end of its source (Ctrl-C, SIGTERM, an item or frame limit,
        quit): dispatch what the stages still hold, as at the end. Nothing after ``finish()`` or a
        previous ``stop()`` with no item since. ``ended`` is left as it is (the source has not ended)."""
        return self._finish_stages()

    def _finish_stages(self) -> list[Event]:
        if self._flushed:
            return []
        self._flushed = True
        events: list[Event] = []
        for stage in self.stages:
            finish = getattr(stage, "finish", None)
            if finish is not None and self._active(stage):
                events.extend(finish())
        for event in events:
            self.stats.event_counts[event.name] = self.stats.event_counts.get(event.name, 0) + 1
            self.dispatcher.dispatch(event)
        self.stats.events += len(events)
        return events

    def dispatch_status(self) -> list[Event]:
        """Dispatch the source's lost/restored events, if any."""
        events = self.source.poll_status()
        for event in events:
            self.stats.event_counts[event.name] = self.stats.event_counts.get(event.name, 0) + 1
            self.dispatcher.dispatch(event)
        return events

    # -- loops -------------------------------------------------------------
    def run(self, *, max_items: int | None = None,
            on_item: Callable[[Item], None] | None = None) -> RunStats:
        """Process the whole source (or ``max_items`` items: a caller may go on with another
        ``run``, so a limit is not a stop; one that ends there calls ``stop()``). Stopped by Ctrl-C
        or SIGTERM (``KeyboardInterrupt``), the stages' held events are dispatched (``stop()``)
        before it re-raises."""
        n = 0
        live = self.source.is_live
        try:
            while max_items is None or n < max_items:
                if live:
                    # Poll with a short timeout so a lost device is reported while it lasts.
                    self.dispatch_status()
                try:
                    item = self.source.read(timeout=self.status_poll_s if live else None)
                except EOFError:
                    self.finish()
                    break
                if item is None:
                    continue
                self.process(item)
                n += 1
                if on_item is not None:
                    on_item(item)
        except KeyboardInterrupt:
            self.stop()
            raise
        return self.stats

    def pump(self, until_t: float | None = None, *, max_items: int = 10_000) -> int:
        """Process items up to ``until_t`` (replay/file) or all that have arrived (live).

        Returns how many items were processed. Sets ``ended`` at the end of the source.
        """
        n = 0
        live = self.source.is_live or until_t is None
        if self.source.is_live:
            self.dispatch_status()
        while n < max_items and not self.ended:
            item = self._pending
            self._pending = None
            if item is None:
                try:
                    item = self.source.read(timeout=0.0 if live else None)
                except EOFError:
                    self.finish()
                    break
                if item is None:
                    break
            if not live and until_t is not None and item.t > until_t:
                self._pending = item
                break
            self.process(item)
            n += 1
        return n
