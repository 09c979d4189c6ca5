"""Short sounds open a segment on their onset (``SpeechSegmenter(transients=True)``, the cut of
taught sounds): synthetic signals. The real clips are in ``test_sounds_short.py``."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("webrtcvad")
pytest.importorskip("soxr")

from sensekit.audio.sounds import SoundBook, example_segment
from sensekit.audio.vad import RATE, SpeechSegmenter, to_pcm16, voiced_segments
from sensekit.errors import ConfigError


def _room(seconds: float, seed: int, level: float = 1e-3) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(int(seconds * RATE)) * level).astype(np.float32)


def _click(ms: float, seed: int, level: float = 0.5) -> np.ndarray:
    """A burst of noise decaying over ``ms`` (a snap, a tap): no voice in it."""
    n = int(ms * RATE / 1000)
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(n) * level * np.exp(-np.arange(n) / (n / 5))).astype(np.float32)


def _with_clicks(times: list[float], seconds: float = 4.0, ms: float = 40.0, seed: int = 3) -> np.ndarray:
    y = _room(seconds, seed)
    for k, t in enumerate(times):
        c = _click(ms, seed + 10 + k)
        i = int(t * RATE)
        y[i:i + len(c)] += c
    return y


def test_a_short_click_opens_a_segment_only_with_transients():
    y = _with_clicks([1.5, 2.7])
    assert voiced_segments(y, RATE) == []                  # today's cut: too short and unvoiced
    found = voiced_segments(y, RATE, transients=True)
    starts = [s.start - 0.5 for s in found]               # voiced_segments pads 0.5 s
    assert len(found) == 2, [(s.start, s.end) for s in found]
    assert abs(starts[0] - 1.5) <= 0.02 and abs(starts[1] - 2.7) <= 0.02
    for s in found:
        assert s.transient                                 # words are not looked for in it
        assert s.end - s.start <= 0.1


def test_steady_noise_a_fade_in_and_a_switched_on_fan_open_nothing():
    quiet = _room(3.0, 5)
    ramp = _room(3.0, 6, level=0.05) * np.linspace(0.0, 1.0, 3 * RATE).astype(np.float32)
    fan = np.concatenate([_room(1.5, 7), _room(2.5, 8, level=0.05)])   # 34 dB louder at once
    for y in (quiet, ramp, fan):
        assert voiced_segments(y, RATE, transients=True) == []


def test_a_quiet_click_under_20_db_over_the_room_opens_nothing():
    y = _room(3.0, 9, level=1e-2)
    c = _click(40.0, 11, level=0.03)                       # ~10 dB over the room at its peak
    y[RATE:RATE + len(c)] += c
    assert voiced_segments(y, RATE, transients=True) == []


def test_streaming_in_blocks_cuts_as_the_whole_clip():
    y = to_pcm16(_with_clicks([0.8, 1.9, 3.1]))
    whole = SpeechSegmenter(transients=True)
    a = whole.feed(y, 0.0) + whole.flush(len(y) / RATE)
    blocks = SpeechSegmenter(transients=True)
    b = []
    for i in range(0, len(y), 777):
        b += blocks.feed(y[i:i + 777], i / RATE)
    b += blocks.flush(len(y) / RATE)
    assert len(a) == len(b) == 3
    for s, u in zip(a, b):
        assert (s.start, s.end, s.transient) == (pytest.approx(u.start, abs=1e-9), pytest.approx(u.end, abs=1e-9),
                                                 u.transient)


def test_a_click_taught_from_three_examples_is_heard_and_a_long_hiss_is_not():
    taught = [example_segment(_with_clicks([1.0], 2.0, seed=20 + k), RATE, transients=True) for k in range(3)]
    book = SoundBook()
    book.teach("click", taught)
    heard = [book.match(s, 0.0, distance=1.5) for s in voiced_segments(_with_clicks([1.0, 2.5], seed=40), RATE,
                                                                         transients=True)]
    assert [h.sound if h else None for h in heard] == ["click", "click"]
    with pytest.raises(ConfigError, match="rise 20 dB"):
        example_segment(_room(2.0, 50), RATE, what="ex", transients=True)


def test_the_voice_stage_hears_a_taught_click_and_decodes_no_word_in_it():
    pytest.importorskip("pocketsphinx")
    from sensekit.audio.voice import VoiceStage
    from sensekit.capture.base import AudioBlock

    taught = [example_segment(_with_clicks([1.0], 2.0, seed=20 + k), RATE, transients=True) for k in range(3)]
    book = SoundBook()
    book.teach("click", taught)
    events = []
    for stage in (VoiceStage({"words": ("left",)}, sounds=book), VoiceStage({"words": ("left",)})):
        x = _with_clicks([1.0, 2.5], seed=40)
        out = []
        for i in range(0, len(x), 320):
            out += stage.process(AudioBlock(i // 320, i / RATE, x[i:i + 320], RATE, None))
        out += stage.finish()
        events.append([e.sound for e in out])
        assert stage.spotter.decoded_s == 0.0             # the clicks went to no word search
    assert events == [["click", "click"], []]             # without taught sounds: no segment at all
