"""Noise-floor calibration: learn the room's ambient activity level, then set thresholds
relative to it ("10 dB above the room" instead of "level 25").

``NoiseFloor(learn_ms=2000, percentile=20)`` (the ``noise_floor`` settings group) collects the activity level of every
block during its first ``learn_ms`` of audio (by sample count, so replays and live input
agree) and then fixes the floor at the ``percentile``-th percentile of those levels: a
low percentile ignores the odd cough or clap during calibration. ``recalibrate()``
starts a new learning period on demand (e.g. when the user presses "calibrate"), and
``calibrate(levels)`` sets it from levels already at hand (offline, plots, ``sensekit
calibrate``: the same percentile rule, so a calibrated floor is what the stage would learn).
The ``level`` setting (a venue profile's ``noise_floor.level``) sets the floor outright.

After learning, ``level_in_use`` (0..100) and ``db`` (rms dBFS) give the floor, ``ready`` is
True and ``version`` increases each time it changes (detectors use it to refresh their
thresholds). ``threshold(above_db)`` is the level ``above_db`` dB over the floor.

Cost: one list append per block while learning, nothing afterwards. Blocks skipped for
NaN/Inf never reach it. Fails with ``ConfigError`` on a ``learn_ms`` below 1 ms or a
percentile outside 0..100; ``threshold`` before the floor is learned raises too.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from sensekit.audio.level import DB_PER_LEVEL, FLOOR_DB
from sensekit.errors import ConfigError
from sensekit.settings import Setting, Tunable, setting
from sensekit.validate import check_range


class NoiseFloor(Tunable, section="noise_floor",
                 title="the room's noise floor (ambient activity level)"):
    """The room's ambient activity level, learned or set; see the module docstring."""

    learn_ms = setting(2000.0, "learn the floor over this much audio at the start (and on recalibrate)",
                       unit="ms", lo=1, hi=3_600_000, flag="--noise-floor-ms")
    percentile = setting(20.0, "the floor is this percentile of the levels heard while learning "
                         "(low: a cough or a door does not raise it)", unit="%", lo=0, hi=100)
    level: Setting[float | None] = setting(
        None, "the floor as an activity level (sensekit calibrate measures it)", kind="float",
        unit="level", lo=0, hi=100, none="learned from the first learn_ms of audio")

    def __init__(self, learn_ms: float | None = None, **settings: Any) -> None:
        self.init_settings(settings, **({} if learn_ms is None else {"learn_ms": learn_ms}))
        self.level_in_use = 0.0
        self.ready = False
        self.version = 0
        self._levels: list[float] = []
        self._learned_ms = 0.0
        self.learning = True
        if self.level is not None:
            self.calibrate([self.level])

    def settings_changed(self, changed: Mapping[str, Any]) -> None:
        if "level" in changed:
            if self.level is None:
                self.recalibrate()
            else:
                self.calibrate([self.level])

    def learned(self) -> dict[str, Any]:
        """The floor learned from the audio (``level``), when it was not set."""
        if self.level is None and self.ready:
            return {"level": round(self.level_in_use, 3)}
        return {}

    def in_use(self) -> dict[str, Any]:
        """``level`` in use when it is not set: "learning" until the first floor is learned."""
        if self.level is not None:
            return {}
        return {"level": round(self.level_in_use, 3) if self.ready else "learning"}

    @property
    def db(self) -> float:
        """The floor as rms dBFS (level 0 reads as the mapping's bottom, -66 dBFS)."""
        return FLOOR_DB + self.level_in_use * DB_PER_LEVEL

    def recalibrate(self) -> None:
        """Learn again from the next block on (the old floor stays in use meanwhile)."""
        self._levels = []
        self._learned_ms = 0.0
        self.learning = True

    def process(self, level: float, n_samples: int, rate: int) -> bool:
        """Add one block's level; returns True when this block completed the learning."""
        if self._pending:
            self.apply_pending()
        if not self.learning:
            return False
        self._levels.append(level)
        self._learned_ms += 1000.0 * n_samples / rate
        if self._learned_ms + 1e-9 >= self.learn_ms:
            self.calibrate(self._levels)
            return True
        return False

    def calibrate(self, levels: list[float] | np.ndarray) -> float:
        """Set the floor from a set of block levels; returns it."""
        arr = np.asarray(levels, dtype=np.float64)
        arr = arr[np.isfinite(arr)]
        if arr.size == 0:
            raise ConfigError("cannot calibrate the noise floor from 0 levels")
        self.level_in_use = float(np.percentile(arr, self.percentile))
        self.ready = True
        self.learning = False
        self.version += 1
        self._levels = []
        return self.level_in_use

    def threshold(self, above_db: float) -> float:
        """The activity level ``above_db`` dB over the floor (clipped to 100)."""
        if not self.ready:
            raise ConfigError("the noise floor is not learned yet (feed "
                              f"{self.learn_ms:g} ms of audio or call calibrate())")
        return min(100.0, self.level_in_use + check_range("above_db", above_db, -100, 100) / DB_PER_LEVEL)
