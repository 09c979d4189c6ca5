"""clap_lost: a streamed clip's misses, each with where it was lost, and its false claps."""
from __future__ import annotations

import math

import numpy as np
import pytest

from sensekit.audio.clap_wait import SHIPPED, close_call_score
from sensekit.evaluation.audio.clap_lost import band_rows, lost_claps, source_counts
from sensekit.evaluation.audio.clap_losses import LossDetector
from sensekit.evaluation.audio.evaluate import match
from tests.audio.helpers import add_at, clap_burst, noise_floor

RATE = 48000


def stream(det: LossDetector, x: np.ndarray, offset: int = 0) -> list[float]:
    y = np.concatenate([np.zeros(offset, np.float32), x]) if offset else x
    out: list[float] = []
    for k, i in enumerate(range(0, len(y), 512)):
        out.extend(c.t - offset / RATE for c in det.process(y[i:i + 512], i / RATE, RATE, index=k))
    return out


def clip() -> np.ndarray:
    """Claps at 0.5 (found), 0.55 (in the gap), 1.0 (too quiet for the grid), a tone-ringing one at 1.5
    (the trees), and an unannotated clap at 2.3 (a false clap)."""
    x = noise_floor(3.0, RATE, -60.0)
    for t, peak, seed in ((0.5, 0.5, 1), (0.55, 0.5, 2), (1.0, 0.0005, 3), (1.5, 0.5, 4), (2.3, 0.5, 5)):
        add_at(x, clap_burst(RATE, peak=peak, seed=seed), t, RATE)
    n = RATE // 5
    x[int(1.5 * RATE): int(1.5 * RATE) + n] += (0.3 * np.sin(np.arange(n) * 2 * np.pi * 1000 / RATE)).astype(np.float32)
    return x


TRUTH = [0.5, 0.55, 1.0, 1.5]


def test_misses_and_false_claps_are_named() -> None:
    x = clip()
    for offset in (0, 517):
        det = LossDetector()
        got = stream(det, x, offset)
        lost = lost_claps(det, got, TRUTH, offset / RATE)
        s = match(got, TRUTH)
        assert (lost["tp"], lost["fp"], lost["fn"]) == (s.tp, s.fp, s.fn) == (1, 1, 3)
        assert [(m["onset"], m["loss"]) for m in lost["missed"]] == [(0.55, "gap clap"), (1.0, "none"), (1.5, "trees")]
        assert lost["missed"][1]["best"] is None                      # nothing judged near the quiet one
        tone = lost["missed"][2]["best"]
        assert tone is not None and tone["trees_minus_T"] < 0 and abs(tone["t_peak"] - 1.5) < 0.06
        (f,) = lost["false"]
        assert abs(f["t"] - 2.3) < 0.02 and abs(f["from_onset"] - 0.8) < 0.02
        assert f["trees_minus_T"] >= 0 and not math.isnan(f["trees_minus_T"])


def test_nothing_lost_on_a_clean_clip() -> None:
    x = noise_floor(2.0, RATE, -60.0)
    add_at(x, clap_burst(RATE, peak=0.5, seed=7), 1.0, RATE)
    det = LossDetector()
    lost = lost_claps(det, stream(det, x), [1.0])
    assert (lost["tp"], lost["fp"], lost["fn"], lost["missed"], lost["false"]) == (1, 0, 0, [], [])


def test_source_counts() -> None:
    rows = [{"tp": 7, "fp": 0, "fn": 1}, {"tp": 1, "fp": 0, "fn": 0}]
    assert source_counts(rows) == (8, 0, 1, 16 / 17)
    assert source_counts([{"tp": 0, "fp": 2, "fn": 1}]) == (0, 2, 1, 0.0)


class Looks(LossDetector):
    def __init__(self) -> None:
        self.vals: dict[int, tuple[float, ...]] = {}
        super().__init__()

    def _first_look(self, p: int, gap_ok: bool) -> tuple[tuple[float, ...], bool, float, bool]:
        got = super()._first_look(p, gap_ok)
        self.vals[p] = got[0]
        return got


def test_band_rows_are_the_far_calls_under_the_threshold() -> None:
    """The tone-ringing clap is a far call under T; each row's ``lifted`` is the wait's own score against T,
    only bursts near a missed clap can rescue it, and a burst without recorded values is refused."""
    x = clip()
    det = Looks()
    got = stream(det, x)
    rows = band_rows(det, det.vals, x, RATE, got, TRUTH)
    far = [j for j in det.judged if not j.clap and not j.close and j.level_ok and j.rise_ok and j.gap_ok
           and j.trees < det.threshold]
    assert len(rows) == len(far) >= 1 and all(r["trees_minus_T"] < 0 for r in rows)
    tone = [r for r in rows if abs(r["t_peak"] - 1.5) < 0.06]
    assert tone and all(r["near_truth"] for r in tone)
    for r, j in zip(rows, far):
        p = round(j.t_peak * RATE)
        assert r["lifted"] == (close_call_score(x, p, RATE, det.vals[p], j.trees, SHIPPED) >= det.threshold)
    assert sum(r["rescues"] for r in rows) == sum(r["lifted"] for r in tone[:1]) <= 1
    with pytest.raises(ValueError, match="no values recorded"):
        band_rows(det, {}, x, RATE, got, TRUTH)
