"""OneEuroArray is the scalar One-Euro filter applied element-wise (same numbers)."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.vision.smoothing import OneEuroArray, OneEuroFilter


def test_array_filter_equals_the_scalar_filter_per_element():
    rng = np.random.default_rng(3)
    signal = np.cumsum(rng.normal(0, 4, (60, 21, 3)), axis=0)
    arr = OneEuroArray(min_cutoff_hz=1.5, beta=0.3)
    scalars = [OneEuroFilter(min_cutoff_hz=1.5, beta=0.3) for _ in range(63)]
    for i, x in enumerate(signal):
        t = i / 30
        got = arr(x, t)
        want = np.array([f(v, t) for f, v in zip(scalars, x.ravel())]).reshape(x.shape)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)


def test_speed_scale_makes_beta_size_free():
    """A move of the same hand sizes per second is smoothed the same at any picture size."""
    small, big = OneEuroArray(beta=2.0), OneEuroArray(beta=2.0)
    for i in range(20):
        t, x = i / 30, np.array([i * 5.0])
        a = small(x, t, speed_scale=1 / 50)          # a 50 px hand
        b = big(x * 4, t, speed_scale=1 / 200)       # the same move on a 200 px hand
    assert b[0] == pytest.approx(4 * a[0])


def test_shape_change_or_reset_restarts():
    f = OneEuroArray()
    f(np.zeros(3), 0.0)
    assert f(np.ones(4), 0.1).tolist() == [1.0] * 4
    f.reset()
    assert f(np.full(4, 7.0), 0.2).tolist() == [7.0] * 4
