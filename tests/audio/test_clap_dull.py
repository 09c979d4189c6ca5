"""Copies of the dull claps under babble and one speaker (sensekit/evaluation/audio/clap_dull.py)."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from sensekit.audio.clap_loudness import clap_loudness
from sensekit.evaluation.audio import clap_dull as cd
from sensekit.evaluation.audio.evaluate import read_clips, read_wav, recipe_onsets


def _bursts(taus_s: list[float], rate: int = 48000) -> tuple[np.ndarray, list[float]]:
    """Noise bursts 1.2 s apart, each decaying exponentially with its own time constant."""
    rng = np.random.default_rng(0)
    x = np.zeros(rate * (1 + len(taus_s)), np.float32)
    t = np.arange(int(0.2 * rate)) / rate
    onsets = []
    for i, tau in enumerate(taus_s):
        a = int((0.8 + 1.2 * i) * rate)
        x[a:a + len(t)] += (rng.standard_normal(len(t)) * np.exp(-t / tau) * 0.3).astype(np.float32)
        onsets.append(a / rate)
    return x, onsets


def test_a_clap_with_a_tail_is_dull_and_a_crisp_one_is_not() -> None:
    # falls 20 dB in ~2.3 tau: 1 ms -> ~2 ms (crisp), 15 ms -> ~35 ms (a room's tail)
    x, onsets = _bursts([0.001, 0.015, 0.002, 0.030])
    assert cd.dull_claps(x, 48000, onsets) == [False, True, False, True]


def test_a_clap_time_without_a_burst_is_not_dull() -> None:
    x, onsets = _bursts([0.015])
    assert cd.dull_claps(x, 48000, [*onsets, 1.6]) == [True, False]


def test_one_speaker_goes_under_the_claps_at_the_asked_snr() -> None:
    rate = 16000
    x = np.zeros(rate, np.float32)
    x[4000:4080] = np.random.default_rng(3).standard_normal(80).astype(np.float32) * 0.05
    speech = np.random.default_rng(4).standard_normal(rate // 3).astype(np.float32)
    loud = clap_loudness(x, rate, [0.25])
    for snr in (0.0, 7.5, 15.0):
        y = cd._one_speaker(x, speech, loud, snr, np.random.default_rng(5))
        ratio = loud / np.sqrt(np.mean((y.astype(np.float64) - x) ** 2))
        assert abs(20 * np.log10(ratio) - snr) < 0.01


def test_the_copies_hold_only_dull_claps_and_never_their_own_sources_voice(shared_data: Path) -> None:
    b = cd.collect_dull(shared_data)
    assert set(b.variant) == set(cd.VARIANTS)
    claps = b.y == 1
    assert 0 < claps.sum() < (b.y == 0).sum()                  # the speech's bursts outnumber them
    speech = b.variant == "d_speech"
    assert (b.background[speech] != b.source[speech]).all()
    assert (b.background[speech] != "").all()
    assert (b.background[~speech] == "").all()
    per_clip = Counter(zip(b.clip[claps], b.variant[claps]))
    clips = {c.file: c for c in read_clips(shared_data)}
    for clip in b.onsets:          # every copy holds at most the clip's dull claps, and some
        x, rate = read_wav(shared_data / clip)
        onsets = clips[clip].onsets or recipe_onsets(x, rate)
        dull = sum(cd.dull_claps(x, rate, onsets))
        assert dull > 0
        for v in cd.VARIANTS:
            assert 0 < per_clip[clip, v] <= cd.COPIES * dull
