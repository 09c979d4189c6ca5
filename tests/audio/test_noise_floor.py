from __future__ import annotations

import numpy as np
import pytest

from sensekit.audio.level import LevelMeter
from sensekit.audio.noise_floor import NoiseFloor
from sensekit.errors import ConfigError

from .helpers import blocks_of, noise_floor


def test_learns_over_the_first_seconds_and_ignores_a_brief_sound():
    rate = 16000
    x = noise_floor(3.0, rate, -55)
    x[rate // 2: rate // 2 + 1600] += 0.2                     # a 100 ms bang while learning
    nf, meter = NoiseFloor(2000), LevelMeter()
    done_at = None
    for b in blocks_of(x, rate):
        if nf.process(meter.feed(b), len(b.samples), rate):
            done_at = b.t
    assert nf.ready and nf.version == 1
    assert done_at == pytest.approx(2.0, abs=512 / rate)
    assert nf.db == pytest.approx(-55, abs=1.0)
    assert nf.threshold(12) == pytest.approx(nf.level_in_use + 20)


def test_recalibrate_on_demand():
    nf = NoiseFloor(100)
    for _ in range(10):
        nf.process(10.0, 160, 16000)
    assert nf.level_in_use == 10.0 and not nf.learning
    nf.recalibrate()
    assert nf.learning and nf.level_in_use == 10.0                   # old floor stays until learned
    for _ in range(10):
        nf.process(30.0, 160, 16000)
    assert nf.level_in_use == 30.0 and nf.version == 2


def test_errors():
    with pytest.raises(ConfigError, match=r"`noise_floor.learn_ms` must be a number 1..3,600,000 ms, got -1"):
        NoiseFloor(-1)
    with pytest.raises(ConfigError, match="not learned yet"):
        NoiseFloor().threshold(10)
    with pytest.raises(ConfigError, match="0 levels"):
        NoiseFloor().calibrate([float("nan")])
    assert np.isfinite(NoiseFloor().calibrate([1.0, float("nan"), 3.0]))


def test_the_floor_says_learning_until_learned_then_its_value():
    floor = NoiseFloor(learn_ms=100)
    assert floor.in_use() == {"level": "learning"}
    for _ in range(4):
        floor.process(12.0, 800, 16000)         # 50 ms a block
    assert floor.ready and floor.in_use() == {"level": 12.0}
    assert NoiseFloor(level=30).in_use() == {}  # set outright: the box shows it

