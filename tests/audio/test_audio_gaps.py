"""A gap in the audio (a microphone's queue dropped blocks while the consumer stalled, or the
device was lost and reopened): the claps after it are reported when they were heard.

The clap detector timed its claps by its own sample count from the first block
(``t0 + samples / rate``), so blocks missing from the stream compressed time: after a 20 s stall
every clap was reported 20 s early, for the rest of the run, and each stall or reconnect added
to it. A live microphone's ``AudioBlock.t`` already says where the gap is (its sample clock
skips the dropped blocks; a reconnect jumps to the wall time). A real clip (clap_k_pairs8, eight
claps in pairs) is streamed with the blocks after a quiet stretch moved on by 0.2, 2 and 20 s:
the claps before the gap are those of the whole stream and those after it the same claps moved
by the gap, exactly (1e-6 s); with 17 blocks of the quiet stretch left out (a queue's drops),
the claps are those of the whole stream.
"""
from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf

from sensekit.audio.clap import ClapDetector
from sensekit.capture.base import AudioBlock

CLIP = "audio/clap_k_pairs8.wav"
BLOCK = 512


@pytest.fixture(scope="module")
def clip(shared_data):
    x, rate = sf.read(str(shared_data / CLIP), dtype="float32")
    assert x.ndim == 1 and rate == 44100
    return x, rate


def claps(x: np.ndarray, rate: int, *, split: int | None = None, gap: int = 0,
          drop: range = range(0)) -> list[float]:
    """Clap times of ``x`` in blocks; the blocks from ``split`` on start ``gap`` samples later;
    the blocks in ``drop`` are left out."""
    det = ClapDetector()
    out = []
    for k, i in enumerate(range(0, len(x), BLOCK)):
        if k in drop:
            continue
        start = i + (gap if split is not None and k >= split else 0)
        out += [c.t for c in det.feed(AudioBlock(k, start / rate, x[i:i + BLOCK], rate))]
    return out


@pytest.mark.parametrize("gap_s", [0.2, 2.0, 20.0])
def test_claps_after_a_gap_are_reported_when_they_were_heard(clip, gap_s):
    x, rate = clip
    whole = claps(x, rate)
    assert len(whole) == 8, whole
    # a block in the quiet stretch between the 4th and 5th claps
    split = int(round((whole[3] + whole[4]) / 2 * rate)) // BLOCK
    gap = int(round(gap_s * rate))
    got = claps(x, rate, split=split, gap=gap)
    before = [t for t in whole if t * rate < split * BLOCK]
    after = [t + gap / rate for t in whole if t * rate >= split * BLOCK]
    assert len(before) == 4
    assert got == pytest.approx(before + after, abs=1e-6), (got, before + after)


def test_blocks_a_queue_dropped_leave_the_claps_after_them_at_their_times(clip):
    x, rate = clip
    whole = claps(x, rate)
    mid = int(round((whole[3] + whole[4]) / 2 * rate)) // BLOCK
    got = claps(x, rate, drop=range(mid - 8, mid + 9))
    assert got == pytest.approx(whole, abs=1e-6), (got, whole)


def _gapped(x: np.ndarray, rate: int, cut: int, gap_s: float) -> tuple[list[float], ClapDetector]:
    """Claps of ``x`` in blocks up to ``cut``, then ``gap_s`` of blocks missing, then the rest."""
    det = ClapDetector()
    g = round(gap_s * rate)
    starts = [(i, min(i + BLOCK, cut)) for i in range(0, cut, BLOCK)]
    starts += [(i, min(i + BLOCK, len(x))) for i in range(cut + g, len(x), BLOCK)]
    out = [c.t for k, (i, j) in enumerate(starts) for c in det.feed(AudioBlock(k, i / rate, x[i:j], rate))]
    return out + [c.t for c in det.finish()], det


def test_a_sound_a_gap_cuts_as_it_sounds_is_not_made_a_clap_by_the_silence(shared_data):
    """harden24: the bridge's silence decided the bursts it completed, as the end's did before
    harden22's rules: a knock (knock_room-small_0, its burst peaking at 0.1952 s) followed 5 ms
    after its peak by 2 s of missing blocks was a clap at 0.194 s. The end's rules now apply at a
    gap (its fall must lie in the real samples): no clap, the burst counted in ``cut_at_end``; the
    uncut clip has no clap. A labelled clap (clap_j_sparse7 at 1.671 s) cut 20 ms after its
    onset by the same gap is still found, and one cut 10 ms after is counted, not found."""
    x, rate = sf.read(str(shared_data / "audio/knock_room-small_0.wav"), dtype="float32")
    whole, _ = _gapped(x, rate, len(x), 0.0)
    assert whole == []
    got, det = _gapped(x, rate, round((0.1952 + 0.005) * rate), 2.0)
    assert got == [] and det.cut_at_end == 1 and det.gaps == 1
    x, rate = sf.read(str(shared_data / "audio/clap_j_sparse7.wav"), dtype="float32")
    on = 1.671
    for after_ms, found, counted in ((20, 1, 0), (10, 0, 1)):
        got, det = _gapped(x, rate, round((on + after_ms / 1000) * rate), 2.0)
        assert (sum(abs(t - on) <= 0.015 for t in got), det.cut_at_end) == (found, counted), (after_ms, got)
