"""``AudioStage``: the audio detectors as one Runner stage.

Per block the stage computes the activity level **once** (``LevelMeter``: mono mix,
gain, optional smoothing) and shares it - and the block's mean square - with every
sub-detector: ``ActivityDetector``, ``NoiseFloor``, ``ClapDetector`` (+ the n-clap
``ClapPatternTracker``) and ``PitchTracker``. It emits ``level``, ``activity``,
``clap``, ``clap_pattern`` and ``pitch`` events.

Only what someone listens to runs: the runner calls ``listen(wanted)`` with the event
names that have handlers whenever the subscriptions change (before the first block, so
an app that subscribes in ``setup`` hears the first clap), and the stage switches its
detectors on and off accordingly; a detector switched on again starts a fresh stream
(no gap inside its history). Until ``listen`` is called every configured detector runs
(a stage used on its own). ``clap_pattern`` needs the clap detector, so listening to
patterns runs it. ``always_run = True`` keeps every detector alive for apps that read
``level``/``active``/``pitch`` attributes directly.

Settings: the stage's own ``audio`` group (gain, level smoothing) and those of the detectors
it owns (``noise_floor``, ``activity``, ``clap``, ``pattern``, ``pitch``; ``tunables()`` lists
them); a change through ``apply`` takes effect at the next block (one integer comparison per
block when nothing changed). The stage always has a ``NoiseFloor`` (the activity detector's
``on_db`` thresholds use it).

At the end of the source the runner calls ``finish()``: the claps still owed (a close call held for
its ring when the stream stopped) come out then, at their own times.

Pitch events are emitted when an estimate is made (every ``PitchTracker.hop_ms``) and
once when the sound goes quiet, not on every block.

Cost: ~2 us per block for the level, plus the detectors' own (see their docstrings).
Failure modes: a stereo block when ``channels=1`` was configured, an unsupported rate
for the clap/pitch detectors, or a rate change mid-stream raise ``ConfigError``; blocks
with NaN/Inf samples are logged, counted in ``skipped_blocks`` and skipped entirely (the
clap and pitch history restarts after them, so no event ever sees those samples).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from typing import Any, Literal, Mapping

import numpy as np

from sensekit.arg_types import checked
from sensekit.audio.activity import ActivityDetector
from sensekit.audio.clap import ClapDetector, ClapPatternTracker
from sensekit.audio.rates import check_rate
from sensekit.audio.gain import UNITY_GAIN
from sensekit.audio.level import LevelMeter, mono
from sensekit.audio.noise_floor import NoiseFloor
from sensekit.audio.trace import ACTIVITY_LINE, CLAP_LINE, FLOOR_LINE, LevelLine, LevelTrace
from sensekit.audio.pitch import PitchTracker
from sensekit.capture.base import AudioBlock
from sensekit.events import Clap, Event, Level, Pitch
from sensekit.settings import Tunable, setting
from sensekit.settings.live import catch_up

_NAMES = ("level", "activity", "clap", "clap_pattern", "pitch")


class AudioStage(Tunable, section="audio",
                 title="the audio stage: gain and level smoothing shared by every audio detector"):
    consumes: Literal["audio"] = "audio"
    emits = frozenset(_NAMES)
    always_run = False
    gain = setting(UNITY_GAIN, "gain 0..100 as in Flash: 50 = unity, 0.6 dB per step, 0 mutes; unset, a "
                               "run takes its source's (a recording's stored gain)",
                   lo=0, hi=100, flag="--gain")
    smoothing_ms = setting(0.0, "level smoothing time constant (0: off)", unit="ms", lo=0, hi=60_000,
                           flag="--smoothing-ms")

    @checked
    def __init__(
        self,
        *,
        gain: float | None = None,
        smoothing_ms: float | None = None,
        channels: int | None = None,
        activity: ActivityDetector | None = None,
        noise_floor: NoiseFloor | None = None,
        clap: ClapDetector | None = None,
        pattern: ClapPatternTracker | None = None,
        pitch: PitchTracker | None = None,
        emit_level: bool = True,
    ) -> None:
        self.meter = LevelMeter(channels=channels)
        given = {"gain": gain, "smoothing_ms": smoothing_ms}
        self.init_settings({k: v for k, v in given.items() if v is not None})
        self.channels = channels
        self.activity = activity
        if noise_floor is None:
            noise_floor = activity.noise_floor if activity is not None and activity.noise_floor else NoiseFloor()
        self.noise_floor = noise_floor
        if activity is not None and activity.noise_floor is None:
            activity.noise_floor = noise_floor          # for thresholds over the floor (on_db)
        self._seen_generation = -1
        if pattern is not None and clap is None:
            clap = ClapDetector(channels=channels)
        self.clap = clap
        self.pattern = pattern
        self.pitch = pitch
        self.emit_level = emit_level
        self.emits = frozenset(n for n, on in zip(_NAMES, (
            emit_level, activity is not None, clap is not None, pattern is not None,
            pitch is not None)) if on)
        self.level = 0.0
        self._last = (-1, 0.0)                  # (index, t) of the last block measured: ``trace``
        self.skipped_blocks = 0
        self._rate: int | None = None
        self._want = dict.fromkeys(_NAMES, True)
        self._pitch_quiet = True
        self._apply_wants()
        self.settings_changed(self.settings())

    @property
    def active(self) -> bool:
        """Whether the activity detector is in the active state."""
        return bool(self.activity is not None and self.activity.active)

    def set_gain(self, gain: float) -> None:
        """Change the gain of the level and the clap detector, from now on."""
        self.apply_now(gain=gain)

    def settings_changed(self, changed: Mapping[str, Any]) -> None:
        # the gain lives here; the meter and the clap detector (which judges levels after
        # gain) are handed it
        if "gain" in changed:
            self.meter.set_gain(self.gain)
            if self.clap is not None:
                self.clap.set_gain(self.gain)
        if "smoothing_ms" in changed:
            self.meter.set_smoothing(self.smoothing_ms)

    def tunables(self) -> Iterator[Tunable]:
        yield self
        for part in (self.noise_floor, self.activity, self.clap, self.pattern, self.pitch):
            if isinstance(part, Tunable):
                yield part

    def listen(self, wanted: AbstractSet[str]) -> None:
        """Run only the detectors whose events are in ``wanted`` (called by the runner)."""
        if self.always_run:
            wanted = self.emits
        want = self._want
        was_clap, was_pitch = want["clap"], want["pitch"]
        for name in _NAMES:
            want[name] = name in wanted
        want["clap"] = want["clap"] or want["clap_pattern"]
        # a detector that was idle restarts its history (no gap inside its stream)
        if self.clap is not None and want["clap"] and not was_clap:
            self.clap.reset()
        if self.pitch is not None and want["pitch"] and not was_pitch:
            self.pitch.reset()
        self._apply_wants()

    def _apply_wants(self) -> None:
        want = self._want
        self._do_level = self.emit_level and want["level"]
        self._do_activity = self.activity is not None and want["activity"]
        self._do_clap = self.clap is not None and want["clap"]
        self._do_pitch = self.pitch is not None and want["pitch"]

    def process(self, item: Any) -> Iterable[Event]:
        if not isinstance(item, AudioBlock):
            return ()
        self._seen_generation = catch_up(self._seen_generation, self.tunables)  # a setting changed?
        t = item.t
        rate = item.rate
        x = self._mono(item)
        n = len(x)
        if n == 0:
            return ()
        meter = self.meter
        lv = meter.process(x, t, rate, index=item.index)
        if lv is None:                              # NaN/Inf: reported by the meter, skipped
            return self._skip_block()
        self.level = lv
        self._last = (item.index, t)
        out: list[Event] = []
        if self._do_level:
            out.append(Level(t=t, level=lv))
        if self.noise_floor is not None:
            self.noise_floor.process(lv, n, rate)     # does nothing once it has learnt
        if self._do_activity:
            out.extend(self._activity(lv, t))
        if self._do_clap:
            self._claps(x, item, out)
        if self._do_pitch:
            self._pitch(x, item, out)
        return out

    # -- what it shows (``sensekit.audio.trace``) ------------------------------------------
    def lines_offered(self) -> frozenset[str]:
        """The level graph's lines this stage draws: one per detector it has."""
        return frozenset(name for name, part in ((ACTIVITY_LINE, self.activity), (CLAP_LINE, self.clap),
                                                 (FLOOR_LINE, self.noise_floor)) if part is not None)

    def trace(self, index: int) -> LevelTrace | None:
        """The level of audio block ``index`` and the lines (activity threshold, clap minimum
        level, the noise floor once learnt), if that is the last block this stage measured."""
        last, t = self._last
        if index != last:
            return None
        lines = []
        if self.activity is not None:
            lines.append(LevelLine(ACTIVITY_LINE, float(self.activity.silence_level)))
        if self.clap is not None:
            lines.append(LevelLine(CLAP_LINE, float(self.clap.min_level)))
        if self.noise_floor is not None and self.noise_floor.ready:
            lines.append(LevelLine(FLOOR_LINE, float(self.noise_floor.level_in_use)))
        return LevelTrace(t=t, level=self.level, lines=tuple(lines))

    def _mono(self, item: AudioBlock) -> np.ndarray:
        """The block as mono float32; a new sample rate is checked for the detectors."""
        x = item.samples
        if x.__class__ is not np.ndarray or x.ndim != 1 or x.dtype.char != "f":
            x = mono(x, channels=self.channels, index=item.index)
        if item.rate != self._rate:
            if self.clap is not None or self.pitch is not None:
                check_rate(item.rate, "clap detector" if self.clap is not None else "pitch tracker")
            self._rate = item.rate
        return x

    def _activity(self, lv: float, t: float) -> tuple[Event, ...]:
        ev = self.activity.process(lv, t)   # type: ignore[union-attr]
        return () if ev is None else (ev,)

    def _skip_block(self) -> list[Event]:
        """A NaN/Inf block: counted; the clap detector and the pitch tracker start again, after the
        claps the stream before the block still owes (``ClapDetector.finish``: a clap just before a
        bad block used to be dropped unjudged)."""
        self.skipped_blocks += 1
        out: list[Event] = []
        if self.clap is not None:
            self._add_claps(self.clap.finish(), out)
        if self.pitch is not None:
            self.pitch.reset()
        return out

    def finish(self) -> list[Event]:
        """The end of the source (the runner calls it): the claps the clap detector still owes (a close
        call held for its ring: ``ClapDetector.finish``), each with the pattern it completes; then the
        detector and the pattern tracker start a new stream. The other detectors hold nothing back."""
        out: list[Event] = []
        if self._do_clap:
            self._add_claps(self.clap.finish(), out)   # type: ignore[union-attr]
            if self.pattern is not None:
                self.pattern.reset()
        return out

    def _claps(self, x: np.ndarray, item: AudioBlock, out: list[Event]) -> None:
        """The claps this block completes, each followed by the pattern it completes, if any."""
        claps = self.clap.process(x, item.t, item.rate, index=item.index,  # type: ignore[union-attr]
                                  energy=self.meter.energy)
        self._add_claps(claps, out)

    def _add_claps(self, claps: Iterable[Clap], out: list[Event]) -> None:
        for c in claps:
            out.append(c)
            if self.pattern is not None:
                p = self.pattern.add(c)
                if p is not None:
                    out.append(p)

    def _pitch(self, x: np.ndarray, item: AudioBlock, out: list[Event]) -> None:
        """A pitch event per analysis, and one 0 Hz event when the sound stops."""
        pt, meter, t = self.pitch, self.meter, item.t
        before = pt.analyses                 # type: ignore[union-attr]
        est = pt.process(x, t, item.rate, index=item.index,   # type: ignore[union-attr]
                         energy=meter.energy * meter.gain_factor2)
        if pt.analyses != before:            # type: ignore[union-attr]
            self._pitch_quiet = False
            out.append(Pitch(t=t, hz=est.hz, confidence=est.confidence))
        elif est.confidence == 0.0 and est.hz == 0.0 and not self._pitch_quiet:
            self._pitch_quiet = True
            out.append(Pitch(t=t, hz=0.0, confidence=0.0))
