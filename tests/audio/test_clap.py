"""ClapDetector on hand-made signals: one event per clap, rejections, streaming, bad input.

The claps here are synthetic (white noise, 2.5 ms decay); the real ones are in
test_real_clips.py, test_clap_invariance.py and test_claps_people_make.py.
"""
from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest

from sensekit.audio.clap import SCORE_RANGE, ClapDetector, ClapPatternTracker
from sensekit.errors import ConfigError
from sensekit.events import Clap

from .helpers import add_at, clap_burst, noise_floor, tone


def detect(x: np.ndarray, rate: int, block: int = 512, **kw) -> list[Clap]:
    d = ClapDetector(**kw)
    out: list[Clap] = []
    for k, i in enumerate(range(0, len(x), block)):
        out.extend(d.process(x[i:i + block], i / rate, rate, index=k))
    return out


def scene(rate: int, times=(0.5, 1.3, 2.0), seconds: float = 2.6, **kw) -> np.ndarray:
    x = noise_floor(seconds, rate, -65)
    for k, t in enumerate(times):
        add_at(x, clap_burst(rate, seed=k, **kw), t, rate)
    return x


@pytest.mark.parametrize("rate", [8000, 11025, 16000, 22050, 44100, 48000])
def test_one_event_per_clap_at_every_rate(rate):
    claps = detect(scene(rate), rate)
    assert [round(c.t, 2) for c in claps] == [0.5, 1.3, 2.0]
    for c in claps:
        assert 0.5 < c.strength <= 1.0


@pytest.mark.parametrize("rate", [8000, 48000])
def test_a_rate_given_up_front_gives_the_same_claps(rate):
    """ClapDetector(rate=...) (a library user who knows the rate) once failed in its constructor."""
    x = scene(rate)
    told = ClapDetector(rate=rate)
    claps = [c for k, i in enumerate(range(0, len(x), 512))
             for c in told.process(x[i:i + 512], i / rate, rate, index=k)]
    assert [c.t for c in claps] == [c.t for c in detect(x, rate)]
    assert len(claps) == 3
    assert ClapDetector(rate=rate, min_level=30).latency_ms == ClapDetector(rate=rate).latency_ms


@pytest.mark.parametrize("block", [64, 100, 256, 512, 1024, 4096])
def test_block_size_does_not_change_the_result(block):
    rate = 48000
    claps = detect(scene(rate), rate, block=block)
    assert [c.t for c in claps] == pytest.approx([0.5, 1.3, 2.0], abs=0.002)


def test_clap_at_the_very_start_of_a_stream():
    rate = 48000
    x = np.zeros(rate // 4, np.float32)
    add_at(x, clap_burst(rate), 0.002, rate)
    assert [round(c.t, 3) for c in detect(x, rate)] == [0.002]


def test_quiet_clap_over_room_noise_still_found():
    """A clap 40 dB over a quiet room, and one 20 dB softer in the same room, are found;
    raising ``min_level`` over the soft one's peak drops just that one."""
    rate = 44100
    x = noise_floor(2.0, rate, -80)
    add_at(x, clap_burst(rate, peak=0.3), 0.5, rate)
    add_at(x, clap_burst(rate, peak=0.03, seed=4), 1.3, rate)      # -20 dB re the first
    assert [round(c.t, 2) for c in detect(x, rate)] == [0.5, 1.3]
    assert [round(c.t, 2) for c in detect(x, rate, min_level=60)] == [0.5]


@pytest.mark.parametrize("name, make", [
    ("sine tone", lambda r: tone(1.0, r, 880, 0.5)),
    ("hum with harmonics", lambda r: tone(1.0, r, 150, 0.5, (1, 0.6, 0.4, 0.3))),
    ("steady noise", lambda r: np.random.default_rng(2).uniform(-0.3, 0.3, r).astype(np.float32)),
])
def test_non_impulsive_sounds_are_not_claps(name, make):
    """Loud sounds that start within 2 ms (a fast onset) but go on. (Switched on or off
    within a sample, a loud tone is a click at each end: a click is impulsive.)"""
    rate = 48000
    x = noise_floor(1.5, rate, -65)
    s = make(rate)
    ramp = np.minimum(1.0, np.minimum(np.arange(len(s)), np.arange(len(s))[::-1]) / (0.002 * rate))
    x[rate // 4: rate // 4 + len(s)] += s * ramp.astype(np.float32)
    assert detect(x, rate) == [], name


def test_long_noise_burst_is_not_a_clap():
    """Loudness and onset are not enough: a 150 ms noise burst (a cough/hiss) does not decay."""
    rate = 48000
    x = noise_floor(1.0, rate, -65)
    add_at(x, clap_burst(rate, length_ms=150, decay_ms=400), 0.4, rate)
    assert detect(x, rate) == []


def test_low_thump_is_not_a_clap():
    """A knock-like burst: sharp onset but all energy in a 200 Hz resonance."""
    rate = 48000
    x = noise_floor(1.0, rate, -65)
    n = int(0.06 * rate)
    t = np.arange(n) / rate
    add_at(x, (0.6 * np.exp(-t / 0.02) * np.sin(2 * np.pi * 200 * t)).astype(np.float32), 0.4, rate)
    assert detect(x, rate) == []


def test_gain_scales_the_minimum_level():
    rate = 16000
    x = noise_floor(1.0, rate, -100)
    add_at(x, clap_burst(rate, peak=0.004), 0.5, rate)          # a faint clap: ~-52 dBFS peak
    assert detect(x, rate, min_level=40) == []
    assert len(detect(x, rate, min_level=40, gain=80)) == 1     # +18 dB of gain


def test_latency_is_the_look_ahead_plus_at_most_one_block():
    """A clap is decided once ``latency_ms`` after its peak have arrived: its event comes with
    the block holding that sample (the peak is a few ms after the onset)."""
    rate, block = 48000, 512
    for t_on in (0.5, 0.5107, 0.5213, 0.53, 0.7777):
        x = noise_floor(1.2, rate, -65)
        add_at(x, clap_burst(rate), t_on, rate)
        d = ClapDetector()
        due = int((t_on + 0.006 + d.latency_ms / 1000.0) * rate) // block
        emitted = [k for k, i in enumerate(range(0, len(x), block))
                   if d.process(x[i:i + block], i / rate, rate, index=k)]
        assert len(emitted) == 1 and emitted[0] <= due, (t_on, emitted, due)
    assert 25.0 <= ClapDetector().latency_ms <= 40.0


def test_patterns_with_max_gap():
    tr = ClapPatternTracker(2, max_gap_ms=500)
    times = [1.0, 1.3, 3.0, 4.0, 4.4, 4.6]
    pats = tr.add_all(Clap(t=t) for t in times)
    assert [p.times for p in pats] == [(1.0, 1.3), (4.0, 4.4)]
    tr3 = ClapPatternTracker(3, max_gap_ms=500)
    assert [p.times for p in tr3.add_all(Clap(t=t) for t in times)] == [(4.0, 4.4, 4.6)]


def test_double_clap_pattern_from_audio():
    rate = 16000
    claps = detect(scene(rate, times=(0.4, 0.7, 1.9)), rate)
    pats = ClapPatternTracker(2, max_gap_ms=600).add_all(claps)
    assert len(pats) == 1 and pats[0].times == pytest.approx((0.4, 0.7), abs=0.002)


def test_unsupported_rates_and_rate_changes():
    with pytest.raises(ConfigError, match="sample rate 96000 Hz is not supported.*8000..48000"):
        ClapDetector(rate=96000)
    d = ClapDetector()
    with pytest.raises(ConfigError, match="sample rate 4000 Hz"):
        d.process(np.zeros(256, np.float32), 0.0, 4000)
    d.process(np.zeros(256, np.float32), 0.0, 16000)
    with pytest.raises(ConfigError, match="changed from 16000 to 48000 Hz at audio block 1"):
        d.process(np.zeros(256, np.float32), 0.016, 48000, index=1)


def test_stereo_block_where_mono_was_configured():
    d = ClapDetector(channels=1)
    with pytest.raises(ConfigError, match=r"audio block 2 has shape \(512, 2\) \(2 channels\) but mono"):
        d.process(np.zeros((512, 2), np.float32), 0.0, 48000, index=2)
    # unconfigured: stereo is mixed to mono and works
    rate = 48000
    x = scene(rate, times=(0.5,))
    st = np.stack([x, x], axis=1)
    got = []
    d2 = ClapDetector()
    for k, i in enumerate(range(0, len(st), 512)):
        got += d2.process(st[i:i + 512], i / rate, rate, index=k)
    assert len(got) == 1


def test_nan_blocks_are_reported_skipped_and_never_produce_events(caplog):
    rate = 48000
    x = scene(rate, times=(0.5, 1.3))
    x[int(0.9 * rate): int(0.9 * rate) + 100] = np.nan
    with caplog.at_level(logging.WARNING):
        claps = detect(x, rate)
    assert [round(c.t, 2) for c in claps] == [0.5, 1.3]
    assert "NaN/Inf" in caplog.text


@pytest.mark.parametrize("kwargs, message", [
    ({"min_level": 150}, "`clap.min_level` must be a number 0..100 level, got 150"),
    ({"threshold": 50}, "`clap.threshold` must be a number "
                        f"{SCORE_RANGE[0]:g}..{SCORE_RANGE[1]:g}, got 50"),
    ({"min_rise_db": 3}, "`clap.min_rise_db` must be a number 8..40 dB, got 3"),
    ({"min_gap_ms": -5}, "`clap.min_gap_ms` must be a number 0..1000 ms, got -5"),
    ({"bogus": 1}, "bogus"),
    ({"gain": -1}, "`gain` must be 0..100, got -1"),
])
def test_bad_settings(kwargs, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ClapDetector(**kwargs)
    with pytest.raises(ConfigError, match="`count` must be 2..16, got 1"):
        ClapPatternTracker(1)


def test_burst_that_builds_up_and_lingers_is_not_a_clap():
    """A noise burst that builds up over 25 ms and lingers for 60 ms (a cough's explosive
    phase) is not a clap - while the instant-attack, 3 ms version is. (A build-up of a few
    ms is normal for claps: the palms meet before the air bursts out.)"""
    rate = 48000
    x = noise_floor(1.0, rate, -65)
    n_up = int(0.025 * rate)
    up = (np.random.default_rng(5).uniform(-0.5, 0.5, n_up) * np.arange(n_up) / n_up).astype(np.float32)
    slow = np.concatenate([up, clap_burst(rate, length_ms=150, decay_ms=60)])
    add_at(x, slow, 0.4, rate)
    assert detect(x, rate) == []
    y = noise_floor(1.0, rate, -65)
    add_at(y, clap_burst(rate, length_ms=20, decay_ms=3), 0.4, rate)
    assert len(detect(y, rate)) == 1


@pytest.mark.skipif(not (Path(__file__).resolve().parents[2] / "recordings" / "demo.skrec" / "meta.json").is_file(),
                    reason="recordings/demo.skrec not generated")
@pytest.mark.parametrize("key", ["clap.threshold", "clap.min_level"])
def test_the_strictest_clap_setting_finds_fewer_claps_in_events(capsys, key):
    """`sensekit events demo --clap --set KEY=<its maximum>` (through the settings table) finds
    fewer claps than the defaults do."""
    from sensekit.cli import main
    from sensekit.settings import lookup

    def claps(*extra: str) -> int:
        assert main(["events", "demo", "--clap", "--jsonl", *extra]) == 0
        return sum(json.loads(line)["event"] == "clap" for line in capsys.readouterr().out.splitlines())

    default = claps()
    strict = claps("--set", f"{key}={lookup(key).hi:g}")
    assert default >= 4 and strict < default, (default, strict)


def test_a_burst_with_no_air_is_never_a_clap():
    """The air gate (clap_training.with_air_gate): a clap always has some energy above
    4.5 kHz. The same clap-like burst, low-passed at 1.5 kHz like a knock on wood, is
    rejected even at the lowest threshold the trees alone can score; unfiltered, or at
    8 kHz where air is not measured, it is judged by the trees as before."""
    from scipy.signal import butter, sosfilt

    rate = 48000
    burst = clap_burst(rate)
    dull = sosfilt(butter(8, 1500.0, "lp", fs=rate, output="sos"), burst).astype(np.float32)
    lowest = SCORE_RANGE[0] + 100.0                 # the trees' minimum without the gate
    found = []
    for b in (burst, dull):
        x = noise_floor(1.0, rate, -65)
        add_at(x, b * (0.5 / np.abs(b).max()), 0.4, rate)
        found.append(len(detect(x, rate, threshold=lowest)))
    assert found == [1, 0]
    x8 = noise_floor(1.0, 8000, -65)
    add_at(x8, clap_burst(8000), 0.4, 8000)
    assert len(detect(x8, 8000, threshold=lowest)) == 1



def test_a_longer_decay_never_makes_a_burst_more_of_a_clap():
    """The shipped trees are monotone where physics is (clap_training.DECREASING): a clap
    is over within ~10 ms, so a burst that decays more slowly never scores higher, even
    where the training bursts are too few to say so (unconstrained, a 150 ms hiss scored
    as a clap)."""
    from sensekit.audio.clap_features import FEATURES, clap_score
    from sensekit.evaluation.audio.clap_training import DECREASING

    rng = np.random.default_rng(3)
    clap = np.array([35.0, 15.0, 50.0, 25.0, 2.0, 6.0, -17.0, -20.0, -15.0, -14.0, -4.0, -8.0,
                     0.3, 2.9, 0.7, -10.0])
    assert len(clap) == len(FEATURES)
    base = clap + rng.normal(0.0, 1.0, (40, len(FEATURES))) * (np.abs(clap) / 3.0 + 0.1)
    for name in DECREASING:
        j = FEATURES.index(name)
        lo, hi = (0.0, 30.0) if name.endswith("_ms") else (-30.0, 3.0)
        for v in base:
            scores = []
            for value in np.linspace(lo, hi, 25):
                w = v.copy()
                w[j] = value
                scores.append(clap_score(w))
            assert np.all(np.diff(scores) <= 1e-9), (name, scores)
