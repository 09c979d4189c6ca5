"""``blobs.join_px`` at the top of its range (255), one OSC packet or panel setting away, must not
stop a show (harden29): the closing by OpenCV's 255 x 255 ellipse cost 262 ms a frame at 640x480
and 743 ms at 1280x720 (1.2 and 3.4 ms with joining off): its cost grows with the kernel's area.
Above ``EXACT_JOIN_PX`` the closing goes by two distance transforms, whose cost does not depend
on the size; checked here by what runs (no kernel larger than ``EXACT_JOIN_PX`` reaches OpenCV)
and by the result (the closing by the same disk as a kernel, pixel for pixel), not by a clock."""
from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from sensekit.vision import blobs
from sensekit.vision.blobs import EXACT_JOIN_PX, close_mask, find_blobs


def _mask(h: int = 120, w: int = 160, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    m = np.zeros((h, w), np.uint8)
    for _ in range(12):
        cv2.ellipse(m, (int(rng.integers(0, w)), int(rng.integers(0, h))),
                    (int(rng.integers(2, 12)), int(rng.integers(2, 20))), 0, 0, 360, 255, -1)
    return m


def _disk(size: int) -> np.ndarray:
    r = (size - 1) / 2 + 0.3
    c = size // 2
    yy, xx = np.mgrid[:size, :size]
    return (np.hypot(yy - c, xx - c) <= r).astype(np.uint8)


def test_no_kernel_above_the_exact_size_reaches_opencv(monkeypatch: Any) -> None:
    sizes: list[int] = []
    real = cv2.morphologyEx

    def spy(src: np.ndarray, op: int, kernel: np.ndarray, *a: Any, **kw: Any) -> np.ndarray:
        sizes.append(max(kernel.shape))
        return real(src, op, kernel, *a, **kw)

    monkeypatch.setattr(blobs.cv2, "morphologyEx", spy)
    for join in (EXACT_JOIN_PX + 1, 63, 127, 255):
        find_blobs(_mask(), join_px=join)
    assert sizes == [], sizes
    find_blobs(_mask(), join_px=EXACT_JOIN_PX)
    assert sizes == [EXACT_JOIN_PX]


@pytest.mark.parametrize("size", [3, 15, EXACT_JOIN_PX])
def test_up_to_the_exact_size_the_closing_is_opencvs_ellipse(size: int) -> None:
    m = _mask()
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
    assert np.array_equal(close_mask(m, size), cv2.morphologyEx(m, cv2.MORPH_CLOSE, kernel))


@pytest.mark.parametrize("size", [EXACT_JOIN_PX + 1, 63, 100, 255])
def test_above_it_the_closing_is_by_the_disk_pixel_for_pixel(size: int) -> None:
    """The same closing as OpenCV's with the disk as its kernel (the border eroding nothing);
    on the 160x120 mask, where the disk as a kernel is still cheap to run."""
    m = _mask()
    want = cv2.morphologyEx(m, cv2.MORPH_CLOSE, _disk(size))
    got = close_mask(m, size)
    assert got.dtype == np.uint8 and set(np.unique(got)) <= {0, 255}
    assert np.array_equal(got, want), int(np.sum(got != want))


def test_an_empty_and_a_full_mask_stay_so() -> None:
    assert not close_mask(np.zeros((40, 60), np.uint8), 101).any()
    assert close_mask(np.full((40, 60), 255, np.uint8), 101).all()
