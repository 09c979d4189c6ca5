"""The noise curve's speech mixes (sensekit/evaluation/audio/clap_noise.py)."""
from __future__ import annotations

import numpy as np

from sensekit.evaluation.audio.clap_noise import noise_unit, speech_pick


def test_speech_pick_names_the_recording_the_speech_mix_uses() -> None:
    rng = np.random.default_rng(0)
    others = [rng.standard_normal(1000 + 10 * i) for i in range(6)]
    picks = set()
    for k in range(20):
        name = f"audio/clip_{k}.wav"
        i = speech_pick(name, len(others))
        unit = noise_unit("speech", name, 500, 16000, others)
        one = others[i][:500]
        assert np.allclose(unit, one / np.sqrt(np.mean(one ** 2)))
        picks.add(i)
    assert len(picks) > 1      # not always the same recording
