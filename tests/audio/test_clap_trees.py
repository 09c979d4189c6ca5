"""clap_trees.BitTrees finds the leaves a walk down each tree finds (the clap scores to the bit)."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.audio.clap_features import TreeModel
from sensekit.audio.clap_trees import BitTrees


def _walk(feature: np.ndarray, threshold: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The textbook walk: flat leaf index per tree, ``v[f] > t`` right, NaN left."""
    n_trees, n_int = feature.shape
    out = []
    for t in range(n_trees):
        node = 0
        while node < n_int:
            node = 2 * node + 1 + int(bool(v[feature[t, node]] > threshold[t, node]))
        out.append(t * (n_int + 1) + node - n_int)
    return np.array(out)


def _probes(rng: np.random.Generator, feature: np.ndarray, threshold: np.ndarray,
            n_features: int, n: int) -> list[np.ndarray]:
    """Vectors at, just beside and between the thresholds, with NaN and +-inf."""
    finite = np.isfinite(threshold)
    out = []
    for _ in range(n):
        v = rng.normal(0.0, 15.0, n_features)
        for i in rng.choice(np.flatnonzero(finite), size=min(6, int(finite.sum())), replace=False):
            f, t = feature.flat[i], threshold.flat[i]
            v[f] = rng.choice([t, np.nextafter(t, np.inf), np.nextafter(t, -np.inf)])
        v[rng.random(n_features) < 0.1] = np.nan
        v[rng.random(n_features) < 0.05] = np.inf
        v[rng.random(n_features) < 0.05] = -np.inf
        out.append(v)
    return out


@pytest.mark.parametrize("depth", [1, 2, 4, 6])
def test_random_trees_reach_the_leaves_of_the_walk(depth: int) -> None:
    rng = np.random.default_rng(depth)
    n_trees, n_int, n_f = 40, 2 ** depth - 1, 5
    feature = rng.integers(0, n_f, (n_trees, n_int))
    # few distinct thresholds (shared between trees, as binned trees share them), some +inf
    threshold = rng.choice(np.r_[np.round(rng.normal(0, 10, 12), 1), np.inf, -1e9], (n_trees, n_int))
    bits = BitTrees(feature, threshold)
    for v in _probes(rng, feature, threshold, n_f, 300):
        np.testing.assert_array_equal(bits.leaf_index(v), _walk(feature, threshold, v))


def test_the_shipped_trees_score_to_the_bit_as_the_walk() -> None:
    from sensekit.audio.clap_model import MODEL
    tm = TreeModel(MODEL)
    feature = np.asarray(MODEL["feature"])
    threshold = np.asarray(MODEL["threshold"], np.float64)
    leaf = np.asarray(MODEL["leaf"], np.float64).ravel()
    rng = np.random.default_rng(11)
    for v in _probes(rng, feature, threshold, feature.max() + 1, 300):
        want = _walk(feature, threshold, v)
        np.testing.assert_array_equal(tm.leaf_index(v), want)
        # the same leaves summed the same way: the same float
        assert tm.score(v) == tm.base + float(leaf.take(want).sum())


def test_deeper_trees_are_walked_level_by_level() -> None:
    rng = np.random.default_rng(5)
    depth, n_trees = 7, 3
    feature = rng.integers(0, 4, (n_trees, 2 ** depth - 1))
    threshold = rng.normal(0, 1, feature.shape)
    tm = TreeModel({"depth": depth, "base": 0.5, "feature": feature.tolist(),
                    "threshold": threshold.tolist(), "leaf": rng.normal(0, 1, (n_trees, 2 ** depth)).tolist()})
    v = rng.normal(0, 1, 4)
    np.testing.assert_array_equal(tm.leaf_index(v), _walk(feature, threshold, v))
    with pytest.raises(ValueError, match="depth 1..6"):
        BitTrees(feature, threshold)


def test_scored_models_are_kept_few_and_never_mixed_up() -> None:
    """clap_score keeps the tables of the last few models only, and a new model dict that
    happens to get a dead one's id is scored by its own trees."""
    from sensekit.audio import clap_features as cf

    def stump(base: float) -> dict:
        return {"depth": 1, "base": base, "feature": [[0]], "threshold": [[0.0]], "leaf": [[0.0, 1.0]]}

    kept = [stump(float(i)) for i in range(3 * cf._KEEP_MODELS)]
    for i, m in enumerate(kept):
        assert cf.clap_score(np.array([1.0]), m) == i + 1.0
        assert len(cf._MODELS) <= cf._KEEP_MODELS
    for i in range(50):                      # freed dicts' ids come back in CPython
        assert cf.clap_score(np.array([-1.0]), stump(100.0 + i)) == 100.0 + i
