"""The burst's band rises over a moving floor (clap_features.FloorBands, FLOOR_FEATURES)."""
from __future__ import annotations

import math

import numpy as np

from sensekit.audio.clap import ClapDetector
from sensekit.audio.clap_features import FEATURES, FLOOR_FEATURES, BurstMeter

RATE = 48000


def _voice_then_burst(burst_gain: float, seed: int = 0) -> tuple[np.ndarray, int]:
    """0.5 s of a 150 Hz harmonic 'voice' (harmonics to 1.5 kHz), then a 3 ms white burst."""
    rng = np.random.default_rng(seed)
    t = np.arange(RATE // 2 + RATE // 10) / RATE
    x = sum(np.sin(2 * np.pi * 150 * h * t) / h for h in range(1, 11)) * 0.05
    p = RATE // 2
    x[p - 72: p + 72] += burst_gain * rng.standard_normal(144) * np.hanning(144)
    return x.astype(np.float64), p


def _floor_of(x: np.ndarray, p: int) -> dict[str, float]:
    m = BurstMeter(RATE)
    vals = m.measure(x, p)
    m.score(x, p, vals, None, keep=True)
    return dict(zip(FLOOR_FEATURES, m.last_floor))


def test_a_broadband_burst_over_a_voice_rises_most_where_the_voice_is_weak() -> None:
    f = _floor_of(*_voice_then_burst(0.05))
    assert f["fl_o3"] > f["fl_o1"] + 6.0            # 2-4 kHz: no voice there; 0.5-1 kHz: harmonics
    assert f["fl_flat"] < -6.0
    assert math.isclose(f["fl_flat"], min(f["fl_o1"], f["fl_o2"], f["fl_o3"])
                        - max(f["fl_o1"], f["fl_o2"], f["fl_o3"]))


def test_a_burst_rising_far_over_its_floor_is_not_measured() -> None:
    x, p = _voice_then_burst(0.05)
    x[: p - 200] *= 1e-4                                   # nearly silent before: rise >= 24 dB
    f = _floor_of(x, p)
    assert all(math.isnan(v) for v in f.values())


def test_the_shipped_model_does_not_pay_for_the_floor() -> None:
    x, p = _voice_then_burst(0.05)
    m = BurstMeter(RATE)
    vals = m.measure(x, p)
    m.score(x, p, vals, None)
    assert m.last_floor == ()
    m.score(x, p, vals, None, keep=True)
    assert len(m.last_floor) == len(FLOOR_FEATURES)


def test_kept_bursts_carry_the_floor_the_same_at_every_block_size_and_offset() -> None:
    x, _ = _voice_then_burst(0.05)
    runs = []
    for block, offset in ((256, 0), (512, 0), (1024, 517)):
        y = np.concatenate([np.zeros(offset), x]).astype(np.float32)
        det = ClapDetector()
        det.keep_features = True
        for k, i in enumerate(range(0, len(y), block)):
            det.process(y[i:i + block], i / RATE, RATE, index=k)
        runs.append([(round(f.t_peak * RATE) - offset, f.vector().tobytes()) for f in det.features])
    assert runs[0] and all(len(v) == len(FEATURES) + len(FLOOR_FEATURES) for v in
                           [np.frombuffer(b) for _, b in runs[0]])
    assert any(np.isfinite(np.frombuffer(b)[len(FEATURES):]).all() for _, b in runs[0])
    assert runs[0] == runs[1] == runs[2]
