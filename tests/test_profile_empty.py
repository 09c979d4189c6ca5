"""``--profile FILE`` whose file sets nothing: a cut refused, an empty file said (harden26).

A profile sensekit saved, cut to its first 0, 1 or 2 bytes (``""``, ``"#"``, ``"# "``), is valid
TOML and loaded as an empty profile: the show ran on the defaults without a word. Now a cut within
the saved profile's first line is refused from its first byte (``profile.seal``; it was from the
third), one line naming the file, exit 2. Zero bytes, a file of comments only and a table line
without keys cannot be told from the file a user creates to name a new profile that the run's
Shift+S saves into (``tests/test_settings.py`` runs so), so the run goes on from the defaults with
one warning naming the file. A profile with any value, and one sensekit saved whole with nothing in
it (Shift+S in a run that changed nothing), load without a word."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from sensekit.cli import main
from sensekit.profile import load_profile, save_profile

from .test_arg_types import DEMO

SAID = "sets no value (only comments, blank lines or empty tables)"
#: case -> what a run says: "cut" (refused), or the warning's words (runs, warned)
CASES = {"cut-1": "cut", "cut-2": "cut", "cut-0": "is empty", "comment": SAID, "empty-table": SAID}


def _text(tmp_path: Path, case: str) -> bytes:
    if case.startswith("cut-"):
        saved = tmp_path / "saved.toml"
        save_profile({"audio.gain": 62.5, "activity.silence_level": 25.0}, saved)
        return saved.read_bytes()[:int(case[4:])]
    return {"comment": b"# the venue's profile\n\n# (to be calibrated)\n", "empty-table": b"[audio]\n"}[case]


def _argv(command: str, profile: Path) -> list[str]:
    if command == "events":
        return ["events", str(DEMO), "--max-items", "3", "--profile", str(profile)]
    return ["run", "clapper", "--source", str(DEMO), "--headless", "--frames", "2", "--profile", str(profile)]


def _needs_demo() -> None:
    if not (DEMO / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")


def _warnings(caplog: pytest.LogCaptureFixture, profile: Path) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.levelno >= logging.WARNING and f"profile '{profile}'" in r.getMessage()]


@pytest.mark.parametrize("command", ["events", "run"])
@pytest.mark.parametrize("case", list(CASES))
def test_a_profile_that_sets_nothing_is_refused_when_cut_and_said_otherwise(
        tmp_path: Path, capsys: Any, caplog: pytest.LogCaptureFixture, command: str, case: str) -> None:
    _needs_demo()
    profile = tmp_path / "venue.toml"
    profile.write_bytes(_text(tmp_path, case))
    with caplog.at_level(logging.WARNING):
        code = main(_argv(command, profile))
    err = capsys.readouterr().err.strip().splitlines()
    if CASES[case] == "cut":
        assert code == 2 and len(err) == 1, err
        assert err[0].startswith(f"sensekit: error: profile {str(profile)!r} is cut short"), err
        return
    assert code == 0, err
    said = _warnings(caplog, profile)
    assert len(said) == 1 and f"profile '{profile}' {CASES[case]}: this run starts from the defaults" in said[0]
    assert dict(load_profile(profile)) == {}                # the library reads it as empty, quietly


@pytest.mark.parametrize("text", ["[audio]\ngain = 62.5\n", "# mine\n[midi]\nchannel = 2\n", "saved-empty"])
def test_a_profile_with_any_value_or_saved_whole_loads_without_a_word(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: Any, text: str) -> None:
    _needs_demo()
    profile = tmp_path / "venue.toml"
    if text == "saved-empty":                   # Shift+S in a run that changed nothing: a save asked for
        save_profile({}, profile)
    else:
        profile.write_text(text)
    for command in ("events", "run"):
        with caplog.at_level(logging.WARNING):
            assert main(_argv(command, profile)) == 0, capsys.readouterr().err
        assert _warnings(caplog, profile) == []
