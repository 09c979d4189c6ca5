"""The venue model (``sensekit.audio.clap_venue``): its leave-one-out enable rule, its place in the
clap settings and venue profiles, and what ``teach(venue=True)`` does with a typing room."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from sensekit.audio.clap import ClapDetector
from sensekit.audio.clap_features import FEATURES
from sensekit.audio.clap_teach import lesson_problem, teach
from sensekit.audio.clap_venue import SIZE, VETO, VenueModel, fit, learn
from sensekit.errors import ConfigError
from sensekit.evaluation.audio.clap_training import resample
from sensekit.evaluation.audio.evaluate import read_clips, read_wav
from sensekit.profile import load_profile, save_profile

N = len(FEATURES)
RATE = 48000


def bursts(rng: np.random.Generator, n: int, centre: float) -> np.ndarray:
    x = rng.normal(0.0, 1.0, (n, N))
    x[:, :6] += centre                     # the first 6 features: where the two kinds differ
    return x


def test_separable_room_is_enabled_and_vetoes_the_room_not_the_claps():
    rng = np.random.default_rng(7)
    claps, room = bursts(rng, 12, 0.0), bursts(rng, 30, 8.0)
    found = learn(claps, room, np.ones(len(room), bool))
    assert found is not None
    assert found.claps_vetoed == 0 and found.room_vetoed.all()
    assert found.enabled
    assert not any(found.model.is_room(c) for c in claps)
    assert all(found.model.is_room(r) for r in room)


def test_a_taught_clap_vetoed_out_of_its_fold_disables_it():
    """One taught clap lies among the room's bursts: fitted without it, the model vetoes it, so the
    rule says no - even though the model fitted on everything might not veto it."""
    rng = np.random.default_rng(7)
    claps, room = bursts(rng, 12, 0.0), bursts(rng, 30, 8.0)
    claps[0] = room[0] + 0.1
    found = learn(claps, room, np.ones(len(room), bool))
    assert found is not None and found.claps_vetoed >= 1 and found.clap_log_odds[0] >= VETO
    assert not found.enabled


def test_nothing_firing_vetoed_disables_it():
    """The room's bursts that fire are the ones among the claps: the model would learn nothing useful."""
    rng = np.random.default_rng(7)
    claps, room = bursts(rng, 12, 0.0), bursts(rng, 30, 8.0)
    fires = np.zeros(len(room), bool)
    found = learn(claps, room, fires)
    assert found is not None and found.claps_vetoed == 0 and found.room_vetoed.any()
    assert not found.enabled
    assert learn(claps, room[:0], fires[:0]) is None


def test_the_fit_is_deterministic_and_standardised_on_the_lesson():
    rng = np.random.default_rng(3)
    x = np.vstack([bursts(rng, 10, 0.0), bursts(rng, 10, 5.0)])
    x[4, 2] = np.nan                                   # a value that is not finite counts as the mean
    y = np.r_[np.zeros(10, bool), np.ones(10, bool)]
    a, b = fit(x, y), fit(x.copy(), y.copy())
    assert a.numbers() == b.numbers() and len(a.numbers()) == SIZE
    assert np.isfinite(a.log_odds(x)).all()
    assert a.log_odds(x[10:]).min() > a.log_odds(x[:10]).max()


def model_numbers() -> tuple[float, ...]:
    rng = np.random.default_rng(7)
    x = np.vstack([bursts(rng, 12, 0.0), bursts(rng, 30, 8.0)])
    return fit(x, np.r_[np.zeros(12, bool), np.ones(30, bool)]).numbers()


def test_a_profile_keeps_the_model(tmp_path: Path):
    nums = model_numbers()
    path = tmp_path / "venue.toml"
    save_profile({"clap.venue_model": nums, "clap.threshold": 1.5}, path)
    loaded = dict(load_profile(path))
    assert loaded["clap.venue_model"] == nums
    det = ClapDetector(venue_model=loaded["clap.venue_model"])
    model = VenueModel.from_numbers(nums)
    assert det._venue is not None and model is not None
    probe = np.linspace(-2.0, 10.0, N)
    assert det._venue.log_odds(probe)[0] == pytest.approx(model.log_odds(probe)[0])
    assert det.is_room((0.0, *probe)) == model.is_room(probe)


def test_an_old_profile_has_no_model_and_a_bad_one_is_one_clear_error(tmp_path: Path):
    old = tmp_path / "old.toml"
    old.write_text('[clap]\nthreshold = 1.5\nroom_feature = "low_db"\nroom_limit = -20.0\n')
    values = dict(load_profile(old))
    assert "clap.venue_model" not in values
    assert ClapDetector(**{k.split(".", 1)[1]: v for k, v in values.items()})._venue is None
    bad = tmp_path / "bad.toml"
    bad.write_text("[clap]\nvenue_model = [1.0, 2.0, 3.0]\n")
    three = dict(load_profile(bad))                     # numbers: the group's rule judges the length
    with pytest.raises(ConfigError, match=f"clap.venue_model` must hold {SIZE} numbers"):
        ClapDetector(venue_model=three["clap.venue_model"])
    with pytest.raises(ConfigError, match=f"clap.venue_model` must hold {SIZE} numbers"):
        ClapDetector.SETTINGS.check({"venue_model": three["clap.venue_model"]})
    bad.write_text('[clap]\nvenue_model = [1.0, "x"]\n')
    with pytest.raises(ConfigError, match="venue_model"):
        load_profile(bad)
    with pytest.raises(ConfigError, match="scales must be > 0"):
        ClapDetector(venue_model=(0.0,) * SIZE)


def test_the_numbers_kind_as_text_round_trips():
    s = ClapDetector.SETTINGS["venue_model"]
    nums = model_numbers()
    assert s.parse(s.format(nums)) == nums
    assert s.parse("none") == () and s.format(()) == "none"
    with pytest.raises(ConfigError, match="venue_model"):
        s.parse("1.0,nan")


# -- real clips: a typing room -----------------------------------------------------------------------

#: a sensitive clapper (threshold lowered): typing that the shipped trees never fire on at 0 fires at -6
#: and scores sure claps (3 log-odds over it)
SENSITIVE = {"threshold": -6.0}


@pytest.fixture(scope="module")
def typing_lesson(shared_data):
    clips = {c.file.split("/")[-1]: c for c in read_clips(shared_data)}

    def load(name: str) -> np.ndarray:
        x, rate = read_wav(shared_data / clips[name].file)
        return (resample(x, rate, RATE) if rate != RATE else x).astype(np.float32)

    room = load("typing_ibm_part1.wav")
    return load("clap_k_regular14.wav"), room[: len(room) // 2], room[len(room) // 2:]


def stream(x: np.ndarray, **settings) -> list[float]:
    det = ClapDetector(**settings)
    return [c.t for k, i in enumerate(range(0, len(x), 512))
            for c in det.process(x[i:i + 512], i / RATE, RATE, index=k)]


def test_the_model_tells_typing_from_claps_out_of_fold(typing_lesson):
    """Taught a typing room at a sensitive threshold: the refusal's sure claps fall from 13 (typing is
    a sure clap) to those the model cannot tell from the taught claps left out one at a time; the model
    written vetoes none of the taught claps and silences the room's second half."""
    claps, room, rest = typing_lesson
    shipped = teach(claps, room, RATE, settings=SENSITIVE, venue=False)
    lesson = teach(claps, room, RATE, settings=SENSITIVE, venue=True, venue_steps=True)   # --variant venue
    print(shipped.summary(), lesson.summary(), sep="\n")
    assert len(shipped.room_claps) >= 10 and lesson_problem(shipped) is not None
    assert len(lesson.room_claps) < len(shipped.room_claps) // 4
    assert "venue model:" in lesson.summary() and "no taught clap" in lesson.summary()
    assert len(lesson.values["clap.venue_model"]) == SIZE
    taught = {**SENSITIVE, **{k.split(".", 1)[1]: v for k, v in lesson.values.items()}}
    assert len(stream(claps, **taught)) == lesson.claps_heard
    assert len(stream(rest, **SENSITIVE)) > 10 and stream(rest, **taught) == []


def test_the_rule_line_says_how_many_room_bursts_still_fire_after_the_model(typing_lesson):
    """The written model replaces the room rule; the lesson said "no room rule needed" while 4 typing
    bursts (of the 21 that fired at -5) still fired with the model: the line now says how many, counted
    as a user gets them (the room streamed with the lesson's settings)."""
    claps, room, _ = typing_lesson
    lesson = teach(claps, room, RATE, settings={"threshold": -5.0}, venue=True)
    still = lesson.room_fired - lesson.room_rejected
    assert len(lesson.values["clap.venue_model"]) == SIZE and "clap.room_feature" not in lesson.values
    assert still > 0 and "needed" not in lesson.rule
    assert lesson.rule == (f"no room rule (the venue model replaces it); after the lesson {still} room bursts "
                           f"fire (of {lesson.room_fired} before)")
    taught = {"threshold": -5.0, **{k.split(".", 1)[1]: v for k, v in lesson.values.items()}}
    assert len(stream(room, **taught)) == still                     # what the user hears from that room


def calibrate(wav: Path, claps: np.ndarray, room: np.ndarray, out: Path, threshold: float, *flags: str) -> int:
    from sensekit.cli import main

    return main(["calibrate", str(wav), "--out", str(out), "--claps", "--clap-seconds",
                 f"{len(claps) / RATE:.3f}", "--seconds", f"{len(room) / RATE:.3f}",
                 "--set", f"clap.threshold={threshold:g}", *flags])


def events_claps(wav: Path, profile: Path, capsys) -> list[float]:
    """The claps ``sensekit events WAV --clap --profile PROFILE --jsonl`` prints."""
    import json

    from sensekit.cli import main

    capsys.readouterr()
    assert main(["events", str(wav), "--clap", "--jsonl", "--profile", str(profile)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    return [line["t"] for line in lines if line["event"] == "clap"]


@pytest.fixture
def typing_wavs(typing_lesson, tmp_path):
    """(the lesson's wav: claps then the room's first half, the room's second half's wav)."""
    import soundfile as sf

    claps, room, rest = typing_lesson
    wav, held = tmp_path / "venue.wav", tmp_path / "rest.wav"
    sf.write(wav, np.concatenate([claps, room]), RATE, subtype="FLOAT")
    sf.write(held, rest, RATE, subtype="FLOAT")
    return wav, held


def test_calibrate_venue_model_teaches_a_typing_room_the_lesson_refuses(typing_lesson, typing_wavs,
                                                                          tmp_path, capsys):
    """A sensitive clapper (threshold -5) in a typing room: ``calibrate --claps`` refuses the lesson
    (typing is a sure clap to it) and writes nothing; with ``--venue-model`` it prints what the model
    learned and writes it, and the model replaces the raised threshold and the room rule (the threshold
    stays -5, no room rule). ``events --profile`` with it finds every taught clap and fires on the
    room's held-out second half far less than the same profile without the model."""
    import soundfile as sf

    claps, room, _ = typing_lesson
    wav, held = typing_wavs
    out = tmp_path / "venue.toml"
    assert calibrate(wav, claps, room, out, -5) == 2
    assert "sure claps in the room part" in capsys.readouterr().err and not out.exists()
    assert calibrate(wav, claps, room, out, -5, "--venue-model") == 0
    printed = capsys.readouterr().out
    assert "venue model:" in printed and "no taught clap" in printed
    before, after = map(int, re.search(r"room false claps +(\d+) before, (\d+) after", printed).groups())
    assert after > 0 and "no room rule needed" not in printed          # the model leaves some: said so
    assert f"no room rule (the venue model replaces it); after the lesson {after} room bursts fire " \
           f"(of {before} before)" in printed, printed
    profile = dict(load_profile(out))
    assert len(profile["clap.venue_model"]) == SIZE
    assert profile["clap.threshold"] == -5.0 and "clap.room_feature" not in profile
    without = tmp_path / "without.toml"
    save_profile({k: v for k, v in profile.items() if k != "clap.venue_model"}, without)
    clap_wav = tmp_path / "claps.wav"
    sf.write(clap_wav, claps, RATE, subtype="FLOAT")
    assert len(events_claps(clap_wav, out, capsys)) == len(events_claps(clap_wav, without, capsys)) == 14
    untaught, taught = events_claps(held, without, capsys), events_claps(held, out, capsys)
    assert (len(untaught), len(taught)) == (25, 7)           # measured: 18 of its typing bursts vetoed


def test_calibrate_without_the_flag_writes_no_model_and_a_rerun_resets_it(typing_lesson, typing_wavs,
                                                                          tmp_path, capsys):
    """Without ``--venue-model`` no ``clap.venue_model`` is written; rerun without it on a profile a
    ``--venue-model`` lesson wrote, the old model is reset (it was learned beside another threshold)."""
    from sensekit.cli import main

    claps, room, _ = typing_lesson
    wav, _ = typing_wavs
    out = tmp_path / "venue.toml"
    assert calibrate(wav, claps, room, out, -4) == 0
    assert "venue model" not in capsys.readouterr().out
    assert "clap.venue_model" not in dict(load_profile(out))
    assert calibrate(wav, claps, room, out, -5, "--venue-model") == 0
    assert len(dict(load_profile(out))["clap.venue_model"]) == SIZE
    capsys.readouterr()
    assert calibrate(wav, claps, room, out, -4) == 0
    assert "reset               clap.venue_model" in capsys.readouterr().out
    assert dict(load_profile(out))["clap.venue_model"] == ()
    assert main(["calibrate", str(wav), "--out", str(out), "--venue-model"]) == 2
    assert "--venue-model goes with --claps" in capsys.readouterr().err
