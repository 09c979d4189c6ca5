"""Taught sounds (sensekit.audio.sounds, ``sensekit teach sound``, ``--sounds``)."""
from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from sensekit.audio.sounds import SoundBook, check_taught_name, dtw_distance
from sensekit.errors import ConfigError


def brute_dtw(a: np.ndarray, b: np.ndarray) -> float:
    cost = np.sqrt(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2))
    n, m = cost.shape
    D = np.full((n + 1, m + 1), np.inf)
    D[0, 0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            D[i, j] = cost[i - 1, j - 1] + min(D[i - 1, j], D[i, j - 1], D[i - 1, j - 1])
    return float(D[n, m] / (n + m))


@pytest.mark.parametrize("n,m", [(1, 1), (1, 7), (6, 1), (9, 13), (20, 11)])
def test_dtw_matches_the_textbook_recursion(n, m):
    rng = np.random.default_rng(n * 100 + m)
    a, b = rng.standard_normal((n, 13)), rng.standard_normal((m, 13))
    assert dtw_distance(a, b) == pytest.approx(brute_dtw(a, b), rel=1e-12)
    assert dtw_distance(a, a) == 0.0


def test_book_round_trips_through_its_tables_and_rejects_damage():
    rng = np.random.default_rng(1)
    book = SoundBook()
    book.teach("snap", [rng.standard_normal((12, 13)).astype(np.float32) for _ in range(3)])
    back = SoundBook.from_tables(book.to_tables())
    a, b = book.sounds["snap"], back.sounds["snap"]
    assert b.spread == pytest.approx(a.spread, rel=1e-6)
    for x, y in zip(a.examples, b.examples):
        np.testing.assert_allclose(x, y, atol=2e-3 * np.abs(x).max())      # float16 templates
    with pytest.raises(ConfigError, match=r"\[sounds.snap\] is damaged"):
        SoundBook.from_tables({"snap": {"examples": ["not base64!"]}})
    with pytest.raises(ConfigError, match="needs examples"):
        SoundBook.from_tables({"snap": {"spread": 1.0}})


GOOD = ["x" * 64, "clap", "2nd-knock", "Snap_1"]
BAD = [("two words", "one word"), ("x" * 65, "at most 64"), ("-x", "one word"), ("a\nb", "one word"),
       ("  ", "needs a name"), ("caf\u00e9", "one word")]
needs_voice = pytest.mark.skipif(not all(importlib.util.find_spec(m) for m in ("pocketsphinx", "webrtcvad")),
                                 reason="the teach commands need the voice extra")


@pytest.mark.parametrize("name,message", BAD)
def test_a_bad_name_is_refused_alike_by_the_library(name, message):
    from sensekit.audio.taught_words import teach_words
    from sensekit.audio.vad import Segment

    with pytest.raises(ConfigError, match=message):
        check_taught_name(name)                                 # the panel's sound card and --from
    with pytest.raises(ConfigError, match=message):
        SoundBook().teach(name, [np.zeros((12, 13), np.float32)])
    seg = Segment(0.0, 0.5, np.zeros(8000, np.int16), 0.0)
    with pytest.raises(ConfigError, match=message.replace("one word", "word name is one word")):
        teach_words({name: [seg]}, [seg])                       # before any embedding


@needs_voice
@pytest.mark.parametrize("name", [n for n, _ in BAD])
def test_a_bad_name_is_refused_by_the_teach_commands_before_any_file_is_read(tmp_path, capsys, name):
    from sensekit.cli import main

    profile = tmp_path / "v.toml"
    for argv in (["teach", "sound", "--profile", str(profile), f"{name}=a.wav,b.wav"],
                 ["teach", "words", "--profile", str(profile), "--other", "o.wav", f"{name}=a.wav,b.wav,c.wav"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "NAME=FILE" in err or "WORD=FILE" in err, err
        assert "no such audio file" not in err and len(err.strip().splitlines()) == 1
    assert not profile.exists()


@pytest.mark.parametrize("name", GOOD)
def test_a_good_name_passes_the_library(name):
    assert check_taught_name(f" {name} ") == name
    assert SoundBook().teach(name, [np.zeros((12, 13), np.float32)]).name == name


@needs_voice
@pytest.mark.parametrize("name", GOOD)
def test_a_good_name_passes_the_teach_command(tmp_path, capsys, name):
    from sensekit.cli import main

    assert main(["teach", "sound", "--profile", str(tmp_path / "v.toml"), f"{name}=a.wav,b.wav"]) == 2
    assert "'a.wav': no such audio file" in capsys.readouterr().err       # the name passed



def _snap_table(**changes):
    rng = np.random.default_rng(2)
    book = SoundBook()
    book.teach("snap", [rng.standard_normal((12, 13)).astype(np.float32) for _ in range(3)])
    table = dict(book.to_tables()["snap"], **changes)
    return {"snap": table}


def _f16(values) -> str:
    import base64
    return base64.b64encode(np.asarray(values, "<f2").tobytes()).decode("ascii")


@pytest.mark.parametrize("tables, message", [
    (_snap_table(examples=[]), "0 examples, not 1..100"),                       # a traceback at the first sound
    (_snap_table(examples=[""]), "frames of finite numbers"),                   # a traceback at the first sound
    (_snap_table(examples=[_f16(np.full((20, 13), np.nan))]), "frames of finite numbers"),
    (_snap_table(spread=float("nan")), "spread nan"),                           # events of no confidence
    (_snap_table(spread=float("inf")), "spread inf"),                           # every sound matched
    (_snap_table(spread=-5.0), "spread -5"),
    ({"a\nb": _snap_table()["snap"]}, r"named 'a\\nb'"),
    ({"n" * 5000: _snap_table()["snap"]}, "a name is up to 64"),
])
def test_a_damaged_sound_table_is_refused_when_it_loads(tables, message):
    with pytest.raises(ConfigError, match=message) as err:
        SoundBook.from_tables(tables, where="v.toml")
    assert str(err.value).startswith("v.toml: ") and "\n" not in str(err.value) and len(str(err.value)) < 200

pytest.importorskip("pocketsphinx")
pytest.importorskip("python_speech_features")


def test_digits_taught_by_one_speaker_are_recognised_in_their_other_takes(shared_data):
    from sensekit.audio.sounds import example_segment, features

    import soundfile as sf

    def feat(d: int, k: int) -> np.ndarray | None:
        x, rate = sf.read(str(shared_data / "words" / f"{d}_yweweler_{k}.wav"), dtype="float32")
        try:
            return features(example_segment(x, rate))
        except ConfigError:                  # a take too quiet or short to be found: a miss
            return None

    book = SoundBook()
    for d in range(10):
        book.teach(str(d), [f for f in (feat(d, k) for k in range(5)) if f is not None])
    tests = [(d, feat(d, k)) for d in range(10) for k in range(40, 44)]
    right = sum(f is not None and book.nearest(f)[0] == str(d) for d, f in tests)
    assert right >= 34, f"{right} of 40"                # the benchmark measures ~0.9 on all takes


def test_teach_then_events_with_sounds(shared_data, tmp_path, capsys):
    import soundfile as sf

    from sensekit.cli import main

    words = shared_data / "words"
    profile = tmp_path / "venue.toml"
    profile.write_text("[audio]\ngain = 55.0  # kept\n")
    teach = [f"{name}=" + ",".join(str(words / f"{d}_theo_{k}.wav") for k in range(5))
             for name, d in (("one", 1), ("nine", 9))]
    assert main(["teach", "sound", "--profile", str(profile), *teach]) == 0
    text = profile.read_text()
    assert "gain = 55.0  # kept" in text and "[sounds.one]" in text and "[sounds.nine]" in text
    rate = 8000
    clips = [sf.read(str(words / f"{d}_theo_{k}.wav"), dtype="float32")[0] for d, k in ((9, 20), (3, 20), (1, 21))]
    gap = np.zeros(rate // 2, np.float32)
    stream = tmp_path / "said.wav"
    sf.write(str(stream), np.concatenate([gap, clips[0], gap, clips[1], gap, clips[2], gap]), rate)
    capsys.readouterr()
    assert main(["events", str(stream), "--profile", str(profile), "--sounds", "--jsonl"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [d["sound"] for d in out] == ["nine", "one"]
    assert all(d["event"] == "sound" and 0.5 <= d["confidence"] <= 1 for d in out)
    capsys.readouterr()
    assert main(["events", str(stream), "--profile", str(profile), "--sounds", "--jsonl"]) == 0
    assert [json.loads(line) for line in capsys.readouterr().out.splitlines()] == out   # replays alike


@pytest.mark.parametrize("argv,message", [
    (["one={demo}/audio.wav"], "at least 2 examples"),
    (["=a.wav,b.wav"], "NAME=FILE"),
    (["one=missing.wav,missing2.wav"], "no such audio file"),
    (["one=missing.wav"], "'missing.wav': no such audio file"),       # said 'at least 2 examples'
    (["one={tmp},{tmp}"], "' is a folder, not an audio file or a recording"),   # said 'no such audio file'
    # the same name twice kept only one of them without a word (teach words refuses it)
    (["one={demo}/audio.wav,{demo}/audio.wav", "one={demo}/audio.wav,{demo}/audio.wav"],
     "sound given twice: one (list all its examples in one NAME=...)"),
    # --examples and --timeout are for --from; with files they were silently ignored
    (["--examples", "4", "one=a.wav,b.wav"], "--examples goes with --from"),
    (["--timeout", "3", "one=a.wav,b.wav"], "--timeout goes with --from"),
])
def test_teach_errors_are_one_line(tmp_path, capsys, argv, message, recordings_dir):
    from sensekit.cli import main

    argv = [a.replace("{demo}", str(recordings_dir / "demo.skrec")).replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(["teach", "sound", "--profile", str(tmp_path / "v.toml"), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "v.toml").exists()


@pytest.mark.parametrize("what", ["sound", "words"])
@pytest.mark.parametrize("rng", ["abc", "1.2.3-4", "2-", "x-4"])
def test_a_malformed_range_on_a_file_that_exists_names_the_range(what, rng, tmp_path, capsys,
                                                                 recordings_dir):
    # '@1.2.3-4' was a ValueError traceback, and '@abc' 'no such audio file' of a file that exists
    from sensekit.cli import main

    wav = recordings_dir / "demo.skrec" / "audio.wav"
    extra = ["--other", str(wav)] if what == "words" else []
    assert main(["teach", what, "--profile", str(tmp_path / "v.toml"), *extra,
                 f"a={wav}@{rng},{wav},{wav}"]) == 2
    err = capsys.readouterr().err
    assert err == (f"sensekit: error: example '{wav}@{rng}': the range must be START-END in seconds "
                   f"(e.g. audio.wav@1.5-2.5), got '{rng}'\n")
    assert not (tmp_path / "v.toml").exists()


def test_sounds_need_a_profile_with_sounds(tmp_path, capsys):
    from sensekit.cli import main

    profile = tmp_path / "v.toml"
    profile.write_text("[voice]\nthreshold = -0.9\n")
    assert main(["events", "x.wav", "--sounds"]) == 2
    assert "--sounds needs --profile" in capsys.readouterr().err
    assert main(["events", "x.wav", "--sounds", "--profile", str(profile)]) == 2
    assert "has no taught sounds" in capsys.readouterr().err


def test_a_long_example_is_refused_before_it_is_read_and_a_range_reads_only_the_range(tmp_path, capsys):
    """An example was read whole into memory: a 3 GB WAV (or a sparse one whose header says so)
    given as an example or --other file filled the machine's memory. Now its length is read from
    the header: over 600 s it needs a range, and a range reads only those samples."""
    import soundfile as sf

    from sensekit.cli import main
    from sensekit.cli._teach_sound import read_example

    long = tmp_path / "long.wav"                      # 700 s at 8 kHz: 11 MB
    sf.write(str(long), np.zeros(8000 * 700, np.int16), 8000, subtype="PCM_16")
    for what in ("sound", "words"):
        extra = ["--other", str(long)] if what == "words" else []
        assert main(["teach", what, "--profile", str(tmp_path / "v.toml"), *extra,
                     f"a={long},{long},{long}"]) == 2
        err = capsys.readouterr().err.strip()
        assert "is 700 s long; an example is at most 600 s (give a range: FILE@START-END)" in err
        assert "\n" not in err and not (tmp_path / "v.toml").exists()
    x, rate = read_example(f"{long}@650.5-651")
    assert rate == 8000 and x.shape == (4000,)


def test_teach_sound_reads_an_unfinished_wav_as_events_does(shared_data, tmp_path, capsys, caplog):
    """A take whose WAV header gives a data size of 0 (its writer stopped before patching it)
    was refused as holding no sound; it now teaches exactly what the finished take teaches, with
    the warning ``sensekit events`` gives (one reader: ``capture.media.open_audio_file``)."""
    from sensekit.cli import main
    from sensekit.cli._teach_sound import read_example

    words, cut = shared_data / "words", tmp_path / "cut"
    cut.mkdir()
    for k in range(4):
        data = bytearray((words / f"1_theo_{k}.wav").read_bytes())
        at = data.find(b"data")
        data[at + 4:at + 8] = bytes(4)                    # the data size a killed writer leaves
        (cut / f"1_theo_{k}.wav").write_bytes(bytes(data))
    profiles = []
    for folder in (words, cut):
        profile = tmp_path / f"{folder.name}.toml"
        spec = "one=" + ",".join(str(folder / f"1_theo_{k}.wav") for k in range(4))
        assert main(["teach", "sound", "--profile", str(profile), spec]) == 0, capsys.readouterr().err
        profiles.append(profile.read_text())
    assert profiles[0] == profiles[1] and "[sounds.one]" in profiles[0]
    assert any("the WAV header gives no length" in r.getMessage() for r in caplog.records)
    whole, rate = read_example(str(words / "1_theo_0.wav"))
    part, rate_cut = read_example(f"{cut / '1_theo_0.wav'}@0.1-0.3")
    assert rate == rate_cut and np.array_equal(part, whole[int(0.1 * rate):int(0.3 * rate)])


@needs_voice
def test_teach_names_the_profile_it_wrote_by_full_path(tmp_path, capsys, monkeypatch):
    """`teach sound --profile venue.toml` said "-> venue.toml" while record, snapshot, plot and
    calibrate name what they wrote by full path."""
    import wave

    from sensekit.cli import main
    from tests.audio.helpers import noise_floor, tone

    rate = 16000
    monkeypatch.chdir(tmp_path)
    for k, name in enumerate(("a.wav", "b.wav")):
        x = np.concatenate([noise_floor(0.4, rate, seed=k), tone(0.3, rate, 700.0 + 20 * k, amp=0.4),
                            noise_floor(0.4, rate, seed=k + 5)])
        with wave.open(name, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(rate)
            w.writeframes((np.clip(x, -1, 1) * 32767).astype("<i2").tobytes())
    assert main(["teach", "sound", "--profile", "venue.toml", "beep=a.wav,b.wav"]) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert f"taught beep -> {tmp_path / 'venue.toml'}  (" in out, out
    assert (tmp_path / "venue.toml").is_file()
