"""The thirty-fourth pass's weights: each Debian source's negatives weigh the mean developer negative source."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.evaluation.audio.clap_source_weights import by_source


def _rows() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    source = np.array(["a", "a", "a", "b", "b", "deb_k", "deb_k", "deb_k", "deb_k", "deb_m"])
    y = np.array([1, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    w = np.array([5.0, 1.0, 2.0, 3.0, 6.0, 4.0, 4.0, 4.0, 16.0, 1.0])
    return w, y, source


def test_each_debian_source_weighs_the_mean_developer_negative_source() -> None:
    w, y, source = _rows()
    got = by_source(w, y, source)
    tot = {s: got[(source == s) & (y == 0)].sum() for s in ("a", "b", "deb_k", "deb_m")}
    mean = (tot["a"] + tot["b"]) / 2            # a's negatives 3, b's 9 before the common rescale
    assert tot["deb_k"] == pytest.approx(mean)
    assert tot["deb_m"] == pytest.approx(mean)
    assert tot["b"] / tot["a"] == pytest.approx(3.0)   # the developer sources keep their ratio
    assert got[y == 0].sum() == pytest.approx(w[y == 0].sum())   # the negatives keep their total
    assert got[0] == w[0]                               # the positive untouched
    k = source == "deb_k"
    np.testing.assert_allclose(got[k] / got[k][0], w[k] / w[k][0])   # inside a source: as before
    # the numbers: mean 6, deb_k 28 -> 6 (x 6/28), deb_m 1 -> 6; negatives 3 + 9 + 6 + 6 = 24, back to 41
    np.testing.assert_allclose(got[1:], np.array([1, 2, 3, 6, 6 / 7, 6 / 7, 6 / 7, 24 / 7, 6]) * 41 / 24)


def test_without_a_debian_row_the_weights_are_the_same_array() -> None:
    w, y, source = _rows()
    k = ~np.char.startswith(source.astype(str), "deb_")
    got = by_source(w[k], y[k], source[k])
    np.testing.assert_array_equal(got, w[k])


def test_by_source_refuses_what_it_cannot_weigh() -> None:
    w, y, source = _rows()
    with pytest.raises(ValueError, match="differ"):
        by_source(w[:-1], y, source)
    y2 = y.copy()
    y2[5] = 1
    with pytest.raises(ValueError, match="has a positive"):
        by_source(w, y2, source)
    only = np.char.startswith(source.astype(str), "deb_")
    with pytest.raises(ValueError, match="no negative outside"):
        by_source(w[only], y[only], source[only])
    w2 = w.copy()
    w2[source == "deb_m"] = 0.0
    with pytest.raises(ValueError, match="no weight"):
        by_source(w2, y, source)


def test_train_passes_its_weights_through_the_hook() -> None:
    from sensekit.evaluation.audio import clap_training as ct

    rng = np.random.default_rng(3)
    n = 400
    X = rng.standard_normal((n, len(ct.FEATURES)))
    y = (X[:, 0] > 0).astype(int)
    source = np.where(np.arange(n) % 2 == 0, "a", "b")
    b = ct.Bursts(X, y, source, np.full(n, ""), np.full(n, "orig"), np.array([f"c{i}" for i in range(n)]), {}, {})
    seen: list[np.ndarray] = []

    def weigh(w: np.ndarray, yy: np.ndarray, ss: np.ndarray) -> np.ndarray:
        seen.append(w)
        return w

    assert ct.train(b, weigh=weigh) == ct.train(b)
    assert len(seen) == 1 and len(seen[0]) == n
    heavier = ct.train(b, weigh=lambda w, yy, ss: np.where(yy == 0, 10.0 * w, w))
    assert heavier != ct.train(b)
