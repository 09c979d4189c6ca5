"""Grid broad phase: exactly the brute-force pairs, for any sizes and cell sizes."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sensekit.collide import box_pairs, circle_pairs, pairs_within
from sensekit.collide.grid import auto_cell
from sensekit.errors import ConfigError

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def circles(draw, max_n: int = 120):
    n = draw(st.integers(0, max_n))
    seed = draw(st.integers(0, 2**32 - 1))
    world = draw(st.sampled_from([1.0, 50.0, 400.0, 5000.0]))
    rng = np.random.default_rng(seed)
    p = rng.uniform(-world / 2, world / 2, (n, 2))
    # a mix of small circles and a few much larger ones (larger than a typical cell)
    rmax = draw(st.sampled_from([0.5, 5.0, 40.0]))
    r = rng.uniform(0.01, rmax, n)
    if n and draw(st.booleans()):
        big = rng.random(n) < 0.05
        r[big] *= draw(st.sampled_from([5.0, 30.0]))
    if n > 3 and draw(st.booleans()):  # exact duplicates and shared coordinates
        p[1] = p[0]
        p[3, 1] = p[2, 1]
    return p, r


def as_set(pairs: np.ndarray) -> set[tuple[int, int]]:
    return {(int(a), int(b)) for a, b in pairs}


@SETTINGS
@given(circles(), st.sampled_from([None, None, 0.3, 3.0, 17.0, 250.0]))
def test_circle_grid_matches_brute_force(scene, cell):
    p, r = scene
    want = circle_pairs(p, r, method="brute")
    got = circle_pairs(p, r, cell=cell)
    assert got.dtype == np.int64 and got.shape[1] == 2
    assert np.array_equal(got, want)           # same pairs, same (sorted) order


@SETTINGS
@given(circles(max_n=80), st.floats(0.05, 300.0), st.sampled_from([None, 1.0, 40.0]))
def test_pairs_within_matches_brute_force(scene, d, cell):
    p, _ = scene
    want = pairs_within(p, d, method="brute")
    assert np.array_equal(pairs_within(p, d, cell=cell), want)


@SETTINGS
@given(st.integers(0, 90), st.integers(0, 2**32 - 1), st.sampled_from([None, 2.0, 30.0]))
def test_box_grid_matches_brute_force(n, seed, cell):
    rng = np.random.default_rng(seed)
    xy = rng.uniform(0, 300, (n, 2))
    wh = rng.uniform(0, 40, (n, 2)) * np.where(rng.random((n, 1)) < 0.1, 6.0, 1.0)
    boxes = np.column_stack((xy, xy + wh))
    assert np.array_equal(box_pairs(boxes, cell=cell), box_pairs(boxes, method="brute"))


def test_pairs_are_sorted_unique_and_i_less_than_j():
    rng = np.random.default_rng(3)
    p = rng.uniform(0, 100, (400, 2))
    got = circle_pairs(p, 4.0)
    assert (got[:, 0] < got[:, 1]).all()
    keys = got[:, 0] * len(p) + got[:, 1]
    assert (np.diff(keys) > 0).all()


def test_tiny_hand_made_scene():
    # 0 and 1 overlap, 1 and 2 touch exactly (not a collision), 3 is far away
    p = [(0, 0), (3, 0), (7, 0), (100, 100)]
    r = [2.0, 2.0, 2.0, 1.0]
    assert circle_pairs(p, r).tolist() == [[0, 1]]
    assert pairs_within(p, 4.0).tolist() == [[0, 1]]
    assert pairs_within(p, 4.0001).tolist() == [[0, 1], [1, 2]]
    boxes = [(0, 0, 2, 2), (1, 1, 3, 3), (2.5, 0, 4, 1.5), (2, 0, 4, 1)]  # 3 only touches 0
    assert box_pairs(boxes).tolist() == [[0, 1], [1, 2], [2, 3]]


def test_one_huge_object_with_auto_cell():
    rng = np.random.default_rng(5)
    p = rng.uniform(0, 1000, (300, 2))
    r = np.full(300, 2.0)
    r[7] = 400.0                                 # cell becomes 800: one object spans most of it
    assert auto_cell(r) == 800.0
    got = circle_pairs(p, r)
    assert np.array_equal(got, circle_pairs(p, r, method="brute"))
    assert (got == 7).any(axis=1).sum() > 50


def test_empty_and_single():
    assert circle_pairs(np.zeros((0, 2)), []).shape == (0, 2)
    assert circle_pairs([(1, 2)], [3]).shape == (0, 2)
    assert pairs_within(np.zeros((0, 2)), 1.0).shape == (0, 2)


@pytest.mark.parametrize("cell", [0, -1.0, float("nan"), "big"])
def test_bad_cell_names_the_value(cell):
    with pytest.raises(ConfigError, match=r"`cell`.*" + repr(cell).replace("(", r"\(")[:4]):
        circle_pairs([(0, 0), (1, 1)], 1.0, cell=cell)


def test_nan_position_is_rejected_with_its_row():
    p = np.zeros((5, 2))
    p[3, 1] = np.nan
    with pytest.raises(ConfigError, match=r"`positions`.*row 3.*nan"):
        circle_pairs(p, 1.0)
    with pytest.raises(ConfigError, match=r"`positions`.*row 3"):
        pairs_within(p, 1.0)


def test_bad_radii_and_boxes():
    with pytest.raises(ConfigError, match=r"`radii`.*item 1 is -1"):
        circle_pairs([(0, 0), (1, 1)], [1.0, -1.0])
    with pytest.raises(ConfigError, match=r"`boxes`.*row 0"):
        box_pairs([(5, 0, 1, 1)])
    with pytest.raises(ConfigError, match=r"`method`.*'fast'"):
        circle_pairs([(0, 0)], 1.0, method="fast")


def test_huge_coordinates_and_tiny_cells_stay_exact():
    rng = np.random.default_rng(9)
    p = rng.uniform(-1e12, 1e12, (200, 2))
    p[100:] = p[:100] + rng.uniform(-3, 3, (100, 2))      # close partners far from the origin
    r = np.full(200, 2.0)
    assert np.array_equal(circle_pairs(p, r), circle_pairs(p, r, method="brute"))
    q = rng.uniform(0, 50, (60, 2))
    assert np.array_equal(circle_pairs(q, 30.0, cell=1e-6), circle_pairs(q, 30.0, method="brute"))


@pytest.mark.parametrize(("boxes", "message"), [
    ("abc", r"`boxes` must be an \(N, 4\) array of numbers, got 'abc'"),
    (np.zeros((3, 2)), r"`boxes` must have shape \(N, 4\) as \(x0, y0, x1, y1\), got \(3, 2\)"),
    ([[0, 0, 1, 1], [0, 0, np.inf, 1]], r"`boxes` must be finite; row 1 is \[0.0, 0.0, inf, 1.0\]"),
    ([[0, 0, 1, 1], [5, 0, 1, 1]], r"`boxes` rows must be \(x0, y0, x1, y1\) with x0 <= x1 and y0 <= y1; row 1"),
])
def test_bad_boxes_are_named_with_the_row_at_fault(boxes, message):
    with pytest.raises(ConfigError, match=message):
        box_pairs(boxes)


def test_bad_positions_say_the_shape_they_need():
    with pytest.raises(ConfigError, match=r"`positions` must have shape \(N, 2\), got \(4, 3\)"):
        circle_pairs(np.zeros((4, 3)), 1.0)
