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
* ``on_db``/``off_db`` with a ``noise_floor``: thresholds relative to a learned ambient level
  (``noise_floor.NoiseFloor``); nothing fires until the floor is learned.

Settings: the ``activity`` group (``ActivityDetector.SETTINGS``); ``apply()`` changes them from
the next block on. ``on_level`` and ``quiet_level`` are the thresholds in use.

``process(level, t)`` takes a level the caller already has (the audio stage computes it
once per block); ``feed(block)`` computes it with its own ``LevelMeter``. Cost: a few
Python comparisons per block. Bad settings (a level outside 0..100, a negative timeout
or duration, ``off_level`` above ``silence_level``) raise ``ConfigError`` naming the value.
"""
from __future__ import annotations

from typing import Any, Mapping

from sensekit.arg_types import checked
from sensekit.audio.level import DB_PER_LEVEL, LevelMeter
from sensekit.audio.noise_floor import NoiseFloor
from sensekit.capture.base import AudioBlock
from sensekit.errors import ConfigError
from sensekit.events import Activity
from sensekit.settings import Setting, Tunable, setting

_EPS = 1e-9


def _check_levels(v: Mapping[str, Any]) -> None:
    if v["off_level"] is not None and v["off_level"] > v["silence_level"]:
        raise ConfigError(f"`activity.off_level` must not exceed `activity.silence_level` "
                          f"({v['silence_level']:g}), got {v['off_level']!r}")
    if v["off_db"] is not None and v["on_db"] is not None and v["off_db"] > v["on_db"]:
        raise ConfigError(f"`activity.off_db` must not exceed `activity.on_db` ({v['on_db']!r}), "
                          f"got {v['off_db']!r}")


class ActivityDetector(Tunable, section="activity",
                       title="activity events: Flash's setSilenceLevel(level, timeout), with hysteresis",
                       rule=_check_levels):
    """Level-threshold activity events (Flash semantics + hysteresis + minimum duration)."""

    silence_level = setting(10.0, "the level that activates (Flash's default 10; the book's clapper 25)",
                            unit="level", lo=0, hi=100, step=5.0)
    timeout_ms = setting(2000.0, "quiet this long deactivates; events inside it are ignored (the "
                         "book's clapper: 500)", unit="ms", lo=0, hi=600_000)
    off_level: Setting[float | None] = setting(
        None, "hysteresis: the level counts as quiet only below this", kind="float",
        unit="level", lo=0, hi=100, none="the silence level", flag="--off-level")
    min_duration_ms = setting(0.0, "the level must stay up this long to activate", unit="ms",
                              lo=0, hi=600_000, flag="--min-duration-ms")
    on_db: Setting[float | None] = setting(
        None, "activate this many dB over the learned noise floor instead of at a fixed "
        "level (--activity floor+DB)", kind="float", unit="dB", lo=0, hi=100, none="fixed silence level")
    off_db: Setting[float | None] = setting(
        None, "quiet below this many dB over the noise floor", kind="float", unit="dB",
        lo=0, hi=100, none="the same as on_db")


    @checked
    def __init__(self, silence_level: float | None = None, timeout_ms: float | None = None, *,
                 noise_floor: NoiseFloor | None = None, meter: LevelMeter | None = None,
                 **settings: Any) -> None:
        given = {k: v for k, v in (("silence_level", silence_level), ("timeout_ms", timeout_ms)) if v is not None}
        self.init_settings(settings, **given)
        self.noise_floor = noise_floor
        self.meter = meter if meter is not None else LevelMeter()
        self.active = False
        self._last_loud: float | None = None
        self._loud_since: float | None = None
        self._floor_version = -1
        self._derive()

    def _derive(self) -> None:
        """The thresholds in use: fixed ones now; floor-relative ones once the floor is known."""
        self.on_level = self.silence_level
        self.quiet_level = self.silence_level if self.off_level is None else self.off_level
        self._floor_version = -1

    def settings_changed(self, changed: Mapping[str, Any]) -> None:
        self._derive()

    # -- settings ------------------------------------------------------------
    def set_silence_level(self, silence_level: float, timeout_ms: float | None = None, *,
                          off_level: float | None = None) -> None:
        """Flash's ``setSilenceLevel``: new threshold (and optionally timeout), from now on."""
        values: dict[str, Any] = {"silence_level": silence_level, "off_level": off_level}
        if timeout_ms is not None:
            values["timeout_ms"] = timeout_ms
        self.apply_now(**values)

    def _follow_floor(self) -> bool:
        """Update thresholds from the noise floor; False while it is still learning."""
        nf = self.noise_floor
        if nf is None or self.on_db is None:
            return True
        if not nf.ready:
            return False
        if nf.version != self._floor_version:
            self._floor_version = nf.version
            off_db = self.on_db if self.off_db is None else self.off_db
            on = min(100.0, nf.level_in_use + self.on_db / DB_PER_LEVEL)
            off = min(on, nf.level_in_use + off_db / DB_PER_LEVEL)
            self.on_level, self.quiet_level = on, off
        return True

    # -- streaming -------------------------------------------------------------
    def process(self, level: float, t: float) -> Activity | None:
        """One block's level at time ``t`` (s) -> an event or ``None``."""
        if self._pending:
            self.apply_pending()
        if not self._follow_floor():
            return None
        if self.active:
            if level >= self.quiet_level:
                self._last_loud = t
                return None
            assert self._last_loud is not None
            if (t - self._last_loud) * 1000.0 >= self.timeout_ms - _EPS:
                self.active = False
                self._loud_since = None
                return Activity(t=t, activating=False, level=level)
            return None
        if level >= self.on_level:
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
