"""Activity level: mapping, gain, smoothing, bad input."""
from __future__ import annotations

import logging

import numpy as np
import pytest

from sensekit.audio.gain import gain_to_db
from sensekit.audio.level import (CEILING_DB, DB_PER_LEVEL, FLOOR_DB, LevelMeter, block_levels,
                                  db_to_level, level, level_to_db)
from sensekit.errors import ConfigError


def test_silence_reads_0_and_full_scale_noise_reads_100():
    rng = np.random.default_rng(0)
    assert level(np.zeros(512, np.float32)) == 0.0
    assert level(rng.uniform(-1, 1, 512).astype(np.float32)) == 100.0
    assert level(np.clip(rng.normal(0, 1, 512), -1, 1).astype(np.float32)) == 100.0
    # a full-scale sine (-3 dBFS rms) reads 100 too; -66 dBFS reads 0
    assert level(np.sin(np.arange(480) / 480 * 2 * np.pi * 10).astype(np.float32)) == 100.0
    assert level(np.full(512, 10 ** (-66 / 20), np.float32)) == pytest.approx(0.0, abs=1e-3)


def test_documented_db_mapping():
    assert (FLOOR_DB, CEILING_DB, DB_PER_LEVEL) == (-66.0, -6.0, 0.6)
    for db in (-60.0, -36.0, -12.0):
        x = np.full(1000, 10 ** (db / 20), np.float32)      # constant: rms = amplitude
        assert level(x) == pytest.approx((db + 66) / 0.6, abs=1e-3)
        assert level_to_db(db_to_level(db)) == pytest.approx(db)


def test_one_gain_step_moves_the_level_by_one():
    x = np.full(512, 10 ** (-40 / 20), np.float32)
    base = level(x)
    assert level(x, gain=60) == pytest.approx(base + 10, abs=1e-3)
    assert level(x, gain=40) == pytest.approx(base - 10, abs=1e-3)
    assert level(x, gain=0) == 0.0
    assert gain_to_db(60) == pytest.approx(6.0)


def test_block_levels_match_streaming_meter():
    rng = np.random.default_rng(3)
    x = (rng.normal(0, 1, 48000) * np.linspace(0.001, 0.5, 48000)).astype(np.float32)
    batch = block_levels(x, 48000, block=512, gain=55)
    m = LevelMeter(gain=55)
    stream = [m.process(x[i:i + 512], i / 48000, 48000) for i in range(0, len(x), 512)]
    assert np.allclose(batch, stream, atol=1e-4)


def test_smoothing_time_constant():
    m = LevelMeter(smoothing_ms=100.0)
    loud = np.full(480, 0.1, np.float32)                     # 10 ms blocks at 48 kHz
    m.process(np.zeros(480, np.float32), 0.0, 48000)
    lv = [m.process(loud, 0.01 * (k + 1), 48000) for k in range(10)]
    target = level(loud)
    # after 100 ms (10 blocks) an exponential reaches 1 - 1/e of the step
    assert lv[-1] == pytest.approx(target * (1 - np.exp(-1.0)), rel=1e-3)
    assert m.raw_level == pytest.approx(target)


def test_nan_block_is_reported_and_skipped(caplog):
    m = LevelMeter()
    m.process(np.full(512, 0.01, np.float32), 0.0, 48000)
    before = m.level
    bad = np.full(512, 0.5, np.float32)
    bad[7] = np.nan
    bad[9] = np.inf
    with caplog.at_level(logging.WARNING):
        assert m.process(bad, 0.1, 48000, index=3) is None
    assert m.level == before and np.isfinite(m.level)
    assert m.skipped_blocks == 1
    assert "audio block 3" in caplog.text and "2 NaN/Inf samples" in caplog.text
    with pytest.raises(ConfigError, match="NaN/Inf"):
        level(bad)


def test_stereo_block_when_mono_configured():
    m = LevelMeter(channels=1)
    with pytest.raises(ConfigError, match=r"shape \(512, 2\).*mono \(channels=1\)"):
        m.process(np.zeros((512, 2), np.float32), 0.0, 48000, index=4)
    # without a channel setting, stereo is mixed down
    x = np.zeros((512, 2), np.float32)
    x[:, 0] = 0.1
    assert LevelMeter().process(x, 0, 48000) == pytest.approx(level(np.full(512, 0.05, np.float32)))


def test_bad_settings_name_the_value():
    with pytest.raises(ConfigError, match="`gain` must be 0..100, got 101"):
        LevelMeter(gain=101)
    with pytest.raises(ConfigError, match="`level` must be 0..100, got -1"):
        level_to_db(-1)
    with pytest.raises(ConfigError, match="empty block"):
        level(np.zeros(0, np.float32))
    assert LevelMeter().process(np.zeros(0, np.float32), 0, 48000) is None
