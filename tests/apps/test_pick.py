"""Picking what to track in the apps (click, drag) and from the command line (--track-box)."""
from __future__ import annotations

import json

import numpy as np
import pygame
import pytest

from sensekit.app.convert import camera_to_view, mirror_x, view_to_camera
from sensekit.cli import main
from tests.apps.stepping import step_to_next_frame


def _ball_view(host, truth) -> tuple[float, float, float]:
    """Where the demo ball is drawn now (window pixels) and its radius in window pixels."""
    frame = host.runner.latest_frame
    ball = {f["index"]: f for f in truth["frames"]}[frame.index]["ball"]
    view = host.app.camera_view
    x, y = camera_to_view(mirror_x(ball["cx"], 320), ball["cy"], (320, 240), view)
    return x, y, ball["r"] * view.w / 320


def _post(kind, pos, **extra) -> None:
    pygame.event.post(pygame.event.Event(kind, pos=pos, **extra))


@pytest.mark.parametrize("app", ["color_ball", "steer", "collide"])
def test_drag_a_box_around_the_ball_picks_it(play, truth, app):
    host = play(app, 10)
    x, y, r = _ball_view(host, truth)
    start, end = (int(x - r - 6), int(y - r - 6)), (int(x + r + 6), int(y + r + 6))
    _post(pygame.MOUSEBUTTONDOWN, start, button=1)
    _post(pygame.MOUSEMOTION, end, rel=(0, 0), buttons=(1, 0, 0))
    pygame.event.pump()
    host.step()                                   # still dragging: the rubber band is drawn
    assert host.controls.drag_band is not None
    band = host.screen.get_at((start[0] + (end[0] - start[0]) // 2, start[1]))[:3]
    assert band in ((255, 196, 0), (0, 0, 0))
    _post(pygame.MOUSEBUTTONUP, end, button=1)
    step_to_next_frame(host)
    tracker = host.app.vision.tracker
    assert tracker.method_in_use == "model" and tracker.picked is not None
    bx, by, bw, bh = tracker.picked.box
    cam = view_to_camera(x, y, (320, 240), host.app.camera_view)
    assert bx <= cam[0] <= bx + bw and by <= cam[1] <= by + bh
    assert tracker.picked.mask.sum() > 0.5 * np.pi * 14 ** 2      # the ball, cut out of the box
    assert "tracking the object" in host.toast[0]


def test_a_plain_click_still_picks_by_click_and_the_outline_is_drawn(play, truth):
    host = play("color_ball", 10)
    x, y, _ = _ball_view(host, truth)
    _post(pygame.MOUSEBUTTONDOWN, (int(x), int(y)), button=1)
    _post(pygame.MOUSEBUTTONUP, (int(x) + 2, int(y) + 1), button=1)     # a shaky click is a click
    step_to_next_frame(host)
    picked = host.app.vision.tracker.picked
    assert picked is not None and picked.method == "colour region"
    assert abs(picked.box[2] - 28) <= 6 and abs(picked.box[3] - 28) <= 6     # the 28 px ball
    outline = picked.outline()[0]
    px, py = camera_to_view(float(outline[0][0]) + 0.5, float(outline[0][1]) + 0.5, (320, 240),
                            host.app.camera_view)
    near = [host.screen.get_at((int(px) + dx, int(py) + dy))[:3] for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
    assert (255, 196, 0) in near                   # the yellow outline of what was taken


def test_the_ball_follows_the_clicked_object_in_the_demo(play, truth):
    host = play("color_ball", 10)
    x, y, _ = _ball_view(host, truth)
    host.click((int(x), int(y)))
    dist, tracking = [], []
    for _ in range(150):
        host.step()
        bx, by, _ = _ball_view(host, truth)
        dist.append(np.hypot(host.app.ball[0] - bx, host.app.ball[1] - by))
        tracking.append(host.app.tracking)
    assert np.mean(tracking) > 0.95
    assert np.median(dist) < 12 and np.percentile(dist, 90) < 30     # window px (view is 2x)


def test_track_box_on_events_and_run(tmp_path, capsys, truth):
    ball = truth["frames"][0]["ball"]
    box = f"{ball['cx'] - 16:.0f},{ball['cy'] - 16:.0f},32,32"
    assert main(["events", "demo", "--track-box", box, "--jsonl", "--max-items", "60"]) == 0
    lines = [json.loads(s) for s in capsys.readouterr().out.splitlines()]
    tracked = [e for e in lines if e["event"] == "color_tracked"]
    frames = {round(f["t"], 3): f["ball"] for f in truth["frames"]}
    errs = [np.hypot(e["cx"] - frames[round(e["t"], 3)]["cx"], e["cy"] - frames[round(e["t"], 3)]["cy"])
            for e in tracked]
    assert len(tracked) >= 20 and np.median(errs) < 4
    events = tmp_path / "ev.jsonl"
    mirrored = f"{320 - ball['cx'] - 16:.0f},{ball['cy'] - 16:.0f},32,32"
    assert main(["run", "color_ball", "--headless", "--frames", "20", "--track-box", mirrored,
                 "--events", str(events)]) == 0
    first = next(json.loads(s) for s in events.read_text().splitlines() if '"color_tracked"' in s)
    assert abs(first["cx"] - (320 - ball["cx"])) < 4 and abs(first["cy"] - ball["cy"]) < 4


@pytest.mark.parametrize("argv, message", [
    (["events", "demo", "--track-box", "1,2,3"], "--track-box must be X,Y,W,H"),
    (["events", "demo", "--track-box", "300,10,40,40"], "not inside the 320x240 frame"),
    (["events", "demo", "--track-box", "1,2,30,30", "--track-color", "5,5"], "not both"),
    (["run", "clapper", "--headless", "--frames", "5", "--track-box", "1,2,30,30"], "does not track anything"),
])
def test_bad_track_options_are_one_line_errors(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_a_track_option_on_an_app_that_tracks_nothing_names_the_app(capsys):
    # it said "this app does not track anything", where --pick says "--pick: clapper tracks no colour"
    assert main(["run", "clapper", "--headless", "--frames", "5", "--track-color", "5,5"]) == 2
    assert capsys.readouterr().err == ("sensekit: error: clapper does not track anything; --track-color "
                                       "and --track-box need an app that tracks a coloured object\n")


@pytest.mark.parametrize("app", ["motion_paddle", "edge_snow"])
def test_a_click_or_drag_in_an_app_that_tracks_nothing_says_so(play, app):
    """The README's "click an object on the camera view to track it": in the apps that track
    nothing a click or a drag on the picture did nothing and said nothing."""
    host = play(app, 5)
    view = host.app.camera_view
    host.click(view.center)
    assert host.toast and host.toast[0] == f"{app} tracks no object: a click or a drag picks only in an app that does"
    host.hud.toast = None
    host.drag((view.left + 20, view.top + 20), (view.left + 120, view.top + 90))
    assert host.toast and host.toast[0].startswith(f"{app} tracks no object")
