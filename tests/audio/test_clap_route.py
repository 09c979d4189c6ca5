"""Two clap experts routed by the burst's rise over its floor (clap_folds.routed, TreeModel)."""
from __future__ import annotations

import math

import numpy as np

from sensekit.audio.clap_features import FEATURES, TreeModel, score_range
from sensekit.evaluation.audio.clap_folds import choose_route, route_counts, routed
from sensekit.evaluation.audio.clap_training import Bursts, format_module


def _stump(feature: str, threshold: float, left: float, right: float) -> dict:
    """A depth-1 model: ``left`` when ``feature <= threshold`` (or NaN), else ``right``."""
    return {"depth": 1, "base": 0.0, "feature": [[FEATURES.index(feature)]],
            "threshold": [[threshold]], "leaf": [[left, right]]}


def _v(**values: float) -> np.ndarray:
    v = np.zeros(len(FEATURES))
    for k, x in values.items():
        v[FEATURES.index(k)] = x
    return v


CLEAN = _stump("decay_db", -10.0, 3.0, -3.0)      # a short burst is a clap
BELOW = _stump("flatness", 0.2, -2.0, 2.0)        # in noise: a flat spectrum is a clap


def test_a_burst_under_the_split_is_scored_by_the_noise_expert() -> None:
    tm = TreeModel(routed(CLEAN, BELOW, split=20.0, t_clean=0.5, t_below=0.25))
    assert tm.score(_v(rise_db=30.0, decay_db=-20.0, flatness=0.1)) == 3.0 - 0.5
    assert tm.score(_v(rise_db=19.9, decay_db=-20.0, flatness=0.1)) == -2.0 - 0.25
    assert tm.score(_v(rise_db=19.9, decay_db=-20.0, flatness=0.3)) == 2.0 - 0.25
    assert tm.score(_v(rise_db=20.0, decay_db=-5.0, flatness=0.3)) == -3.0 - 0.5
    # rise_db reads its 40 dB cap at the start of a stream: the clean expert decides there;
    # a NaN rise is never under the split either
    assert tm.score(_v(rise_db=40.0, decay_db=-20.0, flatness=0.0)) == 2.5
    assert tm.score(_v(rise_db=math.nan, decay_db=-20.0, flatness=0.0)) == 2.5
    # an unrouted model is what it was
    assert TreeModel(CLEAN).score(_v(rise_db=5.0, decay_db=-20.0)) == 3.0


def test_score_range_covers_both_experts() -> None:
    m = routed(CLEAN, _stump("flatness", 0.2, -7.0, 9.0), split=20.0, t_clean=1.0, t_below=-1.0)
    assert score_range(m) == (-6.0, 10.0)
    assert score_range(CLEAN) == (-3.0, 3.0)


def test_a_routed_module_scores_what_the_model_does() -> None:
    rng = np.random.default_rng(3)
    m = routed(CLEAN, BELOW, split=18.0, t_clean=0.25, t_below=0.75)
    space: dict = {}
    exec(compile(format_module(m, 0.0, "test"), "clap_model_test", "exec"), space)
    assert space["THRESHOLD"] == 0.0
    a, b = TreeModel(m), TreeModel(space["MODEL"])
    for _ in range(200):
        v = rng.normal(0.0, 15.0, len(FEATURES))
        v[FEATURES.index("flatness")] = rng.uniform(0.0, 0.5)
        assert a.score(v) == b.score(v)


def _bursts(rng: np.random.Generator) -> tuple[Bursts, np.ndarray, np.ndarray]:
    """Three sources; each a clean clip (10 claps rising 40 dB, 10 others rising ~10 dB) and a
    noisy copy (10 claps rising ~15 dB). The clean expert misses the claps that rise little
    and fires on the low others; the noise expert finds the low claps and passes the rest."""
    rows = []
    for s in ("a", "b", "c"):
        rows += [(1, s, "orig", 40.0, 2.0, 0.0)] * 10 + [(0, s, "orig", 10.0, 1.0, -2.0)] * 10
        rows += [(1, s, "n_white", 15.0, -1.0, 2.0)] * 10
    n = len(rows)
    X = np.zeros((n, len(FEATURES)))
    X[:, FEATURES.index("rise_db")] = [r[3] for r in rows]
    noise = rng.normal(0.0, 0.1, n)
    clean, below = np.array([r[4] for r in rows]) + noise, np.array([r[5] for r in rows]) + noise
    src = np.array([r[1] for r in rows])
    clip = np.array([f"{r[1]}/clap.wav" for r in rows])
    b = Bursts(X, np.array([r[0] for r in rows]), src, np.array([""] * n),
               np.array([r[2] for r in rows]), clip, {f"{s}/clap.wav": 10 for s in "abc"},
               {f"{s}/clap.wav": "clap" for s in "abc"})
    return b, clean, below


def test_the_split_sends_the_low_bursts_to_the_noise_expert() -> None:
    b, clean, below = _bursts(np.random.default_rng(0))
    sources = ["a", "b", "c"]
    counts = [route_counts(b, clean, below, sources, v) for v in (("orig",), ("n_white",))]
    split, t_below, fig = choose_route(counts, [0, 1, 2])
    assert 15.0 < split <= 38.0 and -1.0 < t_below < 2.0
    assert fig > 0.99
    # source a's choice (on b and c) does not move when a's own scores do
    held = choose_route(counts, [1, 2])
    m = b.source == "a"
    below2 = np.where(m, below - 5.0, below)
    counts2 = [route_counts(b, clean, below2, sources, v) for v in (("orig",), ("n_white",))]
    assert choose_route(counts2, [1, 2]) == held
    assert choose_route(counts2, [0, 1, 2]) != choose_route(counts, [0, 1, 2])


def test_either_takes_the_higher_expert_under_the_split_only() -> None:
    tm = TreeModel(routed(CLEAN, BELOW, split=20.0, t_clean=0.5, t_below=0.25, either=True))
    # under the split: a clap if either expert says so
    assert tm.score(_v(rise_db=19.9, decay_db=-20.0, flatness=0.1)) == 3.0 - 0.5
    assert tm.score(_v(rise_db=19.9, decay_db=-5.0, flatness=0.3)) == 2.0 - 0.25
    assert tm.score(_v(rise_db=19.9, decay_db=-5.0, flatness=0.1)) == -2.0 - 0.25
    # over it, the clean expert alone, as without either
    assert tm.score(_v(rise_db=20.0, decay_db=-5.0, flatness=0.3)) == -3.0 - 0.5
    space: dict = {}
    m = routed(CLEAN, BELOW, split=20.0, t_clean=0.5, t_below=0.25, either=True)
    exec(compile(format_module(m, 0.0, "test"), "clap_model_test", "exec"), space)
    assert space["MODEL"]["either"] is True
    assert TreeModel(space["MODEL"]).score(_v(rise_db=19.9, decay_db=-20.0, flatness=0.1)) == 2.5


def test_either_counts_every_clap_the_clean_expert_finds() -> None:
    b, clean, below = _bursts(np.random.default_rng(0))
    sources = ["a", "b", "c"]
    for v in (("orig",), ("n_white",)):
        tp, fp, _ = route_counts(b, clean, below, sources, v)
        tpe, fpe, _ = route_counts(b, clean, below, sources, v, either=True)
        assert (tpe >= tp).all() and (fpe >= fp).all()
        found_clean = [np.count_nonzero((clean >= 0) & (b.source == s) & (b.variant == v[0]) & (b.y == 1))
                       for s in sources]
        assert (tpe >= np.array(found_clean)[None, None, :]).all()
