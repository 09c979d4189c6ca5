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


CALIBRATED = {"audio.gain": 50.0, "motion.noise_sigma": 0.28, "noise_floor.level": 0.0, "tracker.color": "#808c96"}
APPS = ("clapper", "sound_flier", "steer")


def _app_argv(app: str, profile: Path) -> list[str]:
    return ["run", app, "--source", str(DEMO), "--headless", "--frames", "2", "--profile", str(profile)]


def test_a_table_added_by_hand_to_a_saved_profile_is_said(tmp_path: Path, caplog: Any, monkeypatch: Any) -> None:
    """harden29: a ``[pitch]`` added by hand to a profile ``calibrate`` saved kept the saved first
    line, so it was only a debug line in every app. A save names the tables it wrote on the
    second line (``seal.WROTE``): the hand-added table is said in each app, alone (the venue's
    [motion], [tracker] ... stay quiet), before or after the saved last line; the calibrated
    profile itself is quiet in every app."""
    from sensekit.profile import save_profile
    from sensekit.profile.seal import END

    _needs_demo()
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    profile = tmp_path / "venue.toml"
    save_profile(CALIBRATED, profile)
    saved = profile.read_text()
    for app in APPS:
        assert _said(caplog, _app_argv(app, profile)) == [], app
    pitch = "[pitch]\nfmin = 80.0\nfmax = 1500.0\n"
    for edited in (saved.replace(END, pitch + END), saved + pitch):
        profile.write_text(edited)
        for app in APPS:
            said = _said(caplog, _app_argv(app, profile))
            assert len(said) == 1 and said[0].startswith(f"profile '{profile}' sets [pitch], which {app} does not "
                                                         "use: its values are not applied"), (app, said)
            assert "added by hand" in said[0], said


def test_a_save_keeps_a_hand_table_hand_written_and_an_older_save_quiet(tmp_path: Path, caplog: Any,
                                                                        monkeypatch: Any) -> None:
    """A later save (Shift+S writes the run's values, the profile's own carried back) names only
    the tables it wrote or an earlier save named: the hand-added [pitch] it carries stays said,
    [motion] it changed joins the quiet ones. A profile saved by the version before the ``WROTE``
    line (first and last lines only) is quiet, as harden28 decided: which table is the user's is
    not known there."""
    from sensekit.profile import save_profile
    from sensekit.profile.save import RunValues
    from sensekit.profile.seal import END, HEAD, WROTE

    _needs_demo()
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    monkeypatch.setenv("SDL_AUDIODRIVER", "dummy")
    profile = tmp_path / "venue.toml"
    profile.write_text("[audio]\ngain = 50.0\n\n[pitch]\nfmin = 80.0\n")           # written by hand
    save_profile(RunValues({"audio.gain": 50.0, "pitch.fmin": 80.0, "motion.noise_sigma": 0.3},
                           carried=["audio.gain", "pitch.fmin"]), profile)
    text = profile.read_text()
    assert text.splitlines()[1] == f"{WROTE} [motion]", text
    said = _said(caplog, _app_argv("clapper", profile))
    assert len(said) == 1 and "sets [pitch], which clapper" in said[0] and "[motion]" not in said[0], said
    profile.write_text(f"{HEAD}\n[audio]\ngain = 50.0\n\n[pitch]\nfmin = 80.0\n{END}\n")
    assert _said(caplog, _app_argv("sound_flier", profile)) == []
