"""The nineteenth pass streamed: a close call is held until its ring is in, then decided by the
ring's trees; the decisions stay independent of block sizes and start offsets."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sensekit.audio.clap import ClapDetector
from sensekit.evaluation.audio.clap_ring_stream import (
    ABOVE_FLOOR_MIN_DB,
    RingWaitDetector,
    ring_inputs,
    ring_level,
)
from sensekit.evaluation.audio.evaluate import read_clips, read_wav
from sensekit.events import Clap
from tests.audio.helpers import add_at, clap_burst, noise_floor, stream_claps, tone

#: a ring model on the 18 inputs: a clap when late_db (index 16) is at most -25 dB (NaN: a clap)
RING = {"depth": 1, "base": 0.0, "feature": [[16]], "threshold": [[-25.0]], "leaf": [[4.0, -4.0]]}
CLIPS = ("clap_room-small_0.wav", "clap_room-small_2.wav", "clap_sparse_eldar-sample2.wav",
         "clap_k_mixed18.wav", "clap_j_sparse7.wav", "typing_ibm_part1.wav")


stream = stream_claps


def test_ring_inputs_of_a_clap_and_of_a_voice() -> None:
    rate = 16000
    x = noise_floor(1.0, rate, dbfs=-70.0)
    add_at(x, clap_burst(rate), 0.3, rate)
    p = int(np.argmax(np.abs(x)))
    late_db, voiced = ring_inputs(x, p, rate)
    assert late_db < -40.0                              # the clap is over 30 ms after its peak
    y = x.copy()
    y[p + rate // 40: p + rate // 5] += tone(0.175, rate, 150.0, amp=0.1)[: rate // 5 - rate // 40]
    late_y, voiced_y = ring_inputs(y, p, rate)
    assert late_y > late_db + 20.0 and voiced_y > 0.9 > voiced + 0.3   # a voice goes on after it


def test_ring_against_the_floor_ignores_steady_noise() -> None:
    """Under steady noise late_db measures the noise (the twenty-first pass); the ring against the
    floor before the burst, or its excess over that floor, does not."""
    rate = 16000
    quiet = noise_floor(1.0, rate, dbfs=-70.0)
    add_at(quiet, clap_burst(rate), 0.3, rate)
    p = int(np.argmax(np.abs(quiet)))
    noisy = quiet + np.random.default_rng(20).normal(0.0, 0.01, len(quiet)).astype(np.float32)
    assert int(np.argmax(np.abs(noisy))) == p
    q = {k: ring_inputs(quiet, p, rate, ring=k)[0] for k in ("late_db", "late_floor_db", "late_above_db")}
    n = {k: ring_inputs(noisy, p, rate, ring=k)[0] for k in q}
    assert n["late_db"] > q["late_db"] + 20.0                # the noise, read as ring
    assert abs(n["late_floor_db"]) < 1.0                     # no more than the floor before it
    assert n["late_above_db"] < -40.0                        # nothing above that floor
    y = noisy.copy()                                         # a voice after the clap, in the same noise
    y[p + rate // 40: p + rate // 5] += tone(0.175, rate, 150.0, amp=0.1)[: rate // 5 - rate // 40]
    assert ring_inputs(y, p, rate, ring="late_floor_db")[0] > 15.0
    assert ring_inputs(y, p, rate, ring="late_above_db")[0] > n["late_above_db"] + 20.0


def test_ring_level_from_the_two_powers() -> None:
    assert ring_level(-30.0, 5.0, "late_db") == -30.0 and ring_level(-30.0, 5.0, "late_floor_db") == 5.0
    # late 10^-3 of the peak, floor 10^-3.5: the excess is 10^-3 - 10^-3.5
    assert ring_level(-30.0, 5.0, "late_above_db") == pytest.approx(10 * np.log10(1e-3 - 10 ** -3.5))
    assert ring_level(-30.0, -2.0, "late_above_db") == ABOVE_FLOOR_MIN_DB   # under the floor
    assert np.isnan(ring_level(float("nan"), 5.0, "late_above_db"))
    with pytest.raises(ValueError, match="ring input 'late'"):
        ring_level(-30.0, 5.0, "late")
    with pytest.raises(ValueError, match="ring input 'late'"):
        RingWaitDetector(ring_model=RING, ring_threshold=0.0, margin=1.0, ring="late")


def test_margin_zero_is_todays_detector(shared_data) -> None:
    for c in read_clips(shared_data):
        if c.file.split("/")[-1] not in CLIPS:
            continue
        x, rate = read_wav(shared_data / c.file)
        want = stream(ClapDetector(close_call_wait=False), x, rate)
        got = stream(RingWaitDetector(ring_model=RING, ring_threshold=0.0, margin=0.0), x, rate)
        assert got == want, c.file


@pytest.fixture(scope="module")
def clips(shared_data):
    return [(c.file, *read_wav(shared_data / c.file)) for c in read_clips(shared_data)
            if c.file.split("/")[-1] in CLIPS]


def test_held_close_calls_keep_offset_and_block_size_invariance(clips) -> None:
    rng = np.random.default_rng(19)
    held = 0
    for name, x, rate in clips:
        ref_det = RingWaitDetector(ring_model=RING, ring_threshold=0.0, margin=10.0)
        ref = stream(ref_det, x, rate)
        waited = [(t, e) for t, e, close in ref_det.decisions if close]
        held += ref_det.close_calls
        # a close call is emitted only once 130 ms after its peak are in; the others as today
        assert all(e - t >= 0.130 for t, e in waited), name
        assert all(e - t < 0.130 for t, e, close in ref_det.decisions if not close), name
        for _ in range(3):
            offset, block = int(rng.integers(0, 1001)), int(rng.choice((64, 100, 333, 1024, 4096)))
            got = stream(RingWaitDetector(ring_model=RING, ring_threshold=0.0, margin=10.0), x, rate,
                         block=block, offset=offset)
            assert len(got) == len(ref) and all(abs(a - b) <= 0.001 for a, b in zip(got, ref)), \
                (name, offset, block)
    assert held >= 100                                  # the wait was exercised


def test_the_ring_decides_the_close_calls(clips) -> None:
    never = {**RING, "leaf": [[-9.0, -9.0]]}            # the ring rejects every close call
    rejected = 0
    for name, x, rate in clips:
        today = stream(ClapDetector(close_call_wait=False), x, rate)
        det = RingWaitDetector(ring_model=never, ring_threshold=0.0, margin=10.0)
        got = stream(det, x, rate)
        assert not any(close for _, _, close in det.decisions)
        assert set(np.round(got, 4)) <= set(np.round(today, 4)), name   # only far claps are left
        rejected += det.close_calls
    assert rejected >= 100


class Peaks(RingWaitDetector):
    """Keeps each emitted clap's peak, the stream index when it came out and whether it waited."""

    def __init__(self, **kw: object) -> None:
        self.out: list[tuple[int, int, bool]] = []
        super().__init__(**kw)  # type: ignore[arg-type]

    def _judge(self, p: int, onset: int) -> Clap | None:
        clap = super()._judge(p, onset)
        if clap is not None:
            self.out.append((p, self._end, self.decisions[-1][2]))
        return clap


def _claps_in_noise(rate: int) -> np.ndarray:
    x = noise_floor(3.0, rate, dbfs=-60.0, seed=19)
    for k, t in enumerate((0.3, 0.8, 1.1, 1.7, 2.2, 2.6)):
        add_at(x, clap_burst(rate, peak=0.2 + 0.1 * k), t, rate)
    return x


@pytest.mark.parametrize("wait_ms", [130.0, 200.0])
def test_a_close_call_waits_wait_ms(wait_ms: float) -> None:
    """The wrapper's wait (ClapDetector's queue, held ``wait_ms``): a close call comes out in the block
    that brings its peak + ``wait_ms`` (and one sample), its ring's voicing read to ``wait_ms``."""
    rate, block = 16000, 64
    x = _claps_in_noise(rate)
    det = Peaks(ring_model={**RING, "leaf": [[9.0, 9.0]]}, ring_threshold=0.0, margin=50.0, wait_ms=wait_ms)
    stream(det, x, rate, block=block)
    n = round(wait_ms * rate / 1000.0) + 1
    assert len(det.out) == 6 and all(close for _, _, close in det.out) and det.close_calls == 6
    assert all(0 <= end - (p + n) < block for p, end, _ in det.out)


def test_the_margin_is_around_the_detectors_threshold() -> None:
    """A close call lies within ``margin`` of the detector's threshold, also after it is changed."""
    rate = 16000
    x = _claps_in_noise(rate)
    never = {**RING, "leaf": [[-9.0, -9.0]]}
    far = RingWaitDetector(ring_model=never, ring_threshold=0.0, margin=1.0, threshold=-20.0)
    assert len(stream(far, x, rate)) == 6 and far.close_calls == 0
    moved = RingWaitDetector(ring_model=never, ring_threshold=0.0, margin=1.0, threshold=-20.0)
    scores = [f.score for f in _features(x, rate)]
    moved.apply_now(threshold=round(scores[0], 2))
    assert moved.wait_model is not None and moved.wait_model.threshold == round(scores[0], 2)
    stream(moved, x, rate)
    want = sum(abs(s - round(scores[0], 2)) < 1.0 for s in scores)
    assert moved.close_calls == want >= 1


def _features(x: np.ndarray, rate: int) -> list[Any]:
    det = ClapDetector(close_call_wait=False, threshold=-20.0)
    det.keep_features = True
    stream(det, x, rate)
    return det.features
