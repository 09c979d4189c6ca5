"""BackgroundModel's fast paths give exactly what the plain computation gives.

The model works on large frames in two bands of rows on two threads, cleans the mask band by
band, takes the 5x5 median of a 0/255 mask as a box mean and, for ``min_matches`` <= 2, keeps
the two nearest sample distances instead of a count. Each is checked here against the plain
way on the same frames (the CDnet comparisons are in test_motion.py).
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest

import sensekit.vision.background as bg
from sensekit.vision.background import BackgroundModel, clean_mask

_K3 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
_K7 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))


def _frames(n: int, h: int = 480, w: int = 640, seed: int = 3) -> list[np.ndarray]:
    """A noisy textured scene, a box crossing it, a box that stops, and an exposure jump with
    clipped highlights (frames n-8 on)."""
    rng = np.random.default_rng(seed)
    base = rng.integers(40, 200, (h, w, 3), dtype=np.uint8)
    base[: h // 8, : w // 4] = 245                                   # a bright patch that clips
    out = []
    for k in range(n):
        f = np.clip(base.astype(np.int16) + rng.integers(-4, 5, base.shape), 0, 255).astype(np.uint8)
        x = (20 + 23 * k) % (w - 90)
        f[h // 2 - 30:h // 2 + 30, x:x + 80] = (20, 230, 40)         # crossing
        f[h // 4:h // 4 + 40, w // 2:w // 2 + 40] = (200, 30, 200) if k >= 6 else f[h // 4, w // 2]
        if k >= n - 8:
            f = cv2.convertScaleAbs(f, alpha=1.15)                   # auto-exposure step
        out.append(f)
    return out


def _run(model: BackgroundModel, frames: list[np.ndarray]) -> list[np.ndarray]:
    return [model.update(f)[0].copy() for f in frames]


def _state(model: BackgroundModel) -> list[np.ndarray]:
    return [model._S, model._thr, model._dmin, model._blink, model._still, model._last_bg]


@pytest.mark.parametrize("settings", [
    {},
    {"min_matches": 3, "clean": False},
    {"shadows": True, "absorb_after_frames": 4, "memory_frames": 40},
])
def test_two_bands_give_the_same_masks_and_model_as_one(monkeypatch, settings):
    if cv2.getNumThreads() < 2:
        pytest.skip("OpenCV runs one thread here: the bands are not used")
    frames = _frames(30)
    assert bg._SPLIT_PIXELS <= 480 * 640
    split = BackgroundModel(learn_frames=8, **settings)
    banded = _run(split, frames)
    monkeypatch.setattr(bg, "_SPLIT_PIXELS", 10 ** 9)
    whole = BackgroundModel(learn_frames=8, **settings)
    single = _run(whole, frames)
    assert all(np.array_equal(a, b) for a, b in zip(banded, single))
    assert all(np.array_equal(a, b) for a, b in zip(_state(split), _state(whole)))
    assert whole.gain[0] > 1.1                                       # the exposure step was compensated
    assert banded[12][480 // 2, (20 + 23 * 12) % 550 + 40] == 255     # the crossing box is found
    assert 0.002 < np.count_nonzero(banded[-1]) / banded[-1].size < 0.2


class _Counting(BackgroundModel):
    """The plain count of matching samples, whatever ``min_matches`` is."""
    _match_nearest = BackgroundModel._match_count


@pytest.mark.parametrize("min_matches", [1, 2])
def test_two_nearest_distances_decide_as_the_count_does(min_matches):
    frames = _frames(20, 120, 160)
    fast = BackgroundModel(learn_frames=6, min_matches=min_matches)
    plain = _Counting(learn_frames=6, min_matches=min_matches)
    got, want = _run(fast, frames), _run(plain, frames)
    assert all(np.array_equal(a, b) for a, b in zip(got, want))
    assert np.array_equal(fast._mind, plain._mind) and np.array_equal(fast._thr, plain._thr)
    assert any(np.count_nonzero(m) for m in got)


@pytest.mark.parametrize("shape", [(480, 640), (37, 53), (5, 5), (2, 9)])
@pytest.mark.parametrize("density", [0.05, 0.5, 0.9])
def test_clean_mask_is_median_close_open(shape, density):
    rng = np.random.default_rng(int(density * 100) + shape[0])
    mask = np.where(rng.random(shape) < density, 255, 0).astype(np.uint8)
    mask[shape[0] // 2:, : shape[1] // 3] = 255                      # a solid region with edges
    want = cv2.morphologyEx(cv2.morphologyEx(cv2.medianBlur(mask, 5), cv2.MORPH_CLOSE, _K7), cv2.MORPH_OPEN, _K3)
    assert np.array_equal(clean_mask(mask), want)


def test_bands_run_every_band_once_and_pass_errors_on():
    from sensekit.vision.bands import bands, in_bands

    seen: list[tuple[int, int]] = []
    in_bands(lambda r: seen.append((r.start, r.stop)), bands(0, 9, split=True))
    assert sorted(seen) == [(0, 4), (4, 9)]
    assert bands(3, 4, split=True) == (slice(3, 4),)

    def fail(r: slice) -> None:
        if r.start == 0:
            raise ValueError("band 0 failed")

    with pytest.raises(ValueError, match="band 0 failed"):    # whichever thread ran band 0
        in_bands(fail, bands(0, 9, split=True))
    with pytest.raises(ValueError, match="band 0 failed"):    # the caller's own band
        in_bands(fail, [slice(4, 9), slice(0, 4)])
