"""The public neighbour search: grid results equal a brute-force check."""
import numpy as np
import pytest

from sensekit.collide import NeighbourGrid, neighbour_pairs, pairs_within
from sensekit.errors import ConfigError


def _brute(p, d, closed):
    i, j = np.triu_indices(len(p), 1)
    d2 = ((p[j] - p[i]) ** 2).sum(axis=1)
    keep = d2 <= d * d if closed else d2 < d * d
    return {(int(a), int(b)) for a, b in zip(i[keep], j[keep])}


@pytest.mark.parametrize("closed", [False, True])
def test_neighbour_pairs_match_brute_force_with_offsets(closed):
    rng = np.random.default_rng(3)
    p = np.round(rng.uniform(0, 400, (700, 2)))       # integer points: ties at the distance
    got = neighbour_pairs(p, 25.0, closed=closed)
    pairs = {(min(a, b), max(a, b)) for a, b in zip(got.i.tolist(), got.j.tolist())}
    assert pairs == _brute(p, 25.0, closed)
    assert len(pairs) == len(got.i)                    # each unordered pair once
    np.testing.assert_array_equal(got.dx, p[got.j, 0] - p[got.i, 0])
    np.testing.assert_array_equal(got.dy, p[got.j, 1] - p[got.i, 1])
    np.testing.assert_allclose(got.d2, got.dx ** 2 + got.dy ** 2)
    if not closed:
        assert pairs == {tuple(r) for r in pairs_within(p, 25.0).tolist()}


def test_grid_scan_offers_every_close_pair_once():
    rng = np.random.default_rng(4)
    p = rng.uniform(0, 300, (900, 2))
    grid = NeighbourGrid(p, 20.0)
    xs, ys = grid.x.copy(), grid.y.copy()
    np.testing.assert_array_equal(xs, p[grid.order, 0])

    def test(I, J):
        d2 = (xs[J] - xs[I]) ** 2 + (ys[J] - ys[I]) ** 2
        k = d2 < 400.0
        return grid.order[I[k]], grid.order[J[k]]

    i, j = grid.scan(test)
    pairs = [(min(a, b), max(a, b)) for a, b in zip(i.tolist(), j.tolist())]
    assert len(pairs) == len(set(pairs))
    assert set(pairs) == _brute(p, 20.0, False)


def test_bad_input_names_the_value():
    with pytest.raises(ConfigError, match="distance"):
        neighbour_pairs(np.zeros((3, 2)), 0.0)
    with pytest.raises(ConfigError, match="positions"):
        NeighbourGrid(np.zeros((0, 2)), 5.0)
    assert len(neighbour_pairs(np.zeros((1, 2)), 5.0).i) == 0
