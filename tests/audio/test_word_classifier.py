"""Speech embeddings and command words learnt from other speakers (sensekit.audio.speech_embedding,
word_classifier; the voice extra) on real spoken digits."""
from __future__ import annotations

import re

from sensekit.installed import install_hint
import numpy as np
import pytest

from sensekit.errors import ConfigError

from .helpers import COMMANDS, skip_without_taught_words

skip_without_taught_words()

from sensekit.audio.sounds import example_segment  # noqa: E402 - after the skip
from sensekit.audio.speech_embedding import WINDOW_S, SpeechEmbedder  # noqa: E402 - after the skip
from sensekit.audio.vad import RATE, Segment  # noqa: E402 - after the skip
from sensekit.audio.word_classifier import OTHER, WordClassifier  # noqa: E402 - after the skip


def segment_of(shared_data, digit: int, speaker: str, k: int) -> Segment:
    import soundfile as sf

    x, rate = sf.read(str(shared_data / "words" / f"{digit}_{speaker}_{k}.wav"), dtype="float32")
    return example_segment(x, rate)


@pytest.fixture(scope="module")
def embedder() -> SpeechEmbedder:
    return SpeechEmbedder()


def test_an_embedding_is_seven_by_96_and_the_same_every_time(shared_data, embedder):
    seg = segment_of(shared_data, 7, "theo", 3)
    a, b = embedder.embed(seg), embedder.embed(seg)
    assert a.shape == (3, 96) and a.dtype == np.float32 and np.all(np.isfinite(a))
    assert np.array_equal(a, b)
    other = embedder.embed(segment_of(shared_data, 2, "theo", 3))
    assert not np.allclose(a, other)


def test_the_window_centres_the_voiced_part_and_keeps_the_middle_of_a_long_one(embedder):
    pcm = np.zeros(RATE, np.int16)
    pcm[4000:8000] = 1000
    w = embedder.window(Segment(start=0.25, end=0.5, pcm=pcm, t0=0.0))
    size = int(WINDOW_S * RATE)
    assert len(w) == size and w.dtype == np.int16
    nz = np.nonzero(w)[0]
    assert len(nz) == 4000 and abs((nz[0] + nz[-1]) / 2 - size / 2) <= 1
    long = np.arange(3 * RATE, dtype=np.int64).astype(np.int16)
    w = embedder.window(Segment(start=0.0, end=3.0, pcm=long, t0=0.0))
    cut = (3 * RATE - size) // 2
    assert np.array_equal(w, long[cut:cut + size])


def test_a_float_segment_is_refused_with_its_type(embedder):
    seg = Segment(start=0.0, end=0.5, pcm=np.zeros(8000, np.float32), t0=0.0)
    with pytest.raises(ConfigError, match="int16.*float32"):
        embedder.embed(seg)


def test_without_the_bundled_model_the_error_names_the_install(monkeypatch):
    import sensekit.audio.speech_embedding as se

    monkeypatch.setattr(se.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ConfigError, match=re.escape(install_hint("voice"))):
        SpeechEmbedder()


def test_commands_learnt_from_two_speakers_are_heard_on_the_third(shared_data, embedder):
    """Learnt from theo's and yweweler's takes 0-7 of every digit, tested on nicolas's takes
    10-14: the developer speaker whose digits the keyword spotter hears worst."""
    emb, labels = [], []
    for speaker in ("theo", "yweweler"):
        for digit in range(10):
            for k in range(8):
                try:
                    seg = segment_of(shared_data, digit, speaker, k)
                except ConfigError:          # a few very quiet takes are not voiced (docs/voice.md)
                    continue
                emb.append(embedder.embed(seg))
                labels.append(COMMANDS.get(digit, OTHER))
    assert len(emb) >= 150
    clf = WordClassifier().fit(emb, labels)
    assert clf.words == ("five", "nine", "one")
    right = wrong = other_kept = 0
    for digit in range(10):
        for k in range(10, 15):
            p = clf.probabilities(embedder.embed(segment_of(shared_data, digit, "nicolas", k)))
            best = max(p, key=lambda w: p[w])
            if digit in COMMANDS:
                right += best == COMMANDS[digit]
                wrong += best != COMMANDS[digit]
            else:
                other_kept += max(p.values()) >= 0.5
    assert right >= 13 and wrong <= 2          # of 15 command takes
    assert other_kept <= 3                     # of 35 non-command takes, at an untuned 0.5


def test_the_classifier_refuses_bad_training_sets():
    x = np.random.default_rng(0).standard_normal((6, 7, 96)).astype(np.float32)
    with pytest.raises(ConfigError, match="OTHER"):
        WordClassifier().fit(x, ["one", "two"] * 3)
    with pytest.raises(ConfigError, match="no command"):
        WordClassifier().fit(x, [OTHER] * 6)
    with pytest.raises(ConfigError, match="6 embeddings but 5 labels"):
        WordClassifier().fit(x, ["one", OTHER] * 2 + ["one"])
    with pytest.raises(ConfigError, match="different sizes"):
        WordClassifier().fit([x[0], x[1, :3]], ["one", OTHER])
    with pytest.raises(ConfigError, match="not been fitted"):
        WordClassifier().probabilities(x[0])
    clf = WordClassifier().fit(x, ["one", OTHER, "two", OTHER, "one", "two"])
    assert set(clf.probabilities(x[0])) == {"one", "two"}
    assert clf.decide(x[0], threshold=1.01) is None


def _b64(values) -> str:
    import base64
    return base64.b64encode(np.asarray(values, "<f8").tobytes()).decode("ascii")


def _fitted_table() -> dict:
    x = np.random.default_rng(5).standard_normal((12, 3, 96)).astype(np.float32)
    return WordClassifier().fit(x, ["one", OTHER, "two"] * 4).to_table()


def _with(**changes):
    def make(table: dict) -> dict:
        out = dict(table)
        out.update({k: (v(table) if callable(v) else v) for k, v in changes.items()})
        return out
    return make


# each found by a hostile profile: before, all but the last two loaded and then failed (one line, or a
# warning and silence) when the first word was heard, or never heard a word at all
DAMAGED = {
    "rows of 3 numbers": (_with(weights=lambda t: [_b64([1.0, 2.0, 3.0])] * 3), "weight rows of 3 numbers"),
    "a NaN bias": (_with(bias=[float("nan")] * 3), "a bias of nan"),
    "an Inf bias": (_with(bias=[float("inf"), 0.0, 0.0]), "a bias of inf"),
    "a weight of 1e300": (_with(weights=lambda t: [_b64(np.full(288, 1e300))] * 3), "a weight of 1e+300"),
    "a word twice": (_with(classes=[OTHER, "one", "one"]), "the word 'one' is there twice"),
    "a newline in a word": (_with(classes=[OTHER, "one\nINJECT", "two"]), "named 'one\\nINJECT'"),
    "a 100,000-letter word": (_with(classes=[OTHER, "n" * 100_000, "two"]), "nnn..."),
    "negative takes": (_with(takes=[-1, 4, 4]), "`takes` must be"),
    "a NaN c": (_with(c=float("nan")), "`c` must be a positive number, got nan"),
    "format 99": (_with(format=99), "in format 99, this sensekit reads format 1"),
    "format true": (_with(format=True), "in format True"),
}


@pytest.mark.parametrize("case", list(DAMAGED))
def test_a_damaged_table_is_refused_when_it_is_read(case):
    change, message = DAMAGED[case]
    with pytest.raises(ConfigError) as err:
        WordClassifier.from_table(change(_fitted_table()), where="v.toml", features=288)
    text = str(err.value)
    assert text.startswith("v.toml: the taught words ") and message in text and "\n" not in text
    assert len(text) < 300


def test_a_table_without_format_is_format_1_and_rows_must_fit_the_embedding():
    table = _fitted_table()
    assert table["format"] == 1
    del table["format"]                                  # as the first `teach words` wrote it
    assert WordClassifier.from_table(table, features=288).words == ("one", "two")
    with pytest.raises(ConfigError, match="weight rows of 288 numbers, the embedding gives 672"):
        WordClassifier.from_table(table, features=672)   # taught at 0.96 s, read as 1.28 s


def test_embedding_size_is_what_the_model_gives_and_short_windows_are_refused():
    """Windows of 0.76-0.78 s were accepted and gave no embedding at all: the first segment
    failed with NumPy's 'need at least one array to stack'."""
    from sensekit.audio.speech_embedding import MIN_WINDOW_S, embedding_size

    seg = Segment(start=0.0, end=0.5, pcm=np.zeros(RATE, np.int16), t0=0.0)
    for window_s in (0.79, 0.8, 0.87, 0.96, 0.97, 1.28, 2.5, 4.0):
        assert SpeechEmbedder(window_s=window_s).embed(seg).size == embedding_size(window_s), window_s
    assert MIN_WINDOW_S == 0.79 and embedding_size(0.79) == 96
    for window_s in (0.76, 0.78, 4.01, float("nan")):
        with pytest.raises(ConfigError, match=r"the embedding window must be 0.79..4 s"):
            SpeechEmbedder(window_s=window_s)
