"""Clap detectors with one part swapped, for the benchmarks that measure a variant (not shipped).

``detector_class(route=..., bridge=...)`` is a ``ClapDetector`` subclass whose floor route (made
when ``noise_route`` is on) is ``route(rate)`` instead of ``clap_floor.FloorRoute(rate)``, and whose
gaps in the stream are bridged by ``bridge(det, gap, samples, t, rate, index)`` instead of
``clap_gap.bridge``; None for either: as shipped. The variant is the class a benchmark makes its
detectors with (``make=``, ``detector_class=``), so nothing in ``sensekit.audio`` is rewritten
while it runs and a detector made elsewhere in the same process is the shipped one.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from sensekit.audio.clap import ClapDetector
from sensekit.events import Clap

__all__ = ["Bridge", "detector_class"]

#: ``clap_gap.bridge``'s signature: ``(det, gap, samples, t, rate, index) -> claps``
Bridge = Callable[[Any, int, np.ndarray, float, int, int], list[Clap]]


def detector_class(*, route: Callable[[int], Any] | None = None, bridge: Bridge | None = None
                   ) -> type[ClapDetector]:
    """A ``ClapDetector`` subclass with the floor route made by ``route`` (a ``FloorRoute``-like class
    or factory of the rate) and the gaps bridged by ``bridge``; ``ClapDetector`` itself when both are
    None."""
    if route is None and bridge is None:
        return ClapDetector

    class Variant(ClapDetector):
        def _floor_route(self, rate: int) -> Any:
            return super()._floor_route(rate) if route is None else route(rate)

        def _bridge(self, gap: int, x: np.ndarray, t: float, rate: int, index: int) -> list[Clap]:
            return super()._bridge(gap, x, t, rate, index) if bridge is None else bridge(self, gap, x, t, rate, index)

    return Variant
