"""The seventeenth pass's veto: the net decides only close calls of the trees; the nested margin."""
from __future__ import annotations

import math

import numpy as np
import pytest

from sensekit.evaluation.audio import clap_net_veto as cv
from sensekit.evaluation.audio.clap_training import Bursts
from tests.audio.helpers import two_source_bursts


def test_in_margin_both_ways_and_claps_only() -> None:
    t = np.array([-3.0, -0.5, 0.0, 0.5, 0.99, 1.0, 3.0]) + 2.0
    both = cv.in_margin(t, threshold=2.0, margin=1.0)
    assert both.tolist() == [False, True, True, True, True, False, False]
    claps = cv.in_margin(t, threshold=2.0, margin=1.0, side="claps")
    assert claps.tolist() == [False, False, True, True, True, False, False]
    assert not cv.in_margin(t, threshold=2.0, margin=0.0).any()          # margin 0: the trees alone
    assert cv.in_margin(t, threshold=2.0, margin=math.inf).all()
    with pytest.raises(ValueError, match="side"):
        cv.in_margin(t, threshold=0.0, margin=1.0, side="nets")


def test_veto_scores_change_only_close_calls() -> None:
    trees = np.array([0.5, -0.5, 5.0, -5.0])
    net = np.array([-4.0, 4.0, -20.0, 20.0])
    got = cv.veto_scores(trees, net, threshold=0.0, margin=1.0)
    np.testing.assert_allclose(got, [-1.75, 1.75, 5.0, -5.0])     # far calls keep the trees' decision
    only = cv.veto_scores(trees, net, threshold=0.0, margin=1.0, side="claps")
    np.testing.assert_allclose(only, [-1.75, -0.5, 5.0, -5.0])    # a close non-clap is never promoted


def _bursts() -> tuple[Bursts, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """``two_source_bursts``: the second score is the net's. Source a: margin 1 vetoes the false clap
    at trees 0.5 only and wins; source b: margin 3 (both ways) finds the missed clap at trees -2.5."""
    return two_source_bursts()  # type: ignore[no-any-return]


def test_margin_is_the_smallest_best() -> None:
    b, trees, net = _bursts()
    a = ({"a": trees["a"]}, {"a": net["a"]})
    got, crit = cv.choose_margin(b, *a, 0.0)
    assert got == 1.0 and len(crit) == len(cv.MARGINS)
    assert crit[cv.MARGINS.index(1.0)] > crit[0] > crit[cv.MARGINS.index(2.0)]
    assert cv.choose_margin(b, {"b": trees["b"]}, {"b": net["b"]}, 0.0)[0] == 3.0
    # claps only: b's missed clap can never be promoted, so the trees (margin 0) are as good
    assert cv.choose_margin(b, {"b": trees["b"]}, {"b": net["b"]}, 0.0, side="claps")[0] == 0.0


def test_nested_margin_never_reads_the_held_out_source() -> None:
    b, trees, net = _bursts()
    assert cv.nested_margins(b, trees, net, {"a": 0.0, "b": 0.0}) == {"a": 3.0, "b": 1.0}
    moved = {s: v.copy() for s, v in net.items()}
    moved["a"][b.source == "a"] = 50.0               # source a's own net scores change...
    assert cv.nested_margins(b, trees, moved, {"a": 0.0, "b": 0.0})["a"] == 3.0   # ...not its margin


def test_the_stream_computes_the_patch_only_for_close_calls() -> None:
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from clap_net_stream import close_call

    counts: dict[str, int] = {}
    needs = close_call((1.0, "both"), 2.0, counts)
    assert [needs(t) for t in (2.5, 1.2, 5.0, -3.0, 3.0)] == [True, True, False, False, False]
    assert counts == {"bursts": 5, "patched": 2}
    only = close_call((1.0, "claps"), 2.0, None)
    assert [only(t) for t in (2.5, 1.2)] == [True, False]
    assert close_call(None, 2.0, None)(40.0)              # no veto: every burst gets the net
