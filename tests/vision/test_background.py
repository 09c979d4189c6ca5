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


def _plain_gain(frame: np.ndarray, reference: np.ndarray, grid: tuple[slice, slice],
                ignore: np.ndarray | None) -> np.ndarray:
    """The exposure gain the plain way: float ratios where every channel of both images is
    within 16..249 and ``ignore`` is 0, their median per channel (ones below 50 pixels)."""
    ch = 1 if frame.ndim == 2 else frame.shape[2]
    cur = frame[grid].reshape(-1, ch).astype(np.float32)
    ref = reference[grid].reshape(-1, ch).astype(np.float32)
    ok = ((ref > 15) & (ref < 250) & (cur > 15) & (cur < 250)).all(axis=1)
    if ignore is not None:
        ok &= ignore[grid].reshape(-1) == 0
    if np.count_nonzero(ok) < 50:
        return np.ones(ch, np.float32)
    return np.median(cur[ok] / ref[ok], axis=0).astype(np.float32)


def test_exposure_gain_is_the_plain_median_of_ratios():
    rng = np.random.default_rng(12)
    moved = 0
    for _ in range(300):
        h, w = (int(v) for v in rng.integers(8, 160, 2))
        ch = (None, 1, 3, 4)[int(rng.integers(4))]
        shape = (h, w) if ch is None else (h, w, ch)
        ref = rng.integers(0, 256, shape, dtype=np.uint8)
        cur = np.clip(ref * rng.uniform(0.7, 1.3) + rng.normal(0, 6, shape), 0, 255).astype(np.uint8)
        ignore = np.where(rng.random((h, w)) < rng.random(), 255, 0).astype(np.uint8) if rng.random() < 0.5 else None
        step = (int(rng.integers(1, 4)), int(rng.integers(1, 4)))
        grid = (slice(step[0] // 2, None, step[0]), slice(step[1] // 2, None, step[1]))
        got = bg.exposure_gain(cur, ref, grid=grid, ignore=ignore)
        want = _plain_gain(cur, ref, grid, ignore)
        assert got.dtype == np.float32 and np.array_equal(got, want), (shape, got, want)
        moved += not np.all(want == 1.0)
    assert moved > 200                                                 # most cases had a gain to find


@pytest.mark.parametrize("memory_frames", [320, 40, 9, 10_000_000])
def test_update_limits_are_the_plain_arithmetic_per_pixel(memory_frames):
    """The table from blinking to update limit gives what the arithmetic on a whole frame gives."""
    model = BackgroundModel(memory_frames=memory_frames, samples=4)
    rng = np.random.default_rng(memory_frames % 97)
    blink = rng.integers(0, 256, (240, 640), dtype=np.uint8)
    blink[rng.random(blink.shape) < 0.7] = 0
    step = 65536.0 / model.update_every_frames
    want = cv2.multiply(blink, step * bg._BLINK_UPDATE / bg._BLINK_TENTHS, dtype=cv2.CV_16U)
    cv2.add(want, min(65535.0, step), dst=want)
    cv2.min(want, 32768.0, dst=want)
    got = cv2.LUT(blink, model._limits())
    assert got.dtype == np.uint16 and np.array_equal(got, want)
    assert len(np.unique(want)) > 1
