"""Motion zones are bounded: at most 64, names of at most 64 characters, whoever asks.

The panel adds one zone per request (a drag, `POST /api/zone`), each with a name of up to
the 64 KiB a body may hold; before the limit a client looping on it grew the motion
detector's work per frame (2,000 zones: 7 -> 16 ms at 320x240) and every motion event (37 kB
of JSON a frame) without bound. Tried through the panel, OSC control and a venue profile;
each refusal is one line and changes nothing.
"""
from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import pytest
from pythonosc.udp_client import SimpleUDPClient

from sensekit.errors import ConfigError
from sensekit.osc.control import OscControl
from sensekit.profile import loads_profile
from sensekit.settings.declare import MAX_ZONE_NAME, MAX_ZONES
from sensekit.settings.live import Tuning
from sensekit.vision.motion import MotionDetector
from sensekit.vision.pipeline import VisionStage


def post(url: str, body: dict) -> tuple[int, dict]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_the_panel_adds_zones_up_to_the_limit_then_refuses(thread_piece):
    piece = thread_piece()
    box = {"box": [0, 0, 10, 10]}
    status, answer = post(piece.url + "api/zone", {"name": "x" * 5000, **box})
    assert status == 400 and f"1..{MAX_ZONE_NAME} characters" in answer["error"]
    assert len(answer["error"]) < 300
    for i in range(MAX_ZONES):
        status, answer = post(piece.url + "api/zone", {"name": f"z{i}", **box})
        assert status == 200, answer
    status, answer = post(piece.url + "api/zone", {"name": "one too many", **box})
    assert status == 400 and f"at most {MAX_ZONES} zones" in answer["error"]
    status, answer = post(piece.url + "api/zone", {"name": "z0", **box})        # moving one: fine
    assert status == 200, answer
    assert len(piece.tuning.settings()["motion.zones"]) == MAX_ZONES and piece.error is None


def test_osc_and_profiles_refuse_too_many_zones_in_one_line():
    too_many = ";".join(f"z{i}=0,0,0.1,0.1" for i in range(MAX_ZONES + 1))
    stage = VisionStage(motion=MotionDetector())
    tuning = Tuning(lambda: [stage])
    before = tuning.settings()["motion.zones"]
    with OscControl("127.0.0.1", 0, tuning=tuning) as control:
        SimpleUDPClient("127.0.0.1", control.port).send_message("/sensekit/set/motion/zones", too_many)
        deadline = time.monotonic() + 5
        while control.rejected < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
    assert control.rejected == 1 and tuning.settings()["motion.zones"] == before
    text = "[motion.zones]\n" + "\n".join(f"z{i} = [0.0, 0.0, 0.1, 0.1]" for i in range(MAX_ZONES + 1))
    with pytest.raises(ConfigError, match=f"at most {MAX_ZONES} zones") as err:
        loads_profile(text, path="venue.toml")
    assert "\n" not in str(err.value)
