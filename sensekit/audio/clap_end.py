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

What silence cannot decide: a burst cut short would have its fall measured as the stream has it
(a sound cut 5 ms after a sharp start looks as short as a clap is). So a burst whose look-ahead the
silence completes is reported only if (``clear_at_end``) its peak is at least ``last_peak_gap``
(3 ms) before the last sample (nearer, the loudest sample can be the cut itself, and whether the
grid frame that would find it is complete depends on the offset), its 20 dB fall (``fall20_ms``)
lies in the real samples, and, with the close-call wait on, its score is not a close call. A burst
left undecided so is counted in the detector's ``cut_at_end`` (with a DEBUG line naming its time),
so a caller (a replaying test) can tell "no clap" from "cut too close to judge". Measured
by ``benchmarks/clap_end.py`` (docs/reliability.md, the twelfth pass): of the labelled claps of the
developer clips cut 2..30 ms after their onset 557 of 805 are found (62 before), and a cut just
after another burst makes a false clap 27 times in 4,309 (8 before); no constant was fitted to them.

Cost: one block of ``pad_samples`` zeros (~75 ms) through ``process``, once per stream.
"""
from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from sensekit.audio.clap_features import FEATURES
from sensekit.audio.clap_wait import SHIPPED, WaitModel, is_close
from sensekit.events import Clap

__all__ = ["judge_end", "judge_owed", "last_peak_gap", "pad_samples"]

log = logging.getLogger("sensekit.audio.clap")


class ClapDetector(Protocol):
    """What ``judge_end`` uses of ``sensekit.audio.clap.ClapDetector`` (a protocol, as in
    ``clap_gap``, so that this module does not import the detector that imports it)."""

    rate: int | None
    cut_at_end: int
    _t0: float | None
    _end: int
    _ended: bool
    _hop: int
    _region: tuple[int, int]
    _local: int
    _ahead: int
    _grid_due: int
    _due: int
    _cw: bool
    wait_model: WaitModel | None

    def process(self, samples: np.ndarray, t: float, rate: int, *, index: int = 0,
                energy: float | None = None) -> Sequence[Clap]: ...

    def _judge(self, p: int, onset: int) -> Clap | None: ...

    def _first_look(self, p: int, gap_ok: bool) -> tuple[tuple[float, ...], bool, float, bool]: ...


_FALL20 = 1 + FEATURES.index("fall20_ms")      # in the values: (peak_db,) + FEATURES


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
    # where the next block would start (no gap): the zeros start at the last real sample
    return judge_owed(det, pad_samples(det), det._t0 + det._end / det.rate)


def judge_owed(det: ClapDetector, pad: int, t: float, *, index: int = 0) -> list[Clap]:
    """``pad`` zeros fed at ``t`` (where the real samples stop) with the wait off (``_ended`` left set)
    and the end's rules: a burst whose look-ahead they complete is judged only if ``clear_at_end``
    (its peak ``last_peak_gap`` before the real samples stop, its fall within them, not a close call),
    else counted in ``cut_at_end``. ``judge_end`` at the stream's end; ``clap_gap.bridge`` at a gap,
    whose silence is no more a sound's fall than the end's is."""
    assert det._t0 is not None and det.rate is not None
    det._ended = True
    rate = det.rate
    end = det._end                             # the last real sample + 1 (the zeros come after)
    last = end - last_peak_gap(det)            # a peak after this is where the samples stop
    judge = det._judge

    def judge_real(p: int, onset: int) -> Clap | None:
        if p > last or (p + det._ahead > end and not clear_at_end(det, p, end)):
            det.cut_at_end += 1                # "no clap" and "cut too close to judge" differ
            log.debug("clap detector: a burst at t=%.3f s (its peak %.1f ms before the real samples "
                      "stop) was cut before it could be judged; not a clap (counted in cut_at_end)",
                      det._t0 + onset / rate if det._t0 is not None else 0.0, 1000.0 * (end - p) / rate)
            return None
        return judge(p, onset)

    det._judge = judge_real                    # type: ignore[method-assign]  # for this call only
    det._due = 0                               # a held close call's 130 ms are not waited for any more
    try:
        return list(det.process(np.zeros(pad, np.float32), t, rate, index=index, energy=0.0))
    finally:
        del det._judge                          # the class's method again


def clear_at_end(det: ClapDetector, p: int, end: int) -> bool:
    """Whether a burst whose look-ahead the silence after ``end`` completes can be decided: its 20 dB fall lies
    within the real samples (the silence did not make it short: a sound cut as it sounds is not a
    burst that stopped), and, with the close-call wait on, its score is not a close call (the wait
    that decides those needs 130 ms of real signal; issue 19 decides a close call whose look-ahead
    is in by the trees, this one has not even that)."""
    vals, _, score, _ = det._first_look(p, True)
    fall20 = vals[_FALL20]
    assert det.rate is not None
    if not (math.isfinite(fall20) and p + fall20 * det.rate / 1000.0 <= end):
        return False
    return not (det._cw and is_close(score, det.wait_model or SHIPPED))


def last_peak_gap(det: ClapDetector) -> int:
    """How far before the end a peak must lie to be judged (samples): the grid frame that finds a
    peak starts up to 2 ms after it (``_region[0]``) and must be all real samples (``_hop``), so that
    where the blocks or the frames fall cannot decide. Nearer the end the loudest sample may be the
    last one there is: a sound cut as it rises, not a burst that falls."""
    return det._region[0] + det._hop
