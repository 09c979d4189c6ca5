"""Key ``h``: hand input on or off in the apps that follow a hand; the others say they take none
(it did nothing at all in the clapper, where ``c`` and a click say what the app does not do)."""
from __future__ import annotations

import pygame
import pytest


@pytest.mark.parametrize("name", ["clapper", "sound_flier", "edge_snow", "motion_paddle"])
def test_h_in_an_app_without_hand_input_says_so(name, play):
    host = play(name, 2)
    host.press(pygame.K_h)
    assert host.hud.toast is not None
    assert host.hud.toast[0].startswith(f"{name} takes no hand input"), host.hud.toast


@pytest.mark.parametrize("name", ["color_ball", "steer", "collide", "pinch_toss"])
def test_h_in_an_app_that_follows_a_hand_answers_for_itself(name, play):
    host = play(name, 2)
    host.press(pygame.K_h)
    assert host.hud.toast is not None and "takes no hand input" not in host.hud.toast[0], host.hud.toast
