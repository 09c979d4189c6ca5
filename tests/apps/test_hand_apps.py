"""Hand input in the apps: the fingertip as the pointer, a pinch as the click, pinch_toss.

With the extra (``.venv-hands``), the apps run headless on a recording the project's own
``Recorder`` makes at test time from v02 of the shared hand footage (kept in a temporary
folder, never in the repo). Without it, the switch says the extra is missing and the app
goes on with its colour input.
"""
from __future__ import annotations

from sensekit.installed import install_hint
import importlib.util
import math
from pathlib import Path

import pygame
import pytest

from sensekit.app.host import AppHost, RunOptions
from sensekit.app.registry import load
from sensekit.capture.base import VideoFrame
from tests.apps.hosts import demo_host

HAVE_MEDIAPIPE = importlib.util.find_spec("mediapipe") is not None
HAND_APPS = ("color_ball", "steer", "collide")


@pytest.mark.skipif(HAVE_MEDIAPIPE, reason="the hands extra is installed here")
@pytest.mark.parametrize("name", HAND_APPS)
def test_key_h_without_the_extra_says_so_and_the_app_goes_on(name):
    host = demo_host(name)
    try:
        host.press(pygame.K_h)
        assert install_hint("hands") in host.toast[0]
        assert not host.app.hand.active
        for _ in range(30):
            host.step()
        assert host.runner.stats.frames > 0
    finally:
        host.source.close()


@pytest.mark.skipif(HAVE_MEDIAPIPE, reason="the hands extra is installed here")
def test_pinch_toss_without_the_extra_runs_and_shows_the_install_line(caplog):
    with caplog.at_level("WARNING"):
        host = demo_host("pinch_toss")
        try:
            for _ in range(20):
                host.step()
            assert install_hint("hands") in host.app.state()["status"]
        finally:
            host.source.close()
    # headless (or in a terminal), the install line is said once, not only drawn in the window
    said = [r.getMessage() for r in caplog.records if install_hint("hands") in r.getMessage()]
    assert len(said) == 1 and said[0].startswith("pinch_toss: ")


@pytest.mark.skipif(HAVE_MEDIAPIPE, reason="the hands extra is installed here")
def test_motion_paddle_played_with_the_body_without_the_extra_says_so_and_waves_on():
    host = demo_host("motion_paddle")
    try:
        host.tuning.apply({"motion_paddle.steer": "lean"})
        for _ in range(20):
            host.step()
        app = host.app
        assert install_hint("hands") in app.body.error and not app.body_steer
        assert app.state()["body"] == app.body.error
        assert host.runner.stats.frames > 0 and "wave" in app.instructions
    finally:
        host.source.close()


# --- with the extra -------------------------------------------------------------------

@pytest.fixture(scope="module")
def hand_recording(shared_data: Path, tmp_path_factory) -> Path:
    pytest.importorskip("mediapipe", reason=f"needs the hands extra: {install_hint('hands')}")
    from sensekit.capture.recording import Recorder
    from sensekit.capture.spec import open_source

    clip = next((shared_data / "video" / "hands" / "videos").glob("v02_*.mp4"))
    path = tmp_path_factory.mktemp("hands") / "v02_part.skrec"
    with open_source(f"file:{clip}") as source, Recorder(path, video=(480, 480, 25.0)) as rec:
        i = 0
        while i < 170:
            item = source.read()
            if isinstance(item, VideoFrame):
                if i >= 60:                                  # 2.4 s before the first pinch
                    rec.write(VideoFrame(i - 60, (i - 60) / 25.0, item.image))
                i += 1
    return path


def _hand_host(name: str, recording: Path, **options) -> AppHost:
    from sensekit.capture.recording import ReplaySource
    source = ReplaySource(recording, realtime=False)
    source.open()
    return AppHost(load(name), source, RunOptions(headless=True, hands=True, **options))


@pytest.mark.hands
@pytest.mark.parametrize("name", HAND_APPS)
def test_the_point_follows_the_fingertip(name, hand_recording):
    host = _hand_host(name, hand_recording)
    try:
        assert host.app.hand.active
        gaps = []
        for _ in range(60):
            host.step()
            hand = host.app.hand
            if hand.point is not None and not hand.pinching:
                tip = host.runner.stages[-1].hands[hand.hand_id].tip
                size = host.frame_size
                view = host.app.camera_view
                want = (view.x + tip[0] * view.w / size[0], view.y + tip[1] * view.h / size[1])
                gaps.append(math.dist(hand.point, want))
                if name == "color_ball":
                    assert host.app.ball == list(hand.point)
                elif name == "steer":
                    assert tuple(host.app.colour_at) == hand.point
        assert len(gaps) > 40 and max(gaps) < 1.0
    finally:
        host.source.close()


@pytest.mark.hands
def test_a_pinch_is_the_click_in_steer(hand_recording):
    host = _hand_host("steer", hand_recording)
    try:
        modes = []
        for _ in range(110):                                 # through both pinches
            host.step()
            modes.append(host.app.mode)
        assert modes[0] == 0 and sorted(set(modes)) == [0, 1, 2]   # two pinches: two behaviours on
    finally:
        host.source.close()


@pytest.mark.hands
def test_pinch_toss_picks_up_carries_and_throws(hand_recording):
    host = _hand_host("pinch_toss", hand_recording)
    app = host.app
    try:
        held_at = []
        for _ in range(105):
            hand = app.hand
            if hand.point is not None and not hand.pinching and app.held is None and not app.throws:
                app.p[0] = hand.point                       # the player aims at ball 0
            host.step()
            held_at.append(app.held)
            if app.throws:
                break
        assert 0 in held_at and app.throws == 1
        before = app.p[0].copy()
        for _ in range(5):
            host.step()
        assert math.dist(before, app.p[0]) > 1.0             # released: it flies (or falls) on its own
    finally:
        host.source.close()
