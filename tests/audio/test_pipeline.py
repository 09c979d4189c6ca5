"""AudioStage in a Runner, lazy sub-detectors, the CLI options and `sensekit events`."""
from __future__ import annotations

import argparse
import json

import numpy as np
import pytest
import soundfile as sf

from sensekit.audio.activity import ActivityDetector
from sensekit.audio.clap import ClapDetector, ClapPatternTracker
from sensekit.audio.pipeline import AudioStage
from sensekit.audio.pitch import PitchTracker
from sensekit.capture.base import AudioBlock, Source
from sensekit.errors import ConfigError
from sensekit.events import Dispatcher
from sensekit.runner import Runner

from .helpers import add_at, clap_burst, noise_floor, tone


class ArraySource(Source):
    """The smallest real source: blocks cut from an array."""
    kind = "array"
    has_audio = True

    def __init__(self, x: np.ndarray, rate: int, block: int = 512) -> None:
        self.items = [AudioBlock(k, i / rate, x[i:i + block], rate)
                      for k, i in enumerate(range(0, len(x), block))]
        self.sample_rate = rate
        self._i = 0

    def read(self, timeout=None):
        if self._i >= len(self.items):
            raise EOFError("end")
        self._i += 1
        return self.items[self._i - 1]


def demo_signal(rate=16000):
    x = noise_floor(3.0, rate, -70)
    for t in (1.0, 1.3):
        add_at(x, clap_burst(rate), t, rate)
    s = tone(0.5, rate, 220, 0.2, (1, 0.5))
    x[int(2.2 * rate): int(2.2 * rate) + len(s)] += s
    return x


def make_stage():
    return AudioStage(activity=ActivityDetector(25, 300), clap=ClapDetector(),
                      pattern=ClapPatternTracker(2), pitch=PitchTracker())


def test_stage_in_runner_emits_everything():
    rate = 16000
    runner = Runner(ArraySource(demo_signal(rate), rate), [make_stage()])
    seen: dict[str, list] = {}
    runner.dispatcher.on("*", lambda e: seen.setdefault(e.name, []).append(e))
    runner.run()
    assert [round(c.t, 2) for c in seen["clap"]] == [1.0, 1.3]
    assert len(seen["clap_pattern"]) == 1
    assert [a.activating for a in seen["activity"]][:2] == [True, False]
    voiced = [p.hz for p in seen["pitch"] if p.hz > 0]
    assert voiced and np.median(voiced) == pytest.approx(220, rel=0.02)
    assert len(seen["level"]) == len(runner.source.items)


def test_only_subscribed_detectors_run():
    rate = 16000
    src = ArraySource(demo_signal(rate), rate)
    d = Dispatcher()
    stage = make_stage()
    got = []
    d.on("activity", got.append)
    runner = Runner(src, [stage], d)
    runner.run()
    assert got and stage.clap._t0 is None and stage.pitch.analyses == 0   # never ran
    # level computed once per block and shared
    assert stage.meter.skipped_blocks == 0 and stage.level >= 0


def test_stage_skips_nan_blocks_and_keeps_levels_finite(caplog):
    rate = 16000
    x = demo_signal(rate)
    x[5000:5010] = np.nan
    stage = make_stage()
    levels = []
    for it in ArraySource(x, rate).items:
        for e in stage.process(it):
            if e.name == "level":
                levels.append(e.level)
    assert stage.skipped_blocks == 1 and all(np.isfinite(levels))
    assert len(levels) == len(ArraySource(x, rate).items) - 1


def test_stage_rejects_stereo_when_mono_configured_and_bad_rates():
    stage = AudioStage(channels=1, clap=ClapDetector())
    with pytest.raises(ConfigError, match="mono"):
        list(stage.process(AudioBlock(0, 0.0, np.zeros((256, 2), np.float32), 16000)))
    with pytest.raises(ConfigError, match="96000 Hz is not supported"):
        list(AudioStage(clap=ClapDetector()).process(AudioBlock(0, 0.0, np.zeros(256, np.float32), 96000)))


def parse(argv):
    from sensekit.cli import audio_options
    from sensekit.cli.tuning import add_tuning_arguments

    p = argparse.ArgumentParser()
    audio_options.add_arguments(p)
    add_tuning_arguments(p)
    return p.parse_args(argv)


def build(argv):
    """The audio stages of ``sensekit events`` for ``argv``, the chosen settings applied."""
    from sensekit.cli import audio_options, events

    stages, tuning = events.build(parse(argv), None, providers=[audio_options])
    for t in tuning.tunables():
        t.apply_pending()
    return stages


def test_options_build_stages():
    from sensekit.cli.audio_options import parse_activity

    assert build([]) == []
    (stage,) = build(["--activity", "30,750", "--clap", "--pattern", "3", "--pitch", "--gain", "60"])
    assert stage.activity.silence_level == 30 and stage.activity.timeout_ms == 750
    assert stage.pattern.count == 3 and stage.clap is not None and stage.pitch is not None
    assert stage.meter.gain == 60
    assert parse_activity("floor+12") == {"activity.on_db": 12.0}
    assert parse_activity("25,500") == {"activity.silence_level": 25.0, "activity.timeout_ms": 500.0}
    (book,) = build(["--activity", "--preset", "book"])               # the values come from the preset
    assert (book.activity.silence_level, book.activity.timeout_ms) == (25.0, 500.0)
    (floor,) = build(["--activity", "floor+12,300", "--set", "activity.off_db=6"])
    assert (floor.activity.on_db, floor.activity.off_db, floor.activity.timeout_ms) == (12.0, 6.0, 300.0)


def test_pattern_gap_is_the_trackers_own_unless_given():
    import inspect

    from sensekit.audio.clap_pattern import MAX_GAP_MS

    default = inspect.signature(ClapPatternTracker).parameters["max_gap_ms"].default
    assert default == MAX_GAP_MS == ClapPatternTracker().max_gap_ms
    (stage,) = build(["--pattern", "2"])
    assert stage.pattern.max_gap_ms == default
    (stage,) = build(["--pattern", "2", "--pattern-gap-ms", "450"])
    assert stage.pattern.max_gap_ms == 450.0


@pytest.mark.parametrize("argv, message", [
    (["--activity", "120"], "`--activity level` must be 0..100, got 120"),
    (["--activity", "25,-5"], "`activity.timeout_ms` must be a number 0..600000 ms, got -5"),
    (["--activity", "loud"], "--activity level must be 0..100 or floor\\+DB, got 'loud'"),
    (["--pattern", "1"], "`--pattern` must be 2..16, got 1"),
])
def test_option_errors_name_the_value(argv, message):
    with pytest.raises(ConfigError, match=message):
        build(argv)


def test_a_bad_activity_timeout_is_named_by_the_option_typed(capsys):
    # it named only `activity.timeout_ms`, where a bad level said `--activity level`
    from sensekit.cli import main

    assert main(["events", "demo", "--activity", "25,-5", "--max-items", "1"]) == 2
    assert capsys.readouterr().err == ("sensekit: error: --activity 25,-5: `activity.timeout_ms` must be "
                                       "a number 0..600000 ms, got -5.0\n")


def test_bound_options_are_checked_while_parsing(capsys):
    with pytest.raises(SystemExit):
        parse(["--clap", "--gain", "150"])
    assert "`audio.gain` must be a number 0..100, got 150" in capsys.readouterr().err


def test_events_cli_on_a_wav(tmp_path, capsys):
    from sensekit.cli import main

    rate = 16000
    wav = tmp_path / "claps.wav"
    sf.write(wav, demo_signal(rate), rate, subtype="PCM_16")
    assert main(["events", str(wav), "--clap", "--pattern", "2", "--activity", "25,300",
                 "--jsonl"]) == 0
    lines = [json.loads(l) for l in capsys.readouterr().out.splitlines()]
    claps = [l["t"] for l in lines if l["event"] == "clap"]
    assert claps == pytest.approx([1.0, 1.3], abs=0.002)
    assert any(l["event"] == "clap_pattern" for l in lines)
    assert any(l["event"] == "activity" and l["activating"] for l in lines)


def test_events_cli_errors(tmp_path, capsys):
    from sensekit.cli import main

    empty = tmp_path / "empty.wav"
    sf.write(empty, np.zeros(0, np.float32), 16000)
    assert main(["events", str(empty), "--clap"]) == 2
    assert "empty" in capsys.readouterr().err
    wav = tmp_path / "x.wav"
    sf.write(wav, np.zeros(1600, np.float32), 96000)
    assert main(["events", str(wav), "--clap"]) == 2
    assert "96000 Hz is not supported" in capsys.readouterr().err


def test_the_stage_holds_the_gain_and_hands_it_to_its_meter_and_clap_detector():
    """``audio.gain`` has one home, the stage: its meter and the clap detector it is given
    follow it from the start and on every change; smoothing changes take effect at once."""
    clap = ClapDetector()                                   # built at unity gain
    stage = AudioStage(gain=70, clap=clap)
    assert stage.gain == 70 and stage.meter.gain == 70 and clap.gain == 70
    stage.apply_now(gain=40.0, smoothing_ms=50.0)
    assert (stage.gain, stage.meter.gain, clap.gain, stage.meter.smoothing_ms) == (40.0, 40.0, 40.0, 50.0)
    x = np.full(4800, 0.1, np.float32)
    quiet = np.zeros(4800, np.float32)
    stage.meter.process(x, 0.0, 48000)
    smoothed = stage.meter.process(quiet, 0.1, 48000)           # 100 ms block, 50 ms constant
    stage.apply_now(smoothing_ms=0.0)
    assert 0 < smoothed < stage.meter.process(x, 0.2, 48000)    # smoothing off: the raw level
    assert stage.meter.process(quiet, 0.3, 48000) == 0.0


def test_nan_and_inf_blocks_are_skipped_live_and_in_a_replay_of_their_recording(tmp_path, caplog):
    """A block with NaN/Inf samples is skipped live (level kept, clap and pitch restarted); a
    recording used to store them as silence (NaN) or full scale (Inf), so its replay measured
    those blocks and gave other events. Now it lists where they were and the replay puts NaN
    back: the same events as live, and each of the two says so once in the log."""
    import logging

    from sensekit.capture.recorder import Recorder
    from sensekit.capture.recording_meta import read_meta
    from sensekit.capture.replay import ReplaySource
    from sensekit.capture.wav import float_to_int16, int16_to_float

    rate = 16000
    x = int16_to_float(float_to_int16(demo_signal(rate)))     # samples a WAV holds exactly
    x[5000:5010] = np.nan
    x[int(1.02 * rate)] = np.inf                              # in the first clap's tail
    x[int(2.3 * rate): int(2.3 * rate) + 700] = np.nan         # across a block boundary, in the tone
    blocks = ArraySource(x, rate).items

    def events(items) -> tuple[list[dict], AudioStage]:
        stage = make_stage()
        return [e.to_dict() for it in items for e in stage.process(it)], stage

    with caplog.at_level(logging.WARNING):
        live, live_stage = events(blocks)
        with Recorder(tmp_path / "nan.skrec", audio=(rate, 1), block_size=512) as rec:
            for b in blocks:
                rec.write(b)
        with ReplaySource(tmp_path / "nan.skrec") as src:
            replayed, replay_stage = events(list(src))
    assert read_meta(tmp_path / "nan.skrec")["audio"]["nonfinite"] == [
        [5000, 5010], [int(1.02 * rate), int(1.02 * rate) + 1], [int(2.3 * rate), int(2.3 * rate) + 700]]
    assert live_stage.skipped_blocks == replay_stage.skipped_blocks == 5
    assert {e["event"] for e in live} >= {"clap", "pitch", "activity", "level"}
    assert replayed == live
    said = [r.getMessage() for r in caplog.records if "NaN/Inf" in r.getMessage()]
    assert len(said) == 3 and sum("recorded as silence" in m for m in said) == 1   # live, recorder, replay
