"""``FrameHub``: newest frame only, encoded once per overlay set; ``Telemetry``; ``CommandQueue``."""
from __future__ import annotations

import threading

import cv2
import numpy as np
import pytest

from sensekit.errors import ConfigError
from sensekit.panel.commands import CommandQueue
from sensekit.panel.frames import FrameHub, pack, unpack
from sensekit.vision.layers import Layers
from sensekit.panel.telemetry import Telemetry


def _layers(value: int, size: tuple[int, int] = (80, 60)) -> Layers:
    return Layers(np.full((size[1], size[0], 3), value, np.uint8), index=value)


def test_pack_round_trips():
    meta, jpeg = unpack(pack({"index": 3, "box": [1, 2, 3, 4]}, b"\xff\xd8data"))
    assert meta == {"index": 3, "box": [1, 2, 3, 4]} and jpeg == b"\xff\xd8data"


def test_only_the_newest_frame_is_kept_and_each_overlay_set_is_encoded_once():
    hub = FrameHub(max_fps=0)
    assert hub.frame(()) is None and not hub.due()
    hub.watch(1, ["mask", "bogus"])
    assert hub.wanted() == {"mask"} and hub.due()
    for v in (10, 20, 30):
        hub.publish(_layers(v), {"index": v})
    seq, message = hub.frame(())
    meta, jpeg = unpack(message)
    assert seq == 3 and meta["index"] == 30
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert abs(int(image.mean()) - 30) <= 2
    for _ in range(3):
        hub.frame(())
        hub.frame(["mask"])
    assert hub.encoded == 2
    hub.unwatch(1)
    assert not hub.watching


def test_wide_pictures_are_scaled_down_for_the_wire_but_keep_camera_coordinates():
    hub = FrameHub(max_width=320)
    hub.watch(1, ())
    hub.publish(_layers(50, (1280, 720)), {"w": 1280, "h": 720})
    meta, jpeg = unpack(hub.frame(())[1])
    assert (meta["w"], meta["h"]) == (1280, 720)
    assert cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR).shape == (180, 320, 3)


def test_publishing_is_rate_limited():
    hub = FrameHub(max_fps=10)
    hub.watch(1, ())
    hub.publish(_layers(1), {})
    assert not hub.due()


def test_telemetry_rings_hand_each_client_only_what_is_new():
    tel = Telemetry(max_levels=5, max_events=2)
    for i in range(8):
        tel.add_level(i * 0.1, i)
    tel.add_event({"event": "clap", "t": 1.0})
    first = tel.since()
    assert [v for _, v in first.levels] == [3, 4, 5, 6, 7] and len(first.events) == 1
    tel.add_level(0.9, 9)
    second = tel.since(first.cursor)
    assert second.levels == [(0.9, 9)] and second.events == []
    tel.set_lines({"noise floor": 4.256})
    tel.set_status(hud="x")
    assert tel.since(second.cursor).as_dict() == {"levels": [], "events": [],
                                                  "lines": {"noise floor": 4.26}, "status": {"hud": "x"}}


def test_commands_run_on_the_callers_thread_and_errors_reach_the_future():
    q = CommandQueue(max_pending=2)
    seen: list[str] = []
    ok = q.submit(lambda: seen.append(threading.current_thread().name) or "done")
    bad = q.submit(lambda: 1 / 0)
    with pytest.raises(ConfigError, match="too many"):
        q.submit(lambda: None)
    assert not ok.done()
    assert q.run_pending() == 2
    assert ok.result() == "done" and seen == [threading.current_thread().name]
    with pytest.raises(ZeroDivisionError):
        bad.result()
