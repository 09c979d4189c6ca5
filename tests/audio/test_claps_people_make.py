"""Claps people make, built from the real developer clips (``realmix.py``; times stay annotated).

- over speech and over music at 0 and +6 dB (clap clip power over background power);
- in a reverberant room (a synthetic decaying-noise room response, RT60 0.3-1 s);
- hard-clipped (driven 10-18 dB past full scale);
- fast: real claps laid 100, 150 and 200 ms apart, every one reported;
- soft: every other clap 20 dB softer, in the quiet room it was recorded in;
- resampled to 8 and 16 kHz;
- double and triple patterns, and the book's ActivityDetector left as it was.
"""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.audio.clap import ClapDetector, ClapPatternTracker
from sensekit.evaluation.audio.evaluate import Scores, stream_claps

from . import realmix as R


@pytest.mark.parametrize("snr_db", [6.0, 0.0])
@pytest.mark.parametrize("kind", ["speech", "music"])
def test_claps_over_speech_and_music(shared_data, kind, snr_db):
    backgrounds = R.SPEECH if kind == "speech" else R.MUSIC
    total = Scores()
    for name in R.CLAP_CLIPS:
        for bg in backgrounds:
            x, rate, onsets = R.over(shared_data, name, bg, snr_db)
            total.add(R.score(x, rate, onsets))
    assert total.recall >= (0.95 if snr_db > 0 else 0.88), (total.tp, total.fp, total.fn)
    assert total.precision >= 0.98, (total.tp, total.fp, total.fn)


@pytest.mark.parametrize("make", [R.reverberant, R.driven], ids=["reverberant", "clipped"])
def test_reverberant_and_clipped_claps(shared_data, make):
    total = Scores()
    for name in R.CLAP_CLIPS:
        for seed in range(3):
            x, rate, onsets = make(shared_data, name, seed)
            total.add(R.score(x, rate, onsets))
    assert total.recall >= 0.95 and total.precision >= 0.98, (total.tp, total.fp, total.fn)


@pytest.mark.parametrize("spacing_s", [0.10, 0.15, 0.20])
def test_fast_clapping_every_clap_reported(shared_data, spacing_s):
    x, rate, onsets = R.load(shared_data, "clap_k_regular14.wav")
    y, times = R.snippets(x, rate, onsets, before_s=0.01, length_s=spacing_s, gains_db=[0.0] * 12)
    s = R.score(y, rate, times)
    assert (s.tp, s.fp, s.fn) == (12, 0, 0)


@pytest.mark.parametrize("softer_db", [-10.0, -20.0])
def test_soft_claps_in_a_quiet_room(shared_data, softer_db):
    x, rate, onsets = R.load(shared_data, "clap_k_regular14.wav")
    y, times = R.snippets(x, rate, onsets, before_s=0.05, length_s=0.25,
                          gains_db=[0.0, softer_db] * 6)
    s = R.score(y, rate, times)
    assert (s.tp, s.fp, s.fn) == (12, 0, 0)


@pytest.mark.parametrize("new_rate", [8000, 16000])
def test_resampled_claps(shared_data, new_rate):
    total = Scores()
    for name in R.CLAP_CLIPS:
        x, rate, onsets = R.load(shared_data, name)
        total.add(R.score(R.resample(x, rate, new_rate), new_rate, onsets))
    assert total.recall >= 0.95 and total.precision >= 0.98, (total.tp, total.fp, total.fn)


@pytest.mark.parametrize("name, count, patterns", [
    ("clap_j_double.wav", 2, 1), ("clap_k_triple.wav", 3, 1), ("clap_k_pairs8.wav", 2, 4)])
def test_double_and_triple_patterns(shared_data, name, count, patterns):
    x, rate, _ = R.load(shared_data, name)
    det, tracker = ClapDetector(), ClapPatternTracker(count, max_gap_ms=600.0)
    found = []
    for k, i in enumerate(range(0, len(x), 512)):
        for c in det.process(x[i:i + 512], i / rate, rate, index=k):
            p = tracker.add(c)
            if p is not None:
                found.append(p)
    assert len(found) == patterns, [p.times for p in found]


def test_the_books_activity_detector_is_unchanged(shared_data):
    """setSilenceLevel(25, 500) on a clap clip: one activation per burst of sound, as before."""
    from sensekit.evaluation.audio.evaluate import stream_book

    x, rate, _ = R.load(shared_data, "clap_sparse_eldar-sample2.wav")
    acts = stream_book(x, rate)
    assert len(acts) == 6 and np.all(np.diff(acts) > 0.5)
    assert stream_claps(x, rate)                # and the clap detector is another thing


@pytest.mark.parametrize("softer_db, after_s, found", [(-15.0, 1.0, 2), (-34.0, 1.0, 1), (-34.0, 11.0, 2)])
def test_a_burst_far_under_the_claps_just_heard_is_not_one(shared_data, softer_db, after_s, found):
    """``clap.below_claps_db``: the same real clap 34 dB softer one second after a loud one is
    not reported (it is 10 s later, when no loud clap is recent); 15 dB softer it is."""
    x, rate, onsets = R.load(shared_data, "clap_k_regular14.wav")
    y, times = R.snippets(x, rate, onsets, before_s=0.01, length_s=0.15, gains_db=[0.0])
    quiet = y * np.float32(10.0 ** (softer_db / 20.0))
    gap = np.zeros(int((after_s - 0.15) * rate), np.float32)
    stream = np.concatenate([y, gap, quiet, np.zeros(rate // 2, np.float32)])
    s = R.score(stream, rate, [times[0], times[0] + after_s])
    assert (s.tp, s.fp) == (found, 0), (s.tp, s.fp, s.fn)
