"""The shared item helpers in sensekit.capture.base."""
from __future__ import annotations

import numpy as np

from sensekit.capture.base import as_bgr


def test_as_bgr_converts_grey_and_bgra_and_leaves_bgr_alone():
    bgr = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3)
    assert as_bgr(bgr) is bgr
    grey = np.array([[0, 128, 255]], np.uint8)
    assert as_bgr(grey).tolist() == [[[0, 0, 0], [128, 128, 128], [255, 255, 255]]]
    bgra = np.dstack([bgr, np.full((2, 3), 7, np.uint8)])
    assert np.array_equal(as_bgr(bgra), bgr)
