"""The nineteenth pass streamed: a close call is held until its ring is in, then decided by the
ring's trees; the decisions stay independent of block sizes and start offsets."""
from __future__ import annotations

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
from tests.audio.helpers import add_at, clap_burst, noise_floor, tone

#: a ring model on the 18 inputs: a clap when late_db (index 16) is at most -25 dB (NaN: a clap)
RING = {"depth": 1, "base": 0.0, "feature": [[16]], "threshold": [[-25.0]], "leaf": [[4.0, -4.0]]}
CLIPS = ("clap_room-small_0.wav", "clap_room-small_2.wav", "clap_sparse_eldar-sample2.wav",
         "clap_k_mixed18.wav", "clap_j_sparse7.wav", "typing_ibm_part1.wav")


def stream(det: ClapDetector, x: np.ndarray, rate: int, *, block: int = 512, offset: int = 0) -> list[float]:
    if offset:
        x = np.concatenate([np.zeros(offset, np.float32), x])
    out: list[float] = []
    for k, i in enumerate(range(0, len(x), block)):
        out += [c.t - offset / rate for c in det.process(x[i:i + block], i / rate, rate, index=k)]
    return out


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
