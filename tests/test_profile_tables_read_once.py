"""``--midi``, ``--sounds`` and ``--words`` take their tables from the one read of ``--profile``
(harden28): they read the file again after the settings were loaded, so a file replaced
between the reads (a copy landing, a writer truncating it) gave a run one file's settings and
another's MIDI map, sounds or taught words. As ``tests/test_profile_read_once.py``, the file is
replaced right after its first read, by wrapping the one reader every profile read goes
through (``profile.load.read_regular``)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sensekit.cli import main

from .test_arg_types import DEMO
from .test_profile_read_once import _needs_demo, _replaced_after_first_read

MIDI = "[motion]\nmin_amount = 0.01\n\n[midi]\nchannel = 2\n\n[midi.map]\nclap = \"note 60\"\n"


class _Port:
    def __init__(self) -> None:
        self.sent: list[Any] = []

    def send(self, message: Any) -> None:
        self.sent.append(message)

    def close(self) -> None:
        pass


def test_the_midi_map_is_the_one_of_the_profile_read(tmp_path: Path, monkeypatch: Any, capsys: Any) -> None:
    """The map changed to note 61 after the first read: the run sends the notes of the text it loaded."""
    pytest.importorskip("mido")
    _needs_demo()
    from sensekit.cli import midi_args

    port = _Port()
    monkeypatch.setattr(midi_args, "open_port", lambda name, *, virtual=False: port)
    profile = tmp_path / "venue.toml"
    profile.write_text(MIDI)
    reads = _replaced_after_first_read(monkeypatch, profile, MIDI.replace("note 60", "note 61"))
    assert main(["events", str(DEMO), "--clap", "--jsonl", "--profile", str(profile), "--midi", "x"]) == 0
    claps = [e for e in map(json.loads, capsys.readouterr().out.splitlines()) if e["event"] == "clap"]
    notes = {m.note for m in port.sent if m.type == "note_on"}
    assert claps and notes == {60}, notes
    assert len(reads) == 1, f"the profile was read {len(reads)} times"


def _sounds_profile() -> str:
    from sensekit.audio.sounds import SoundBook

    rng = np.random.default_rng(2)
    book = SoundBook()
    book.teach("snap", [rng.standard_normal((12, 13)).astype(np.float32) for _ in range(3)])
    table = book.to_tables()["snap"]
    examples = ", ".join(json.dumps(e) for e in table["examples"])
    return f"[sounds.snap]\nspread = {table['spread']!r}\nexamples = [{examples}]\n"


@pytest.mark.parametrize("command", ["events", "run"])
def test_the_sounds_are_the_ones_of_the_profile_read(command: str, tmp_path: Path, monkeypatch: Any) -> None:
    """Emptied after the first read: the run has the taught sound it read (it was refused as a
    profile with no taught sounds, read again)."""
    pytest.importorskip("python_speech_features")
    _needs_demo()
    profile = tmp_path / "venue.toml"
    profile.write_text(_sounds_profile())
    reads = _replaced_after_first_read(monkeypatch, profile, "[audio]\ngain = 50\n")
    argv = (["events", str(DEMO), "--max-items", "3"] if command == "events"
            else ["run", "clapper", "--source", str(DEMO), "--headless", "--frames", "3"])
    assert main([*argv, "--profile", str(profile), "--sounds"]) == 0
    assert len(reads) == 1, f"the profile was read {len(reads)} times"


def test_the_taught_words_are_the_ones_of_the_profile_read(tmp_path: Path, monkeypatch: Any) -> None:
    """A damaged ``taught_words`` table lands after the first read: the run uses the text it
    loaded (no taught words, the dictionary's), not refused for the file that came after."""
    pytest.importorskip("pocketsphinx")
    pytest.importorskip("python_speech_features")
    _needs_demo()
    profile = tmp_path / "venue.toml"
    profile.write_text("[voice]\nwords = [\"yes\", \"no\"]\n")
    reads = _replaced_after_first_read(monkeypatch, profile, "taught_words = 5\n[voice]\nwords = [\"yes\", \"no\"]\n")
    assert main(["events", str(DEMO), "--max-items", "3", "--profile", str(profile)]) == 0
    assert len(reads) == 1, f"the profile was read {len(reads)} times"
