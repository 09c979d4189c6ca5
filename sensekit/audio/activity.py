"""Activity events with Flash's ``setSilenceLevel(level, timeout)`` semantics, plus options.

``ActivityDetector(silence_level=10, timeout_ms=2000)`` - the Flash defaults - watches
the activity level (0..100, see ``level.py``) block by block:

* **activating**: the level reaches ``silence_level`` (``>=``) while inactive -> one
  ``Activity(activating=True)`` event, at the time of that block.
* **deactivating**: once active, the level has stayed below the off level for at least
  ``timeout_ms`` (measured from the start of the last loud block to the start of the
  current one) -> one ``Activity(activating=False)``. Loud blocks inside the timeout
  restart it, so "bang, bang, bang" gives one activating event when the banging starts
  and one deactivating event ``timeout_ms`` after it stops: events inside the timeout are
  ignored, as in Flash (and as in ``../shared/bench/audio_ref.py``'s reference).

Beyond Flash:

* ``off_level`` (hysteresis): the level counts as quiet only below ``off_level``
  (default = ``silence_level``; must not exceed it), so a level hovering around the
  threshold does not chatter.
* ``min_duration_ms``: activation needs the level to stay >= ``silence_level`` for this
  long (default 0: the first loud block activates). Short knocks then never activate.
* ``noise_floor`` + ``on_db``/``off_db``: thresholds relative to a learned ambient level
  (``noise_floor.NoiseFloor``); nothing fires until the floor is learned.

``process(level, t)`` takes a level the caller already has (the audio stage computes it
once per block); ``feed(block)`` computes it with its own ``LevelMeter``. Cost: a few
Python comparisons per block. Bad settings (a level outside 0..100, a negative timeout
or duration, ``off_level`` above ``silence_level``) raise ``ConfigError`` naming the value.
"""
from __future__ import annotations

import math

from sensekit.audio.level import DB_PER_LEVEL, LevelMeter
from sensekit.audio.noise_floor import NoiseFloor
from sensekit.capture.base import AudioBlock
from sensekit.errors import ConfigError
from sensekit.events import Activity
from sensekit.validate import check_positive, check_range

_EPS = 1e-9


def check_timeout(timeout_ms: float) -> float:
    try:
        v = float(timeout_ms)
    except (TypeError, ValueError):
        raise ConfigError(f"`timeout_ms` must be a number of milliseconds >= 0, got {timeout_ms!r}") from None
    if not math.isfinite(v) or v < 0:
        raise ConfigError(f"`timeout_ms` must be >= 0 ms, got {timeout_ms!r}")
    return v


class ActivityDetector:
    """Level-threshold activity events (Flash semantics + hysteresis + minimum duration)."""

    def __init__(self, silence_level: float = 10.0, timeout_ms: float = 2000.0, *,
                 off_level: float | None = None, min_duration_ms: float = 0.0,
                 noise_floor: NoiseFloor | None = None, on_db: float = 10.0,
                 off_db: float | None = None, meter: LevelMeter | None = None) -> None:
        self.timeout_ms = check_timeout(timeout_ms)
        self.min_duration_ms = check_positive("min_duration_ms", min_duration_ms, allow_zero=True)
        self.noise_floor = noise_floor
        self.on_db = check_range("on_db", on_db, 0, 100)
        self.off_db = self.on_db if off_db is None else check_range("off_db", off_db, 0, 100)
        if self.off_db > self.on_db:
            raise ConfigError(f"`off_db` must not exceed `on_db` ({on_db!r}), got {off_db!r}")
        self.set_silence_level(silence_level, self.timeout_ms, off_level=off_level)
        self.meter = meter if meter is not None else LevelMeter()
        self.active = False
        self._last_loud: float | None = None
        self._loud_since: float | None = None
        self._floor_version = -1

    # -- settings ------------------------------------------------------------
    def set_silence_level(self, silence_level: float, timeout_ms: float | None = None, *,
                          off_level: float | None = None) -> None:
        """Flash's ``setSilenceLevel``: new threshold (and optionally timeout)."""
        self.silence_level = check_range("silence_level", silence_level, 0, 100)
        if timeout_ms is not None:
            self.timeout_ms = check_timeout(timeout_ms)
        if off_level is None:
            self.off_level = self.silence_level
        else:
            self.off_level = check_range("off_level", off_level, 0, 100)
            if self.off_level > self.silence_level:
                raise ConfigError(f"`off_level` must not exceed `silence_level` "
                                  f"({self.silence_level:g}), got {off_level!r}")

    def _follow_floor(self) -> bool:
        """Update thresholds from the noise floor; False while it is still learning."""
        nf = self.noise_floor
        if nf is None:
            return True
        if not nf.ready:
            return False
        if nf.version != self._floor_version:
            self._floor_version = nf.version
            on = min(100.0, nf.level + self.on_db / DB_PER_LEVEL)
            off = min(on, nf.level + self.off_db / DB_PER_LEVEL)
            self.silence_level, self.off_level = on, off
        return True

    # -- streaming -------------------------------------------------------------
    def process(self, level: float, t: float) -> Activity | None:
        """One block's level at time ``t`` (s) -> an event or ``None``."""
        if not self._follow_floor():
            return None
        if self.active:
            if level >= self.off_level:
                self._last_loud = t
                return None
            assert self._last_loud is not None
            if (t - self._last_loud) * 1000.0 >= self.timeout_ms - _EPS:
                self.active = False
                self._loud_since = None
                return Activity(t=t, activating=False, level=level)
            return None
        if level >= self.silence_level:
            if self._loud_since is None:
                self._loud_since = t
            if (t - self._loud_since) * 1000.0 >= self.min_duration_ms - _EPS:
                self.active = True
                self._last_loud = t
                return Activity(t=t, activating=True, level=level)
        else:
            self._loud_since = None
        return None

    def feed(self, block: AudioBlock) -> Activity | None:
        """Compute the block's level with ``meter`` and process it (skipped blocks: None)."""
        lv = self.meter.feed(block)
        return None if lv is None else self.process(lv, block.t)

    def reset(self) -> None:
        self.active = False
        self._last_loud = None
        self._loud_since = None
