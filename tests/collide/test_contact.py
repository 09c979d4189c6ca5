"""Contact points and normals, and bouncing resolved pairs."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.collide import circle_pairs
from sensekit.collide.contact import box_contacts, circle_contacts, resolve, resolve_box
from sensekit.errors import ConfigError


def test_circle_contact_point_normal_depth():
    c = circle_contacts([(0, 0), (3, 4)], [3.0, 4.0], [[0, 1]])
    assert np.allclose(c.normals, [[0.6, 0.8]])
    assert np.allclose(c.depths, [2.0])              # 3 + 4 - 5
    # middle of the overlap: 2 along the normal from circle 0's centre
    assert np.allclose(c.points, [[1.2, 1.6]])


def test_coincident_centres_get_a_fixed_normal():
    c = circle_contacts([(1, 1), (1, 1)], [1.0, 1.0], [[0, 1]])
    assert np.allclose(c.normals, [[1.0, 0.0]]) and np.allclose(c.depths, [2.0])


def test_box_contacts_outside_and_inside():
    box = (0, 0, 10, 10)
    idx, c = box_contacts([(12, 5), (5, 1), (30, 30), (-1, -1)], [3.0, 2.0, 1.0, 2.0], box)
    assert idx.tolist() == [0, 1, 3]
    assert np.allclose(c.normals[0], [1, 0]) and np.isclose(c.depths[0], 1.0)
    assert np.allclose(c.points[0], [10, 5])
    # centre inside, nearest side is the top (y0): pushed out upwards by 1 + r
    assert np.allclose(c.normals[1], [0, -1]) and np.isclose(c.depths[1], 3.0)
    assert np.allclose(c.normals[2], np.array([-1, -1]) / np.sqrt(2))


def test_resolve_separates_and_reflects_head_on_pair():
    p = np.array([(0.0, 0.0), (3.0, 0.0)])
    v = np.array([(1.0, 0.0), (-1.0, 0.0)])
    p2, v2 = resolve(p, v, [2.0, 2.0], circle_pairs(p, [2.0, 2.0]), restitution=1.0)
    assert np.allclose(v2, [(-1, 0), (1, 0)])        # equal masses swap velocities
    assert np.isclose(p2[1, 0] - p2[0, 0], 4.0)        # pushed apart to just touching
    assert np.allclose(p, [(0, 0), (3, 0)])            # inputs unchanged
    # momentum is conserved with unequal masses too
    _p3, v3 = resolve(p, v, [1.0, 2.0], [[0, 1]], restitution=0.5, masses=[1.0, 3.0])
    assert np.allclose((v3 * [[1.0], [3.0]]).sum(axis=0), (v * [[1.0], [3.0]]).sum(axis=0))


def test_resolve_leaves_separating_pairs_moving_apart():
    p = np.array([(0.0, 0.0), (3.0, 0.0)])
    v = np.array([(-1.0, 0.0), (1.0, 0.0)])
    _, v2 = resolve(p, v, 2.0, [[0, 1]])
    assert np.allclose(v2, v)


def test_resolve_box_bounces():
    p, v, idx = resolve_box([(11.0, 5.0)], [(-2.0, 1.0)], [2.0], (0, 0, 10, 10))
    assert idx.tolist() == [0]
    assert np.allclose(p, [(12.0, 5.0)]) and np.allclose(v, [(2.0, 1.0)])


def test_bad_inputs_name_the_value():
    with pytest.raises(ConfigError, match=r"`pairs`.*row 0 is \[0, 5\]"):
        circle_contacts([(0, 0), (1, 1)], 1.0, [[0, 5]])
    with pytest.raises(ConfigError, match=r"`restitution`.*1.5"):
        resolve([(0, 0)], [(0, 0)], 1.0, [], restitution=1.5)
    with pytest.raises(ConfigError, match=r"`velocities`.*row 0"):
        resolve([(0, 0)], [(np.nan, 0)], 1.0, [])
    with pytest.raises(ConfigError, match=r"`box`"):
        box_contacts([(0, 0)], 1.0, (5, 5, 0, 0))
