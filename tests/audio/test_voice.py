"""Voice commands (sensekit.audio.vad, words, voice; the voice extra) on real spoken digits."""
from __future__ import annotations

import re

from sensekit.installed import install_hint
import json

import numpy as np
import pytest

from sensekit.capture.base import AudioBlock
from sensekit.errors import ConfigError

pytest.importorskip("pocketsphinx")
pytest.importorskip("webrtcvad")
pytest.importorskip("soxr")

from sensekit.audio.vad import RATE, SpeechSegmenter
from sensekit.audio.voice import VoiceStage


def read(path):
    import soundfile as sf

    x, rate = sf.read(str(path), dtype="float32")
    return x, rate


def with_silence(x: np.ndarray, rate: int, before_s: float = 0.5, after_s: float = 0.6) -> np.ndarray:
    return np.concatenate([np.zeros(int(before_s * rate), np.float32), x,
                           np.zeros(int(after_s * rate), np.float32)])


def run_stage(stage: VoiceStage, x: np.ndarray, rate: int, block_s: float = 0.02) -> list:
    n = max(1, int(block_s * rate))
    events = []
    for i in range(0, len(x), n):
        events += stage.process(AudioBlock(i // n, i / rate, x[i:i + n], rate, None))
    return events + stage.finish()


def take(shared_data, digit: int, speaker: str, k: int):
    return read(shared_data / "words" / f"{digit}_{speaker}_{k}.wav")


# --- the segmenter ------------------------------------------------------------------

def test_silence_and_steady_noise_give_no_segment_and_cost_no_decoding():
    rng = np.random.default_rng(0)
    stage = VoiceStage({"words": ("left", "right")})
    rate = 16000
    quiet = np.zeros(rate * 3, np.float32)
    hiss = (rng.standard_normal(rate * 3) * 0.01).astype(np.float32)
    hum = (0.05 * np.sin(2 * np.pi * 50 * np.arange(rate * 3) / rate)).astype(np.float32)
    for x in (quiet, hiss, hum):
        assert run_stage(stage, x, rate) == []
    assert stage.segments == 0 and stage.spotter.decoded_s == 0.0


def test_a_spoken_digit_is_one_segment_at_its_time(shared_data):
    x, rate = take(shared_data, 7, "theo", 3)
    import soxr

    y = soxr.resample(with_silence(x, rate), rate, RATE)
    pcm = (np.clip(y, -1, 1) * 32767).astype(np.int16)
    seg = SpeechSegmenter()
    found = seg.feed(pcm[:len(pcm) // 2], 0.0) + seg.feed(pcm[len(pcm) // 2:], len(pcm) // 2 / RATE)
    found += seg.flush(len(pcm) / RATE)
    assert len(found) == 1
    s = found[0]
    word_s = len(x) / rate
    assert 0.45 <= s.start <= 0.5 + 0.1 and 0.5 + word_s - 0.15 <= s.end <= 0.5 + word_s + 0.05
    assert s.t0 <= s.start and len(s.pcm) / RATE >= s.end - s.start


# --- words ----------------------------------------------------------------------------

@pytest.mark.parametrize("speaker", ["theo", "yweweler", "nicolas"])
def test_command_words_are_heard_and_other_digits_mostly_not(shared_data, speaker):
    stage = VoiceStage({"words": ("one", "nine")})
    heard, false = 0, 0
    for k in range(5):
        for digit, word in ((1, "one"), (9, "nine")):
            x, rate = take(shared_data, digit, speaker, k)
            events = run_stage(stage, with_silence(x, rate), rate)
            heard += any(e.word == word for e in events)
        for digit in (3, 4, 6):
            x, rate = take(shared_data, digit, speaker, k)
            false += len(run_stage(stage, with_silence(x, rate), rate))
    assert heard >= 7, f"{speaker}: heard {heard} of 10 commands"
    # nicolas' non-target digits are accepted 9-17 % of the time at the default threshold
    # (benchmarks/voice_eval.py); theo's and yweweler's 0-6 %
    assert false <= (4 if speaker == "nicolas" else 2), f"{speaker}: {false} false words on 15 other digits"


def test_event_fields_and_any_rate(shared_data):
    from scipy.signal import resample_poly

    x, rate = take(shared_data, 1, "theo", 0)
    x = with_silence(x, rate)
    e8 = run_stage(VoiceStage({"words": ("one",)}), x, rate)
    x44 = resample_poly(x, 441, 80).astype(np.float32)
    e44 = run_stage(VoiceStage({"words": ("one",)}), x44, 44100)
    assert [e.word for e in e8] == [e.word for e in e44] == ["one"]
    for e in e8 + e44:
        assert 0.4 < e.start < e.end < 0.5 + len(x) / rate
        assert e.end < e.t <= e.end + 0.35          # heard within the hangover of the word's end
        assert 0.5 <= e.confidence <= 1.0
    assert e8[0].start == pytest.approx(e44[0].start, abs=0.03)


def test_replay_is_deterministic_and_blocks_do_not_matter(shared_data):
    rate = 8000
    x = np.concatenate([with_silence(take(shared_data, d, s, k)[0], rate)
                        for d, s, k in ((9, "yweweler", 1), (1, "theo", 0), (1, "theo", 1), (9, "nicolas", 4))])
    runs = [run_stage(VoiceStage({"words": ("one", "nine")}), x, rate, block_s=b) for b in (0.02, 0.02, 0.064)]
    assert runs[0] == runs[1] and len(runs[0]) >= 2
    assert [e.word for e in runs[0]] == [e.word for e in runs[2]]
    assert [e.start for e in runs[0]] == pytest.approx([e.start for e in runs[2]], abs=0.011)


def test_words_change_while_running(shared_data):
    rate = 8000
    x = np.concatenate([with_silence(take(shared_data, 9, s, 0)[0], rate) for s in ("theo", "yweweler", "nicolas")])
    stage = VoiceStage({"words": ("left",)})
    assert [e.word for e in run_stage(stage, x, rate)] == []
    stage.apply(words=("nine",))
    after = run_stage(stage, x, rate)
    assert after == run_stage(VoiceStage({"words": ("nine",)}), x, rate)
    assert after and {e.word for e in after} == {"nine"}       # (the model misses some takes)


def test_unknown_words_and_bad_input_are_one_line_errors():
    with pytest.raises(ConfigError, match="not in the recogniser's English dictionary: qzxv") as err:
        VoiceStage({"words": ("left", "qzxv")})
    # the way to such a word: taught from takes (a taught sound gives `sound` events, not `word`)
    assert "teach them from takes: sensekit teach words --profile FILE" in str(err.value)
    with pytest.raises(ConfigError, match="needs command words"):
        VoiceStage()
    stage = VoiceStage({"words": ("left",)})
    with pytest.raises(ConfigError, match="8000 Hz or more"):
        stage.process(AudioBlock(0, 0.0, np.zeros(100, np.float32), 4000, None))
    bad = np.full(160, np.nan, np.float32)
    assert list(stage.process(AudioBlock(0, 0.0, bad, 16000, None))) == [] and stage.skipped_blocks == 1


def test_without_the_extra_words_say_what_to_install(monkeypatch):
    import sys

    from sensekit.cli import main

    monkeypatch.setitem(sys.modules, "pocketsphinx", None)
    with pytest.raises(ConfigError, match=re.escape(install_hint("voice"))):
        VoiceStage({"words": ("left",)})
    assert main(["events", "x.wav", "--words", "left"]) == 2


# --- the command line and the profile ---------------------------------------------------

def test_events_command_prints_word_lines(shared_data, capsys, tmp_path):
    from sensekit.cli import main

    import soundfile as sf

    x, rate = take(shared_data, 1, "theo", 0)
    path = tmp_path / "one.wav"                  # a recording: the word with silence around it
    sf.write(str(path), with_silence(x, rate), rate)
    assert main(["events", str(path), "--words", "one,nine", "--jsonl"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(d["event"], d["word"]) for d in lines] == [("word", "one")]
    assert set(lines[0]) == {"event", "t", "word", "start", "end", "confidence"}
    profile = tmp_path / "venue.toml"
    profile.write_text('[voice]\nwords = ["One", "nine"]\nthreshold = -0.9\n')
    assert main(["events", str(path), "--profile", str(profile), "--jsonl"]) == 0
    assert [json.loads(line)["word"] for line in capsys.readouterr().out.splitlines()] == ["one"]
    assert main(["events", str(path), "--words", "one,qzxv"]) == 2
    assert "qzxv" in capsys.readouterr().err


def test_run_with_words_feeds_the_app_and_the_events_file(shared_data, tmp_path, capsys):
    import soundfile as sf

    from sensekit.cli import main

    rate = 8000
    clip = tmp_path / "ones.wav"
    sf.write(str(clip), np.concatenate([with_silence(take(shared_data, 1, "theo", k)[0], rate)
                                        for k in range(3)]), rate)
    events = tmp_path / "events.jsonl"
    assert main(["run", "sound_flier", "--source", str(clip), "--headless", "--words", "one",
                 "--events", str(events)]) == 0
    words = [json.loads(line) for line in events.read_text().splitlines() if '"word"' in line]
    assert [w["word"] for w in words] == ["one"] * 3


def test_widen_band_tells_the_recogniser_the_source_band(shared_data):
    x, rate = take(shared_data, 1, "theo", 0)
    stage = VoiceStage({"words": ("one",)})
    assert [e.word for e in run_stage(stage, with_silence(x, rate), rate)] == ["one"]
    assert stage.spotter.band_hz is None                 # widen_band is off by default
    stage = VoiceStage({"words": ("one",), "widen_band": True})
    assert [e.word for e in run_stage(stage, with_silence(x, rate), rate)] == ["one"]
    assert stage.spotter.band_hz == 4000.0               # 8 kHz input: its top band is filled
    stage.apply(words=("one", "nine"))
    from scipy.signal import resample_poly

    y = resample_poly(with_silence(x, rate), 2, 1).astype(np.float32)
    assert [e.word for e in run_stage(stage, y, 16000)] == ["one"]
    assert stage.spotter.band_hz == 8000.0               # 16 kHz: left as it is


def test_a_reset_segmenter_cuts_a_stream_as_a_new_one_does(shared_data):
    import soxr

    rate = 8000
    x = np.concatenate([with_silence(take(shared_data, 9, s, 0)[0], rate) for s in ("theo", "yweweler")])
    pcm = (soxr.resample(x, rate, RATE) * 32767).astype(np.int16)
    seg = SpeechSegmenter()
    first = seg.feed(pcm, 0.0) + seg.flush(len(pcm) / RATE)
    seg.reset()                                  # the WebRTC detector adapts: it must start afresh too
    again = seg.feed(pcm, 0.0) + seg.flush(len(pcm) / RATE)
    assert len(first) == 2 and len(again) == 2
    for a, b in zip(first, again):
        assert (a.t0, a.start, a.end) == (b.t0, b.start, b.end) and np.array_equal(a.pcm, b.pcm)
