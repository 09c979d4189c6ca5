"""Teaching the clap detector a venue (``sensekit.audio.clap_teach``, ``calibrate --claps``).

Real clips: someone's claps, a room's knocks and its noise. Taught on the first half (the
claps over the room's noise, then the knocks over it), the detector is run on the second
half (claps, knocks and noise together) against the untaught one.
"""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.audio.clap import ClapDetector
from sensekit.audio.clap_teach import teach
from sensekit.evaluation.audio.clap_training import resample
from sensekit.evaluation.audio.evaluate import match, read_clips, read_wav
from sensekit.errors import ConfigError

RATE = 48000
#: a sensitive clapper (threshold lowered: softer claps, more false ones) in a room with knocks
START = {"threshold": -2.0}


def fit(x: np.ndarray, rate: int, n: int) -> np.ndarray:
    y = resample(x, rate, RATE) if rate != RATE else x
    return np.tile(y, -(-n // len(y)))[:n].astype(np.float64)


@pytest.fixture(scope="module")
def venue(shared_data):
    clips = {c.file.split("/")[-1]: c for c in read_clips(shared_data)}
    clap = clips["clap_sparse_eldar-sample2.wav"]
    x0, rate = read_wav(shared_data / clap.file)
    n = len(x0) * RATE // rate
    x = fit(x0, rate, n)
    knocks = sum(fit(*read_wav(shared_data / "audio" / f), n) for f in
                 ("knock_room-small_0.wav", "km_wood_50.wav"))
    room_noise = fit(*read_wav(shared_data / "audio" / "noise_exercise-bike_gsc.wav"), n)
    half = n // 2
    claps = (x + room_noise).astype(np.float32)
    room = (knocks + room_noise).astype(np.float32)
    test = (x + knocks + room_noise).astype(np.float32)
    truth = [t - half / RATE for t in clap.onsets if t >= half / RATE + 0.05]
    return claps[:half], room[:half], test[half:], truth


def stream(x: np.ndarray, **settings) -> list[float]:
    det = ClapDetector(**settings)
    out: list[float] = []
    for k, i in enumerate(range(0, len(x), 512)):
        out += [c.t for c in det.process(x[i:i + 512], i / RATE, RATE, index=k)]
    return out


def test_taught_detector_fires_less_on_the_room_and_finds_as_many_claps(venue):
    claps, room, test, truth = venue
    lesson = teach(claps, room, RATE, settings=START)
    taught = {k.split(".", 1)[1]: v for k, v in lesson.values.items()}
    before = match(stream(test, **START), truth)
    after = match(stream(test, **{**START, **taught}), truth)
    print(lesson.summary(), before, after)
    assert lesson.claps_heard >= 3
    assert lesson.room_fired > 0 and lesson.room_rejected > 0
    assert before.fp > 0
    assert after.fp < before.fp
    assert after.tp >= before.tp


def test_what_it_learned_is_said_and_is_settings(venue):
    claps, room, _, _ = venue
    lesson = teach(claps, room, RATE, settings=START)
    assert set(lesson.values) <= {"clap.threshold", "clap.room_feature", "clap.room_limit", "clap.room_above",
                                  "clap.noise_route"}
    ClapDetector(**{k.split(".", 1)[1]: v for k, v in lesson.values.items()})   # valid settings
    text = lesson.summary()
    assert f"heard {lesson.claps_heard} claps" in text and "now rejected" in text


def test_no_clap_heard_is_a_clear_error():
    silence = np.zeros(RATE * 2, np.float32)
    with pytest.raises(ConfigError, match="heard no clap"):
        teach(silence, silence, RATE)


def test_calibrate_claps_writes_the_lesson_into_the_venue_profile(venue, tmp_path, capsys):
    import soundfile as sf

    from sensekit.cli import main
    from sensekit.profile import load_profile

    claps, room, _, _ = venue
    wav = tmp_path / "venue.wav"
    sf.write(wav, np.concatenate([claps, room]), RATE, subtype="FLOAT")
    out = tmp_path / "venue.toml"
    seconds = f"{len(claps) / RATE:.3f}"
    assert main(["calibrate", str(wav), "--out", str(out), "--claps", "--clap-seconds", seconds,
                 "--seconds", seconds, "--set", "clap.threshold=-2"]) == 0
    printed = capsys.readouterr().out
    assert "claps heard" in printed and "room false claps" in printed
    assert lesson_route_line(printed) == "noise route: off"
    profile = load_profile(out)
    lesson = teach(claps, room, RATE, settings=START)
    assert profile["clap.threshold"] == lesson.values["clap.threshold"]
    assert {k: v for k, v in profile.items() if k.startswith("clap.room")} == \
        {k: v for k, v in lesson.values.items() if k.startswith("clap.room")}
    assert profile["clap.noise_route"] is lesson.values["clap.noise_route"] is False


def lesson_route_line(printed: str) -> str:
    """The decision of calibrate's "noise route: on|off (why)" line."""
    line = next(ln.strip() for ln in printed.splitlines() if "noise route:" in ln)
    return line.split(" (")[0]


def test_the_room_rule_rejects_only_what_lies_beyond_its_limit(venue):
    claps, _, _, _ = venue
    found = stream(claps)
    assert found
    det = ClapDetector()
    det.keep_features = True
    for k, i in enumerate(range(0, len(claps), 512)):
        det.process(claps[i:i + 512], i / RATE, RATE, index=k)
    lows = [f.low_db for f in det.features if f.t_onset in set(found)]
    middle = float(np.median(lows))
    above = stream(claps, room_feature="low_db", room_limit=middle, room_above=True)
    below = stream(claps, room_feature="low_db", room_limit=middle, room_above=False)
    assert set(above) | set(below) <= set(found)
    assert len(above) == sum(v <= middle for v in lows)
    assert len(below) == sum(v >= middle for v in lows)
    assert stream(claps, room_feature="none", room_limit=middle) == found


def refused(argv: list[str], out, capsys) -> str:
    """Run ``calibrate --claps`` expecting a refusal: exit 2, one line, ``out`` untouched."""
    from sensekit.cli import main

    before = out.read_bytes() if out.exists() else None
    assert main(["calibrate", *argv, "--out", str(out), "--claps"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "nothing written" in err
    assert (out.read_bytes() if out.exists() else None) == before
    return err


def test_the_demo_clapped_in_the_room_part_is_refused_and_the_profile_kept(tmp_path, capsys):
    from sensekit.cli import main
    from sensekit.profile import load_profile

    out = tmp_path / "v.toml"
    out.write_text("[audio]\ngain = 50.0\n")
    err = refused(["demo"], out, capsys)                 # its claps come after 10 s
    assert "heard 1 clap in the clap part (3 or more are needed)" in err
    assert "clap 3 or more times in the first 10 s" in err and "for 30 s" in err
    assert "--clap-seconds" in err
    # spans that fit the demo (claps in its first 16 s, the room after) give a lesson
    assert main(["calibrate", "demo", "--out", str(out), "--claps", "--clap-seconds", "16",
                 "--seconds", "4"]) == 0
    assert "clap.threshold" in load_profile(out)


def test_a_clap_clip_cut_at_the_wrong_moment_is_refused(shared_data, tmp_path, capsys):
    wav = str(shared_data / "audio" / "clap_sparse_eldar-sample2.wav")   # claps at 2.0, 3.5, 6.3 ... 13.8 s
    out = tmp_path / "v.toml"
    assert "heard 2 claps in the clap part" in refused([wav, "--clap-seconds", "4"], out, capsys)
    err = refused([wav, "--clap-seconds", "7"], out, capsys)  # 3 claps, then 8 in the "room"
    assert "sure claps in the room part" in err and "clap 3 or more times in the first 7 s" in err


@pytest.mark.parametrize("extra, said", [
    (["--clap-seconds", "3"], "--clap-seconds goes with --claps (how long the clapping part is)"),
    (["--claps", "--pick-color", "10,10"], "--pick-color does not go with --claps: pick the colour in "
                                           "a calibrate run of its own (the profile keeps both)"),
])
def test_an_option_calibrate_would_ignore_is_refused(extra, said, tmp_path, capsys):
    # both were silently ignored: a 5 s noise calibration, or a clap lesson with no colour
    from sensekit.cli import main

    out = tmp_path / "v.toml"
    assert main(["calibrate", "demo", "--out", str(out), *extra]) == 2
    assert capsys.readouterr().err == f"sensekit: error: {said}\n"
    assert not out.exists()



def test_sure_claps_in_the_room_are_refused_with_both_causes_said():
    # held out (benchmarks/clap_teach_venues.py), typing, drums and footsteps score as sure claps:
    # the refusal must not only tell a typist that someone clapped
    from sensekit.audio.clap_teach import ClapLesson, lesson_problem

    lesson = ClapLesson(14, 19.0, 97, 37, 30, 0.0, "no room rule needed", room_claps=[0.6, 0.7, 0.8])
    problem = lesson_problem(lesson)
    assert problem is not None and problem.startswith("heard 3 sure claps in the room part (0.6, 0.7, 0.8 s")
    assert "someone clapped, or the room's own sounds - typing, drums, footsteps - are sure claps" in problem
    assert lesson_problem(ClapLesson(14, 19.0, 97, 37, 30, 0.0, "", room_claps=[0.6])) is None


def test_a_variant_s_rules_are_passed_to_the_lesson_not_set_in_the_module(venue):
    """``benchmarks/clap_teach_venues.py --variant near / spread / rule_only`` pass the room rule's
    negatives and the threshold's ceiling to ``teach`` (they used to rewrite ``clap_teach._negatives``
    and ``_ceiling``): each is called with the lesson's own values and decides it, and a lesson
    taught afterwards without them is the shipped one."""
    import sensekit.audio.clap_teach as clap_teach

    claps, room, _, _ = venue
    shipped = teach(claps, room, RATE, settings=START)
    seen: dict[str, list[object]] = {"negatives": [], "ceiling": []}

    def negatives(left, room_feats, threshold):
        seen["negatives"].append((len(left), len(room_feats), threshold))
        return left

    def ceiling(scores):
        seen["ceiling"].append(list(scores))
        return float("inf")                    # no ceiling: the threshold rises over every room burst

    ruled = teach(claps, room, RATE, settings=START, ceiling_rule=ceiling)
    assert len(seen["ceiling"]) == 1 and len(seen["ceiling"][0]) == ruled.claps_heard
    assert ruled.values["clap.threshold"] > shipped.values["clap.threshold"]   # the ceiling decided it
    same = teach(claps, room, RATE, settings=START, negatives=negatives)     # the shipped negatives, spied
    assert len(seen["negatives"]) == 1 and seen["negatives"][0][1:] == (same.room_bursts, shipped.threshold)
    assert same.values == shipped.values
    assert clap_teach._ceiling.__name__ == "_ceiling" and clap_teach._negatives.__name__ == "_negatives"
    again = teach(claps, room, RATE, settings=START)
    assert again.values == shipped.values and again.summary() == shipped.summary()


def test_a_lesson_streams_with_the_detector_class_it_is_given(venue):
    """``teach(detector=...)`` (``benchmarks/clap_teach_route.py --expert-from``: detectors whose
    route scores with an older expert, where it used to rewrite ``clap_floor.expert``): every
    stream of the lesson (the claps, the room) is made of that class; one that changes nothing
    teaches what the shipped lesson teaches."""
    claps, room, _, _ = venue
    made: list[float] = []

    class Counted(ClapDetector):
        def __init__(self, **settings):
            made.append(settings["threshold"] if "threshold" in settings else float("nan"))
            super().__init__(**settings)

    lesson = teach(claps, room, RATE, settings=START, detector=Counted)
    assert len(made) >= 2 and made[0] == START["threshold"]
    assert lesson.values == teach(claps, room, RATE, settings=START).values
