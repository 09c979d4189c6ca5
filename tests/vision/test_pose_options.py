"""The pose stage's settings and CLI option, its events over JSON and OSC: no MediaPipe needed.

In the default install (no extra) ``--pose`` must be one plain line naming the install
command, exit status 2; with the extra (``.venv-hands``) that test skips.
"""
from __future__ import annotations

from sensekit.installed import install_hint
import importlib.util
import os
import subprocess
import sys

import pytest

from sensekit.errors import ConfigError
from sensekit.events import ArmsUp, Crouch, Jump, Lean, Pose, PoseLost, Step, from_jsonl, to_jsonl
from sensekit.osc import decode, encode
from sensekit.vision.pose import POSE_SETTINGS

HAVE_MEDIAPIPE = importlib.util.find_spec("mediapipe") is not None


def test_defaults_are_the_documented_ones():
    s = POSE_SETTINGS.defaults()
    assert (s["max_people"], s["search_every_frames"], s["window_every_frames"], s["min_detection_confidence"],
            s["smoothing"]) == (4, 30, 300, 0.5, True)


@pytest.mark.parametrize("kwargs, words", [
    ({"max_people": 0}, "`pose.max_people` must be a whole number 1..10 people, got 0"),
    ({"search_every_frames": 0}, "`pose.search_every_frames` must be a whole number 1..100000 frames"),
    ({"min_tracking_confidence": 2.0}, "`pose.min_tracking_confidence` must be a number 0..1, got 2"),
    ({"max_person": 1}, "unknown setting `pose.max_person`"),
])
def test_bad_settings_name_the_setting_and_the_value(kwargs, words):
    with pytest.raises(ConfigError) as err:
        POSE_SETTINGS.check(kwargs)
    assert words in str(err.value)


@pytest.mark.skipif(HAVE_MEDIAPIPE, reason="the hands extra is installed here")
def test_pose_without_the_extra_is_one_line_naming_the_install():
    r = subprocess.run([sys.executable, "-m", "sensekit", "events", "demo", "--pose", "--max-items", "3"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and install_hint("hands") in lines[0] and "pose" in lines[0], r.stderr


def test_pose_events_survive_json_lines_and_osc():
    landmarks = tuple((float(i), 2.0 * i, -0.5, 0.75) for i in range(33))
    events = [Pose(t=1.5, id=3, score=0.8, box=(1, 2, 30, 60), landmarks=landmarks), PoseLost(t=2.0, id=3),
              ArmsUp(t=1.6, id=3, up=True), Lean(t=1.7, id=3, direction="left", angle_deg=-17.5),
              Crouch(t=1.8, id=3, crouching=True), Jump(t=1.9, id=3, rise=0.4),
              Step(t=2.1, id=3, zone="door", inside=True)]
    for event in events:
        line = to_jsonl(event)
        back = from_jsonl(line)
        assert type(back) is type(event) and to_jsonl(back) == line
        [r] = decode(encode(event))
        assert r.address.startswith("/sensekit/") and r.args[0] == pytest.approx(event.t)
    [r] = decode(encode(events[0]))
    assert r.address == "/sensekit/pose" and r.tags == "fifiiii" + "f" * 132
    k = 5                                            # the right eye (inner): arguments 7 + 4k ..
    assert r.args[7 + 4 * k: 11 + 4 * k] == (5.0, 10.0, -0.5, 0.75)
    [r] = decode(encode(events[3]))
    assert r.address == "/sensekit/lean" and r.args[1:] == (3, "left", -17.5)


@pytest.mark.skipif(HAVE_MEDIAPIPE, reason="the hands extra is installed here")
@pytest.mark.parametrize("command", [["events", "demo", "--silhouette", "--max-items", "3"],
                                     ["run", "edge_snow", "--silhouette", "--headless", "--frames", "3"]])
def test_silhouette_without_the_extra_is_one_line_naming_the_install(command):
    r = subprocess.run([sys.executable, "-m", "sensekit", *command], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"})
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and install_hint("hands") in lines[0] and "silhouette" in lines[0], r.stderr


def test_step_zones_are_fractions_of_the_frame_like_the_motion_zones():
    zones = POSE_SETTINGS["zones"]
    assert zones.parse("door=0.1,0.6,0.2,0.4") == {"door": (0.1, 0.6, 0.2, 0.4)}
    with pytest.raises(ConfigError, match="`pose.zones.door` must have w, h > 0 and lie inside the frame"):
        POSE_SETTINGS.check({"zones": {"door": (0.9, 0.6, 0.2, 0.4)}})
