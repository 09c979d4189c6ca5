"""Words taught by one person from a few takes must not fire on that person's other words or on
pieces of words: ``teach_words(..., parts_as_other=True)`` / ``teach words --refuse-parts``, and
by default when the takes sound like one voice (benchmarks/voice_few_takes.py and
benchmarks/voice_one_voice.py measure it over many sets; docs/voice.md)."""
from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import skip_without_taught_words

skip_without_taught_words()

from sensekit.audio.sounds import example_segment  # noqa: E402 - after the skip
from sensekit.audio.taught_words import teach_words, word_parts  # noqa: E402
from sensekit.audio.vad import Segment  # noqa: E402
from sensekit.cli._teach_sound import read_example  # noqa: E402
from sensekit.errors import ConfigError  # noqa: E402

QUIET = {"5_theo_21"}                  # a take the stage cuts no sound from


def take(shared_data: Path, digit: int, k: int) -> Segment:
    return example_segment(*read_example(str(shared_data / "words" / f"{digit}_theo_{k}.wav")), what="take")


@pytest.fixture(scope="module")
def theo(shared_data):
    """What ``teach words --from mic --examples 4 one five`` catches from theo (as in
    test_teach_live): 4 takes of one and of five, one take each of two, three, four and six;
    and his held-out takes 20-29 of one, five and of the digits never said while teaching."""
    takes = {"one": [take(shared_data, 1, k) for k in range(4)], "five": [take(shared_data, 5, k) for k in range(4)]}
    others = [take(shared_data, d, 0) for d in (2, 3, 4, 6)]
    held = {d: [take(shared_data, d, k) for k in range(20, 30) if f"{d}_theo_{k}" not in QUIET]
            for d in (0, 1, 5, 7, 8)}
    return takes, others, held


def heard(taught, segments: list[Segment]) -> list[str | None]:
    return [getattr(taught.spot(s, 0.0, threshold=0.2), "word", None) for s in segments]


def test_pieces_of_words_and_untaught_words_are_refused(theo):
    takes, others, held = theo
    pieces = [p for d in (1, 5) for s in held[d] for p in word_parts(s)]
    untaught = [s for d in (0, 7, 8) for s in held[d]]
    plain = teach_words(takes, others, parts_as_other=False, near_takes=False)
    parts = teach_words(takes, others, parts_as_other=True, near_takes=False)      # the parts alone
    # taught plainly, nearly every piece of a held-out one or five fires (measured 38 of 38),
    # and so do most sevens and eights, never said while teaching (19 of 30 untaught takes)
    assert sum(w is not None for w in heard(plain, pieces)) >= 30
    assert sum(w is not None for w in heard(plain, untaught)) >= 15
    # with the parts of the takes as other speech: measured 1 of 38 pieces, 3 of 30 untaught takes
    assert sum(w is not None for w in heard(parts, pieces)) <= 4
    assert sum(w is not None for w in heard(parts, untaught)) <= 6
    said = [("one", s) for s in held[1]] + [("five", s) for s in held[5]]
    right = sum(w == truth for w, (truth, _) in zip(heard(parts, [s for _, s in said]), said))
    assert right >= len(said) - 2                      # measured 19 of 19, as taught plainly


def test_by_default_one_persons_takes_refuse_the_parts(theo):
    """teach_words without parts_as_other decides from the takes: theo's alone sound like one
    voice, so pieces of his words and his untaught words are refused as with the option."""
    takes, others, held = theo
    auto = teach_words(takes, others)
    assert auto.parts_as_other and auto.voice_spread < 0.6        # measured 0.42
    pieces = [p for d in (1, 5) for s in held[d] for p in word_parts(s)]
    untaught = [s for d in (0, 7, 8) for s in held[d]]
    assert sum(w is not None for w in heard(auto, pieces)) <= 4   # 1 of 38, as with the option
    assert sum(w is not None for w in heard(auto, untaught)) <= 6
    said = [("one", s) for s in held[1]] + [("five", s) for s in held[5]]
    right = sum(w == truth for w, (truth, _) in zip(heard(auto, [s for _, s in said]), said))
    assert right >= len(said) - 2


def test_several_peoples_takes_keep_the_parts_by_default(shared_data):
    """Takes of one and five by nicolas and theo (2 each) sound like several voices: taught
    plainly by default, so the words keep the recall that takes of several people give."""
    words = shared_data / "words"

    def seg(name: str) -> Segment:
        return example_segment(*read_example(str(words / f"{name}.wav")), what="take")

    takes = {w: [seg(f"{d}_{who}_{k}") for who in ("nicolas", "theo") for k in range(2)]
             for w, d in (("one", 1), ("five", 5))}
    others = [seg(f"{d}_{who}_0") for who in ("nicolas", "theo") for d in (2, 3, 4, 6)]
    auto = teach_words(takes, others)
    assert not auto.parts_as_other and auto.voice_spread > 0.8    # measured 0.92
    assert auto.classifier.takes[""] == len(others)               # no parts among the other speech


def test_the_cli_option_teaches_the_parts_and_a_bad_part_is_refused(shared_data, tmp_path, capsys):
    from sensekit.cli import main

    words = shared_data / "words"
    one = ",".join(str(words / f"1_theo_{k}.wav") for k in range(4))
    other = ",".join(str(words / f"{d}_theo_0.wav") for d in (2, 3, 6))
    profiles = []
    for k, extra in enumerate((["--no-refuse-parts"], ["--refuse-parts"], [])):
        profile = tmp_path / f"p{k}.toml"
        assert main(["teach", "words", "--profile", str(profile), "--other", other, *extra, f"one={one}"]) == 0
        profiles.append(profile.read_text())
    out = capsys.readouterr().out
    assert "other speech: 3 parts\n" in out
    assert "other speech: 3 parts, and the first and last 40 % of every take\n" in out
    # by default: theo's takes sound like one voice, so the parts are taught, and it says why
    assert "other speech: 3 parts, and the first and last 40 % of every take (the takes sound like one voice" in out
    assert "spread" not in out and "taught as not the word" in out and "--no-refuse-parts" in out, out
    counts = ["".join(text.split("takes = [")[1].split("]")[0].split()) for text in profiles]
    assert counts == ["3,4,", "11,4,", "11,4,"]        # other speech: + 2 parts of each of the 4 takes
    assert profiles[2] == profiles[1]
    with pytest.raises(ConfigError, match="a fraction 0..1"):
        word_parts(take(shared_data, 1, 0), 1.0)


def test_a_collection_of_takes_is_taught_plainly_by_default(shared_data, tmp_path, capsys):
    """More takes of a word than --from asks one person for (20) come from a collection: the
    parts are not taught by default, even when the takes sound like one voice, and it says why."""
    from sensekit.cli import main

    words = shared_data / "words"
    one = ",".join(str(words / f"1_yweweler_{k}.wav") for k in range(21))
    other = ",".join(str(words / f"{d}_yweweler_0.wav") for d in (2, 3, 6))
    profile = tmp_path / "many.toml"
    assert main(["teach", "words", "--profile", str(profile), "--other", other, f"one={one}"]) == 0
    out = capsys.readouterr().out
    assert "other speech: 3 parts (a word has 21 takes, more than one person is asked for (20);" in out
    assert "".join(profile.read_text().split("takes = [")[1].split("]")[0].split()) == "3,21,"
