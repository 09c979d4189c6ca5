"""After a click, the mouse wheel, ``+``/``-`` and a click on the same spot change the tracked box
(``App.resize_pick``, ``sensekit.vision.click_pool``): on a real clip (the can held in a hand)
when ../shared/data is there, else on the bundled recording's ball."""
from __future__ import annotations

from pathlib import Path

import pygame
import pytest

from sensekit.app.convert import camera_to_view
from sensekit.app.host import AppHost, RunOptions
from sensekit.app.registry import load
from sensekit.app.sources import bundled_source, open_spec
from sensekit.paths import recordings_dir
from sensekit.vision.click_pool import same_size
from tests.apps.stepping import step_to_next_frame
from tests.conftest import SHARED_DATA

CLIP = SHARED_DATA / "video" / "tracking" / "coke.mp4"


def _host(frames: int) -> tuple[AppHost, tuple[float, float]]:
    """color_ball after ``frames`` frames, and where to click on the object (camera px, mirrored)."""
    cls = load("color_ball")
    if CLIP.is_file():
        source = open_spec(cls, f"file:{CLIP}")
        row = (CLIP.parent / "coke_gt.csv").read_text().splitlines()[1 + frames]
        x, y, w, h = (float(v) for v in row.split(",")[1:5])
        width = 640
        point = (width - (x + w / 2), y + h / 2)          # the app shows the picture mirrored
    else:
        if not (recordings_dir() / "demo.skrec" / "meta.json").is_file():
            pytest.skip(f"neither {CLIP} nor the bundled recording is here")
        source = bundled_source(cls)
        source.open()
        point = (-1.0, -1.0)
    host = AppHost(cls, source, RunOptions(headless=True))
    while host.runner.latest_frame is None or host.runner.latest_frame.index < frames:
        host.step()
    if point[0] < 0:                                   # the demo: the ball's pixel of the mirrored frame
        import json
        truth = json.loads((recordings_dir() / "demo.truth.json").read_text())
        ball = {f["index"]: f for f in truth["frames"]}[host.runner.latest_frame.index]["ball"]
        point = (320 - ball["cx"], ball["cy"])
    return host, point


def _area(box: tuple[int, int, int, int]) -> int:
    return box[2] * box[3]


def _yellow_near(host: AppHost, box: tuple[int, int, int, int]) -> bool:
    """The picked outline (yellow) is drawn within a few pixels of ``box``'s left edge."""
    size = host.frame_size
    assert size is not None
    view = host.app.camera_view
    x, y = camera_to_view(box[0] + 0.5, box[1] + box[3] / 2, size, view)
    for dx in range(-6, 7):
        for dy in range(-6, 7):
            if host.screen.get_at((int(x) + dx, int(y) + dy))[:3] == (255, 196, 0):
                return True
    return False


def test_the_wheel_and_plus_minus_step_through_the_clicks_boxes():
    host, point = _host(8)
    try:
        tracker = host.app.vision.tracker
        assert tracker.pool is None
        host.press(pygame.K_PLUS)                   # before a click: the app's setting (hue tolerance)
        assert host.toast[0].startswith("tracker.hue_tolerance")
        view = host.app.camera_view
        host.click(tuple(int(v) for v in camera_to_view(*point, host.frame_size, view)))
        step_to_next_frame(host)
        tracker = host.app.vision.tracker
        first = tracker.picked.box
        assert tracker.pool is not None

        pygame.event.post(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=1, flipped=False))
        step_to_next_frame(host)                     # the wheel: the click's next larger box
        grown = host.app.vision.tracker
        assert grown is not tracker and grown.pool is tracker.pool          # restarted, same pool
        assert _area(grown.picked.box) > _area(first) and not same_size(grown.picked.box, first)
        assert host.app.vision.gesture.startswith("larger box")
        assert host.app.vision.target.kind == "click"                     # the click (and its colour) kept
        tracked = host.app.vision.track_result.box
        assert same_size(tracked, grown.picked.box, tolerance=0.1)        # the tracker follows the new box
        host.step()
        assert _yellow_near(host, grown.picked.box)                        # and its outline is shown

        host.press(pygame.K_MINUS)                   # -: back down the ladder
        assert "smaller box" in host.toast[0]
        step_to_next_frame(host)
        shrunk = host.app.vision.tracker
        assert _area(shrunk.picked.box) < _area(grown.picked.box)
        assert host.app.vision.gesture.startswith("smaller box")
        host.press(pygame.K_MINUS)
        step_to_next_frame(host)
        assert _area(host.app.vision.tracker.picked.box) < _area(shrunk.picked.box)
        tol = host.tuning.settings()["tracker.hue_tolerance"]
        host.press(pygame.K_PLUS)                    # after a click + resizes; the tolerance stays
        assert host.tuning.settings()["tracker.hue_tolerance"] == tol
    finally:
        host.close()


def test_a_second_click_on_the_same_spot_takes_another_size():
    host, point = _host(8)
    try:
        view = host.app.camera_view
        at = tuple(int(v) for v in camera_to_view(*point, host.frame_size, view))
        host.click(at)
        step_to_next_frame(host)
        first = host.app.vision.tracker
        host.click(at)                               # the same spot, a frame later
        step_to_next_frame(host)
        second = host.app.vision.tracker
        assert second.pool is first.pool                                   # no new segmentation
        assert not same_size(second.picked.box, first.picked.box)
        assert host.app.vision.gesture.startswith("other box")
        host.click(at)
        step_to_next_frame(host)
        third = host.app.vision.tracker.picked.box
        assert not same_size(third, first.picked.box) and not same_size(third, second.picked.box)
    finally:
        host.close()


def test_a_click_elsewhere_segments_anew(tmp_path: Path):
    host, point = _host(8)
    try:
        view = host.app.camera_view
        host.click(tuple(int(v) for v in camera_to_view(*point, host.frame_size, view)))
        step_to_next_frame(host)
        first = host.app.vision.tracker
        far = (point[0] + 0.2 * host.frame_size[0], point[1])
        if far[0] >= host.frame_size[0]:
            far = (point[0] - 0.2 * host.frame_size[0], point[1])
        host.click(tuple(int(v) for v in camera_to_view(*far, host.frame_size, view)))
        step_to_next_frame(host)
        assert host.app.vision.tracker.pool is not first.pool
    finally:
        host.close()


def test_the_picked_label_stays_clear_of_the_trackers_label(monkeypatch):
    """"picked" was drawn right above the click's outline, where color_ball's "tracking" tag
    sits: the two words ran into each other. It is a label of its own under the outline."""
    from sensekit.app import draw

    drawn: list[tuple[str, pygame.Rect]] = []
    label = draw.label

    def spy(screen, s, pos, **kw):                     # type: ignore[no-untyped-def]
        rect = label(screen, s, pos, **kw)
        drawn.append((s, rect))
        return rect

    host, point = _host(8)
    try:
        view = host.app.camera_view
        host.click(tuple(int(v) for v in camera_to_view(*point, host.frame_size, view)))
        step_to_next_frame(host)
        monkeypatch.setattr(draw, "label", spy)
        drawn.clear()
        host.step()
        picked = [rect for s, rect in drawn if s == "picked"]
        assert len(picked) == 1, drawn
        green = pygame.mask.from_threshold(host.screen, (0, 255, 120, 255), (1, 1, 1, 255))
        tag = green.get_bounding_rects()                # color_ball's tracking box and its tag
        assert tag and not any(picked[0].colliderect(r) for r in tag), (picked, tag)
        assert view.contains(picked[0]), (picked, view)
    finally:
        host.close()
