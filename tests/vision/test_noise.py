"""The camera noise rule (sensekit.vision.noise): the derivation checked on Gaussian noise, and a
calibrated threshold equal to the one the motion detector learns on the same footage."""
from __future__ import annotations

from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest

from sensekit.vision.motion import MotionDetector
from sensekit.vision.noise import MEDIAN_FACTOR, frame_noise_sigma, motion_threshold


def test_the_constants_are_the_derived_medians():
    """Median of |N(0,1)| and of the largest of three: checked by sampling, not only by formula."""
    rng = np.random.default_rng(0)
    x = np.abs(rng.standard_normal((400_000, 3)))
    assert np.median(x[:, 0]) == pytest.approx(MEDIAN_FACTOR["one"], rel=0.01)
    assert np.median(x.max(axis=1)) == pytest.approx(MEDIAN_FACTOR["max"], rel=0.01)
    assert MEDIAN_FACTOR["one"] == pytest.approx(NormalDist().inv_cdf(0.75))


def _noisy_pair(sigma: float, rng: np.random.Generator, shape=(240, 320)) -> tuple[np.ndarray, np.ndarray]:
    """Two frames of a textured still scene with independent Gaussian noise per pixel and channel."""
    yy, xx = np.mgrid[0:shape[0], 0:shape[1]]
    scene = np.stack([60 + 40 * np.sin(xx / 17.0), 120 + 50 * np.cos(yy / 11.0), 128 + 0 * xx], axis=2)
    a, b = (np.clip(np.rint(scene + rng.normal(0, sigma, scene.shape)), 0, 255).astype(np.uint8)
            for _ in range(2))
    return a, b


@pytest.mark.parametrize("sigma, channel", [(4.0, "max"), (8.0, "max"), (16.0, "max"), (4.0, "red"),
                                            (8.0, "red"), (16.0, "red"), (8.0, "grey"), (16.0, "grey")])
def test_the_estimate_recovers_the_camera_noise(sigma, channel):
    """On integer pixel levels the median is an integer, so the estimate is off by up to half a
    level of the median (1/1.79 sigma for max, 1/0.95 on one channel): within 12 % from a median
    of ~4 levels up (grey: the noise of the weighted mix, smaller)."""
    rng = np.random.default_rng(int(sigma))
    estimates = [frame_noise_sigma(*_noisy_pair(sigma, rng), channel) for _ in range(8)]
    expected = sigma if channel != "grey" else sigma * float(np.sqrt(0.299 ** 2 + 0.587 ** 2 + 0.114 ** 2))
    assert np.median(estimates) == pytest.approx(expected, rel=0.12)


def test_the_rule_clamps_and_scales():
    assert motion_threshold(0.5) == 8.0                          # the floor
    assert motion_threshold(4.0) == pytest.approx(5 * 2 ** 0.5 * 4.0)
    assert motion_threshold(100.0) == 96.0                       # the ceiling
    assert motion_threshold(4.0, noise_k=3, min_threshold=2) == pytest.approx(3 * 2 ** 0.5 * 4.0)


def _noise_recording(path: Path, sigma: float, frames: int = 60) -> Path:
    from sensekit.capture.base import VideoFrame
    from sensekit.capture.recording import Recorder

    rng = np.random.default_rng(7)
    with Recorder(path, video=(320, 240, 15.0), fsync=False) as rec:
        for i in range(frames):
            a, _ = _noisy_pair(sigma, rng)
            rec.write(VideoFrame(i, i / 15.0, a))
    return path


@pytest.mark.parametrize("sigma", [3.0, 6.0, 12.0])
def test_a_calibrated_threshold_is_the_learned_one(tmp_path: Path, sigma: float):
    """`sensekit calibrate` on a still, noisy scene, then the profile into a detector: its fixed
    threshold equals the threshold a detector learns by itself on the same frames, +-10 %."""
    from sensekit.capture.spec import open_source
    from sensekit.cli import main
    from sensekit.profile import load_profile

    rec = _noise_recording(tmp_path / "noise.skrec", sigma)
    out = tmp_path / "venue.toml"
    assert main(["-q", "calibrate", str(rec), "--out", str(out), "--seconds", "10"]) == 0
    profile = load_profile(out)
    calibrated = MotionDetector(method="difference", noise_sigma=profile["motion.noise_sigma"])
    learning = MotionDetector(method="difference")
    with open_source(str(rec)) as source:
        for item in source:
            learning.update(item.image)
    assert calibrated.threshold_in_use == pytest.approx(learning.threshold_in_use, rel=0.10)
    assert learning.learned()["noise_sigma"] == pytest.approx(profile["motion.noise_sigma"], rel=0.10)
    if sigma >= 6:                                  # above the rule's floor of 8 levels
        assert calibrated.threshold_in_use > 8.0
