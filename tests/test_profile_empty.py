"""``--profile FILE`` whose file sets nothing is refused in one line naming it (harden26).

A profile sensekit saved, cut to its first 0, 1 or 2 bytes (``""``, ``"#"``, ``"# "``), is valid
TOML and loaded as an empty profile: the show ran on the defaults without a word. A show is never
meant to run from an empty profile, so the command line now refuses one (exit 2); leaving
``--profile`` out runs on the defaults. ``load_profile`` still reads it as an empty profile, and a
profile with any value (a hand-written one, a ``[midi]`` map alone) loads as before, and so does a
profile sensekit saved whole with nothing in it (Shift+S in a run that changed nothing)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sensekit.cli import main
from sensekit.profile import load_profile, save_profile

from .test_arg_types import DEMO

EMPTY = ["cut-0", "cut-1", "cut-2", "comment", "empty-table"]


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


@pytest.mark.parametrize("command", ["events", "run"])
@pytest.mark.parametrize("case", EMPTY)
def test_a_profile_that_sets_nothing_is_refused_in_one_line(tmp_path: Path, capsys: Any, command: str,
                                                            case: str) -> None:
    if not (DEMO / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")
    profile = tmp_path / "venue.toml"
    profile.write_bytes(_text(tmp_path, case))
    assert main(_argv(command, profile)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(f"sensekit: error: profile {str(profile)!r} ") and "leave --profile out" in err[0]
    assert dict(load_profile(profile)) == {}                # the library still reads it as empty


@pytest.mark.parametrize("text", ["[audio]\ngain = 62.5\n", "# mine\n[midi]\nchannel = 2\n"])
def test_a_profile_with_any_value_loads_as_before(tmp_path: Path, capsys: Any, text: str) -> None:
    if not (DEMO / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")
    profile = tmp_path / "venue.toml"
    profile.write_text(text)
    for command in ("events", "run"):
        assert main(_argv(command, profile)) == 0, capsys.readouterr().err


def test_a_profile_sensekit_saved_whole_with_nothing_in_it_loads(tmp_path: Path, capsys: Any) -> None:
    """Shift+S in a run that changed nothing saves the marks and comments only: a save asked for."""
    if not (DEMO / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")
    profile = tmp_path / "venue.toml"
    save_profile({}, profile)
    assert dict(load_profile(profile)) == {}
    for command in ("events", "run"):
        assert main(_argv(command, profile)) == 0, capsys.readouterr().err
