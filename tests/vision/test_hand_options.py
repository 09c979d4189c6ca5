"""The hand stage's settings and CLI options, its events over JSON and OSC: no MediaPipe needed.

In the default install (no extra) ``--hands`` must be one plain line naming the install
command, exit status 2; with the extra (``.venv-hands``) that test skips.
"""
from __future__ import annotations

from sensekit.installed import install_hint
import importlib.util
import subprocess
import sys

import pytest

from sensekit.errors import ConfigError
from sensekit.events import Gesture, Hand, HandLost, Pinch, from_jsonl, to_jsonl
from sensekit.osc import decode, encode
from sensekit.vision.hands import HAND_SETTINGS

HAVE_MEDIAPIPE = importlib.util.find_spec("mediapipe") is not None


def test_defaults_are_the_documented_ones():
    s = HAND_SETTINGS.defaults()
    assert (s["max_hands"], s["model"], s["min_detection_confidence"], s["min_tracking_confidence"],
            s["smoothing"]) == (2, "full", 0.5, 0.5, True)


@pytest.mark.parametrize("kwargs, words", [
    ({"max_hands": 3}, "`hands.max_hands` must be a whole number 1..2 hands, got 3"),
    ({"max_hands": 1.5}, "`hands.max_hands` must be a whole number"),
    ({"model": "heavy"}, "`hands.model` must be one of lite, full, got 'heavy'"),
    ({"min_detection_confidence": 1.5}, "`hands.min_detection_confidence` must be a number 0..1, got 1.5"),
    ({"min_tracking_confidence": -0.1}, "`hands.min_tracking_confidence` must be a number 0..1"),
    ({"smoothing": "yes"}, "`hands.smoothing` must be true or false"),
    ({"pinch_start_below": 0.5, "pinch_end_above": 0.4}, "must be greater than `hands.pinch_start_below`"),
    ({"lost_after_ms": float("nan")}, "`hands.lost_after_ms` must be a number 0..5000 ms"),
    ({"max_hand": 1}, "unknown setting `hands.max_hand`"),
])
def test_bad_settings_name_the_setting_and_the_value(kwargs, words):
    with pytest.raises(ConfigError, match=None) as err:
        HAND_SETTINGS.check(kwargs)
    assert words in str(err.value)


def test_every_setting_declares_its_range_unit_and_meaning():
    for s in HAND_SETTINGS.items:
        assert s.help, s.name
        if s.kind in ("float", "int"):
            assert s.lo is not None and s.hi is not None, s.name


@pytest.mark.skipif(HAVE_MEDIAPIPE, reason="the hands extra is installed here")
def test_hands_without_the_extra_is_one_line_naming_the_install(tmp_path):
    r = subprocess.run([sys.executable, "-m", "sensekit", "events", "demo", "--hands", "--max-items", "3"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and install_hint("hands") in lines[0], r.stderr


@pytest.mark.skipif(HAVE_MEDIAPIPE, reason="the hands extra is installed here")
def test_run_hands_without_the_extra_is_one_line(tmp_path):
    r = subprocess.run([sys.executable, "-m", "sensekit", "run", "color_ball", "--hands", "--headless",
                        "--frames", "2"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and install_hint("hands") in lines[0], r.stderr


def _hand() -> Hand:
    pts = tuple((10.0 + k, 20.0 + 2 * k, -1.5) for k in range(21))
    return Hand(t=1.5, id=3, handedness="left", score=0.75, gesture="fist", box=(10, 20, 21, 41), landmarks=pts)


def test_hand_events_round_trip_through_json_lines():
    for event in (_hand(), Gesture(t=1.0, id=3, gesture="point"), Pinch(t=2.0, id=3, pinching=True, x=5.5, y=6.0),
                  HandLost(t=3.0, id=3)):
        back = from_jsonl(to_jsonl(event))
        assert to_jsonl(back) == to_jsonl(event)
    hand = from_jsonl(to_jsonl(_hand()))
    assert len(hand.landmarks) == 21 and list(hand.landmarks[4]) == [14.0, 28.0, -1.5]


def test_hand_over_osc_is_fixed_fields_then_63_floats():
    [r] = decode(encode(_hand()))
    assert r.address == "/sensekit/hand"
    assert r.tags == "fisfsiiii" + "f" * 63
    assert r.args[:9] == (1.5, 3, "left", 0.75, "fist", 10, 20, 21, 41)
    k = 4                                            # the thumb tip: arguments 9 + 3k ..
    assert r.args[9 + 3 * k: 12 + 3 * k] == (14.0, 28.0, -1.5)
    [r] = decode(encode(Pinch(t=2.0, id=3, pinching=True, x=5.5, y=6.0)))
    assert (r.address, r.tags, r.args) == ("/sensekit/pinch", "fiiff", (2.0, 3, 1, 5.5, 6.0))
    [r] = decode(encode(HandLost(t=3.0, id=3)))
    assert (r.address, r.args) == ("/sensekit/hand/lost", (3.0, 3))
