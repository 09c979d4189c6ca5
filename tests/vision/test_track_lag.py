"""benchmarks/track_lag.py: the lag measure, and on tiger1 where the model tracker's trail comes from
(docs/tracking.md, "Does the box trail its object?")."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import track_lag


def _path(n: int = 40) -> np.ndarray:
    k = np.arange(n, dtype=np.float64)
    return np.stack([100 + 6 * k + 20 * np.sin(k / 5), 80 + 15 * np.cos(k / 7)], axis=1)


def test_lag_frames_reads_a_frame_behind_as_one_and_on_time_as_zero() -> None:
    c = _path()
    keep = np.ones(len(c), bool)
    behind = np.vstack([c[:1], c[:-1]])          # each frame reports the frame before's centre
    s = track_lag.lag_frames(behind, c, keep)
    assert abs(s["lag"] - 1.0) < 1e-9 and s["prev"] == 0.0 and s["nearer"] == 0.0
    half = (c + behind) / 2
    assert abs(track_lag.lag_frames(half, c, keep)["lag"] - 0.5) < 1e-9
    rng = np.random.default_rng(3)
    s = track_lag.lag_frames(c + rng.normal(0, 0.5, c.shape), c, keep)
    assert abs(s["lag"]) < 0.1 and s["nearer"] > 0.9
    assert track_lag.lag_frames(c, c, np.zeros(len(c), bool))["n"] == 0


def test_densest_window_finds_a_patch_at_its_centre() -> None:
    frame = np.full((120, 160, 3), 40, np.uint8)
    frame[30:60, 70:110] = (0, 0, 250)                       # a red 40x30 patch, centre (90, 45)
    lut = np.zeros(16 ** 3, np.float32)
    lut[(0 << 8) | (0 << 4) | (250 >> 4)] = 1.0
    cx, cy = track_lag.densest_window(frame, lut, np.array([80.0, 50.0]), np.array([40.0, 30.0]))
    assert abs(cx - 90) <= 0.5 and abs(cy - 45) <= 0.5


def test_tiger1_trail_is_in_the_picture_not_the_tracker(shared_data: Path) -> None:
    """On tiger1 the truth is on time (a template from the frame before lands on the same frame's
    box), the object's colour lies behind its true centre when it moves fast (the streak of
    motion blur), and the tracker trails no more than a search of the frame-0 colour table from
    the true previous centre, which carries nothing over (measured 0.52 and 0.42 frames over the
    whole clip)."""
    r = track_lag.measure(shared_data / "video" / "tracking", "tiger1", {})
    lags = r["lags"]
    assert lags["template"]["lag"] < 0.2 and lags["template"]["nearer"] > 0.8
    assert lags["colour, frame-0 model"]["lag"] > 0.25
    assert lags["tracker raw"]["lag"] - lags["colour, frame-0 model"]["lag"] < 0.2
    off = np.array(r["offsets"])
    fast = off[off[:, 0] >= 12]
    assert len(fast) > 50 and np.median(fast[:, 1] / fast[:, 0]) < -0.25
