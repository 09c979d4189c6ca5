"""The one "did you mean" of the package: which names it offers and how it words them."""
from sensekit.suggest import CUTOFF, LONGEST, backticked, close_matches, did_you_mean

NAMES = ["clap", "level", "activity", "pitch", "motion"]


def test_the_closest_name_comes_first_and_n_bounds_how_many():
    assert close_matches("clapp", NAMES) == ["clap"]
    assert close_matches("lvl", ["level", "levels", "clap"], n=2) == ["level", "levels"]
    assert close_matches("zzz", NAMES) == []


def test_the_cutoff_is_how_alike_a_name_must_be():
    # "mono" ~ "motion": 3 letters in common ("mo", "n") of 10, a ratio of 2*3/10 = 0.6
    assert close_matches("mono", ["motion"]) == ["motion"]
    assert close_matches("mono", ["motion"], cutoff=CUTOFF + 0.01) == []


def test_a_word_longer_than_any_name_could_be_mistyped_as_gets_no_hint():
    name = "a" * (LONGEST + 1)
    assert close_matches(name, [name]) == []
    assert close_matches(name[:LONGEST], [name[:LONGEST]]) == [name[:LONGEST]]


def test_the_hint_quotes_each_match_its_callers_way_or_is_empty():
    assert did_you_mean(["demo"]) == "did you mean 'demo'?"
    assert did_you_mean(["clap"], quote=backticked) == "did you mean `clap`?"
    assert did_you_mean(["--clap", "--claps"], quote=str, sep=" or ") == "did you mean --clap or --claps?"
    assert did_you_mean(["a.b", "a.c"], quote=str) == "did you mean a.b, a.c?"
    assert did_you_mean([]) == ""
