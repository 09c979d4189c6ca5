"""``sensekit calibrate --claps`` teaches at the gain a run starts from: the profile's or
``--set``'s ``audio.gain``, else the recording's stored gain (as ``run`` and ``events`` replay
it), never the table's 50 when the recording says otherwise."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from sensekit.paths import recordings_dir


@pytest.fixture
def demo_at_80(tmp_path: Path) -> Path:
    """The bundled demo with its stored gain set to 80 (its samples unchanged)."""
    rec = tmp_path / "demo80.skrec"
    shutil.copytree(recordings_dir() / "demo.skrec", rec)
    meta = json.loads((rec / "meta.json").read_text())
    meta["audio"]["gain"] = 80.0
    (rec / "meta.json").write_text(json.dumps(meta))
    return rec


@pytest.mark.parametrize("profile, expected", [(None, 80.0), ("[audio]\ngain = 62.5\n", 62.5)])
def test_calibrate_claps_teaches_at_the_gain_a_run_starts_from(demo_at_80, tmp_path, monkeypatch,
                                                                profile, expected):
    import sensekit.audio.clap_teach as clap_teach
    from sensekit.cli import main

    gains: list[float] = []
    teach = clap_teach.teach

    def spy(*args: Any, **kwargs: Any) -> Any:
        gains.append(kwargs["gain"])
        return teach(*args, **kwargs)

    monkeypatch.setattr(clap_teach, "teach", spy)
    out = tmp_path / "v.toml"
    if profile is not None:
        out.write_text(profile)
    assert main(["calibrate", str(demo_at_80), "--out", str(out), "--claps", "--clap-seconds", "16",
                 "--seconds", "4"]) == 0
    assert gains == [expected]
    from sensekit.profile import load_profile

    assert load_profile(out)["audio.gain"] == expected      # the threshold's scale goes with it


def test_the_gain_help_says_a_recording_s_own_gain_is_where_a_run_starts(capsys):
    """`--gain` said only "default 50", and a recording stored at 80 replays at 80."""
    from sensekit.cli import main

    assert main(["events", "--help"]) == 0
    gain_help = " ".join(capsys.readouterr().out.split("  --gain X", 1)[1].split("  --smoothing-ms")[0].split())
    assert "a recording's stored gain" in gain_help, gain_help


def test_calibrate_keeps_the_gain_it_measured_the_floor_at_so_a_later_run_hears_the_room_as_it_did(
        demo_at_80, tmp_path, capsys):
    """A floor learned from a recording stored at gain 80 (22.7) was written without its gain; a
    run from the profile on a source at 50 (the same samples: the demo as stored, a live mic's
    default) heard that room at 0. The profile keeps the gain; the run's levels over the same 5 s
    give the floor calibrate wrote."""
    import json

    from sensekit.audio.noise_floor import NoiseFloor
    from sensekit.cli import main
    from sensekit.profile import load_profile
    from sensekit.settings.registry import lookup

    out = tmp_path / "v.toml"
    assert main(["-q", "calibrate", str(demo_at_80), "--out", str(out), "--seconds", "5"]) == 0
    said = capsys.readouterr().out
    assert "at gain 80: kept as audio.gain" in said, said
    profile = load_profile(out)
    assert profile["audio.gain"] == 80.0
    floor = profile["noise_floor.level"]
    assert floor > 20                                       # the room at 80 (at 50 it reads 0)
    assert main(["events", str(recordings_dir() / "demo.skrec"), "--profile", str(out), "--level",
                 "--jsonl", "--max-items", "400"]) == 0
    levels = [e["level"] for e in map(json.loads, capsys.readouterr().out.splitlines())
              if e["event"] == "level" and e["t"] < 5.0]
    assert len(levels) == 157                               # the blocks calibrate measured
    heard = NoiseFloor(percentile=lookup("noise_floor.percentile").default).calibrate(levels)
    assert round(heard, 3) == floor


def test_calibrate_help_says_it_writes_the_gain_with_the_floor(capsys):
    """`sensekit calibrate --help` named the noise floors and the colour, not the gain it also
    writes: a user who had set audio.gain in the profile by hand found it replaced (or kept)
    without a word from the help."""
    from sensekit.cli import main

    assert main(["calibrate", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "(noise_floor.level) with the gain it was measured at (audio.gain" in text, text
    assert "--claps writes clap.threshold and the room rule, also with audio.gain" in text, text
