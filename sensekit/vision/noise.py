"""The camera noise rule: one estimate of the noise and one threshold rule, used by the motion
detector when it learns, by ``sensekit calibrate`` and by a venue profile.

The camera noise ``sigma`` is the standard deviation of a pixel's value (one channel, in
pixel levels 0..255) from frame to frame in a still scene. It is estimated from the
difference of two consecutive frames, robustly (a person walking through part of the
picture barely moves it):

Derivation. Let each channel of each pixel carry independent Gaussian noise N(0, sigma²).
The difference of two frames is then N(0, 2 sigma²), so its absolute value is half-normal
with scale ``sqrt(2) sigma``, whose median is ``Phi⁻¹(3/4) sqrt(2) sigma`` = 0.6745 x 1.4142
x sigma = 0.9539 sigma. The detector's default channel takes the largest of the three
channels' absolute differences per pixel: the median ``m`` of the largest of three
independent half-normal variables satisfies ``P(|d| <= m)³ = 1/2``, i.e.
``2 Phi(m / s) - 1 = 2^(-1/3)``, so ``m = Phi⁻¹((1 + 2^(-1/3)) / 2) s`` = 1.2638 x s with
``s = sqrt(2) sigma``: 1.7873 sigma. Hence

    sigma = median(|frame - previous|) / (MEDIAN_FACTOR[channel] x sqrt(2))

with ``MEDIAN_FACTOR`` 0.6745 for one channel (red, green, blue, grey) and 1.2638 for
``max``. The median is taken on every 4th pixel of every 4th row, from a 256-bin histogram
(integer levels; floored at 0.5 so a noise-free camera gives a small positive sigma).
``tests/vision/test_noise.py`` checks the estimate on synthetic Gaussian noise.

The threshold: a pixel moves when its difference is at least ``noise_k`` standard deviations
of the frame difference, ``noise_k x sqrt(2) x sigma`` (``noise_k`` = 5 by default), but never
below ``min_threshold`` (8) nor above 96. ``motion_threshold(sigma, ...)`` is that rule;
``MotionDetector`` applies it to what it learns (smoothed over time), ``calibrate`` stores
``motion.noise_sigma`` and the detector applies the same rule to a stored sigma, so a
calibrated threshold equals a learned one (``tests/vision/test_noise.py``, within 10 %).

Cost: one 256-bin histogram of 1/16 of the pixels (~20 us at 320x240).
"""
from __future__ import annotations

import math
from statistics import NormalDist

import cv2
import numpy as np

__all__ = ["MEDIAN_FACTOR", "SUBSAMPLE", "MAX_THRESHOLD", "median_difference", "sigma_from_median",
           "motion_threshold", "frame_noise_sigma", "reduce_difference"]

_N = NormalDist()
#: median of |N(0, 1)| (one channel) and of the largest of three such values (``max``)
MEDIAN_FACTOR: dict[str, float] = {
    "one": _N.inv_cdf(0.75),                               # 0.67449
    "max": _N.inv_cdf((1.0 + 2.0 ** (-1.0 / 3.0)) / 2.0),  # 1.26381
}
SQRT2 = math.sqrt(2.0)
SUBSAMPLE = 4
MAX_THRESHOLD = 96.0
MIN_MEDIAN = 0.5


def median_difference(diff: np.ndarray) -> float:
    """Median of a one-channel uint8 absolute difference, on every ``SUBSAMPLE``-th pixel and row
    (an integer level, floored at ``MIN_MEDIAN``)."""
    sub = np.ascontiguousarray(diff[::SUBSAMPLE, ::SUBSAMPLE])
    hist = cv2.calcHist([sub], [0], None, [256], [0, 256]).ravel()
    cum = np.cumsum(hist)
    return max(float(np.searchsorted(cum, 0.5 * cum[-1])), MIN_MEDIAN)


def sigma_from_median(median: float, channel: str) -> float:
    """Camera noise sigma (pixel levels) from the median absolute frame difference of ``channel``."""
    factor = MEDIAN_FACTOR["max" if channel == "max" else "one"]
    return median / (factor * SQRT2)


def motion_threshold(sigma: float, *, noise_k: float = 5.0, min_threshold: float = 8.0) -> float:
    """The threshold for camera noise ``sigma``: ``noise_k`` sigmas of the frame difference,
    clamped to ``min_threshold..MAX_THRESHOLD``."""
    return min(max(float(min_threshold), noise_k * SQRT2 * sigma), MAX_THRESHOLD)


def reduce_difference(diff: np.ndarray, channel: str) -> np.ndarray:
    """A BGR absolute difference reduced to the channel the detector thresholds."""
    if diff.ndim == 2:
        return diff
    if channel == "max":
        return np.asarray(diff.max(axis=2))
    if channel == "grey":
        return np.asarray(cv2.cvtColor(diff, cv2.COLOR_BGR2GRAY))
    return np.ascontiguousarray(diff[:, :, {"blue": 0, "green": 1, "red": 2}[channel]])


def frame_noise_sigma(prev: np.ndarray, frame: np.ndarray, channel: str = "max") -> float:
    """Camera noise sigma from two consecutive BGR frames (``sensekit calibrate``)."""
    if channel in ("max", "grey"):
        diff = reduce_difference(cv2.absdiff(frame, prev), channel) if channel == "max" else \
            cv2.absdiff(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.cvtColor(prev, cv2.COLOR_BGR2GRAY))
    else:
        diff = reduce_difference(cv2.absdiff(frame, prev), channel)
    return sigma_from_median(median_difference(diff), channel)
