"""Pixel-perfect hit tests with alpha thresholds, point tests and bounding boxes."""
from __future__ import annotations

import os

import numpy as np
import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
import pygame

from sensekit.collide import (bounding_box, boxes_overlap, hit_test, hit_test_point,
                              overlap_area, to_mask)
from sensekit.errors import ConfigError


def rgba(h: int, w: int, alpha: np.ndarray | int = 0) -> np.ndarray:
    img = np.zeros((h, w, 4), dtype=np.uint8)
    img[:, :, :3] = 200
    img[:, :, 3] = alpha
    return img


def disc(size: int, *, soft: bool = False) -> np.ndarray:
    """A disc: opaque inside; with soft=True alpha falls from 255 at the centre to 0 at the
    rim (like the chapter's blurred circle)."""
    yy, xx = np.mgrid[0:size, 0:size]
    c = (size - 1) / 2
    d = np.hypot(xx - c, yy - c) / (size / 2)
    alpha = np.clip(1 - d, 0, 1) * 255 if soft else (d <= 1) * 255
    return rgba(size, size, alpha.astype(np.uint8))


def test_offsets_follow_positions_exactly():
    a = rgba(10, 10)
    a[4, 6, 3] = 255                      # one solid pixel at (x=6, y=4)
    b = rgba(3, 3)
    b[1, 1, 3] = 255                      # one solid pixel at its centre
    ma, mb = to_mask(a), to_mask(b)
    # b's centre pixel lands on (6, 4) of a when b's corner is at a + (5, 3)
    assert hit_test(ma, (100, 50), mb, (105, 53))
    assert not hit_test(ma, (100, 50), mb, (106, 53))
    assert not hit_test(ma, (100, 50), mb, (105, 52))
    assert hit_test(mb, (105, 53), ma, (100, 50))          # symmetric
    assert overlap_area(ma, (100, 50), mb, (105, 53)) == 1


def test_alpha_threshold_decides_what_is_solid():
    star = disc(21)                                     # opaque disc
    glow = disc(21, soft=True)                          # alpha 255 only near the centre
    # glow's rim (low alpha) overlaps the disc, its centre does not
    pos_star, pos_glow = (0, 0), (17, 0)
    assert hit_test(star, pos_star, glow, pos_glow, alpha_threshold=1)
    assert not hit_test(star, pos_star, glow, pos_glow, alpha_threshold=200)
    # threshold 0: every pixel is solid, so the two bounding squares decide
    assert hit_test(rgba(5, 5), (0, 0), rgba(5, 5), (4, 4), alpha_threshold=0)
    assert not hit_test(rgba(5, 5), (0, 0), rgba(5, 5), (5, 0), alpha_threshold=0)


def test_threshold_is_inclusive_and_matches_numpy():
    rng = np.random.default_rng(1)
    a = rgba(30, 40, rng.integers(0, 256, (30, 40)).astype(np.uint8))
    b = rgba(25, 20, rng.integers(0, 256, (25, 20)).astype(np.uint8))
    for t in (1, 100, 128, 255):
        A, B = a[:, :, 3] >= t, b[:, :, 3] >= t
        for ox, oy in [(0, 0), (10, 5), (-5, -7), (35, 20), (-19, 29)]:
            x0, x1 = max(0, ox), min(40, ox + 20)
            y0, y1 = max(0, oy), min(30, oy + 25)
            want = 0 if x0 >= x1 or y0 >= y1 else int(
                (A[y0:y1, x0:x1] & B[y0 - oy:y1 - oy, x0 - ox:x1 - ox]).sum())
            assert overlap_area(a, (0, 0), b, (ox, oy), alpha_threshold=t) == want
            assert hit_test(a, (0, 0), b, (ox, oy), alpha_threshold=t) == (want > 0)


def test_surfaces_and_bool_arrays():
    surf = pygame.Surface((8, 8), pygame.SRCALPHA)
    surf.fill((0, 0, 0, 0))
    pygame.draw.rect(surf, (255, 0, 0, 255), (2, 2, 3, 3))
    solid = np.zeros((8, 8), dtype=bool)
    solid[4, 4] = True
    assert hit_test(surf, (0, 0), solid, (0, 0))
    assert not hit_test(surf, (0, 0), solid, (1, 0))
    assert to_mask(solid).count() == 1
    assert to_mask(surf, alpha_threshold=255).count() == 9


def test_hit_test_point_and_bounding_box():
    a = rgba(10, 10)
    a[2:5, 3:7, 3] = 255                 # rows 2..4, columns 3..6
    m = to_mask(a)
    assert hit_test_point(m, (10, 20), (13, 22))
    assert hit_test_point(m, (10, 20), (16.9, 24.9))
    assert not hit_test_point(m, (10, 20), (17, 22))
    assert not hit_test_point(m, (10, 20), (9, 22))        # outside the image
    assert bounding_box(m, (10, 20)) == (13, 22, 17, 25)
    assert bounding_box(rgba(4, 4)) is None
    assert boxes_overlap((0, 0, 2, 2), (1, 1, 3, 3))
    assert not boxes_overlap((0, 0, 2, 2), (2, 0, 3, 3))


def test_wrong_dtype_mask_names_the_dtype():
    with pytest.raises(ConfigError, match=r"`a`.*dtype float32"):
        hit_test(np.zeros((4, 4, 4), np.float32), (0, 0), rgba(4, 4), (0, 0))
    with pytest.raises(ConfigError, match=r"`image`.*shape \(4, 4, 3\)"):
        to_mask(np.zeros((4, 4, 3), np.uint8))
    with pytest.raises(ConfigError, match=r"`alpha_threshold`.*300"):
        to_mask(rgba(2, 2), alpha_threshold=300)
    with pytest.raises(ConfigError, match=r"`image`.*list"):
        to_mask([[1, 2]])


def test_bad_position_names_the_value():
    img = rgba(2, 2, 255)
    m = to_mask(img)
    with pytest.raises(ConfigError, match=r"`pos_b`.*nan"):
        hit_test(img, (0, 0), img, (float("nan"), 0))
    with pytest.raises(ConfigError, match=r"`point`"):
        hit_test_point(m, (0, 0), ("x", 1))
    with pytest.raises(ConfigError, match=r"`pos_a`.*inf"):
        overlap_area(m, (float("inf"), 0), m, (0, 0))
    # the two-Mask fast path rejects them too, rather than silently missing
    with pytest.raises(ConfigError, match=r"`pos_b`.*nan"):
        hit_test(m, (0, 0), m, (float("nan"), 0))
    assert not hit_test(m, (0, 0), m, (30, 0)) and hit_test(m, (0, 0), m, (1, 1))

