"""The nineteenth pass's candidate streamed: a close call is held until its ring is in.

``RingWaitDetector`` is the shipped ``ClapDetector`` with its close-call wait (``wait_model``) set
to a fold's constants: a burst whose trees' score ``t`` lies within ``margin`` of the detector's
threshold waits until ``wait_ms`` of signal after the peak is in, and is then decided by the ring's
trees (``clap_ring_wait``: the 16 features, the ring input ``ring``, ``voiced_after``) at their own
threshold, instead of by the shipped sum rule. Every other burst is decided as today (a burst the
floor route takes, ``noise_route``, by the route's expert, never waiting). The queue handling is
``ClapDetector``'s (the held peak stays at the head of the peak queue: claps come out in order and do
not depend on block sizes or the start offset); only the close call's score is this module's.

``decisions`` records, for each clap emitted, its onset time, the time of the last sample in
when it was emitted, and whether it was a close call (decided by the ring): the detector's own
decision delay (the capture and the block add to it). Evaluation code (``benchmarks/clap_ring_stream.py``); not shipped.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from sensekit.audio import clap_wait
from sensekit.audio.clap import ClapDetector
from sensekit.audio.clap_features import Model, clap_score
from sensekit.audio.clap_wait import ABOVE_FLOOR_MIN_DB, RING_INPUTS, WaitModel, ring_level
from sensekit.events import Clap

__all__ = ["ABOVE_FLOOR_MIN_DB", "RING_INPUTS", "RingWaitDetector", "ring_inputs", "ring_level"]


def ring_inputs(x: np.ndarray, p: int, rate: int, *, voiced_ms: float = 130.0,
                ring: str = "late_db") -> tuple[float, float]:
    """``clap_wait.ring_inputs`` with the nineteenth pass's ring input (``late_db``) by default."""
    return clap_wait.ring_inputs(x, p, rate, voiced_ms=voiced_ms, ring=ring)


class RingWaitDetector(ClapDetector):
    """``ClapDetector`` with the close calls decided by the ring's trees after ``wait_ms``."""

    def __init__(self, *, ring_model: Model, ring_threshold: float, margin: float,
                 wait_ms: float = 130.0, ring: str = "late_db", **kw: Any) -> None:
        if ring not in RING_INPUTS:
            raise ValueError(f"ring input {ring!r} is not one of {RING_INPUTS}")
        self._ring_model, self._ring_threshold = ring_model, float(ring_threshold)
        self._ring, self._wait_ms = ring, float(wait_ms)
        self._closed = False
        #: (onset time, time of the last sample in when emitted, close call) of every clap emitted
        self.decisions: list[tuple[float, float, bool]] = []
        #: close calls decided by the ring's trees (claps or not)
        self.close_calls = 0
        # the wait's margin around the detector's threshold (set below); the close call's score is
        # _close_score's, so the shipped sum rule's weights are not used
        super().__init__(wait_model=WaitModel(ring_model, 0.0, float(margin), 0.0, np.zeros(0), 0.0), **kw)
        self.settings_changed({})

    def settings_changed(self, changed: Mapping[str, Any]) -> None:
        wait = getattr(self, "wait_model", None)   # a close call lies within the margin of today's threshold
        if wait is not None:
            self.wait_model = dataclasses.replace(wait, threshold=self.threshold)
        super().settings_changed(changed)

    def _wait_samples(self, rate: int) -> int:
        """The ring's last sample (voicing to ``wait_ms``) and one more."""
        return round(self._wait_ms * rate / 1000.0) + 1

    def _close_score(self, p: int, vals: tuple[float, ...], t: float) -> float:
        """A close call's score (today's trees' ``t``): the ring's trees', shifted onto today's threshold."""
        self._closed = True
        self.close_calls += 1
        level, voiced = ring_inputs(self._buf, p - self._b0, self._meter.rate, voiced_ms=self._wait_ms,
                                    ring=self._ring)
        ring = clap_score(np.asarray((*vals[1:], level, voiced)), self._ring_model)
        return ring - self._ring_threshold + self.threshold

    def _judge(self, p: int, onset: int) -> Clap | None:
        self._closed = False
        clap = super()._judge(p, onset)
        if clap is not None:
            self.decisions.append((clap.t, (self._t0 or 0.0) + self._end / self._meter.rate, self._closed))
        return clap
