"""The end of a clap stream: the bursts of its last ~32 ms judged, with the samples there are.

A burst is judged once ``latency_ms`` (32.5 ms) of signal after its peak are in, and the grid
tests frames 28 ms at a time, so a stream (a file, a recording, a replay) that ends within that
of a clap used to end with the clap never judged. ``judge_end`` is what ``ClapDetector.finish()``
does: after the last sample the stream counts as digital silence, as it does before the first
(``clap.py``, point 1), so the last chunk of the grid, the searches and the look-ahead of every
burst still owed are completed by zeros; each burst is then decided by the same gates as the
others, with the close-call wait off (issue 19: the wait's ring and log-mel need 130 ms of real
signal and are never padded). The zeros start at the stream's last sample, so the decision
depends on the samples and where they end, never on the blocks that brought them.

What this gives a burst cut short: its fall is measured as the stream has it (a clap cut 5 ms
after its peak looks as short as a clap is). A peak less than ``last_peak_gap`` (3 ms) before the
last sample is not judged: there the loudest sample can be the cut itself, and whether the grid
frame that would find it is complete depends on where the frames fall (the offset). Measured by
``benchmarks/clap_end.py`` (docs/reliability.md, the twelfth pass): the labelled claps found when a
clip ends 2..30 ms after one, and the false claps a cut just after a burst of a clip with no claps
makes; no constant was fitted to them.

Cost: one block of ``pad_samples`` zeros (~75 ms) through ``process``, once per stream.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from sensekit.events import Clap

__all__ = ["judge_end", "last_peak_gap", "pad_samples"]


class ClapDetector(Protocol):
    """What ``judge_end`` uses of ``sensekit.audio.clap.ClapDetector`` (a protocol, as in
    ``clap_gap``, so that this module does not import the detector that imports it)."""

    rate: int | None
    _t0: float | None
    _end: int
    _ended: bool
    _hop: int
    _region: tuple[int, int]
    _local: int
    _ahead: int
    _grid_due: int
    _due: int

    def process(self, samples: np.ndarray, t: float, rate: int, *, index: int = 0,
                energy: float | None = None) -> Sequence[Clap]: ...

    def _judge(self, p: int, onset: int) -> Clap | None: ...


def pad_samples(det: ClapDetector) -> int:
    """How many zeros complete everything owed at the end: the grid's chunk in progress (tested
    when the stream reaches ``_grid_due``), a search region from a candidate in it (``_region``: 2 +
    12 ms, plus the +-12 ms the peak must own) and the peak's look-ahead (``_ahead``)."""
    return (max(det._grid_due - det._end, 0) + det._region[0] + det._region[1] + det._local + det._hop + 1
            + det._ahead)


def judge_end(det: ClapDetector) -> list[Clap]:
    """The claps still owed when the stream ends (``finish()``, or a NaN/Inf block, after which the
    stream restarts), with the wait off (``_ended``; the caller resets the detector after). The
    stream must have started."""
    assert det._t0 is not None and det.rate is not None
    det._ended = True
    rate = det.rate
    t_end = det._t0 + det._end / rate          # where the next block would start: no gap
    last = det._end - last_peak_gap(det)       # a peak after this is where the samples stop
    judge = det._judge

    def judge_real(p: int, onset: int) -> Clap | None:
        return judge(p, onset) if p <= last else None

    det._judge = judge_real                    # type: ignore[method-assign]  # for this call only
    det._due = 0                               # a held close call's 130 ms are not waited for any more
    try:
        return list(det.process(np.zeros(pad_samples(det), np.float32), t_end, rate, energy=0.0))
    finally:
        del det._judge                          # the class's method again


def last_peak_gap(det: ClapDetector) -> int:
    """How far before the end a peak must lie to be judged (samples): the grid frame that finds a
    peak starts up to 2 ms after it (``_region[0]``) and must be all real samples (``_hop``), so that
    where the blocks or the frames fall cannot decide. Nearer the end the loudest sample may be the
    last one there is: a sound cut as it rises, not a burst that falls."""
    return det._region[0] + det._hop
