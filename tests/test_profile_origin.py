"""Every refusal of a profile value names the profile's FILE:LINE; a typed one names the option (harden26).

``cli/tuning._profile_rules`` prefixed ``FILE:LINE:`` to a group rule's refusal only, and named the
line of the first key of the group the message mentioned (``activity.off_level`` on line 3 was
reported at ``silence_level``'s line 2); a refusal from a constructor (``pitch.fmax`` too high for
the source's rate) named no file, and a ``--set`` value was not named as typed. The CLI's error
handler now passes every refusal through ``cli/setting_origin.located``."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sensekit.cli import main

from .test_arg_types import DEMO

#: (profile text, the line of the refused key, the key, the command's extra options)
CASES = [
    ('[audio]\ngain = 50\n\n[clap]\nthreshold = "abc"\n', 5, "clap.threshold", ["--clap"]),
    ('[tracker]\ncolor = "#zz0000"\n', 2, "tracker.color", []),
    ("[clap]\nmin_level = 40.0\nvenue_model = [1.0, 2.0]\n", 3, "clap.venue_model", ["--clap"]),
    ("[activity]\nsilence_level = 10\noff_level = 50\n", 3, "activity.off_level", []),
    ("[audio]\ngain = 50\n\n[pitch]\nfmin = 80\nfmax = 3000\n", 6, "pitch.fmax", ["--pitch"]),
]


def _needs_demo() -> None:
    if not (DEMO / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")


def _refusal(capsys: Any, argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


#: each case through `events`, and through `run clapper` (no app builds a pitch tracker from [pitch])
RUNS = [("events", *c) for c in CASES] + [("run", *c) for c in CASES if not c[2].startswith("pitch.")]


@pytest.mark.parametrize("command, text, line, key, extra", RUNS, ids=[f"{r[0]}-{r[3]}" for r in RUNS])
def test_each_refused_profile_value_is_one_line_naming_file_line_and_key(
        tmp_path: Path, capsys: Any, command: str, text: str, line: int, key: str, extra: list[str]) -> None:
    _needs_demo()
    profile = tmp_path / "venue.toml"
    profile.write_text(text)
    if command == "events":
        argv = ["events", str(DEMO), "--max-items", "3", *extra, "--profile", str(profile)]
    else:
        argv = ["run", "clapper", "--source", str(DEMO), "--headless", "--frames", "2", "--profile", str(profile)]
    said = _refusal(capsys, argv)
    assert said.startswith(f"sensekit: error: {profile}:{line}: `{key}` "), said


def test_a_value_given_with_set_is_named_as_typed_not_as_a_profile_line(tmp_path: Path, capsys: Any) -> None:
    _needs_demo()
    profile = tmp_path / "venue.toml"
    profile.write_text("[audio]\ngain = 50\n\n[pitch]\nfmin = 80\n")
    said = _refusal(capsys, ["events", str(DEMO), "--max-items", "3", "--pitch", "--profile", str(profile),
                             "--set", "pitch.fmax=3000"])
    assert said.startswith("sensekit: error: --set pitch.fmax=3000: `pitch.fmax` 3000 Hz is too high"), said
    assert str(profile) not in said
    profile.write_text("[activity]\nsilence_level = 5\n")           # the rule blames the typed value
    said = _refusal(capsys, ["events", str(DEMO), "--max-items", "3", "--profile", str(profile),
                             "--set", "activity.off_level=50"])
    assert said.startswith("sensekit: error: --set activity.off_level=50: `activity.off_level` must not"), said
    said = _refusal(capsys, ["events", str(DEMO), "--max-items", "3", "--profile", str(profile),
                             "--off-level", "50"])
    assert said.startswith("sensekit: error: --off-level 50: `activity.off_level`"), said


def test_a_typed_value_over_a_bad_profile_value_wins(tmp_path: Path, capsys: Any) -> None:
    _needs_demo()
    profile = tmp_path / "venue.toml"
    profile.write_text("[pitch]\nfmax = 3000\n")
    assert main(["events", str(DEMO), "--max-items", "3", "--pitch", "--profile", str(profile),
                 "--set", "pitch.fmax=900"]) == 0


#: (profile, the command's options, the prefix, the typed key said after the message) (harden27)
TWO_PLACES = [
    ('[tracker]\nmethod = "model"\ncolor = "none"\n', ["--set", "tracker.color=#ff0000"],
     ":2: `tracker.method`", "[`tracker.color`: --set tracker.color=#ff0000, over {profile}:3]"),
    ("[pitch]\nfmin = 900\nfmax = 500\n", ["--pitch", "--set", "pitch.fmax=500"],
     ":2: `pitch.fmin`", "[`pitch.fmax`: --set pitch.fmax=500, over {profile}:3]"),
    ('[tracker]\nmethod = "model"\n', ["--set", "tracker.color=#ff0000"],
     ":2: `tracker.method`", "[`tracker.color`: --set tracker.color=#ff0000]"),
]


@pytest.mark.parametrize("command", ["events", "run"])
@pytest.mark.parametrize("text, extra, prefix, said", TWO_PLACES, ids=["color-twice", "fmax-twice", "color-typed"])
def test_a_refusal_names_the_typed_value_it_quotes_not_only_the_profile_line(
        tmp_path: Path, capsys: Any, command: str, text: str, extra: list[str], prefix: str, said: str) -> None:
    """A profile's ``tracker.method = "model"`` (line 2) refused beside ``--set tracker.color=#ff0000``
    named ``venue.toml:2:`` alone, and the colour it quoted (#ff0000) is not the profile's line 3
    (``none``): the typed value, which won over the profile's, is now said with its option."""
    _needs_demo()
    if command == "run" and "--pitch" in extra:
        pytest.skip("no app builds a pitch tracker from [pitch]")
    profile = tmp_path / "venue.toml"
    profile.write_text(text)
    if command == "events":
        argv = ["events", str(DEMO), "--max-items", "3", *extra, "--profile", str(profile)]
    else:
        argv = ["run", "steer", "--source", str(DEMO), "--headless", "--frames", "2", "--profile", str(profile),
                *extra]
    line = _refusal(capsys, argv)
    assert line.startswith(f"sensekit: error: {profile}{prefix} "), line
    assert line.endswith(said.format(profile=profile)), line
