"""The DTW k-NN of ``benchmarks/teach_sequence.py`` (the movement models tried for taught gestures).

Its distances are checked against a plain two-loop dynamic time warping on seeded random
windows of unequal lengths (the padded, vectorised version must read each window's own end),
and a window shown slowed down is named as the one it was cut from.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from teach_sequence import DTWNeighbours


def _dtw(a: np.ndarray, b: np.ndarray) -> float:
    acc = np.full((len(a) + 1, len(b) + 1), np.inf)
    acc[0, 0] = 0.0
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            acc[i, j] = float(np.linalg.norm(a[i - 1] - b[j - 1])) + min(acc[i - 1, j], acc[i, j - 1],
                                                                         acc[i - 1, j - 1])
    return float(acc[-1, -1]) / (len(a) + len(b))


def test_distances_match_a_plain_dtw_on_windows_of_unequal_lengths() -> None:
    rng = np.random.default_rng(7)
    store = [rng.normal(size=(n, 4)) for n in (3, 9, 5, 1, 7)]
    query = rng.normal(size=(6, 4))
    store.append(query)
    model = DTWNeighbours(store, k=1).fit(np.arange(5.0).reshape(-1, 1), np.array([0, 1, 0, 1, 0]))
    got = model.distances(query)
    want = [_dtw(query, w) for w in store[:5]]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_a_slowed_down_window_is_named_as_its_source() -> None:
    rng = np.random.default_rng(3)
    store = [np.cumsum(rng.normal(size=(8, 5)), axis=0) for _ in range(6)]
    slowed = np.repeat(store[4], 2, axis=0)[:13]           # every frame twice, cut to 13
    store.append(slowed)
    labels = np.array([0, 0, 1, 1, 2, 2])
    model = DTWNeighbours(store, k=1).fit(np.arange(6.0).reshape(-1, 1), labels)
    assert int(np.argmin(model.distances(slowed))) == 4
    proba = model.predict_proba(np.array([[6.0]]))
    assert proba.shape == (1, 3) and proba[0].tolist() == [0.0, 0.0, 1.0]
