"""The thirty-second pass's helpers: each burst's margin by its own fold, and the missing log-mel scores."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.evaluation.audio.clap_renest import fill_missing, own_margin


def test_own_margin_takes_each_bursts_own_fold_and_threshold() -> None:
    source = np.array(["a", "b", "a", "c", "b"])
    scores = {"a": np.array([1.0, 9.0, -2.0, 9.0, 9.0]), "b": np.array([9.0, 0.5, 9.0, 9.0, np.nan])}
    got = own_margin(source, scores, {"a": -0.5, "b": 3.75})
    assert got[0] == pytest.approx(1.5)
    assert got[1] == pytest.approx(0.5 - 3.75)
    assert got[2] == pytest.approx(-1.5)
    assert np.isnan(got[3])          # no fold for c
    assert np.isnan(got[4])          # b's fold did not score it (an sp0 copy)


def test_own_margin_refuses_mismatched_folds() -> None:
    source = np.array(["a", "b"])
    with pytest.raises(ValueError, match="scores 3 bursts, not 2"):
        own_margin(source, {"a": np.zeros(3)}, {"a": 0.0})
    with pytest.raises(ValueError, match="has no threshold"):
        own_margin(source, {"a": np.zeros(2)}, {})


def test_fill_missing_sets_only_the_close_calls_without_a_score() -> None:
    mel = np.array([np.nan, 2.0, np.nan, np.nan, -1.0])
    close = np.array([True, True, False, True, False])
    got, n = fill_missing(mel, close)
    assert n == 2
    np.testing.assert_array_equal(got[[0, 1, 3, 4]], [0.0, 2.0, 0.0, -1.0])
    assert np.isnan(got[2])          # not a close call: stays unscored
    assert np.isnan(mel[0])          # the input is not changed
    with pytest.raises(ValueError, match="close has"):
        fill_missing(mel, close[:3])
