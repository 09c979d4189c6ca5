"""ActivityDetector: Flash's setSilenceLevel semantics pinned on hand-made levels and signals."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from sensekit.audio.activity import ActivityDetector
from sensekit.audio.level import LevelMeter
from sensekit.audio.noise_floor import NoiseFloor
from sensekit.errors import ConfigError

from .helpers import blocks_of, noise_floor

BLOCK_S = 0.01   # hand-made level sequences: one level per 10 ms


def run(det: ActivityDetector, levels: list[float]) -> list[tuple[float, bool]]:
    out = []
    for k, lv in enumerate(levels):
        ev = det.process(lv, round(k * BLOCK_S, 9))
        if ev is not None:
            out.append((round(ev.t, 6), ev.activating))
    return out


def test_flash_defaults():
    d = ActivityDetector()
    assert (d.silence_level, d.timeout_ms, d.off_level) == (10.0, 2000.0, None)
    assert (d.on_level, d.quiet_level) == (10.0, 10.0)             # the thresholds in use


def test_one_loud_burst_gives_one_activating_and_one_deactivating_event():
    levels = [0.0] * 10 + [60.0] * 5 + [0.0] * 300
    assert run(ActivityDetector(25, 500), levels) == [(0.1, True), (0.64, False)]


def test_events_inside_the_timeout_are_ignored():
    # bang, bang, bang: 3 bursts 200 ms apart with a 500 ms timeout -> one pair of events
    levels = ([0.0] * 10 + [60.0] * 2 + [0.0] * 18) * 3 + [0.0] * 100
    assert run(ActivityDetector(25, 500), levels) == [(0.1, True), (1.21, False)]
    # the same bursts with a 100 ms timeout are three separate activations
    ev = run(ActivityDetector(25, 100), levels)
    assert [a for _, a in ev] == [True, False] * 3


def test_threshold_is_inclusive_and_timeout_exact():
    d = ActivityDetector(25, 50)
    assert run(d, [24.999, 25.0, 0, 0, 0, 0, 0, 0]) == [(0.01, True), (0.06, False)]


def test_hysteresis_off_level():
    # level hovers 20..30 around a threshold of 25: without hysteresis it chatters
    levels = [0.0] * 5 + [30.0, 20.0] * 20 + [0.0] * 20
    plain = run(ActivityDetector(25, 0), levels)
    hyst = run(ActivityDetector(25, 0, off_level=15), levels)
    assert len(plain) > 20
    assert hyst == [(0.05, True), (0.45, False)]


def test_minimum_duration():
    short = [0.0] * 5 + [50.0] * 3 + [0.0] * 50        # 30 ms burst
    long = [0.0] * 5 + [50.0] * 10 + [0.0] * 50        # 100 ms burst
    assert run(ActivityDetector(25, 100, min_duration_ms=50), short) == []
    assert run(ActivityDetector(25, 100, min_duration_ms=50), long) == [(0.1, True), (0.24, False)]


def test_matches_reference_detector_on_its_own_signal():
    """Same events as ../shared/bench/audio_ref.py's detect_stream, fed the same levels."""
    ref_path = Path(__file__).resolve().parents[3] / "shared" / "bench" / "audio_ref.py"
    if not ref_path.is_file():
        pytest.skip(f"reference benchmark not found at {ref_path}")
    sys.path.insert(0, str(ref_path.parent))
    spec = importlib.util.spec_from_file_location("audio_ref_for_test", ref_path)
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    sig = ref.synth_signal(48000, 20.0, np.random.default_rng(7))
    blocks = [sig[i:i + 512] for i in range(0, len(sig) - 511, 512)]
    fns = ref.make_level_fns(512, -60.0)
    levels = [fns["rms_dot"](b) for b in blocks]
    block_ms = 512 / 48.0
    want = ref.detect_stream(blocks, fns["rms_dot"], 10.0, 2000.0, block_ms)
    d = ActivityDetector(10, 2000)
    got = []
    for i, lv in enumerate(levels):
        ev = d.process(lv, i * block_ms / 1000.0)
        if ev is not None:
            got.append((i, ev.activating))
    assert got == want and len(got) >= 4


def test_on_a_real_signal_burst():
    rate = 16000
    x = noise_floor(3.0, rate, -70)
    x[rate: rate + 800] += 0.3                                # one 50 ms loud burst at 1 s
    det = ActivityDetector(25, 500)
    events = [e for e in (det.feed(b) for b in blocks_of(x, rate)) if e is not None]
    assert [e.activating for e in events] == [True, False]
    assert events[0].t == pytest.approx(1.0, abs=512 / rate)
    assert events[1].t == pytest.approx(1.05 + 0.5, abs=2 * 512 / rate)


def test_thresholds_relative_to_the_noise_floor():
    rate = 16000
    x = noise_floor(4.0, rate, -50)                           # ambient -50 dBFS = level 26.7
    x[3 * rate: 3 * rate + 1600] *= 10 ** (15 / 20)           # +15 dB for 100 ms
    nf = NoiseFloor(1000)
    det = ActivityDetector(noise_floor=nf, on_db=10, off_db=6, timeout_ms=200)
    meter = LevelMeter()
    events = []
    for b in blocks_of(x, rate):
        lv = meter.feed(b)
        nf.process(lv, len(b.samples), rate)
        ev = det.process(lv, b.t)
        if ev is not None:
            events.append(ev)
    assert nf.ready and nf.db == pytest.approx(-50, abs=1.0)
    assert det.on_level == pytest.approx(nf.level_in_use + 10 / 0.6)
    assert det.quiet_level == pytest.approx(nf.level_in_use + 6 / 0.6)
    assert [e.activating for e in events] == [True, False]
    assert events[0].t == pytest.approx(3.0, abs=0.04)


@pytest.mark.parametrize("kwargs, message", [
    ({"silence_level": 101}, "`activity.silence_level` must be a number 0..100 level, got 101"),
    ({"silence_level": -5}, "`activity.silence_level` must be a number 0..100 level, got -5"),
    ({"timeout_ms": -1}, "`activity.timeout_ms` must be a number 0..600000 ms, got -1"),
    ({"min_duration_ms": -3}, "`activity.min_duration_ms` must be a number 0..600000 ms, got -3"),
    ({"silence_level": 20, "off_level": 30}, "`activity.off_level` must not exceed `activity.silence_level`"),
    ({"on_db": 6, "off_db": 10}, "`activity.off_db` must not exceed `activity.on_db`"),
    ({"silence_levl": 6}, "unknown setting `activity.silence_levl`"),
])
def test_bad_settings(kwargs, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ActivityDetector(**kwargs)
