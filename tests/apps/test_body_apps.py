"""Apps played with the body, on the real pose clips (needs the hands extra; skips without it).

- ``edge_snow --silhouette``: the snow settles on the person of ntu_drink_water (the person
  mask of the silhouette stage) and nowhere else, where the edge mode piles it on the room's
  furniture too; key ``b`` draws the person mask over the camera view;
- ``motion_paddle`` with ``steer=body``: the paddle follows a player walking on the basketball
  clip; with ``steer=lean``: it runs the way a player leans (ntu_two_person_hug).
"""
from __future__ import annotations

from sensekit.installed import install_hint
from pathlib import Path

import numpy as np
import pygame
import pytest

from sensekit.app.convert import surface_to_array
from sensekit.app.host import AppHost, RunOptions
from sensekit.app.registry import load
from sensekit.capture.spec import open_source

pytestmark = pytest.mark.hands
pytest.importorskip("mediapipe", reason=f"needs the hands extra: {install_hint('hands')} "
                                        "(CI runs these in .venv-hands)")


def _clip(shared_data: Path, name: str) -> Path:
    path = shared_data / "video" / "pose" / name
    if not path.is_file():
        pytest.skip(f"pose clip not found at {path}")
    return path


def _run(app: str, clip: Path, steps: int, **options) -> AppHost:
    source = open_source(f"file:{clip}")
    source.open()
    host = AppHost(load(app), source, RunOptions(headless=True, **options))
    for _ in range(steps):
        host.step()
    return host


def _key_b_draws_the_silhouette(host: AppHost, mask: np.ndarray) -> None:
    """Key ``b``: the person mask in green over the camera view, where the mask is."""
    view = host.app.camera_view
    host.render()
    plain = surface_to_array(host.screen.subsurface(view)).astype(int)
    host.press(pygame.K_b)
    assert host.toast is not None and "silhouette overlay on (b)" in host.toast[0]
    host.render()
    shown = surface_to_array(host.screen.subsurface(view)).astype(int)
    h, w = mask.shape
    ys, xs = np.mgrid[0:view.h, 0:view.w]
    on = mask[ys * h // view.h, xs * w // view.w] > 0
    greener = (shown[..., 1] - shown[..., [0, 2]].mean(axis=2)) - (plain[..., 1] - plain[..., [0, 2]].mean(axis=2))
    assert greener[on].mean() > greener[~on].mean() + 40
    host.press(pygame.K_b)


def test_edge_snow_piles_snow_on_the_silhouette_and_nowhere_else(shared_data):
    """ntu_drink_water: one woman standing in the middle of a room (x 0.43-0.49 of the mirrored
    picture), a table and shelves to the sides. 240 steps: the 103 frames, then the last one."""
    clip = _clip(shared_data, "ntu_drink_water.mp4")
    runs = {}
    for silhouette in (True, False):
        host = _run("edge_snow", clip, 240, silhouette=silhouette)
        try:
            st = host.app.state()
            w = st["edge"].shape[1]
            runs[silhouette] = st["x"][st["settled"]] / w
            if silhouette:
                mask = host.app.silhouette.mask_layer()
                assert mask is not None and 0.01 < host.app.silhouette.area_share < 0.1
                _key_b_draws_the_silhouette(host, mask)
        finally:
            host.source.close()
    on_person = (runs[True] > 0.38) & (runs[True] < 0.55)
    assert len(runs[True]) >= 20 and on_person.mean() >= 0.95, np.round(runs[True], 2)
    # the edge mode lets it settle on the room too: most of its snow is away from the person
    assert ((runs[False] < 0.38) | (runs[False] > 0.55)).mean() > 0.5


def _paddle(clip: Path, steer: str, steps: int) -> list[dict]:
    source = open_source(f"file:{clip}")
    source.open()
    host = AppHost(load("motion_paddle"), source, RunOptions(headless=True))
    host.tuning.apply({"motion_paddle.steer": steer})
    out = []
    try:
        for _ in range(steps):
            host.step()
            at = host.app.body.shoulders
            out.append({**host.app.state(), "shoulder_x": None if at is None else at[0]})
    finally:
        host.source.close()
    return out


def test_the_paddle_follows_a_player_walking_on_a_real_clip(shared_data):
    """basketball_two_players, steer=body: the player the stage follows walks ~150 px across the
    (mirrored) picture and back; after a first half second the paddle stays under their shoulders."""
    run = _paddle(_clip(shared_data, "basketball_two_players.mp4"), "body", 100)
    follow = [abs(s["paddle_x"] - s["shoulder_x"]) for s in run[15:] if s["shoulder_x"] is not None]
    assert len(follow) >= 80 and np.mean(np.array(follow) < 25) >= 0.9, np.round(follow)
    xs = [s["paddle_x"] for s in run]
    assert max(xs) - min(xs) > 100, (min(xs), max(xs))


def test_the_paddle_runs_the_way_a_real_player_leans(shared_data):
    """ntu_two_person_hug, steer=lean: the player stands upright (under 8 degrees: the paddle
    stays) for the first ~20 frames, then leans ~10 degrees to the left as the hug starts: the
    paddle runs left, then stops when the lean eases."""
    run = _paddle(_clip(shared_data, "ntu_two_person_hug.mp4"), "lean", 50)
    assert all(s["body"].startswith("body: lean") for s in run), {s["body"] for s in run}
    assert run[15]["paddle_x"] == run[0]["paddle_x"] and all(abs(s["lean_deg"]) < 8 for s in run[:15])
    assert min(s["lean_deg"] for s in run) < -9
    assert run[-1]["paddle_x"] < run[15]["paddle_x"] - 10
