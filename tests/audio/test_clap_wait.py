"""The shipped close-call wait (``ClapDetector``'s ``close_call_wait``, ``clap_wait.py``): off it is
the detector before the wait; on, a close call comes out once 130 ms after its peak are in, and the
claps do not depend on block sizes or start offsets; the constants' module is what the exporter writes."""
from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sensekit.audio import clap_wait_model as W
from sensekit.audio.clap import ClapDetector
from sensekit.audio.clap_wait import SHIPPED, WaitModel, close_call_score, wait_samples
from sensekit.evaluation.audio.clap_mel_score import LinearScore
from sensekit.evaluation.audio.clap_mel_stream import MelWaitDetector
from sensekit.evaluation.audio.clap_ring_stream import RingWaitDetector
from sensekit.evaluation.audio.evaluate import read_clips, read_wav
from tests.audio.helpers import stream_claps

CLIPS = ("clap_room-small_0.wav", "clap_room-small_3.wav", "clap_room-large_4.wav", "clap_sparse_eldar-sample2.wav",
         "clap_k_mixed18.wav", "clap_j_sparse7.wav", "typing_ibm_part1.wav")
#: a wide margin: most bursts are close calls and wait (the wait exercised on every clip)
WIDE = dataclasses.replace(SHIPPED, margin=10.0)


class Recorded(ClapDetector):
    """Records each emitted clap's peak, the stream index when it came out and whether it waited."""

    def __init__(self, **kw: Any) -> None:
        self.out: list[tuple[int, int, bool]] = []
        self.closes = 0
        self._last = (-1, False)
        super().__init__(**kw)

    def _first_look(self, p: int, gap_ok: bool) -> tuple[tuple[float, ...], bool, float, bool]:
        got = super()._first_look(p, gap_ok)
        self._last = (p, got[3])
        self.closes += got[3]
        return got

    def _judge(self, p: int, onset: int) -> Any:
        clap = super()._judge(p, onset)
        if clap is not None:
            self.out.append((p, self._end, self._last == (p, True)))
        return clap


stream = stream_claps


@pytest.fixture(scope="module")
def clips(shared_data):
    return [(c.file, *read_wav(shared_data / c.file)) for c in read_clips(shared_data)
            if c.file.split("/")[-1] in CLIPS]


def test_the_wait_off_is_the_detector_before_it(clips) -> None:
    """Off (the setting, or no wait model), the claps are those of the wait with margin 0."""
    for name, x, rate in clips:
        before = stream(RingWaitDetector(ring_model=W.RING_MODEL, ring_threshold=0.0, margin=0.0), x, rate)
        assert stream(ClapDetector(close_call_wait=False), x, rate) == before, name
        assert stream(ClapDetector(wait_model=dataclasses.replace(SHIPPED, margin=0.0)), x, rate) == before, name


def test_the_shipped_wait_is_the_evaluated_one(clips) -> None:
    """ClapDetector's wait gives the claps of the twenty-third pass's MelWaitDetector with the same constants.
    Both share the front end and the queue (MelWaitDetector is ClapDetector with an overridden
    ``_close_score``): what is compared is the close call's score, the shipped ``close_call_score``
    against the evaluation's ring-over-threshold plus score less theta. The twenty-third pass resampled
    with SciPy: ``test_polyphase`` holds the shipped log-mel to that one."""
    lr = LinearScore(np.asarray(W.MEL_W), W.MEL_B)
    changed = 0
    for name, x, rate in clips:
        mel = MelWaitDetector(ring_model=W.RING_MODEL, ring_threshold=0.0, margin=W.MARGIN, wait_ms=130.0,
                              ring="late_above_db", mel_score=lr, rule="sum", theta=W.THETA)
        want = stream(mel, x, rate)
        assert stream(ClapDetector(), x, rate) == want, name
        changed += want != stream(ClapDetector(close_call_wait=False), x, rate)
    assert changed >= 2                                  # the wait changes claps on these clips


def test_a_close_call_comes_out_once_its_ring_is_in(clips) -> None:
    """In samples: a close call is emitted in the block that brings its peak + wait_samples, the
    others before it would be."""
    block, waited = 64, 0
    for name, x, rate in clips:
        det = Recorded(wait_model=WIDE)
        stream(det, x, rate, block=block)
        n = wait_samples(rate)
        for p, end, close in det.out:
            if close:
                waited += 1
                assert 0 <= end - (p + n) < block, name
            else:
                assert end < p + n, name
    assert waited >= 50


def test_held_close_calls_keep_offset_and_block_size_invariance(clips) -> None:
    rng = np.random.default_rng(27)
    held = 0
    for name, x, rate in clips:
        ref_det = Recorded(wait_model=WIDE)
        ref = stream(ref_det, x, rate)
        held += ref_det.closes
        for _ in range(3):
            offset, block = int(rng.integers(0, 1001)), int(rng.integers(64, 4097))
            got = stream(ClapDetector(wait_model=WIDE), x, rate, block=block, offset=offset)
            assert len(got) == len(ref) and all(abs(a - b) <= 1e-6 for a, b in zip(got, ref)), \
                (name, offset, block)
    assert held >= 100


def test_streams_ending_while_a_call_is_held_keep_block_size_and_offset_invariance(clips) -> None:
    """Each clip cut 35..125 ms after one of its close calls' peaks (held when the stream ends): the claps,
    with those ``finish()`` owes, do not depend on the blocks, the last one or the start offset."""
    rng = np.random.default_rng(31)
    owed = 0
    for name, x, rate in clips:
        det = Recorded(wait_model=WIDE)
        stream(det, x, rate)
        closes = [p for p, _, close in det.out if close]
        for p in [closes[int(i)] for i in rng.integers(0, len(closes), 2)] if closes else []:
            y = x[: p + int(rng.integers(round(0.035 * rate), round(0.125 * rate)))]
            ref_det = ClapDetector(wait_model=WIDE)
            ref = stream(ref_det, y, rate) + [c.t for c in ref_det.finish()]
            owed += len(ref) - len(stream(ClapDetector(wait_model=WIDE), y, rate))
            for _ in range(2):
                offset, block = int(rng.integers(0, 1001)), int(rng.integers(64, 4097))
                d = ClapDetector(wait_model=WIDE)
                got = stream(d, y, rate, block=block, offset=offset) + [c.t - offset / rate for c in d.finish()]
                assert got == pytest.approx(ref, abs=1e-6), (name, len(y), offset, block)
    assert owed >= 5                                     # the end owed claps on these cuts


def test_the_setting_turns_the_wait_off_mid_stream(clips) -> None:
    _, x, rate = next(c for c in clips if c[0].endswith("clap_room-small_3.wav"))
    det = ClapDetector()
    half = (len(x) // 2) // 512 * 512
    got = stream(det, x[:half], rate)
    det.apply_now(close_call_wait=False)
    got += [c.t for k, i in enumerate(range(half, len(x), 512))
            for c in det.process(x[i:i + 512], i / rate, rate, index=k)]
    off = stream(ClapDetector(close_call_wait=False), x, rate)
    on = stream(ClapDetector(), x, rate)
    late = [t for t in off if t > half / rate + 0.2]
    assert [t for t in got if t > half / rate + 0.2] == late                 # off from then on
    assert [t for t in got if t < half / rate - 0.2] == [t for t in on if t < half / rate - 0.2]


def test_digital_silence_gives_a_finite_close_call_score() -> None:
    """No NaN from the log-mel's scaling to a peak of 1 or the ring's powers of zeros."""
    x = np.zeros(48000, np.float32)
    vals = (-20.0,) + (0.0,) * 16
    assert np.isfinite(close_call_score(x, 20000, 48000, vals, 0.5))


def test_the_constants_module_is_the_exporters_text() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from train_clap_wait import MODULE, format_wait_module

    ring = {"depth": W.RING_DEPTH, "base": W.RING_BASE, "feature": [t[0] for t in W.RING_TREES],
            "threshold": [t[1] for t in W.RING_TREES], "leaf": [t[2] for t in W.RING_TREES]}
    text = MODULE.read_text()
    note = text.split("(do not edit by hand):\n", 1)[1].split("\nRING_TREES:", 1)[0]
    assert format_wait_module(ring, W.MARGIN, W.THETA, LinearScore(np.asarray(W.MEL_W), W.MEL_B), note) == text
    assert len(W.MEL_W) == 16 * 96 + 1 and isinstance(SHIPPED, WaitModel)
