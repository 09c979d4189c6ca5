"""A profile sensekit saved, cut short at a line boundary, is refused (harden25; ``profile/seal.py``).

A profile cut at the end of a line (a copy interrupted, another program writing it in place, a
full disk) is valid TOML and loaded silently without the settings after the cut. Saves now mark
the file's first and last lines; ``sensekit events`` and ``sensekit run`` refuse a saved profile
cut at any line boundary in one line naming the file (exit 2). The whole file, a hand-written
profile and one saved by the previous version (no marks) load as before."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sensekit.audio.clap_venue import SIZE
from sensekit.cli import main
from sensekit.errors import ConfigError
from sensekit.profile import dumps_profile, load_profile, save_profile
from sensekit.profile.seal import END, HEAD, seal

from .test_arg_types import DEMO

VALUES: dict[str, Any] = {"motion.noise_sigma": 1.1, "audio.gain": 62.5, "activity.silence_level": 25.0,
                          "activity.timeout_ms": 500.0, "motion.zones": {"door": (0.0, 0.0, 0.25, 1.0)},
                          "clap.min_level": 40.0}
HAND = "[audio]\ngain = 62.5\n\n[activity]\nsilence_level = 25.0\n"


def _saved(tmp_path: Path) -> Path:
    path = tmp_path / "venue.toml"
    save_profile(VALUES, path)
    return path


def _events(profile: Path) -> int:
    return main(["events", str(DEMO), "--max-items", "3", "--profile", str(profile)])


def test_a_saved_profile_cut_at_every_line_boundary_is_refused_by_events(tmp_path: Path, capsys: Any) -> None:
    if not (DEMO / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")
    whole = _saved(tmp_path).read_bytes()
    assert _events(tmp_path / "venue.toml") == 0
    capsys.readouterr()
    ends = [i + 1 for i, b in enumerate(whole) if b == ord("\n")][:-1]      # every cut but the whole file
    assert len(ends) >= 12
    cut = tmp_path / "cut.toml"
    for end in ends:
        cut.write_bytes(whole[:end])
        assert _events(cut) == 2, f"cut after byte {end} loaded:\n{whole[:end].decode()}"
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and f"profile {str(cut)!r} is cut short" in err[0], (end, err)


def test_a_saved_profile_cut_is_refused_by_run(tmp_path: Path, capsys: Any) -> None:
    if not (DEMO / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")
    whole = _saved(tmp_path).read_bytes()
    ends = [i + 1 for i, b in enumerate(whole) if b == ord("\n")][:-1]
    cut = tmp_path / "cut.toml"
    for end in ends:
        cut.write_bytes(whole[:end])
        assert main(["run", "clapper", "--source", str(DEMO), "--headless", "--frames", "2",
                     "--profile", str(cut)]) == 2, f"cut after byte {end} loaded"
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "is cut short" in err[0] and str(cut) in err[0]
    assert main(["run", "clapper", "--source", str(DEMO), "--headless", "--frames", "2",
                 "--profile", str(tmp_path / "venue.toml")]) == 0


def test_a_cut_within_the_first_line_is_refused(tmp_path: Path) -> None:
    cut = tmp_path / "cut.toml"
    for n in (3, 10, len(HEAD)):
        cut.write_text(HEAD[:n])
        with pytest.raises(ConfigError, match="is cut short"):
            load_profile(cut)
    cut.write_text("")                           # zero bytes: an empty profile, as a user's empty file
    assert dict(load_profile(cut)) == {}


def test_the_whole_hand_written_and_older_profiles_load(tmp_path: Path, capsys: Any) -> None:
    saved = _saved(tmp_path)
    lines = saved.read_text().splitlines()
    assert lines[0] == HEAD and lines[-1] == END
    assert dict(load_profile(saved)) == {k: load_profile(saved)[k] for k in VALUES}
    assert load_profile(saved)["audio.gain"] == 62.5
    hand = tmp_path / "hand.toml"
    hand.write_text(HAND)                        # no marks: loads as before, cut or not
    assert dict(load_profile(hand)) == {"audio.gain": 62.5, "activity.silence_level": 25.0}
    hand.write_text(HAND.split("\n\n")[0] + "\n")
    assert dict(load_profile(hand)) == {"audio.gain": 62.5}
    older = tmp_path / "older.toml"              # the previous version's save: no marks
    older.write_text(dumps_profile(VALUES))
    assert HEAD not in older.read_text() and load_profile(older)["clap.min_level"] == 40.0
    if (DEMO / "meta.json").is_file():
        for p in (saved, hand, older):
            assert _events(p) == 0, capsys.readouterr().err


def test_a_saved_profile_edited_by_hand_and_saved_again_keeps_one_pair_of_marks(tmp_path: Path) -> None:
    saved = _saved(tmp_path)
    text = saved.read_text().replace("gain = 62.5", "gain = 70.0")
    saved.write_text(text + "[pitch]\nfmin = 90.0\n")          # edited, and a table added after the end
    assert load_profile(saved)["audio.gain"] == 70.0
    save_profile({"audio.gain": 55.0}, saved)
    lines = saved.read_text().splitlines()
    assert lines[0] == HEAD and lines[-1] == END and lines.count(HEAD) == 1 and lines.count(END) == 1
    p = load_profile(saved)
    assert p["audio.gain"] == 55.0 and p["pitch.fmin"] == 90.0 and p["clap.min_level"] == 40.0
    assert seal(seal("x = 1\n")) == seal("x = 1\n")


def test_a_profile_with_taught_sounds_saved_then_cut_is_refused(tmp_path: Path) -> None:
    from sensekit.profile.save import save_table

    path = tmp_path / "sounds.toml"
    save_table(path, "sounds", {"snap": {"spread": 3.5, "centre": [0.1] * 8}})
    whole = path.read_text()
    assert whole.startswith(HEAD + "\n") and whole.endswith(END + "\n")
    path.write_text(whole[:whole.index(END)])
    with pytest.raises(ConfigError, match="is cut short"):
        load_profile(path)


def test_the_venue_model_error_names_the_profile_file_line_and_key(tmp_path: Path, capsys: Any) -> None:
    """harden25 item 2: the clap group's rule runs when the detector is built, after the profile
    was read: its error said `clap.venue_model` without the file."""
    if not (DEMO / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")
    nums = [float(i % 7 + 1) for i in range(SIZE)]
    nums[0] = 1e308
    profile = tmp_path / "venue.toml"
    profile.write_text(f"[clap]\nmin_level = 40.0\nvenue_model = {json.dumps(nums)}\n")
    assert main(["events", str(DEMO), "--clap", "--max-items", "20", "--profile", str(profile)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert f"{profile}:3: `clap.venue_model` is not a venue model" in err, err
    assert main(["events", str(DEMO), "--clap", "--max-items", "20", "--profile", str(profile),
                 "--set", "clap.venue_model=none"]) == 0              # the typed value wins, as before
    profile.write_text(f"[clap]\nvenue_model = {json.dumps(nums[:5])}\n")
    assert main(["run", "clapper", "--source", str(DEMO), "--headless", "--frames", "2",
                 "--profile", str(profile)]) == 2
    err = capsys.readouterr().err.strip()
    assert f"{profile}:2: `clap.venue_model` must hold {SIZE} numbers" in err and len(err.splitlines()) == 1
