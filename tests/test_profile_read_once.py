"""``--profile`` is read once at start (harden27): the file replaced between two reads gave a
warning about one file and the settings of another.

``chosen_values`` loaded the profile (one read), then ``_say_empty`` read it again to decide
whether it was empty, and a refusal read it a third time for the line of the key. Here the
file is replaced right after its first read (a copy landing, a writer truncating it), by
wrapping the one reader every profile read goes through (``profile.load.read_regular``)."""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from sensekit.cli import main
from sensekit.profile import load as profile_load

from .test_arg_types import DEMO

FULL = "[audio]\ngain = 50\n\n[activity]\nsilence_level = 10\noff_level = 50\n"


def _needs_demo() -> None:
    if not (DEMO / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")


def _replaced_after_first_read(monkeypatch: Any, path: Path, then: str) -> list[bytes]:
    """Every read of ``path``; right after the first, the file holds ``then``."""
    real = profile_load.read_regular
    reads: list[bytes] = []

    def read(p: Any, **kw: Any) -> bytes:
        data: bytes = real(p, **kw)
        if Path(p) == path:
            reads.append(data)
            if len(reads) == 1:
                path.write_text(then)
        return data

    monkeypatch.setattr(profile_load, "read_regular", read)
    return reads


def test_a_profile_emptied_after_it_was_read_gives_no_empty_warning(
        tmp_path: Path, monkeypatch: Any, caplog: Any) -> None:
    """The control (passed before too: a profile that loads with values was not read again)."""
    _needs_demo()
    profile = tmp_path / "venue.toml"
    profile.write_text("[audio]\ngain = 50\n")
    reads = _replaced_after_first_read(monkeypatch, profile, "")
    with caplog.at_level(logging.WARNING):
        assert main(["events", str(DEMO), "--max-items", "3", "--profile", str(profile)]) == 0
    assert len(reads) == 1, f"the profile was read {len(reads)} times"
    assert "is empty" not in caplog.text, caplog.text        # it ran on gain 50: the file it read


def test_a_profile_filled_after_it_was_read_empty_is_said_empty(
        tmp_path: Path, monkeypatch: Any, caplog: Any) -> None:
    """The other way round the run used the defaults (the empty file it loaded) without a word."""
    _needs_demo()
    profile = tmp_path / "venue.toml"
    profile.write_text("")
    reads = _replaced_after_first_read(monkeypatch, profile, FULL)
    with caplog.at_level(logging.WARNING):
        assert main(["events", str(DEMO), "--max-items", "3", "--profile", str(profile)]) == 0
    assert len(reads) == 1, f"the profile was read {len(reads)} times"
    assert f"profile '{profile}' is empty" in caplog.text, caplog.text


def test_a_refusal_names_the_line_of_the_text_that_was_loaded(
        tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    """The refused key's line is found in the text loaded, not in the file read again."""
    _needs_demo()
    profile = tmp_path / "venue.toml"
    profile.write_text(FULL)                                  # off_level over silence_level: line 6
    reads = _replaced_after_first_read(monkeypatch, profile, "# moved\n\n\n\n\n\n\n\n" + FULL)
    assert main(["events", str(DEMO), "--max-items", "3", "--profile", str(profile)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(reads) == 1, f"the profile was read {len(reads)} times"
    assert err == [err[0]] and err[0].startswith(f"sensekit: error: {profile}:6: `activity.off_level`"), err
