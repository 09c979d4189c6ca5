"""Taught gestures: features, the k-NN model, its JSON form, the teach command's ranges.

The model tests need scikit-learn (the hands extra) and skip without it; the range parsing
does not. The end-to-end test on real footage is in tests/vision/test_taught_clips.py.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from sensekit.cli._teach_gesture import parse_range
from sensekit.errors import ConfigError
from sensekit.vision.taught import TaughtGestures, hand_features


def _hand(rng: np.random.Generator, shape: np.ndarray, *, scale: float, at: tuple[float, float]) -> np.ndarray:
    pts = np.zeros((21, 3))
    pts[:, :2] = np.asarray(at) + scale * (shape + rng.normal(0, 0.03, shape.shape))
    return pts


SHAPES = {name: np.random.default_rng(seed).uniform(-1, 1, (21, 2)) for seed, name in enumerate(("star", "heart"))}
for s in SHAPES.values():
    s -= s[0]                                        # wrist at the origin
    s /= np.hypot(*s[9])                             # one hand size from wrist to middle knuckle


def test_features_ignore_position_and_size():
    rng = np.random.default_rng(1)
    a = _hand(rng, SHAPES["star"], scale=40, at=(100, 100))
    b = a.copy()
    b[:, :2] = (a[:, :2] - a[0, :2]) * 2.5 + (400, 30)
    assert np.allclose(hand_features(a), hand_features(b))
    with pytest.raises(ConfigError, match=r"\(21, 3\) array, got shape \(33, 4\)"):
        hand_features(np.zeros((33, 4)))


def test_taught_shapes_are_told_apart_at_any_size_and_the_model_round_trips():
    pytest.importorskip("sklearn")
    rng = np.random.default_rng(2)
    teach = {name: [hand_features(_hand(rng, shape, scale=50, at=(200, 200))) for _ in range(40)]
             for name, shape in SHAPES.items()}
    model = TaughtGestures().fit(teach)
    tests = [(name, _hand(rng, shape, scale=float(rng.uniform(20, 120)), at=tuple(rng.uniform(0, 500, 2))))
             for name, shape in SHAPES.items() for _ in range(20)]
    answers = [model.predict(hand_features(p)) for _, p in tests]
    assert [a[0] for a in answers] == [name for name, _ in tests]
    assert all(conf == 1.0 for _, conf in answers)
    again = TaughtGestures.from_dict(json.loads(json.dumps(model.to_dict())))
    assert [again.predict(hand_features(p)) for _, p in tests] == answers


def test_a_shape_between_two_classes_is_none_below_the_confidence():
    pytest.importorskip("sklearn")
    rng = np.random.default_rng(3)
    teach = {name: [hand_features(_hand(rng, shape, scale=50, at=(0, 0))) for _ in range(10)]
             for name, shape in SHAPES.items()}
    model = TaughtGestures(k=10, min_confidence=0.9).fit(teach)
    # a hand that is star on 10 examples' worth and heart on the rest: neighbours split
    mix = hand_features(_hand(rng, (SHAPES["star"] + SHAPES["heart"]) / 2, scale=50, at=(0, 0)))
    name, conf = model.predict(mix)
    assert (name == "none") == (conf < 0.9)


@pytest.mark.parametrize("examples, words", [
    ({"star": [np.zeros(42)]}, "at least two gestures"),
    ({"star": [np.zeros(42)], "heart": []}, "no examples for gesture 'heart'"),
])
def test_teaching_errors_name_the_problem(examples, words):
    pytest.importorskip("sklearn")
    with pytest.raises(ConfigError, match=words):
        TaughtGestures().fit(examples)


def test_a_file_that_is_not_a_model_is_refused():
    with pytest.raises(ConfigError, match="not a taught gestures model"):
        TaughtGestures.from_dict({"format": "something else"})


@pytest.mark.parametrize("data, said", [
    ({"format": "sensekit-taught-gestures-2"},
     "taught gestures model is damaged (no `k`); teach it again (sensekit teach gesture)"),
    ({"format": "sensekit-taught-gestures-2", "k": "x", "min_confidence": 0.6, "classes": ["a"],
      "labels": [0], "features": [[0.0] * 57]},
     "taught gestures model is damaged (`TaughtGestures(k=...)` must be an integer, got str 'x'); teach it again "
     "(sensekit teach gesture)"),
    ({"format": "sensekit-taught-gestures-3"},
     "the taught gestures are in format 'sensekit-taught-gestures-3', newer than this sensekit reads "
     "('sensekit-taught-gestures-1', 'sensekit-taught-gestures-2'): update sensekit, or teach them again "
     "(sensekit teach gesture)"),
    ({"format": 5}, "not a taught gestures model (format 5, expected 'sensekit-taught-gestures-2')"),
])
def test_a_damaged_or_newer_model_is_one_clear_error(data, said):
    # a missing key or a wrong type was a KeyError / ValueError traceback (`sensekit events --hands`
    # with a profile whose [taught_gestures] lost a line), and a newer one "not a taught gestures model"
    with pytest.raises(ConfigError) as info:
        TaughtGestures.from_dict(data)
    assert str(info.value) == said


def test_a_damaged_model_in_the_profile_is_one_line(tmp_path, capsys):
    from sensekit.cli import main

    venue = tmp_path / "venue.toml"
    venue.write_text('[taught_gestures]\nformat = "sensekit-taught-gestures-2"\n')
    assert main(["events", "demo", "--hands", "--profile", str(venue), "--max-items", "1"]) == 2
    assert capsys.readouterr().err == ("sensekit: error: taught gestures model is damaged (no `k`); "
                                       "teach it again (sensekit teach gesture)\n")


def _damaged_models() -> list[tuple[str, dict, str]]:
    rng = np.random.default_rng(4)
    good = TaughtGestures().fit({"open": [hand_features(rng.random((21, 3))) for _ in range(3)],
                                 "fist": [hand_features(rng.random((21, 3))) for _ in range(3)]}).to_dict()
    ragged = {**good, "features": [good["features"][0], good["features"][1][:10]] + good["features"][2:]}
    huge = {**good, "features": [[12345.5] * 57] + good["features"][1:]}     # written as 1e999
    negative = {**good, "labels": [-1] + good["labels"][1:]}
    return [("rows of unequal length", ragged, "(`features` must be rows of 57 numbers)"),
            ("a feature of 1e999", huge, "(a feature is not a finite number)"),
            ("a label of -1", negative, "(a label is a whole number 0..1 for each row of features)")]


@pytest.mark.parametrize("case, data, said", _damaged_models(), ids=lambda v: v if isinstance(v, str) else "")
def test_a_damaged_gestures_file_names_the_file_and_the_damage(tmp_path, case, data, said):
    """harden16's fuzz sweep (mutated models through ``--gestures FILE``): the error named no
    file, and said numpy's or scikit-learn's words ("setting an array element with a sequence.
    The requested array has an inhomogeneous shape...", "Input X contains infinity"); a label
    of -1 was taken (the row then voted for the last gesture)."""
    pytest.importorskip("sklearn")
    from sensekit.cli.hand_options import load_taught

    path = tmp_path / "model.json"
    path.write_text(json.dumps(data).replace("12345.5", "1e999"))      # JSON's number: float() makes it inf
    with pytest.raises(ConfigError) as info:
        load_taught(str(path))
    text = str(info.value)
    assert text.startswith(f"{str(path)!r}: taught gestures model is damaged") and said in text, text
    assert "\n" not in text and len(text) < 300


def test_class_ranges():
    assert parse_range("star=1.5-4") == ("star", 1.5, 4.0)
    assert parse_range(" heart_hands = 0-2.25 ") == ("heart_hands", 0.0, 2.25)
    for bad in ("star", "star=4-1", "=1-2", "star=a-b", "star=1.2.3-4"):
        with pytest.raises(ConfigError, match="--class"):
            parse_range(bad)


def test_overlapping_ranges_of_two_gestures_are_refused_before_the_source_is_read(tmp_path, capsys):
    # a hand in both ranges would be taught as both gestures at once
    from sensekit.cli import main

    out = tmp_path / "g.json"
    argv = ["teach", "gesture", str(tmp_path / "never-read.skrec"), "--out", str(out)]
    assert main([*argv, "--class", "star=2-7", "--class", "heart=5-14"]) == 2
    err = capsys.readouterr().err
    assert "sensekit: error: --class ranges overlap: star 2-7 s and heart 5-14 s" in err
    assert len(err.strip().splitlines()) == 1 and not out.exists()
    # one gesture in two overlapping ranges, or ranges that only touch, are fine: the check
    # lets them through to the source (which does not exist here)
    for classes in (["star=2-7", "star=5-9", "heart=9-14"], ["star=2-7", "heart=7-14"]):
        assert main([*argv, *(x for c in classes for x in ("--class", c))]) == 2
        assert "ranges overlap" not in capsys.readouterr().err


def test_the_model_lives_in_the_venue_profile_beside_its_settings(tmp_path):
    from sensekit.profile import load_profile, save_profile

    venue = tmp_path / "venue.toml"
    venue.write_text("# the hall\n[motion]\nnoise_sigma = 1.1   # measured\n")
    model = {"format": "sensekit-taught-gestures-1", "k": 5, "min_confidence": 0.6, "classes": ["a", "b"],
             "labels": [0, 1], "features": [[0.5] * 42, [-0.25] * 42]}
    save_profile(dict(load_profile(venue)), venue, taught_gestures=model)
    text = venue.read_text()
    assert "# the hall" in text and "noise_sigma = 1.1   # measured" in text
    loaded = load_profile(venue)
    assert loaded.taught_gestures == model and dict(loaded) == {"motion.noise_sigma": 1.1}
    # a later settings save (Shift+S) keeps the table; teaching again replaces it
    save_profile({"motion.noise_sigma": 1.3}, venue)
    assert load_profile(venue).taught_gestures == model
    save_profile({}, venue, taught_gestures={**model, "classes": ["c", "d"]})
    assert load_profile(venue).taught_gestures["classes"] == ["c", "d"]
    assert load_profile(venue)["motion.noise_sigma"] == 1.3


def test_shape_distances_do_not_change_when_the_hand_turns():
    rng = np.random.default_rng(4)
    a = _hand(rng, SHAPES["star"], scale=40, at=(100, 100))
    turn = np.radians(70)
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    b = a.copy()
    b[:, :2] = (a[:, :2] - a[0, :2]) @ rot.T + a[0, :2]
    fa, fb = hand_features(a), hand_features(b)
    assert fa.shape == (57,)
    assert np.allclose(fa[42:], fb[42:]) and not np.allclose(fa[:42], fb[:42])
    # the thumb tip (4) to index tip (8) distance, in hand sizes
    rel = (a[:, :2] - a[0, :2]) / np.hypot(*(a[9, :2] - a[0, :2]))
    assert fa[42:].tolist().count(pytest.approx(np.hypot(*(rel[4] - rel[8])))) == 1


def test_a_model_saved_before_the_distances_still_loads_and_answers_the_same():
    pytest.importorskip("sklearn")
    rng = np.random.default_rng(5)
    teach = {name: [hand_features(_hand(rng, shape, scale=50, at=(0, 0))) for _ in range(8)]
             for name, shape in SHAPES.items()}
    model = TaughtGestures().fit(teach)
    old = {**model.to_dict(), "format": "sensekit-taught-gestures-1"}
    old["features"] = [row[:42] for row in old["features"]]
    again = TaughtGestures.from_dict(old)
    probe = hand_features(_hand(rng, SHAPES["heart"], scale=30, at=(5, 5)))
    assert again.predict(probe) == model.predict(probe) == ("heart", 1.0)
    assert np.allclose(again.to_dict()["features"], model.to_dict()["features"], atol=1e-5)


def test_a_range_past_the_source_end_names_its_length_and_the_range(tmp_path, capsys):
    # it was accepted: the hand stage ran over the whole source and taught nothing for the range
    import cv2

    from sensekit.cli import main

    out = tmp_path / "g.json"
    argv = ["teach", "gesture", "demo", "--out", str(out)]
    assert main([*argv, "--class", "star=2-7", "--class", "heart=18-25"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == ("sensekit: error: --class heart=18-25 ends after the source does: replay:demo.skrec "
                           "is 20.00 s, 300 frames at 15 fps; give ranges within 0-20.00 s")
    assert not out.exists()
    video = tmp_path / "clip.avi"                 # a video file: 12 frames at 6 fps, 2 s
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 6, (64, 48))
    for i in range(12):
        writer.write(np.full((48, 64, 3), 20 * i, np.uint8))
    writer.release()
    assert main(["teach", "gesture", str(video), "--out", str(out), "--class", "star=1.5-2.5"]) == 2
    err = capsys.readouterr().err
    assert "--class star=1.5-2.5 ends after the source does" in err and "is 2.00 s, 12 frames at 6 fps" in err
    # a range that ends with the source goes on to the hand stage (which may be missing here)
    main(["teach", "gesture", str(video), "--out", str(out), "--class", "star=1.5-2"])
    assert "ends after the source" not in capsys.readouterr().err
