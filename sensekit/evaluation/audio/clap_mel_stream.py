"""The twenty-third pass streamed: the close-call wait with the log-mel linear score as an input.

``MelWaitDetector`` is ``clap_ring_stream.RingWaitDetector`` (``ClapDetector`` with a fold's wait)
whose close calls (held until 130 ms after their peak are in) are decided by
``clap_mel_score.mel_decision``: the ring's trees' score over their threshold and the linear score on
the log-mel of -0.25..+0.10 s around the peak (the shipped ``clap_wait.log_mel``, with today's
``t - T``), by the rule ``veto`` or ``sum`` at ``theta``. Every other burst is decided as today's.
``ClapDetector``'s wait keeps ``clap_wait.BEFORE_S`` of signal before the head peak (the window's
history); the score needs 0.13 s after the peak, which the wait already holds.

``mel_calls`` counts the scores computed. Evaluation code (``benchmarks/clap_mel_wait.py``); not shipped.
"""
from __future__ import annotations

from typing import Any

from sensekit.audio.clap_wait import AFTER_S, log_mel
from sensekit.evaluation.audio.clap_mel_score import MEL_RULES, LinearScore, mel_features
from sensekit.evaluation.audio.clap_ring_stream import RingWaitDetector

__all__ = ["MelWaitDetector"]


class MelWaitDetector(RingWaitDetector):
    """The close-call wait whose close calls also need the log-mel linear score (``rule`` at ``theta``)."""

    def __init__(self, *, mel_score: LinearScore, rule: str, theta: float, **kw: Any) -> None:
        if rule not in MEL_RULES:
            raise ValueError(f"rule {rule!r} is not one of {MEL_RULES}")
        if kw.get("wait_ms", 130.0) < 1000.0 * AFTER_S:
            raise ValueError(f"the log-mel score needs a wait of at least {1000.0 * AFTER_S:.0f} ms")
        self._mel, self._rule, self._theta = mel_score, rule, float(theta)
        #: log-mel scores computed (one per close call judged)
        self.mel_calls = 0
        super().__init__(**kw)

    def _close_score(self, p: int, vals: tuple[float, ...], t: float) -> float:
        over = super()._close_score(p, vals, t) - self.threshold
        self.mel_calls += 1
        x = self._buf[: self._end - self._b0]
        mel = log_mel(x, self._meter.rate, p - self._b0)
        s = float(self._mel(mel_features(mel, t - self.threshold)))
        if self._rule == "veto":
            return self.threshold + over if s >= self._theta else min(self.threshold + over, self.threshold - 1.0)
        return self.threshold + over + s - self._theta
