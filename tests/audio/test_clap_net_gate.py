"""The sixteenth pass's net gate: which bursts the net judges, the shifted score, the branch threshold."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from sensekit.audio.clap_floor import FLOOR_SPLIT_DB, RISE_SPLIT_DB, FloorRoute
from sensekit.evaluation.audio import clap_net_gate as cg
from sensekit.evaluation.audio import clap_training as ct
from sensekit.evaluation.audio.clap_training import Bursts


def test_gate_takes_low_rises_over_a_moving_floor_only() -> None:
    rise = np.array([10.0, 10.0, RISE_SPLIT_DB, RISE_SPLIT_DB - 0.01, 10.0, 10.0])
    spread = np.array([FLOOR_SPLIT_DB, FLOOR_SPLIT_DB - 0.01, 9.0, 9.0, math.nan, 40.0])
    assert cg.gate(rise, spread).tolist() == [True, False, False, True, False, True]
    moving = cg.gate(rise, spread, rise_split=math.inf)          # any rise over a moving floor
    assert moving.tolist() == [True, False, True, True, False, True]


def test_gate_agrees_with_the_routes_steady_test() -> None:
    rate = 16000
    rng = np.random.default_rng(3)
    route = FloorRoute(rate)
    steady = rng.normal(0.0, 0.01, rate).astype(np.float32)
    moving = steady * np.repeat(rng.uniform(0.05, 3.0, 50), rate // 50).astype(np.float32)
    for x in (steady, moving):
        p = rate - 200
        spread = route.floor_spread_db(x, p)
        assert bool(cg.gate(np.array([10.0]), np.array([spread]))[0]) == (not route.steady(x, p))
    assert not route.steady(moving, rate - 200) and route.steady(steady, rate - 200)


def test_gated_scores_shift_only_the_gated_bursts() -> None:
    trees = np.array([1.0, -1.0, 3.0])
    net = np.array([3.0, 1.0, -5.0])
    got = cg.gated_scores(trees, net, np.array([True, True, False]), t_trees=0.0, t_gate=0.5)
    np.testing.assert_allclose(got, [1.5, -0.5, 3.0])


def _bursts() -> tuple[Bursts, np.ndarray, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Two sources of one clap clip each (4 claps) and their noisy copies; the gated claps' mean
    is 1.0 and the gated non-claps' 0.4 in source a, 2.6 and 2.4 in source b."""
    rows = []   # source, variant, clip, y, gated, trees, net
    for s, (claps, others) in {"a": (1.0, 0.4), "b": (2.6, 2.4)}.items():
        for v in ("orig", "n_babble"):
            clip = f"{s}.wav"
            rows += [(s, v, clip, 1, False, 2.0, 2.0), (s, v, clip, 0, False, -3.0, 0.0)]
            rows += [(s, v, clip, 1, True, claps, claps) for _ in range(3)]
            rows += [(s, v, clip, 0, True, others, others) for _ in range(3)]
    col = list(zip(*rows))
    b = Bursts(np.zeros((len(rows), 16)), np.array(col[3]), np.array(col[0]), np.array([""] * len(rows)),
               np.array(col[1]), np.array(col[2]), {"a.wav": 4, "b.wav": 4}, {"a.wav": "clap", "b.wav": "clap"})
    g = np.array(col[4])
    src = np.array(col[0])
    trees = {s: np.where(src == s, np.array(col[5], float), np.nan) for s in ("a", "b")}
    net = {s: np.where(src == s, np.array(col[6], float), np.nan) for s in ("a", "b")}
    return b, g, trees, net


def test_branch_threshold_is_the_lowest_best_and_leaves_the_trees_alone() -> None:
    b, g, trees, net = _bursts()
    a_only = ({"a": trees["a"]}, {"a": net["a"]})
    assert cg.choose_gate_threshold(b, g, *a_only, t_trees=0.0) == 0.5     # over 0.4, not 1.0
    # the trees' branch: its clap (2.0) is found and its non-clap (-3.0) not at either threshold
    assert cg.choose_gate_threshold(b, g, *a_only, t_trees=-2.0) == 0.5
    assert cg.choose_gate_threshold(b, g, {"b": trees["b"]}, {"b": net["b"]}, t_trees=0.0) == 2.5


def test_nested_branch_threshold_never_reads_the_held_out_source() -> None:
    b, g, trees, net = _bursts()
    got = cg.nested_gate_thresholds(b, g, trees, net, {"a": 0.0, "b": 0.0})
    assert got == {"a": 2.5, "b": 0.5}             # each from the other source only
    moved = {s: v.copy() for s, v in net.items()}
    moved["a"][(b.source == "a") & g] += 40.0      # source a's own scores change...
    assert cg.nested_gate_thresholds(b, g, trees, moved, {"a": 0.0, "b": 0.0})["a"] == 2.5   # ...not its threshold


def test_bursts_without_spread_are_refused() -> None:
    b, _, _, _ = _bursts()
    with pytest.raises(ValueError, match="floor spread"):
        cg.bursts_gate(b)


def test_collect_keeps_each_bursts_floor_spread(tmp_path: Path) -> None:
    """``collect(patches=True)`` keeps ``floor_spread_db`` at each burst's peak (NaN before the
    route's 0.3 s of history) and ``collect_cached`` reads back what it wrote."""
    sf = pytest.importorskip("soundfile")
    rate = 48000
    rng = np.random.default_rng(11)
    x = rng.normal(0.0, 0.002, rate).astype(np.float32)            # a steady floor
    for at in (0.05, 0.6):                                           # before and after 0.3 s
        i = round(at * rate)
        x[i: i + 240] += (rng.normal(0.0, 0.4, 240) * np.exp(-np.arange(240) / 60.0)).astype(np.float32)
    (tmp_path / "audio").mkdir()
    sf.write(tmp_path / "audio" / "c.wav", x, rate)
    (tmp_path / "labels.csv").write_text("file,label,source_repo\naudio/c.wav,clap,someone/claps\n")
    (tmp_path / "audio" / "clap_onsets.csv").write_text("file,onset_s\naudio/c.wav,0.05\naudio/c.wav,0.6\n")
    b = ct.collect_cached(tmp_path, tmp_path / "b.npz", augment=("orig",), synth=(), patches=True)
    mine = b.clip == "audio/c.wav"
    assert b.S is not None and b.P is not None and len(b.S) == len(b.y) == len(b.P)
    early, late = np.flatnonzero(mine & (b.y == 1))                  # the two claps, in order
    assert FloorRoute(rate).pre > round(0.05 * rate)
    assert math.isnan(b.S[early])
    assert 0.0 <= b.S[late] < FLOOR_SPLIT_DB                          # steady: never gated
    assert not cg.bursts_gate(b)[[early, late]].any()
    again = ct.collect_cached(tmp_path, tmp_path / "b.npz", patches=True)
    assert again.S is not None
    np.testing.assert_array_equal(again.S, b.S)
