"""Shift+S saves the venue profile; the next run started with --profile is tuned the same."""
from __future__ import annotations

import pygame
import pytest

from sensekit.profile import load_profile
from tests.apps.stepping import step_to_next_frame


def test_shift_s_saves_what_the_run_changed_and_a_new_run_starts_from_it(play, tmp_path):
    venue = tmp_path / "venue.toml"
    venue.write_text("# kept\n[motion_paddle]\nmin_motion = 0.02  # mine\n")
    base = load_profile(venue)
    host = play("motion_paddle", 40, profile_path=venue, screenshot_dir=tmp_path, profile=base,
                each=lambda h: h.steps == 1 and h.tuning.apply_now(base))       # as `run --profile`
    host.press(pygame.K_s)                                  # plain s: a screenshot, no profile
    assert list(tmp_path.glob("*.png"))
    host.tuning.apply_now({"motion.min_amount": 0.01, "vision.blur_px": 7})
    host.press(pygame.K_PLUS)                               # the app's plus_minus setting
    host.app.apply_pending()
    assert host.app.sensitivity == 6 and host.toast[0] == "motion_paddle.sensitivity = 6"
    host.press(pygame.K_s, pygame.KMOD_LSHIFT)
    assert host.wait_for_save() == venue                    # written off the run's thread
    assert "saved venue profile" in host.toast[0]
    text = venue.read_text()
    assert "# kept" in text and "min_motion = 0.02  # mine" in text          # the user's lines stay
    saved = load_profile(venue)
    assert saved["motion_paddle.sensitivity"] == 6 and saved["motion.min_amount"] == 0.01
    assert saved["vision.blur_px"] == 7 and saved["motion_paddle.min_motion"] == 0.02
    assert saved["motion.noise_sigma"] > 0                 # what the detector learned
    assert "motion.threshold" not in saved                 # unchanged settings are not written

    # a fresh run with the profile starts tuned the same
    again = play("motion_paddle", 1, profile=saved)
    again.tuning.apply_now(saved)
    for key in ("motion_paddle.sensitivity", "motion.min_amount", "vision.blur_px", "motion.noise_sigma"):
        assert again.tuning.settings()[key] == saved[key], key
    # the learned camera noise, saved, gives the threshold the detector had learned
    assert again.runner.stages[0].motion.threshold_in_use == pytest.approx(
        host.runner.stages[0].motion.threshold_in_use, rel=0.1)


def test_a_click_is_not_a_setting_and_is_not_saved(play, tmp_path):
    """A pick starts a new (model) tracker: Shift+S keeps the tuned settings, not the pick, so
    the next run with the profile still tracks (it would wait for a click otherwise)."""
    venue = tmp_path / "venue.toml"
    host = play("color_ball", 30, profile_path=venue)
    host.tuning.apply_now({"tracker.hue_tolerance": 20.0})
    host.pick_at((259, 52))
    step_to_next_frame(host)                                          # a pick applies at the next frame
    assert host.runner.stages[0].tracker.method_in_use == "model"
    assert host.runner.stages[0].tracker.tolerance[0] == 20.0       # the pick kept the tuning
    host.press(pygame.K_s, pygame.KMOD_LSHIFT)
    host.wait_for_save()
    saved = load_profile(venue)
    assert saved["tracker.hue_tolerance"] == 20.0
    assert "tracker.method" not in saved and "tracker.color" not in saved
    again = play("color_ball", 30, each=lambda h: h.steps == 1 and h.tuning.apply_now(saved))
    assert again.app.tracking


def test_saving_says_where_on_the_terminal_too(play, tmp_path, caplog):
    """A headless run with --keys "S@1,s@1.5" saved the profile and a screenshot and printed
    nothing: the toast is drawn on a screen no one sees, and it names the picture, not its folder."""
    import logging

    venue = tmp_path / "venue.toml"
    host = play("clapper", 5, profile_path=venue, screenshot_dir=tmp_path)
    with caplog.at_level(logging.INFO, logger="sensekit"):
        host.press(pygame.K_s, pygame.KMOD_LSHIFT)
        host.wait_for_save()
        host.press(pygame.K_s)
    shot = next(tmp_path.glob("*.png"))
    assert [r.getMessage() for r in caplog.records] == [
        f"saved venue profile {venue} (a later run starts from it with --profile {venue})", f"saved screenshot {shot}"]


def test_without_a_profile_the_save_goes_to_venue_toml_in_the_working_folder(tmp_path, monkeypatch, capsys):
    from sensekit.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["run", "clapper", "--headless", "--frames", "20", "--keys", "S@0.3"]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["venue.toml"]
    load_profile(tmp_path / "venue.toml")                             # a profile (nothing was changed)


def test_the_terminal_names_the_saved_profile_by_its_full_path(tmp_path, monkeypatch, caplog):
    # a screenshot was named "saved screenshot /full/path.png", the profile "saved venue profile
    # venue.toml": relative to a folder the terminal does not show
    import logging

    from sensekit.cli import main

    monkeypatch.chdir(tmp_path)
    with caplog.at_level(logging.INFO, logger="sensekit"):
        assert main(["run", "clapper", "--headless", "--frames", "20", "--keys", "S@0.3"]) == 0
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("saved venue profile")]
    assert said == [f"saved venue profile {tmp_path / 'venue.toml'} "
                    "(a later run starts from it with --profile venue.toml)"]


def test_a_saved_profile_says_how_a_later_run_uses_it_unless_this_one_did(tmp_path, monkeypatch, caplog):
    """Shift+S wrote ./venue.toml and the next `sensekit run` in that folder ignored it: only
    --profile reads a profile. The line says so; a run started from that --profile needs no hint."""
    import logging

    from sensekit.cli import main

    monkeypatch.chdir(tmp_path)
    for argv in ([], ["--profile", "venue.toml"]):
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="sensekit"):
            assert main(["run", "clapper", "--headless", "--frames", "20", "--keys", "S@0.3", *argv]) == 0
        said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("saved venue profile")]
        hint = " (a later run starts from it with --profile venue.toml)" if not argv else ""
        assert said == [f"saved venue profile {tmp_path / 'venue.toml'}{hint}"]
