"""The thirty-eighth pass's nesting rule: the widest reach whose lifted bursts fire no new negative clip
on the other sources."""
from __future__ import annotations

from typing import Any

import pytest

from sensekit.evaluation.audio.clap_wide_nested import nested_reach, new_negative_clips


def _row(source: str, clip: str, below: float, *, negative: bool = True, lifted: bool = True) -> dict[str, Any]:
    return {"source": source, "clip": clip, "trees_minus_T": -below, "negative": negative, "lifted": lifted}


BAND = [
    _row("a", "a/neg_cough.wav", 2.4),            # new at 2.5
    _row("a", "a/neg_alarm.wav", 1.6),            # fires today: never counts
    _row("b", "b/neg_snare.wav", 2.9),            # new at 3
    _row("b", "b/clap.wav", 1.8, negative=False),  # a clap lifted: not a negative
    _row("c", "c/neg_door.wav", 1.7, lifted=False),  # the wait would not lift it
]
FIRING = {"a/neg_alarm.wav"}


def test_new_negative_clips_counts_only_lifted_bursts_on_quiet_negatives_within_reach() -> None:
    assert new_negative_clips(BAND, FIRING, 2.0) == set()
    assert new_negative_clips(BAND, FIRING, 2.5) == {"a/neg_cough.wav"}
    assert new_negative_clips(BAND, FIRING, 3.0) == {"a/neg_cough.wav", "b/neg_snare.wav"}
    assert new_negative_clips(BAND, set(), 2.0) == {"a/neg_alarm.wav"}


def test_each_source_gets_the_widest_reach_its_others_allow() -> None:
    got = nested_reach(BAND, FIRING, ["a", "b", "c"])
    # a held out: only b's snare counts (at 3); b held out: a's cough (at 2.5); c: both.
    assert got == {"a": 2.5, "b": 2.0, "c": 2.0}


def test_the_held_out_sources_own_bursts_never_choose_its_reach() -> None:
    only_a = [r for r in BAND if r["source"] == "a"]
    assert nested_reach(only_a, FIRING, ["a", "b"]) == {"a": 3.0, "b": 2.0}


def test_the_smallest_reach_when_none_qualifies() -> None:
    tight = [_row("a", "a/neg_knock.wav", 1.0)]
    assert nested_reach(tight, set(), ["a", "b"]) == {"a": 3.0, "b": 1.5}


def test_refuses_rows_of_an_unknown_source_and_no_candidates() -> None:
    with pytest.raises(ValueError, match="not in the held-out list: z"):
        nested_reach([_row("z", "z/neg.wav", 2.0)], set(), ["a"])
    with pytest.raises(ValueError, match="at least one candidate"):
        nested_reach(BAND, FIRING, ["a"], reaches=[])
