"""The spoken digits as clap-training speech (sensekit/evaluation/audio/clap_words.py)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from sensekit.evaluation.audio import clap_words as cw
from sensekit.audio.clap_loudness import clap_loudness


def _takes(n: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(int(rng.integers(2000, 4000))).astype(np.float32) * 0.1 for _ in range(n)]


def test_stream_keeps_every_take_in_order_with_a_pause_before_each() -> None:
    takes = _takes(5, 1)
    x = cw.stream(takes, np.random.default_rng(2))
    gaps = len(x) - sum(len(t) for t in takes)
    assert 5 * cw.GAP_S[0] * 8000 - 5 <= gaps <= 5 * cw.GAP_S[1] * 8000 + 5
    at = 0
    for t in takes:
        i = at + int(np.flatnonzero(x[at:] == t[0])[0])
        assert np.array_equal(x[i:i + len(t)], t)
        at = i + len(t)
    assert np.array_equal(x, cw.stream(takes, np.random.default_rng(2)))
    assert len(cw.stream(takes, np.random.default_rng(2), rate=16000)) == 2 * len(x)


def test_babble_overlays_every_voice_at_a_fixed_peak() -> None:
    streams = [cw.stream(_takes(3, s), np.random.default_rng(s)) for s in range(4)]
    y = cw.babble(streams, np.random.default_rng(0))
    assert len(y) == max(len(s) for s in streams)
    assert np.isclose(np.abs(y).max(), 0.9, atol=1e-6)
    assert np.mean(y != 0) > 0.95     # four voices with pauses leave almost no silence


def test_speech_goes_under_the_claps_at_the_asked_snr() -> None:
    rate = 16000
    x = np.zeros(rate, np.float32)
    x[4000:4080] = np.random.default_rng(3).standard_normal(80).astype(np.float32) * 0.05
    speech = cw.stream(_takes(4, 5), np.random.default_rng(5), rate=rate)
    for snr in (0.0, 6.0):
        y = cw.under_speech(x, rate, [0.25], speech, snr, np.random.default_rng(7))
        noise = y.astype(np.float64) - x
        ratio = clap_loudness(x, rate, [0.25]) / np.sqrt(np.mean(noise ** 2))
        assert abs(20 * np.log10(ratio) - snr) < 0.01


def test_a_speaker_held_out_takes_its_developer_clip_with_it() -> None:
    assert cw.leave_out("fsdd_yweweler") == ["fsdd_yweweler", "fsdd"]
    assert cw.leave_out("fsdd_theo") == ["fsdd_theo"]
    assert cw.leave_out("tr") == ["tr"]


def test_the_words_are_three_speakers_without_the_developer_clips_take(shared_data: Path) -> None:
    takes = cw.read_words(shared_data)
    assert sorted(takes) == ["nicolas", "theo", "yweweler"]
    assert [len(v) for _, v in sorted(takes.items())] == [500, 500, 499]
    assert "words/2_yweweler_3.wav" not in {f for f, _ in takes["yweweler"]}
