"""The scikit-learn trees exported as plain arrays score what scikit-learn scores."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn")

from threadpoolctl import threadpool_limits

from sensekit.audio.clap_features import TreeModel
from sensekit.evaluation.audio.clap_hgb import classifier, export, finite


def test_exported_trees_score_like_sklearn_with_nan_left() -> None:
    rng = np.random.default_rng(7)
    X = rng.normal(size=(2000, 5))
    X[rng.random(2000) < 0.15, 2] = np.nan                  # like air_db at 8 kHz
    y = ((X[:, 0] + np.nan_to_num(X[:, 2], nan=-2.0) * X[:, 1]) > 0.2).astype(int)
    clf = classifier(depth=4, trees=40)
    with threadpool_limits(1):
        clf.fit(finite(X), y, sample_weight=rng.uniform(0.5, 2.0, len(y)))
    model = export(clf, 4)
    assert len(model["feature"]) == 40 and all(len(f) == 15 for f in model["feature"])
    tm = TreeModel(model)
    ours = np.array([tm.score(v) for v in X])
    np.testing.assert_allclose(ours, clf.decision_function(finite(X)), rtol=0, atol=1e-9)
    # the export learnt something: most labels come back
    assert np.mean((ours > 0) == (y == 1)) > 0.9


def test_export_refuses_a_deeper_tree() -> None:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 3))
    y = (np.sin(3 * X[:, 0]) + X[:, 1] > 0).astype(int)
    clf = classifier(depth=5, trees=5, min_leaf=2)
    with threadpool_limits(1):
        clf.fit(X, y)
    with pytest.raises(ValueError, match="deeper than depth=3"):
        export(clf, 3)


def test_shipped_trees_score_as_a_plain_walk_down_each_tree() -> None:
    """TreeModel.score (flat child indices) against the textbook walk, NaN going left."""
    from sensekit.audio.clap_features import FEATURES
    from sensekit.audio.clap_model import MODEL
    tm = TreeModel(MODEL)
    rng = np.random.default_rng(7)
    n = len(FEATURES)
    for _ in range(200):
        v = rng.normal(0.0, 15.0, n)
        v[rng.random(n) < 0.15] = np.nan
        # a routed model: the expert its route picks (under the split: "below"; with
        # "either", the higher of both there)
        under = "below" in MODEL and v[MODEL["route"]] < MODEL["split"]
        experts = [MODEL["below"], MODEL] if under and MODEL.get("either") else [
            MODEL["below"] if under else MODEL]
        walks = []
        for m in experts:
            depth = int(m["depth"])
            leaves = []
            for feat, thr, leaf in zip(m["feature"], m["threshold"], m["leaf"]):
                node = 0
                for _ in range(depth):
                    node = 2 * node + 1 + int(bool(v[feat[node]] > thr[node]))
                leaves.append(leaf[node - (2 ** depth - 1)])
            walks.append(float(m["base"]) + float(np.sum(np.asarray(leaves, np.float64))))
        assert tm.score(v) == max(walks)
