"""Shift+S saves the venue profile; the next run started with --profile is tuned the same."""
from __future__ import annotations

import pygame

from sensekit.profile import apply_profile_to_stages, load_profile


def _tracker(host):
    return next(s.tracker for s in host.runner.stages if getattr(s, "tracker", None) is not None)


def test_shift_s_saves_the_tuning_and_a_new_run_starts_from_it(play, tmp_path):
    venue = tmp_path / "venue.toml"
    host = play("color_ball", 60, profile_path=venue, screenshot_dir=tmp_path)
    host.press(pygame.K_s)                                  # plain s: a screenshot, no profile
    assert list(tmp_path.glob("*.png")) and not venue.exists()
    host.press(pygame.K_s, pygame.KMOD_LSHIFT)
    assert venue.is_file() and "saved venue profile" in host.toast[0]
    profile = load_profile(venue)
    tracker = _tracker(host)
    assert profile.color.target == f"#{int(tracker.color) & 0xFFFFFF:06x}"

    # a fresh run with the profile tracks the same colour
    again = play("color_ball", 1)
    _tracker(again).color = 0x00FF00
    apply_profile_to_stages(profile, again.runner.stages, override=True)
    assert int(_tracker(again).color) & 0xFFFFFF == int(tracker.color) & 0xFFFFFF
