"""Teaching gestures while the piece runs (``vision/taught_live.py``): the seconds count from
the first hand, names are checked, and learning fits the same model as the teach command.
Hand-made landmarks; the run on real footage is tests/panel/test_teach.py."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.errors import ConfigError
from sensekit.vision.taught_live import LiveTeaching


def _hand(seed: int) -> np.ndarray:
    pts = np.zeros((21, 3))
    pts[:, :2] = np.random.default_rng(seed).uniform(0, 100, (21, 2))
    return pts


def test_the_seconds_count_from_the_first_hand_and_then_recording_stops():
    live = LiveTeaching()
    live.add(0.0, _hand(0))                                  # before any record: nothing kept
    live.record("star", 1.0)
    assert live.status() == {"recording": "star", "left_s": None, "examples": {"star": 0}}
    for k in range(30):                                      # a hand at 2.0 .. 3.45 s, 20 fps
        live.add(2.0 + k * 0.05, _hand(1))
        if k == 10:
            assert live.status()["left_s"] == pytest.approx(0.5)
    assert live.status() == {"recording": None, "left_s": None, "examples": {"star": 21}}
    live.record("star", 0.5)                                 # again: added to its examples
    for k in range(5):
        live.add(5.0 + k * 0.05, _hand(1))
    assert live.status()["examples"] == {"star": 26}
    live.forget("star")
    assert live.status()["examples"] == {}


@pytest.mark.parametrize("name, seconds, words", [
    ("", 5, "gesture name"), ("9lives", 5, "gesture name"), ("a b", 5, "gesture name"), (3, 5, "gesture name"),
    ("star", 0.1, "seconds must be 0.2..60"), ("star", 61, "seconds must be 0.2..60"),
])
def test_bad_names_and_durations_are_one_sentence(name, seconds, words):
    with pytest.raises(ConfigError, match=words):
        LiveTeaching().record(name, seconds)


def test_learning_needs_two_names_and_a_saved_model_restarts_with_its_examples():
    pytest.importorskip("sklearn")
    live = LiveTeaching()
    live.record("star", 1.0)
    for k in range(10):
        live.add(k * 0.05, _hand(1))
    with pytest.raises(ConfigError, match="at least two gestures"):
        live.learn()
    live.record("heart", 1.0)
    for k in range(10):
        live.add(1.0 + k * 0.05, _hand(2))
    model = live.learn()
    assert model.classes == ["heart", "star"]
    again = LiveTeaching()
    again.load(model.to_dict())
    assert again.status()["examples"] == {"heart": 10, "star": 10}
    assert again.learn().to_dict() == model.to_dict()


@pytest.mark.parametrize("name, words", [
    ("x" * 10_000, "at most 64 characters, got 10,000"),
    ("star\nfake", r"one line of printable characters; 'star\\nfake' has '\\n' at character 5"),
    ("star\x1b[31m", "one line of printable characters"),
    ("none", "choose another name"),
])
def test_a_gesture_name_is_checked_at_every_door_in_one_short_line(name, words):
    """A name of 10,000 characters or with control characters broke the teach card and the JSON
    lines of gesture events (the command-line check had no length limit, a model read from a
    profile none at all): the teach card, ``teach gesture --class``, ``fit`` and a model from a
    profile all refuse it in one line that quotes the name cut short."""
    from sensekit.cli._teach_gesture import parse_range
    from sensekit.vision.taught import TaughtGestures

    model = {"format": "sensekit-taught-gestures-1", "k": 1, "min_confidence": 0.5, "classes": [name, "b"],
             "labels": [0, 1], "features": np.zeros((2, 42)).tolist()}
    doors = [lambda: LiveTeaching().record(name, 5), lambda: parse_range(f"{name}=1-2"),
             lambda: TaughtGestures().fit({name: [np.zeros(3)], "b": [np.zeros(3)]}),
             lambda: TaughtGestures.from_dict(model)]
    for door in doors:
        with pytest.raises(ConfigError, match=words) as err:
            door()
        message = str(err.value)
        assert "\n" not in message and "\x1b" not in message and len(message) < 160, message
    assert LiveTeaching().record("a" * 64, 5) is None and parse_range(" wave_2 = 1-2") == ("wave_2", 1.0, 2.0)
