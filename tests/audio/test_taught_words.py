"""Command words taught from takes (sensekit.audio.taught_words, sensekit teach words, events
--words with a profile; the voice extra), trained at test time from ../shared/data/words."""
from __future__ import annotations

from sensekit.installed import install_hint
import json
from pathlib import Path

import numpy as np
import pytest

from sensekit.errors import ConfigError

from .helpers import COMMANDS, skip_without_taught_words

skip_without_taught_words()
pytest.importorskip("pocketsphinx")

from sensekit.audio.word_classifier import OTHER, WordClassifier  # noqa: E402 - after the skip
from sensekit.cli import main  # noqa: E402 - after the skip
QUIET = {"5_theo_5", "4_theo_1"}        # takes WebRTC calls unvoiced (docs/voice.md)


def takes(shared_data: Path, digit: int, speakers: tuple[str, ...], ks: range) -> list[str]:
    return [str(shared_data / "words" / f"{digit}_{s}_{k}.wav") for s in speakers for k in ks
            if f"{digit}_{s}_{k}" not in QUIET]


def stream(shared_data: Path, speaker: str, ks: range, path: Path) -> list[int]:
    """Takes ``ks`` of every digit said by ``speaker``, 0.5 s of silence before and 0.6 s after
    each, as one WAV file; returns the digits in order."""
    import soundfile as sf

    parts, said = [], []
    for k in ks:
        for digit in range(10):
            x, rate = sf.read(str(shared_data / "words" / f"{digit}_{speaker}_{k}.wav"), dtype="float32")
            parts += [np.zeros(rate // 2, np.float32), x, np.zeros(int(0.6 * rate), np.float32)]
            said.append(digit)
    sf.write(str(path), np.concatenate(parts), rate)
    return said


def teach_args(shared_data: Path, profile: Path) -> list[str]:
    """One, five and nine from theo's and yweweler's takes 0-5; the other digits' takes 0-1 of
    the same two people as the other speech (given as files, not one file)."""
    words = [f"{w}=" + ",".join(takes(shared_data, d, ("theo", "yweweler"), range(6))) for d, w in COMMANDS.items()]
    other = [f for d in range(10) if d not in COMMANDS for f in takes(shared_data, d, ("theo", "yweweler"), range(2))]
    return ["teach", "words", "--profile", str(profile), "--other", ",".join(other), *words]


@pytest.fixture(scope="module")
def taught(shared_data, tmp_path_factory) -> Path:
    profile = tmp_path_factory.mktemp("taught") / "venue.toml"
    profile.write_text('# my venue\n[voice]\nhangover_ms = 120.0\n')
    assert main(teach_args(shared_data, profile)) == 0
    return profile


def test_teaching_keeps_the_profile_and_is_deterministic(shared_data, taught, tmp_path, capsys):
    text = taught.read_text()
    from sensekit.profile.seal import END, HEAD, WROTE           # the save's marks (profile/seal.py)
    # the second line names the table teach wrote; the [voice] written by hand is not among them (harden29)
    assert text.startswith(HEAD + f"\n{WROTE} [taught_words]\n# my venue\n[voice]\nhangover_ms = 120.0\n") \
        and text.endswith(END + "\n")
    assert "[taught_words.classifier]" in text and "pickle" not in text
    again = tmp_path / "again.toml"
    again.write_text('# my venue\n[voice]\nhangover_ms = 120.0\n')
    assert main(teach_args(shared_data, again)) == 0
    assert again.read_text() == text                 # the same takes give the same profile
    out = capsys.readouterr().out
    assert "one: 12 takes" in out and "five: 11 takes" in out and "other speech: 27 parts" in out


def test_words_taught_by_two_speakers_are_heard_on_the_third(shared_data, taught, tmp_path, capsys):
    """nicolas (no take of his taught) says every digit 4 times; one, five and nine go to the
    classifier, seven to PocketSphinx, and stderr says so."""
    clip = tmp_path / "nicolas.wav"
    said = stream(shared_data, "nicolas", range(10, 14), clip)
    assert main(["events", str(clip), "--profile", str(taught), "--words", "one,five,nine,seven", "--jsonl"]) == 0
    cap = capsys.readouterr()
    assert "one, five, nine: taught from takes" in cap.err and "seven: PocketSphinx" in cap.err
    events = [json.loads(line) for line in cap.out.splitlines()]
    assert all(set(e) == {"event", "t", "word", "start", "end", "confidence"} for e in events)
    slot = 0.5 + 0.6                                   # silence around each take
    starts = np.cumsum([0.0] + [slot + d for d in _durations(shared_data, "nicolas", range(10, 14))])
    heard: dict[int, list[str]] = {}
    for e in events:
        i = int(np.searchsorted(starts, e["start"], side="right")) - 1
        heard.setdefault(i, []).append(e["word"])
    commands = [i for i, d in enumerate(said) if d in COMMANDS]
    right = sum(heard.get(i) == [COMMANDS[said[i]]] for i in commands)
    false = sum(any(w in COMMANDS.values() for w in heard.get(i, [])) for i, d in enumerate(said)
                if d not in COMMANDS)
    assert right >= 10                                 # of 12 command takes
    assert false <= 2                                  # of 28 other takes (seven is a listed word)
    assert sum(heard.get(i) == ["seven"] for i, d in enumerate(said) if d == 7) >= 2   # of 4, by PocketSphinx


def test_the_taught_threshold_from_set_or_a_profile_is_the_bar_of_each_word(shared_data, taught, tmp_path, capsys):
    """``voice.taught_threshold`` (declared by the voice stage alone, passed to each ``spot``)."""
    clip = tmp_path / "nicolas.wav"
    stream(shared_data, "nicolas", range(10, 12), clip)

    def heard(profile: Path, *extra: str) -> list[dict]:
        argv = ["events", str(clip), "--profile", str(profile), "--words", "one,five,nine", "--jsonl", *extra]
        assert main(argv) == 0
        return [json.loads(line) for line in capsys.readouterr().out.splitlines()]

    default = heard(taught)
    high = [e for e in default if e["confidence"] >= 0.9]
    assert 0 < len(high) < len(default)                # the bar moves what is heard here
    assert heard(taught, "--set", "voice.taught_threshold=0.9") == high
    strict = tmp_path / "strict.toml"
    text = taught.read_text()
    strict.write_text(text.replace("[voice]\n", "[voice]\ntaught_threshold = 0.9\n", 1))
    assert heard(strict) == high


def _durations(shared_data: Path, speaker: str, ks: range) -> list[float]:
    import soundfile as sf

    return [sf.info(str(shared_data / "words" / f"{d}_{speaker}_{k}.wav")).duration for k in ks for d in range(10)]


def test_bad_teaching_is_a_one_line_error(shared_data, tmp_path, capsys):
    profile = tmp_path / "p.toml"
    three = ",".join(takes(shared_data, 1, ("theo",), range(3)))
    other = ",".join(takes(shared_data, 2, ("theo",), range(3)))
    cases = [
        (["left=" + ",".join(takes(shared_data, 1, ("theo",), range(2)))], other, "needs at least 3 takes"),
        ([f"le ft={three}"], other, "a word is WORD=FILE"),
        ([f"one={three}", f"ONE={three}"], other, "word given twice: one"),
        ([f"one={three},{tmp_path / 'missing.wav'}"], other, "missing.wav': no such audio file"),
        ([f"one={three}"], str(shared_data / "words" / "2_theo_0.wav"), "--other holds 1 voiced parts"),
        ([f"one={three}"], f"{shared_data / 'words' / '2_theo_0.wav'}@9-10", "the range must be"),
        (["--examples", "5", f"one={three}"], other, "--examples goes with --from"),
    ]
    for words, others, message in cases:
        assert main(["teach", "words", "--profile", str(profile), "--other", others, *words]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
    assert not profile.exists()                        # nothing written by a refused teaching


def silence(tmp_path: Path) -> str:
    import soundfile as sf

    sf.write(str(tmp_path / "quiet.wav"), np.zeros(16000, np.float32), 16000)
    return str(tmp_path / "quiet.wav")


def test_a_damaged_table_names_the_profile(tmp_path, capsys):
    profile = tmp_path / "bad.toml"
    profile.write_text('[taught_words.classifier]\nclasses = ["", "one"]\nbias = [0.0]\nweights = ["AAAA"]\n')
    assert main(["events", silence(tmp_path), "--profile", str(profile), "--words", "one"]) == 2
    err = capsys.readouterr().err
    assert "bad.toml: the taught words are damaged" in err and len(err.strip().splitlines()) == 1


def test_the_stored_model_gives_the_fitted_probabilities():
    """A round trip through the table's plain arrays keeps every probability, and the folded
    standardisation agrees with scikit-learn's own pipeline (binary and multiclass)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(3)
    x = rng.standard_normal((40, 7, 96)).astype(np.float32) * rng.uniform(0.1, 5.0, (7, 96)).astype(np.float32)
    for labels in (["one", OTHER] * 20, ["one", OTHER, "two", OTHER] * 10):
        clf = WordClassifier().fit(x, labels)
        back = WordClassifier.from_table(json.loads(json.dumps(clf.to_table())))
        assert np.array_equal(back.probability_matrix(x), clf.probability_matrix(x))
        ref = make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=5000))
        ref.fit(x.reshape(40, -1), labels)
        cols = [list(ref.classes_).index(w) for w in clf.words]
        assert np.allclose(clf.probability_matrix(x), ref.predict_proba(x.reshape(40, -1))[:, cols], atol=1e-9)
    with pytest.raises(ConfigError, match="damaged"):
        WordClassifier.from_table({"classes": ["one", "two"], "bias": [0, 0], "weights": ["", ""]})


def test_taught_words_need_the_embedding_model(monkeypatch, taught, tmp_path, capsys):
    import sensekit.audio.speech_embedding as se

    monkeypatch.setattr(se.importlib.util, "find_spec", lambda name: None)
    assert main(["events", silence(tmp_path), "--profile", str(taught), "--words", "one"]) == 2
    assert install_hint("voice") in capsys.readouterr().err


def test_taught_words_not_listed_are_refusals(shared_data, taught):
    """With only "nine" listed, nicolas's ones and fives give nothing and his nines are heard; a
    replay gives the same events. The most likely taught word must be listed: taking the best
    of the listed words alone gave "nine" for two of his ones and fives here (0.2 is low)."""
    from sensekit.audio.voice import VoiceStage
    from sensekit.capture.base import AudioBlock
    from sensekit.cli.voice_options import load_taught_words

    import soundfile as sf

    parts, said = [], []
    for k in range(40, 44):
        for digit in (1, 5, 9):
            x, rate = sf.read(str(shared_data / "words" / f"{digit}_nicolas_{k}.wav"), dtype="float32")
            parts += [np.zeros(rate // 2, np.float32), x, np.zeros(int(0.6 * rate), np.float32)]
            said.append(digit)
    x = np.concatenate(parts)

    def hear() -> list:
        stage = VoiceStage({"words": ("nine",)}, taught=load_taught_words(str(taught)))
        assert stage.word_paths() == {"nine": "taught"} and stage.spotter is None
        n = rate // 50
        out = []
        for i in range(0, len(x), n):
            out += stage.process(AudioBlock(i // n, i / rate, x[i:i + n], rate, None))
        return out + stage.finish()

    first = hear()
    assert {e.word for e in first} == {"nine"}
    assert 3 <= len(first) <= 4                       # of 4 nines, and none of the 8 others
    assert hear() == first


def test_without_the_extra_teaching_words_says_what_to_install(monkeypatch, tmp_path, capsys):
    import sys

    monkeypatch.setitem(sys.modules, "pocketsphinx", None)
    assert main(["teach", "words", "--profile", str(tmp_path / "p.toml"), "--other", "a.wav",
                 "left=a.wav,b.wav,c.wav"]) == 2
    err = capsys.readouterr().err
    assert install_hint("voice") in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "p.toml").exists()


@pytest.mark.parametrize("edit, message", [
    (("window_s = 0.96", "window_s = 1.28"), "weight rows of 288 numbers, the embedding gives 672"),
    (("window_s = 0.96", "window_s = 0.77"), "`window_s` of [taught_words.classifier] must be a number 0.79..4"),
    (("format = 1", "format = 2"), "in format 2, this sensekit reads format 1"),
    (("c = 0.05", "c = nan"), "`c` must be a positive number"),
])
def test_a_damaged_profile_is_refused_when_it_loads_not_at_the_first_word(taught, tmp_path, capsys, edit, message):
    """The profile's table is checked whole when `--words` loads it: a window edited to 1.28 s
    used to load, run, and end the show at the first word heard ('embeddings of 672 numbers, the
    classifier expects 288'); 0.77 s failed there with a NumPy traceback."""
    from sensekit.cli.voice_options import load_taught_words

    bad = tmp_path / "edited.toml"
    text = taught.read_text()
    assert edit[0] in text
    bad.write_text(text.replace(edit[0], edit[1]))
    with pytest.raises(ConfigError, match="edited.toml: ") as err:
        load_taught_words(str(bad))                 # at load: before the source gives a block
    assert message in str(err.value)
    assert main(["events", silence(tmp_path), "--profile", str(bad), "--words", "one"]) == 2
    err_lines = capsys.readouterr().err.strip().splitlines()
    assert len(err_lines) == 1 and message in err_lines[0]


def test_a_word_name_is_at_most_64_letters_as_the_profile_reads_it(tmp_path, capsys):
    long = "w" * 65
    assert main(["teach", "words", "--profile", str(tmp_path / "v.toml"), "--other", "a.wav",
                 f"{long}=a.wav,b.wav,c.wav"]) == 2
    err = capsys.readouterr().err.strip()
    assert "one word of up to 64 letters" in err and "\n" not in err
    assert not (tmp_path / "v.toml").exists()
