"""clap_losses: the loss-recording detector gives ClapDetector's claps, and says where a clap was lost."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.audio.clap import ClapDetector
from sensekit.evaluation.audio.clap_losses import KINDS, LossDetector, loss_of, unmatched
from sensekit.evaluation.audio.evaluate import match, read_clips, read_wav
from tests.audio.helpers import add_at, clap_burst, noise_floor

RATE = 48000
CLIPS = ("clap_sparse_eldar-sample2.wav", "clap_j_double.wav", "clap_k_mixed15.wav", "tr_sample-32.wav",
         "wnc_claps7.wav")


def stream(det: ClapDetector, x: np.ndarray, rate: int, block: int = 512, offset: int = 0) -> list[float]:
    y = np.concatenate([np.zeros(offset, np.float32), x]) if offset else x
    out: list[float] = []
    for k, i in enumerate(range(0, len(y), block)):
        out.extend(c.t - offset / rate for c in det.process(y[i:i + block], i / rate, rate, index=k))
    return out


def test_each_loss_is_named() -> None:
    """A clap 50 ms after another (the gap), one under the grid's level (no candidate), one that rings
    as a tone (the trees); the first is found by both detectors alike."""
    x = noise_floor(2.0, RATE, -60.0)
    for t, peak, seed in ((0.5, 0.5, 1), (0.55, 0.5, 2), (1.0, 0.0005, 3), (1.5, 0.5, 4)):
        add_at(x, clap_burst(RATE, peak=peak, seed=seed), t, RATE)
    n = RATE // 5
    x[int(1.5 * RATE): int(1.5 * RATE) + n] += (0.3 * np.sin(np.arange(n) * 2 * np.pi * 1000 / RATE)).astype(np.float32)
    truth = [0.5, 0.55, 1.0, 1.5]
    det = LossDetector()
    got = stream(det, x, RATE)
    assert got == stream(ClapDetector(), x, RATE) == det.claps and len(got) == 1
    missed, matched = unmatched(got, truth)
    assert missed == [0.55, 1.0, 1.5] and list(matched.values()) == [0.5]
    assert [loss_of(det, o, matched) for o in missed] == ["gap clap", "none", "trees"]


def test_unmatched_is_match() -> None:
    rng = np.random.default_rng(29)
    for _ in range(50):
        truth = sorted(rng.uniform(0, 3, int(rng.integers(0, 8))).tolist())
        det = sorted(rng.uniform(0, 3, int(rng.integers(0, 8))).tolist())
        missed, matched = unmatched(det, truth)
        s = match(det, truth)
        assert len(missed) == s.fn and len(matched) == s.tp and set(matched.values()) | set(missed) == set(truth)


@pytest.fixture(scope="module")
def clips(shared_data):
    return [(c, *read_wav(shared_data / c.file)) for c in read_clips(shared_data)
            if c.file.split("/")[-1] in CLIPS]


def test_the_same_claps_on_real_clips(clips) -> None:
    """On real clips, under pink-like noise too, at random block sizes and offsets: the loss detector's
    claps are ClapDetector's (the peak picking it repeats is the parent's), and every missed clap has a kind."""
    from sensekit.audio.clap_loudness import clap_loudness
    from sensekit.evaluation.audio.clap_noise import mix_at, noise_unit

    assert len(clips) == len(CLIPS)
    rng = np.random.default_rng(30)
    kinds = set()
    for c, x, rate in clips:
        for y in (x, mix_at(x, noise_unit("pink", c.file, len(x), rate, []), clap_loudness(x, rate, c.onsets), 5.0)):
            block, offset = int(rng.choice((64, 333, 512, 4096))), int(rng.integers(0, 1001))
            det = LossDetector()
            got = stream(det, y, rate, block, offset)
            assert got == stream(ClapDetector(), y, rate, block, offset), (c.file, block, offset)
            missed, matched = unmatched(got, list(c.onsets))
            kinds |= {loss_of(det, o, matched, offset / rate) for o in missed}
    assert kinds and kinds <= set(KINDS)
