"""The app layer on a synthetic source: fixed step, determinism, keys, clicks, outputs, lost source."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pygame
import pytest

from sensekit.app import convert
from sensekit.app.base import App
from sensekit.app.host import AppHost, RunOptions
from sensekit.app.sources import check_inputs
from sensekit.events import Level
from sensekit.errors import ConfigError

from tests.apps.synthetic import H, W, SyntheticSource, ball_x


class RmsLevel:
    """A minimal stage: RMS of each block as a 0..100 level."""
    consumes = "audio"
    emits = frozenset({"level"})

    def process(self, item):
        return [Level(t=item.t, level=float(min(100.0, 200 * np.sqrt(np.mean(item.samples ** 2)))))]


class Probe(App):
    title = "Probe"
    instructions = "test app"
    needs = frozenset({"video", "audio"})

    def stages(self):
        return [RmsLevel()]

    def setup(self):
        self.level = 0.0
        self.updates = 0
        self.picked = None
        self.sens = 5
        self.on("level", lambda e: setattr(self, "level", e.level))

    def update(self, dt):
        self.updates += 1

    def levels(self):
        return {"level": self.level}

    def adjust_sensitivity(self, step):
        self.sens += step
        return f"sensitivity {self.sens}"

    def pick_color(self, bgr, xy):
        self.picked = (bgr, xy)
        return "picked"

    def draw(self, screen):
        screen.fill((0, 0, 0))
        self.camera_view = pygame.Rect(0, 44, 320, 240)
        cam = self.camera_surface(self.camera_view.size)
        if cam is not None:
            screen.blit(cam, self.camera_view)
        pygame.draw.rect(screen, (0, 255, 0), (400, 400 - self.level * 3, 40, self.level * 3))
        self.draw_frame(screen, f"{self.level:.0f}")


def run(tmp_path: Path, frames: int = 40, **kw) -> tuple[AppHost, object]:
    host = AppHost(Probe, SyntheticSource(**kw), RunOptions(headless=True, frames=frames,
                                                             screenshot=tmp_path / "shot.png"))
    return host, host.run()


def test_fixed_step_follows_source_time(tmp_path):
    host, result = run(tmp_path, frames=45)
    assert result.frames == 45 and host.app.updates == 45
    assert result.sim_t == pytest.approx(1.5)
    # the runner was fed exactly up to the simulation time
    assert host.runner.latest_frame.t <= 1.5 < host.runner.latest_frame.t + 1 / 15 + 1e-9


def test_screenshot_identical_across_runs_and_not_blank(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    run(a), run(b)
    img_a = pygame.image.load(str(a / "shot.png"))
    img_b = pygame.image.load(str(b / "shot.png"))
    arr_a, arr_b = convert.surface_to_array(img_a), convert.surface_to_array(img_b)
    assert np.array_equal(arr_a, arr_b)
    assert arr_a.std() > 10


def test_camera_image_is_mirrored(tmp_path):
    host, _ = run(tmp_path, frames=10)
    frame = host.runner.latest_frame
    # the ball is at ball_x(t) in camera coordinates, so at W-1-x on screen
    cols = np.nonzero((frame.image[:, :, 2] > 200) & (frame.image[:, :, 0] < 50))[1]
    assert abs(cols.mean() - convert.mirror_x(ball_x(frame.t), W)) < 1.5


def test_keys_pause_sensitivity_and_click_picks_colour(tmp_path):
    host = AppHost(Probe, SyntheticSource(), RunOptions(headless=True, screenshot_dir=tmp_path))
    for _ in range(5):
        host.step()
    host.press(pygame.K_SPACE)
    t = host.sim_t
    host.step()
    host.step()
    assert host.paused and host.sim_t == t and host.app.updates == 5
    host.press(pygame.K_SPACE)
    host.step()
    assert host.sim_t > t
    host.press(pygame.K_PLUS)
    assert host.app.sens == 6 and host.toast[0] == "sensitivity 6"
    host.press(pygame.K_MINUS)
    host.press(pygame.K_MINUS)
    assert host.app.sens == 4
    host.press(pygame.K_s)
    assert list(tmp_path.glob("*.png"))
    # click where the (mirrored) ball is drawn: 320x240 view of a 160x120 image
    frame = host.runner.latest_frame
    x = convert.mirror_x(ball_x(frame.t), W)
    vx, vy = convert.camera_to_view(x, 40, (W, H), host.app.camera_view)
    host.click((int(vx), int(vy)))
    bgr, _xy = host.app.picked
    assert bgr[2] > 200 and bgr[0] < 60
    host.app.picked = None
    host.click((600, 300))            # outside the camera view: nothing picked
    assert host.app.picked is None
    host.close()


def test_events_file_and_video(tmp_path):
    host = AppHost(Probe, SyntheticSource(), RunOptions(
        headless=True, frames=30, events=tmp_path / "ev.jsonl", video=tmp_path / "v.avi"))
    host.run()
    lines = (tmp_path / "ev.jsonl").read_text().splitlines()
    assert lines and all(json.loads(line)["event"] == "level" for line in lines)
    import cv2
    cap = cv2.VideoCapture(str(tmp_path / "v.avi"))
    n = 0
    while cap.read()[0]:
        n += 1
    assert n == 30


class FlakySource(SyntheticSource):
    """Live-like: one item per read, then nothing; reports the camera lost at t=1."""
    is_live = True

    def __init__(self):
        super().__init__(lose_at=1.0)
        self._give = True

    def read(self, timeout=None):
        self._give = not self._give
        return super().read(timeout) if not self._give else None


def test_lost_source_is_shown_and_app_keeps_running(tmp_path):
    host = AppHost(Probe, FlakySource(), RunOptions(headless=True))
    for _ in range(60):
        host.step()
    assert host.lost is not None and "lost" in host.lost and "unplugged" in host.lost
    shown = convert.surface_to_array(host.screen)
    red = (shown[..., 2] > 200) & (shown[..., 1] < 90) & (shown[..., 0] < 80)
    assert red.sum() > 2000                      # the red banner is on screen
    updates = host.app.updates
    host.step()
    assert host.app.updates == updates + 1
    host.close()


def test_missing_input_is_named():
    Probe.name = "probe"
    with pytest.raises(ConfigError, match="probe needs audio.*video only"):
        check_inputs(Probe, SyntheticSource(audio=False))


def test_conversions_round_trip():
    img = np.random.default_rng(1).integers(0, 255, (12, 16, 3), dtype=np.uint8)
    surf = convert.array_to_surface(img)
    assert np.array_equal(convert.surface_to_array(surf), img)
    assert convert.bgr_to_rgb((1, 2, 3)) == (3, 2, 1)
    assert convert.view_to_camera(*convert.camera_to_view(5, 7, (16, 12), (10, 20, 160, 120)),
                                  (16, 12), (10, 20, 160, 120)) == (5, 7)
    assert convert.view_to_camera(0, 0, (16, 12), (10, 20, 160, 120)) is None
    assert convert.norm_to_px(0.5, 0.5, (0, 0, 100, 50)) == (50.0, 25.0)
    assert convert.mirror_x(0, 320) == 319


def test_the_host_leaves_the_environment_alone(monkeypatch):
    """``AppHost`` never writes ``os.environ``: the CLI's entry chooses SDL's dummy drivers."""
    import os

    from sensekit.cli.run import use_headless_drivers

    monkeypatch.setenv("SDL_AUDIODRIVER", "restored after the test")
    monkeypatch.delenv("SDL_AUDIODRIVER")
    before = dict(os.environ)
    host = AppHost(Probe, SyntheticSource(), RunOptions(headless=True, frames=1))
    host.close()
    assert dict(os.environ) == before
    use_headless_drivers()
    assert os.environ["SDL_VIDEODRIVER"] == os.environ["SDL_AUDIODRIVER"] == "dummy"


def test_importing_the_apps_chooses_no_video_driver():
    """Loading an app (and the collide/steer libraries it imports) leaves SDL's video driver to
    the entry point: a desktop run opens its window (collide once chose "dummy" on import)."""
    import os
    import subprocess
    import sys

    code = ("import os\nfrom sensekit.app.registry import load\nfor name in ('steer', 'collide', 'color_ball'):\n"
            "    load(name)\nprint(os.environ.get('SDL_VIDEODRIVER', 'unset'))")
    env = {k: v for k, v in os.environ.items() if k != "SDL_VIDEODRIVER"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "unset"
