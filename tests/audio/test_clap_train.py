"""The twenty-eighth pass's train veto (clap_train): a rhythm of even claps is kept, an irregular train
of uneven taps is vetoed, past only and exact at any block size and offset."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.evaluation.audio.clap_train import GRID, N_MIN, Train, TrainDetector, TrainVeto, train_stats
from tests.audio.helpers import add_at, clap_burst, noise_floor, stream_claps

RATE = 48000
VETO = TrainVeto(4.0, 0.25, 2.0)


def bursts(times: list[float], peaks: list[float]) -> np.ndarray:
    x = noise_floor(times[-1] + 1.0, RATE, seed=2)
    for i, (t, a) in enumerate(zip(times, peaks)):
        add_at(x, clap_burst(RATE, peak=a, seed=i + 1), t, RATE)
    return x


def irregular_taps() -> tuple[list[float], np.ndarray]:
    rng = np.random.default_rng(3)
    times = [float(t) for t in np.cumsum(rng.uniform(0.12, 0.6, 14)) + 0.3]
    return times, bursts(times, [float(a) for a in 0.5 * 10 ** (rng.uniform(-12, 0, 14) / 20)])


def test_train_stats() -> None:
    assert train_stats(np.array([0.0, 0.5, 1.0, 1.5]), np.full(4, -10.0)) == (4, 0.0, 0.0)
    n, cv, spread = train_stats(np.array([0.0, 0.25, 1.25, 1.5, 2.5]), np.array([-10.0, -14.0, -10.0, -14.0, -12.0]))
    assert n == 5 and cv == pytest.approx(0.375 / 0.625) and spread == pytest.approx(np.std([4.0, 0, 4, 0, 2]))
    n, cv, spread = train_stats(np.array([1.0, 2.0]), np.array([0.0, 3.0]))
    assert (n, spread) == (2, 1.5) and np.isnan(cv)          # one interval has no spread of its own
    assert np.isnan(train_stats(np.array([]), np.array([]))[2])
    with pytest.raises(ValueError, match="as many times as levels"):
        train_stats(np.array([0.0, 1.0]), np.array([0.0]))
    with pytest.raises(ValueError, match="ascending"):
        train_stats(np.array([1.0, 0.5]), np.array([0.0, 0.0]))


def test_veto_needs_a_train_and_both_cuts() -> None:
    assert not VETO.vetoes((N_MIN - 1, 1.0, 10.0))          # too few bursts: never
    assert VETO.vetoes((N_MIN, 0.25, 2.0))
    assert not VETO.vetoes((N_MIN, 0.2, 10.0)) and not VETO.vetoes((N_MIN, 1.0, 1.9))
    assert not VETO.vetoes((N_MIN, float("nan"), 10.0))
    assert len(GRID) == 38 and TrainVeto(2.0, 0.0, 0.0) not in GRID


def test_train_window_past_only() -> None:
    tr = Train(keep_s=3.0)                                   # at 100 samples a second: 300 samples
    for i, p in enumerate((0, 100, 200, 300)):
        tr.add(p, float(i), 100)
    assert tr.stats(200, 3.0, 100)[0] == 3                   # not the burst after p
    tr.add(300, 9.0, 100)                                    # judged twice (a held close call): once
    assert tr.stats(300, 3.0, 100) == train_stats(np.array([0.0, 1, 2, 3]), np.array([0.0, 1, 2, 3]))
    tr.add(500, 4.0, 100)
    assert tr.stats(500, 3.0, 100)[0] == 3                   # 0 and 100 forgotten (older than 3 s)
    assert tr.stats(500, 2.0, 100)[0] == 2
    with pytest.raises(ValueError, match="keeps 3.0 s"):
        tr.stats(500, 4.0, 100)
    with pytest.raises(ValueError, match="positive window"):
        Train(0.0)


def test_regular_even_claps_are_kept() -> None:
    x = bursts([0.5 + 0.4 * i for i in range(10)], [0.5] * 10)
    det = TrainDetector(VETO)
    assert len(stream_claps(det, x, RATE)) == 10 and not det.vetoed
    assert [n for n, _, _ in det.trains] == list(range(1, 11))
    # double claps (0.25 s, then 1 s: irregular) at an even level are kept too: the conjunction
    pairs = [t0 + d for t0 in (0.5, 1.75, 3.0, 4.25) for d in (0.0, 0.25)]
    det = TrainDetector(VETO)
    assert len(stream_claps(det, bursts(pairs, [0.5] * 8), RATE)) == 8 and not det.vetoed
    assert max(cv for n, cv, _ in det.trains if n >= N_MIN) > 0.5


def test_irregular_uneven_taps_are_vetoed() -> None:
    times, x = irregular_taps()
    plain = TrainDetector(None)
    assert len(stream_claps(plain, x, RATE)) == len(times)          # the detector alone takes every tap
    det = TrainDetector(VETO)
    kept = stream_claps(det, x, RATE)
    assert len(kept) == N_MIN - 1 and len(det.vetoed) == len(times) - N_MIN + 1
    assert all(cv >= 0.25 and spread >= 2.0 for n, cv, spread in det.trains if n >= N_MIN)


@pytest.mark.parametrize("block", [256, 1000, 4096])
@pytest.mark.parametrize("offset", [0, 517])
def test_exact_at_block_sizes_and_offsets(block: int, offset: int) -> None:
    _, x = irregular_taps()
    ref = TrainDetector(VETO)
    want = stream_claps(ref, x, RATE)
    det = TrainDetector(VETO)
    got = stream_claps(det, x, RATE, block=block, offset=offset)
    assert got == pytest.approx(want, abs=1e-9)
    assert [c.t - offset / RATE for c in det.vetoed] == pytest.approx([c.t for c in ref.vetoed], abs=1e-9)
    np.testing.assert_allclose(np.array(det.trains), np.array(ref.trains), rtol=1e-9, equal_nan=True)
