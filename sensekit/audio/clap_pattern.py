"""Clap patterns: claps grouped into n-clap runs (a double clap is ``count=2``).

``ClapPatternTracker`` turns ``Clap`` events into ``ClapPattern`` events: ``count`` claps, each
within ``max_gap_ms`` of the previous one. Re-exported from ``sensekit.audio.clap``.
"""
from __future__ import annotations

from collections.abc import Iterable

from sensekit.events import Clap, ClapPattern
from sensekit.validate import check_int_range, check_positive

__all__ = ["MAX_GAP_MS", "ClapPatternTracker"]

#: the longest gap between two claps of one pattern when none is given (``sensekit events
#: --pattern-gap-ms`` too): a relaxed double clap, not two claps a second apart
MAX_GAP_MS = 600.0


class ClapPatternTracker:
    """Groups claps into n-clap patterns: ``count`` claps, consecutive gaps <= ``max_gap_ms``.

    ``add(clap)`` returns a ``ClapPattern`` when the ``count``-th clap of a run arrives,
    then starts a new run (so four quick claps give two double claps, not three).
    """

    def __init__(self, count: int = 2, max_gap_ms: float = MAX_GAP_MS, min_gap_ms: float = 0.0) -> None:
        self.count = check_int_range("count", count, 2, 16)
        self.max_gap_ms = check_positive("max_gap_ms", max_gap_ms)
        self.min_gap_ms = check_positive("min_gap_ms", min_gap_ms, allow_zero=True)
        self._times: list[float] = []

    def reset(self) -> None:
        self._times.clear()

    def add(self, clap: Clap) -> ClapPattern | None:
        if self._times and (clap.t - self._times[-1]) * 1000.0 > self.max_gap_ms:
            self._times.clear()
        self._times.append(clap.t)
        if len(self._times) == self.count:
            times = tuple(self._times)
            self._times.clear()
            return ClapPattern(t=clap.t, count=self.count, times=times)
        return None

    def add_all(self, claps: Iterable[Clap]) -> list[ClapPattern]:
        out = []
        for c in claps:
            p = self.add(c)
            if p is not None:
                out.append(p)
        return out
