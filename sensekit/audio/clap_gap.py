"""The clap detector across a gap in its stream: claps are timed by when they were heard.

The detector times a clap by its own sample count from its first block (``t0 + sample /
rate``). A block whose ``t`` starts later than the samples so far reach follows a gap (a live
microphone's queue dropped blocks while the consumer stalled, or the device was lost and
reopened: ``MicrophoneSource`` stamps blocks by its sample clock, which skips what was not
delivered). ``bridge`` feeds up to ``PAD_S`` of silence in its place, which settles every burst
waiting for its look-ahead by the rules of a stream's end (``clap_end.judge_owed``: the wait off, and
a burst whose look-ahead the silence completes is a clap only if its 20 dB fall lies in the real
samples, its peak is 3 ms before them, and it is no close call; else it is counted in
``cut_at_end``: before harden24 the silence alone decided, so a sound cut by a gap as it sounded could
be a clap), then moves the detector's
time base on by the rest of the gap (and its memory of recent claps back by as much, so
``min_gap_ms`` and ``below_claps_db`` compare with the real time since them), so the block is
fed at its own ``t``. ``GAP_FRACTION`` of a block is the least that counts as a gap: a
source's ``t`` is its sample count, exact to float rounding.

Cost: one call on ``PAD_S`` (at most) of zeros per gap; per block, one compare in ``ClapDetector.process``
(``enter`` is called only when the block may follow a gap or start the stream).
"""
from __future__ import annotations

from collections import deque
from typing import Protocol

import numpy as np

from sensekit.audio.clap_end import ClapDetector as EndDetector
from sensekit.audio.clap_end import judge_owed
from sensekit.events import Clap


class ClapDetector(EndDetector, Protocol):
    """What ``enter`` and ``bridge`` use of ``sensekit.audio.clap.ClapDetector`` (a protocol, so
    that this module does not import the detector that imports it), with what ``judge_owed`` uses."""

    _last_clap: int
    _recent: deque[tuple[int, float]]
    gaps: int
    gap_samples: int

    def _start(self, t: float) -> None: ...

PAD_S = 1.0              # silence fed in place of a gap at most (the rest moves the time base)
GAP_FRACTION = 0.5       # a jump of at least this much of the block is a gap


def enter(det: ClapDetector, t: float, rate: int, n: int) -> int:
    """Before a block of ``n`` samples at ``t``: start the detector's stream there (0), or the
    samples missing before the block (0: none)."""
    if det._t0 is None:
        det._start(t)
        return 0
    missing = int(round((t - (det._t0 or 0.0)) * rate)) - det._end
    return missing if missing >= max(1, int(GAP_FRACTION * n)) else 0


def bridge(det: ClapDetector, gap: int, samples: np.ndarray, t: float, rate: int, index: int) -> list[Clap]:
    """Feed the block at ``t`` after a gap of ``gap`` samples; the claps it and the silence complete."""
    pad = min(gap, int(PAD_S * rate))
    ended = det._ended
    found = judge_owed(det, pad, t - gap / rate, index=index)      # the end's rules at the gap
    det._ended = ended                                              # the stream goes on: the wait too
    skip(det, gap, pad, rate)
    return found + list(det.process(samples, t, rate, index=index))


def skip(det: ClapDetector, gap: int, pad: int, rate: int) -> None:
    """After ``pad`` samples of silence stood for a gap of ``gap``: the time base moved on by the
    rest (the recent claps back by as much) and the gap counted (``gaps``, ``gap_samples``)."""
    rest = gap - pad
    if rest:
        det._t0 = (det._t0 or 0.0) + rest / rate
        det._recent = deque((p - rest, db) for p, db in det._recent)
        det._last_clap -= rest
    det.gaps += 1
    det.gap_samples += gap
