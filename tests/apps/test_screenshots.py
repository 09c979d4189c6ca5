"""Every app: after N steps on the demo replay the picture is not blank, and two runs give
the same picture, pixel for pixel (fixed step on source time, seeded randomness)."""
from __future__ import annotations

import numpy as np
import pygame
import pytest

from sensekit.app.convert import surface_to_array
from sensekit.app.registry import discover

APPS = sorted(discover())
# until something has happened on screen (the clapper: lit in the double clap's colour)
STEPS = {"clapper": 395, "activity_graph": 200}


@pytest.mark.parametrize("name", APPS)
def test_screenshot_not_blank_and_identical_across_runs(name, play, tmp_path):
    steps = STEPS.get(name, 150)
    shots = []
    for run in ("a", "b"):
        path = tmp_path / f"{run}.png"
        host = play(name, steps)
        host.save_screenshot(path)
        shots.append(surface_to_array(pygame.image.load(str(path))))
    a, b = shots
    assert a.shape == b.shape
    assert np.array_equal(a, b), f"{(a != b).any(axis=2).sum()} pixels differ"
    colours = np.unique(a.reshape(-1, 3)[::7], axis=0)
    assert len(colours) > 40 and a.std() > 20
    # the title bar and the instruction line are drawn
    assert a[:44].std() > 5 and a[-24:].std() > 5
