"""The collide demo app: runs headless on the bundled recording, deterministic pictures,
and each scene does what it says (contacts flash, the alpha threshold matters, links)."""
from __future__ import annotations

import numpy as np
import pygame

from sensekit.app.convert import surface_to_array
from sensekit.app.host import AppHost
from sensekit.collide import hit_test
from tests.apps.hosts import demo_host


def run(steps_per_scene: int, scenes: int = 3) -> tuple[AppHost, list[np.ndarray], list[dict]]:
    host = demo_host("collide")
    shots, states = [], []
    try:
        for _ in range(scenes):
            for _ in range(steps_per_scene):
                host.step()
            host.render()
            shots.append(surface_to_array(host.screen).copy())
            states.append(host.app.state())
            host.press(pygame.K_c)
    finally:
        host.close()
    return host, shots, states


def test_scenes_run_headless_and_repeat_pixel_for_pixel():
    _, a, states = run(45)
    _, b, _ = run(45)
    for x, y in zip(a, b):
        assert np.array_equal(x, y)
        assert x.std() > 20
    balls, stars, garden = states
    assert balls["scene"] == "balls" and balls["contacts"] > 0 and balls["flashing"] > 0
    assert stars["scene"] == "stars"
    assert garden["scene"] == "node garden" and garden["links"] > 0


def test_alpha_threshold_key_changes_the_star_hit():
    host, _, _ = run(5, scenes=1)
    app = host.app
    app.scene = 1                               # the star scene: +/- set the alpha threshold
    reach = {}
    for step in (-10, +10):                     # threshold 1 (the glow counts), then 255
        host.adjust(step)
        # how far apart (x offset of B's corner) the two stars still touch
        hits = [dx for dx in range(40, 140, 2)
                if hit_test(app.masks[0], (0, 0), app.masks[1], (dx, 0))]
        reach[app.alpha_threshold] = max(hits)
    assert reach[1] > reach[255]                # the soft glow reaches further than the core


def test_the_hud_line_counts_only_the_scene_on_screen():
    """After the balls scene, the stars and the node garden showed its frozen 'contacts 56' in
    the HUD line (and the balls scene a 'links 0' of a garden not running)."""
    host = demo_host("collide")
    lines = []
    try:
        for _ in range(3):                          # balls, stars, node garden
            for _ in range(45):
                host.step()
            lines.append(host.hud.line())
            host.press(pygame.K_c)
    finally:
        host.close()
    balls, stars, garden = lines
    assert "contacts" in balls and "links" not in balls, balls
    assert "contacts" not in stars and "links" not in stars, stars
    assert "contacts" not in garden and f"links {len(host.app.links)}" in garden, garden
