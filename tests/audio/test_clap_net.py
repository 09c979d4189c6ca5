"""The fifteenth pass's net: exported arrays score what scikit-learn scores; AUC; inner groups."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.metrics import roc_auc_score
from sklearn.neural_network import MLPClassifier

from sensekit.evaluation.audio.clap_mlp import MlpModel, net_input
from sensekit.evaluation.audio import clap_net as cn
from sensekit.evaluation.audio.clap_training import SPEECH0, Bursts


def test_exported_net_scores_like_sklearn() -> None:
    rng = np.random.default_rng(5)
    P = rng.normal(0.0, 10.0, (600, 16, 12))
    F = rng.normal(0.0, 3.0, (600, 16))
    F[rng.random(600) < 0.1, 11] = np.nan                 # air_db at 8 kHz
    y = (P[:, 4:8, 3].mean(axis=1) + F[:, 0] > 0).astype(int)
    mean, std = np.nanmean(F, axis=0), np.nanstd(F, axis=0)
    Z = net_input(P, F, mean, std)
    assert Z.shape == (600, 16 * 12 + 16) and np.isfinite(Z).all()
    clf = MLPClassifier(hidden_layer_sizes=(8, 4), max_iter=500, random_state=0).fit(Z, y)
    model = MlpModel(cn.export(clf, mean, std))
    logit = model.scores(P, F)
    np.testing.assert_allclose(1.0 / (1.0 + np.exp(-logit)), clf.predict_proba(Z)[:, 1], atol=1e-9)
    assert np.mean((logit > 0) == (y == 1)) > 0.9        # it learnt something


def test_patch_only_input() -> None:
    P = np.ones((3, 16, 12))
    Z = net_input(P, np.zeros((3, 16)), np.zeros(16), np.ones(16), use_features=False)
    assert Z.shape == (3, 192) and np.all(Z == 1.0 / 20.0)


def test_auc_matches_sklearn_with_ties() -> None:
    rng = np.random.default_rng(1)
    s = np.round(rng.normal(size=500), 1)                  # many ties
    y = (rng.random(500) < 0.3).astype(int)
    assert cn.auc(s, y) == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert np.isnan(cn.auc(s, np.zeros(500, int)))


def test_train_mask_leaves_out_source_background_and_speech0() -> None:
    b = Bursts(np.zeros((5, 16)), np.array([1, 0, 0, -1, 1]), np.array(["a", "b", "b", "b", "c"]),
               np.array(["", "a", "", "", ""]), np.array(["orig", "mix0", "orig", "orig", SPEECH0]),
               np.array(["x"] * 5), {}, {})
    assert cn.train_mask(b, ["a"]).tolist() == [False, False, True, False, False]


def test_inner_groups_deal_every_source_once() -> None:
    g = cn.inner_groups(["e", "a", "d", "c", "b"], 3)
    assert g == [["a", "d"], ["b", "e"], ["c"]]
