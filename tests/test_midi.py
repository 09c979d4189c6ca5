"""MIDI out: the [midi] map, the messages it gives, `sensekit events --midi` on the demo."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

mido = pytest.importorskip("mido")

from sensekit.errors import ConfigError, DeviceNotFoundError  # noqa: E402
from sensekit.events import Blobs, Clap, Level, Motion  # noqa: E402
from sensekit.midi import MidiOut, load_midi, open_port, parse_mapping, parse_rule  # noqa: E402
from sensekit.profile import load_profile  # noqa: E402

VENUE = """\
[motion]
min_amount = 0.01

[midi]
channel = 2

[midi.map]
clap = "note 60"
"level.level" = "cc 7 0..100"
"blob.count" = "cc 1"
"""


class ListPort:
    """A port that keeps what it is sent."""

    def __init__(self) -> None:
        self.sent: list = []
        self.closed = False

    def send(self, message) -> None:
        self.sent.append(message)

    def close(self) -> None:
        self.closed = True


def test_rules_parse():
    r = parse_rule("clap", "note 60")
    assert (r.event, r.field, r.kind, r.number, r.velocity) == ("clap", None, "note", 60, 100)
    assert parse_rule("zone_enter", "note 64 90").velocity == 90
    r = parse_rule("level.level", "cc 7 -60..0")
    assert (r.event, r.field, r.kind, r.number, r.lo, r.hi) == ("level", "level", "cc", 7, -60.0, 0.0)
    assert [r.scale(v) for v in (-90, -60, -30, 0, 5)] == [0, 0, 64, 127, 127]
    assert parse_rule("blob.count", "cc 1").event == "blobs"         # the name people write


@pytest.mark.parametrize("key, text, message", [
    ("clapp", "note 60", "unknown event `clapp` (did you mean `clap`?)"),
    ("clap", "note 128", "note number must be 0..127, got 128"),
    ("clap", "chord 60", "must be \"note N [VELOCITY]\" or \"cc N [LO..HI]\", got 'chord 60'"),
    ("clap", "cc 1", "a cc needs a number field, `clap.FIELD`"),
    ("level.level", "note 60", "a note is played for an event"),
    ("motion.zones", "cc 1", "`motion` has no number field `zones`; its number fields: t, amount"),
    ("level.level", "cc 7 5..5", "the range '5..5' is empty"),
    ("clap", "note 60 0", "velocity must be 1..127, got 0"),
])
def test_bad_rules_are_one_clear_line(key, text, message):
    with pytest.raises(ConfigError) as exc:
        parse_rule(key, text)
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_notes_for_events_and_control_changes_when_the_value_changes():
    settings = parse_mapping({"channel": 3, "map": {"clap": "note 60", "level.level": "cc 7 0..100",
                                                    "blobs.count": "cc 1"}})
    m = settings.mapper
    assert m.events == {"clap", "level", "blobs"}
    assert m.messages(Clap(t=1.0)) == [mido.Message("note_on", channel=2, note=60, velocity=100),
                                       mido.Message("note_off", channel=2, note=60, velocity=0)]
    assert m.messages(Level(t=1.0, level=50.0)) == [mido.Message("control_change", channel=2, control=7,
                                                                 value=64)]
    assert m.messages(Level(t=1.1, level=50.2)) == []                 # still 64: nothing new
    assert m.messages(Level(t=1.2, level=100.0))[0].value == 127
    assert m.messages(Blobs(t=1.0, count=3))[0].bytes() == [0xB2, 1, 3]
    assert m.messages(Motion(t=1.0)) == []


def test_the_table_is_checked():
    with pytest.raises(ConfigError, match=r"`midi.channel` must be 1..16, got 0"):
        parse_mapping({"channel": 0, "map": {"clap": "note 60"}})
    with pytest.raises(ConfigError, match=r"unknown key `midi.prot`"):
        parse_mapping({"prot": "x", "map": {"clap": "note 60"}})
    with pytest.raises(ConfigError, match=r"`midi.map` must be a table"):
        parse_mapping({})


def test_a_profile_with_a_midi_table_loads_and_errors_name_the_line(tmp_path: Path):
    venue = tmp_path / "venue.toml"
    venue.write_text(VENUE)
    assert dict(load_profile(venue)) == {"motion.min_amount": 0.01}    # the settings ignore [midi]
    assert load_midi(venue).mapper.events == {"clap", "level", "blobs"}
    venue.write_text(VENUE.replace('clap = "note 60"', 'clap = "note 600"'))
    with pytest.raises(ConfigError, match=rf"^{venue}:\d+: MIDI map `clap`: note number must be 0..127"):
        load_midi(venue)


def test_events_midi_sends_the_demo_claps_and_levels(recordings_dir: Path, tmp_path: Path, capsys, monkeypatch):
    from sensekit.cli import main, midi_args

    demo = recordings_dir / "demo.skrec"
    if not demo.is_dir():
        pytest.skip("recordings/demo.skrec not generated (python -m sensekit.synth)")
    venue = tmp_path / "venue.toml"
    venue.write_text(VENUE)
    ports: list[tuple[str | None, bool, ListPort]] = []

    def fake_open(name, *, virtual=False):
        ports.append((name, virtual, ListPort()))
        return ports[-1][2]

    monkeypatch.setattr(midi_args, "open_port", fake_open)
    assert main(["events", str(demo), "--clap", "--level", "--jsonl", "--profile", str(venue),
                 "--midi", "synth"]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    ((name, virtual, port),) = ports
    assert (name, virtual, port.closed) == ("synth", False, True)
    notes = [m for m in port.sent if m.type in ("note_on", "note_off")]
    claps = [e for e in events if e["event"] == "clap"]
    assert len(claps) >= 3
    assert [(m.type, m.note, m.channel) for m in notes] == [("note_on", 60, 1), ("note_off", 60, 1)] * len(claps)
    expected, last = [], None
    for e in events:
        if e["event"] == "level":
            v = max(0, min(127, round(e["level"] / 100 * 127)))
            if v != last:
                expected.append(v)
                last = v
    assert [m.value for m in port.sent if m.type == "control_change"] == expected
    assert len(set(expected)) > 10


def test_midi_options_need_a_profile_and_say_so(recordings_dir: Path, capsys):
    from sensekit.cli import main

    assert main(["events", str(recordings_dir / "demo.skrec"), "--clap", "--midi"]) == 2
    assert "--midi needs --profile FILE with a [midi] table" in capsys.readouterr().err


def test_no_midi_system_is_one_line():
    pytest.importorskip("rtmidi")
    try:
        names = mido.get_output_names()
    except Exception:
        names = None
    if names:
        pytest.skip("this machine has MIDI outputs")
    with pytest.raises(DeviceNotFoundError) as exc:
        open_port("nothing-like-this")
    assert "\n" not in str(exc.value) and "MIDI" in str(exc.value)


def test_a_port_that_fails_is_counted_not_raised():
    class Broken(ListPort):
        def send(self, message):
            raise OSError("gone")

    out = MidiOut(parse_mapping({"map": {"clap": "note 60"}}).mapper, Broken())
    out(Clap(t=0.0))
    assert (out.sent, out.errors) == (0, 2)


def test_the_midi_map_is_read_as_the_profile_is(tmp_path: Path):
    """``load_midi`` read the profile with ``read_text``: given a FIFO it hung for good (the CLI
    checks the profile first, a program calling it does not), and a profile nested 5,000 deep
    was a ``RecursionError``. (The FIFO in a thread with a time limit: before, it hung there.)"""
    import os
    import threading

    fifo = tmp_path / "venue.toml"
    os.mkfifo(fifo)
    caught: list[BaseException] = []

    def load() -> None:
        try:
            load_midi(fifo)
        except BaseException as exc:  # noqa: BLE001 - what it raises is the finding
            caught.append(exc)

    t = threading.Thread(target=load, daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive(), "load_midi hung on a FIFO"
    assert isinstance(caught[0], ConfigError) and "is a FIFO (named pipe), not a file" in str(caught[0])
    deep = tmp_path / "deep.toml"
    deep.write_text("[midi]\nmap = " + "[" * 5000 + "\n")
    with pytest.raises(ConfigError, match="nested more than 8 levels deep"):
        load_midi(deep)


def test_an_error_in_an_event_field_key_names_its_own_line(tmp_path: Path):
    # `"level.level"` is line 9 of VENUE: a quoted dotted key is one key, not midi.map.level.level
    venue = tmp_path / "venue.toml"
    venue.write_text(VENUE.replace('"level.level" = "cc 7 0..100"', '"level.levle" = "cc 7 0..100"'))
    with pytest.raises(ConfigError, match=rf"^{venue}:9: MIDI map `level.levle`: `level` has no number field"):
        load_midi(venue)
    venue.write_text(VENUE.replace('"blob.count" = "cc 1"', '"blob.count" = "cc 300"'))
    with pytest.raises(ConfigError, match=rf"^{venue}:10: MIDI map `blob.count`"):
        load_midi(venue)


@pytest.mark.parametrize("key, text, message", [
    ("level.level", "cc 7 1.2.3..5", "the range '1.2.3..5' must be LO..HI, two numbers"),
    ("level.level", "cc 7 ...5", "the range '...5' must be LO..HI, two numbers"),
    ("level.level", "cc 7 -" + "9" * 400 + "..0", "the range '-99999999999"),
    ("level.level", "cc 7 0.." + "9" * 41, "(at most 40 digits)"),
    ("clap", "note " + "9" * 5000, "note number must be 0..127, got 99999999"),
    ("clap", "note 60 " + "9" * 5000, "velocity must be 1..127, got 99999999"),
])
def test_a_bad_number_in_a_rule_is_one_clear_line_not_a_traceback(key, text, message):
    """A range `1.2.3..5` or `...5` raised a bare ValueError from float(); a 5,000-digit note
    number one from int() (Python's digit limit); a 400-digit bound parsed as -inf, so every
    event then raised ValueError (NaN to int) on the run's thread: the show stopped at its first
    level. Now each is a one-line ConfigError when the profile is read, quoting at most 60
    characters."""
    with pytest.raises(ConfigError) as exc:
        parse_rule(key, text)
    assert message in str(exc.value) and "\n" not in str(exc.value) and len(str(exc.value)) < 300


@pytest.mark.parametrize("table, fragment", [
    ({"map": {"1" * 5000: "note 60"}}, "MIDI map `11111111111"),
    ({"map": {"clap": "c" + "[" * 3000}}, "got 'c[[[[[[["),
    ({"map": {"level.level": "cc 7 " + "{" * 3000}}, "got 'cc 7 {{{{{"),
    ({"map": {"level." + "x" * 3000: "cc 7"}}, "`level` has no number field `xxxxxxxx"),
    ({"por" + "9" * 3000: "x", "map": {"clap": "note 60"}}, "unknown key `midi.por9999"),
    ({"port": ["x" * 3000], "map": {"clap": "note 60"}}, "`midi.port` must be a port name, got ['xxxx"),
])
def test_a_long_key_or_rule_is_quoted_cut_short(tmp_path: Path, table, fragment):
    """harden16's fuzz sweep: a map key, a rule or an unknown key of thousands of characters
    was quoted whole (a message of 5,000 characters on one line); now at most 60 of each."""
    with pytest.raises(ConfigError) as exc:
        parse_mapping(table)
    text = str(exc.value)
    assert fragment in text and "..." in text and len(text) < 600, text[:300]
    venue = tmp_path / "venue.toml"
    lines = ["[midi]"] + [f'"{k}" = {json.dumps(v)}' for k, v in table.items() if k != "map"]
    lines += ["[midi.map]"] + [f'"{k}" = {json.dumps(v)}' for k, v in table["map"].items()]
    venue.write_text("\n".join(lines) + "\n")
    with pytest.raises(ConfigError) as exc:
        load_midi(venue)
    assert str(exc.value).startswith(f"{venue}:") and len(str(exc.value)) < 700


@pytest.mark.parametrize("value, expected", [(float("nan"), None), (float("inf"), 127), (float("-inf"), 0),
                                             (1e308, 127), (-1e308, 0), (50.0, 64)])
def test_a_field_that_is_not_finite_or_huge_never_stops_the_run(value, expected):
    """An event field of 1e308 overflowed (``int(round(inf))``) and a NaN raised, in the
    dispatcher's handler on the run's thread. Now out-of-range values clamp and a NaN sends
    nothing."""
    m = parse_mapping({"map": {"level.level": "cc 7 0..100"}}).mapper
    got = m.messages(Level(t=1.0, level=value))
    assert [msg.value for msg in got] == ([] if expected is None else [expected])


def test_a_profile_with_a_bad_midi_range_stops_at_the_start_in_one_line(recordings_dir: Path, tmp_path: Path,
                                                                      capsys, monkeypatch):
    """What a user got: the run started, then ended at the first level with a traceback
    (ValueError: cannot convert float NaN to integer)."""
    from sensekit.cli import main, midi_args

    demo = recordings_dir / "demo.skrec"
    if not demo.is_dir():
        pytest.skip("recordings/demo.skrec not generated (python -m sensekit.synth)")
    venue = tmp_path / "venue.toml"
    venue.write_text(VENUE.replace('"cc 7 0..100"', '"cc 7 -' + "9" * 400 + '..0"'))
    monkeypatch.setattr(midi_args, "open_port", lambda name, *, virtual=False: ListPort())
    assert main(["events", str(demo), "--level", "--profile", str(venue), "--midi", "synth",
                 "--max-items", "50"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "MIDI map `level.level`: the range" in err[0], err
