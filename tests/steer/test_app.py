"""The steer demo app: runs headless on the bundled recording, deterministic pictures, and
each behaviour does what it says with the sensed targets."""
from __future__ import annotations

import numpy as np
import pygame

from sensekit.app.convert import surface_to_array
from tests.apps.hosts import demo_host


def run(steps_per_mode: int, modes: int = 4) -> tuple[list[np.ndarray], list[list[dict]]]:
    host = demo_host("steer")
    shots, states = [], []
    try:
        for _ in range(modes):
            per_step = []
            for _ in range(steps_per_mode):
                host.step()
                per_step.append(host.app.state())
            host.render()
            shots.append(surface_to_array(host.screen).copy())
            states.append(per_step)
            host.press(pygame.K_c)              # next behaviour
    finally:
        host.close()
    return shots, states


def test_behaviours_run_headless_and_repeat_pixel_for_pixel():
    a, states = run(90)
    b, _ = run(90)
    for x, y in zip(a, b):
        assert np.array_equal(x, y)
        assert x.std() > 20
    assert [s[-1]["mode"] for s in states] == ["arrive at colour", "arrive at motion",
                                               "flock flees hand", "wanderers"]

    def gaps(mode_states: list[dict]) -> list[float]:
        return [s["mean_gap_to_target"] for s in mode_states if s["mean_gap_to_target"] is not None]

    # the vehicles close in on the sensed target (they aim at spots 30 px around it and keep
    # apart), although the recorded object and the moving area keep moving
    for mode_states in states[:2]:
        g = gaps(mode_states)
        assert len(g) > 30 and min(g) < 0.5 * g[0] and min(g) < 90
