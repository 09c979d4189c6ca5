"""The noise-normalised patch around a burst: steady noise reads ~0 dB, a burst its rise."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.evaluation.audio.clap_patch import CLIP_DB, PATCH_BANDS, PATCH_FRAMES, BurstPatch


def noisy_burst(rate: int, *, burst_gain: float = 30.0, seed: int = 3) -> tuple[np.ndarray, int]:
    rng = np.random.default_rng(seed)
    x = rng.normal(0.0, 0.01, rate).astype(np.float32)
    p = rate // 2
    n = int(0.005 * rate)
    x[p: p + n] += rng.normal(0.0, 0.01 * burst_gain, n).astype(np.float32)
    return x, p


@pytest.mark.parametrize("rate", [8000, 16000, 22050, 44100, 48000])
def test_steady_noise_reads_zero_and_a_burst_its_rise(rate: int) -> None:
    x, p = noisy_burst(rate)
    bp = BurstPatch(rate)
    burst = bp(x, p)
    assert burst.shape == (PATCH_BANDS, PATCH_FRAMES)
    live = np.abs(burst).sum(axis=1) > 0
    # frame 3 (0..4 ms) lies inside the 5 ms burst (30x the noise: ~29.5 dB over the floor)
    assert np.median(burst[live, 3]) == pytest.approx(29.5, abs=5.0)   # few bins a band at 8 kHz
    assert np.median(burst[live, :2]) < 3.0                  # frames before it: the floor
    # 60 ms later the same noise, no burst: ~0 dB in every band
    quiet = bp(x, p + int(0.06 * rate))
    assert abs(float(np.median(quiet[live]))) < 1.5
    assert np.all(quiet >= CLIP_DB[0]) and np.all(burst <= CLIP_DB[1])


def test_bands_above_the_nyquist_limit_read_zero_at_8k() -> None:
    x, p = noisy_burst(8000)
    burst = BurstPatch(8000)(x, p)
    assert np.all(burst[-3:] == 0.0) and np.all(burst[:-3, 3] > 20.0)


def test_gain_and_position_do_not_change_it() -> None:
    x, p = noisy_burst(48000)
    bp = BurstPatch(48000)
    a = bp(x, p)
    np.testing.assert_allclose(bp(x * np.float32(20.0), p), a, atol=1e-3)
    shifted = np.concatenate([np.zeros(517, np.float32), x])
    np.testing.assert_allclose(bp(shifted, p + 517), a, atol=1e-4)


def test_start_of_stream_counts_as_silence() -> None:
    x, p = noisy_burst(48000)
    bp = BurstPatch(48000)
    early = bp(x[p - 1000:], 1000)           # only 21 ms of noise before the peak
    assert early.shape == (PATCH_BANDS, PATCH_FRAMES)
    assert np.all(early[:, 3] == CLIP_DB[1])  # the floor is silence: the burst reads the cap


def test_rejects_a_rate_too_low() -> None:
    with pytest.raises(ValueError, match="rate must be >= 4000 Hz, got 2000"):
        BurstPatch(2000)
