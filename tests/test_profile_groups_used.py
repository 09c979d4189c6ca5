"""A profile's settings group that the run does not use is said, once (harden27).

``sensekit run sound_flier --profile venue.toml`` with a ``[pitch]`` table ran (exit 0) and left
the table out without a word: the flier flies by the level alone and builds no pitch tracker
(``apply_chosen`` warned only for keys typed on the command line). Which apps run which groups
(the demo recording, this checkout): activity_graph and clapper run activity, audio, clap and
noise_floor; sound_flier audio and noise_floor; collide and color_ball tracker and vision;
edge_snow vision; motion_paddle background, motion and vision; steer those and blobs, tracker;
pinch_toss none without ``--hands``. Now one warning names the groups of the library the profile
sets that the run leaves out, the file and the app; another app's own table is quiet."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from sensekit.cli import main

from .test_arg_types import DEMO

PROFILE = "[audio]\ngain = 50\n\n[pitch]\nfmin = 80\nfmax = 1500\n\n[clapper]\nmethod = \"activity\"\n"


def _needs_demo() -> None:
    if not (DEMO / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")


def _said(caplog: Any, argv: list[str]) -> list[str]:
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert main(argv) == 0
    return [r.getMessage() for r in caplog.records if "does not use" in r.getMessage()]


def test_sound_flier_says_it_does_not_use_the_profiles_pitch_table(
        tmp_path: Path, caplog: Any, monkeypatch: Any) -> None:
    _needs_demo()
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    profile = tmp_path / "venue.toml"
    profile.write_text(PROFILE)
    said = _said(caplog, ["run", "sound_flier", "--source", str(DEMO), "--headless", "--frames", "2",
                          "--profile", str(profile)])
    assert said == [f"profile '{profile}' sets [pitch], which sound_flier does not use: its values are not "
                    "applied (`sensekit settings` lists what each group is for)"], said


def test_a_group_the_run_uses_is_not_named(tmp_path: Path, caplog: Any, monkeypatch: Any) -> None:
    """Clapper runs [audio] (not named) and leaves [pitch] out (named once); a profile of the app's
    own groups says nothing; ``sensekit events`` runs what its options ask from a venue profile
    that may cover every group: quiet, with or without ``--pitch``."""
    _needs_demo()
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    profile = tmp_path / "venue.toml"
    profile.write_text(PROFILE)
    said = _said(caplog, ["run", "clapper", "--source", str(DEMO), "--headless", "--frames", "2",
                          "--profile", str(profile)])
    assert len(said) == 1 and "sets [pitch], which clapper does not use" in said[0], said
    for pitch in (["--pitch"], []):
        assert _said(caplog, ["events", str(DEMO), "--max-items", "3", *pitch, "--profile", str(profile)]) == []
    profile.write_text("[audio]\ngain = 50\n\n[sound_flier]\nspeed = 5.0\n")
    assert _said(caplog, ["run", "sound_flier", "--source", str(DEMO), "--headless", "--frames", "2",
                          "--profile", str(profile)]) == []


def test_a_venue_profile_sensekit_saved_is_quiet_in_every_app(tmp_path: Path, caplog: Any, monkeypatch: Any) -> None:
    """A profile ``sensekit calibrate`` or Shift+S saved is a venue's, shared by the apps: each
    app left out the groups of the others and said so at every start (harden28: the calibrated
    profile below was a warning in each of the 8 apps on the demo). Quiet now for a saved profile;
    the same text written by hand (without the saved profile's first line) is still said."""
    from sensekit.profile.seal import seal

    _needs_demo()
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    text = ("[audio]\ngain = 50.0\n\n[motion]\nnoise_sigma = 0.28\n\n[noise_floor]\nlevel = 0.0\n\n"
            "[tracker]\ncolor = \"#808c96\"\n")
    profile = tmp_path / "venue.toml"
    for app in ("clapper", "sound_flier", "steer"):
        argv = ["run", app, "--source", str(DEMO), "--headless", "--frames", "2", "--profile", str(profile)]
        profile.write_text(seal(text))
        assert _said(caplog, argv) == [], app
        profile.write_text(text)
        assert len(_said(caplog, argv)) == 1, app
