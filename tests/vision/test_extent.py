"""The measured extent of a clicked object: motion tells an object from a surround of the same
look; the held-out weights swap in and out; real footage."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from sensekit.vision import extent_model
from sensekit.evaluation.vision.evaluate import iou
from sensekit.evaluation.vision.held_out import held_out
from sensekit.vision.extent import (FEATURES, HISTORY_FRAMES, MOTION_FEATURES, consensus, features, measure_extent,
                                    pool_proposals, scores, temperature)
from sensekit.vision.proposals import click_proposals
from tests.vision.synth import background


def _moving_patch(side_px: int, step_px: int = 3, frames: int = 7) -> tuple[list[np.ndarray], tuple[int, ...]]:
    """A patch of the test texture (another seed: the same colours) sliding right over it."""
    bg = cv2.resize(background(160, 120, seed=1), (640, 480))
    patch = cv2.resize(background(160, 120, seed=9), (side_px, side_px), interpolation=cv2.INTER_AREA)
    out = []
    for k in range(frames):
        f = bg.copy()
        x0, y0 = 260 + step_px * k - side_px // 2, 240 - side_px // 2
        f[y0:y0 + side_px, x0:x0 + side_px] = patch
        out.append(f)
    return out, (x0, y0, side_px, side_px)


@pytest.mark.parametrize("side_px", [30, 60, 120, 160])
def test_a_moving_patch_of_the_surround_s_colours_is_found_at_any_size(side_px):
    """No size is assumed: from 30 to 160 px the box overlaps the patch with IoU > 0.5 (the
    160 px patch needs the motion: without the frames before, the box is 235x265)."""
    frames, true = _moving_patch(side_px)
    cx, cy = true[0] + true[2] / 2, true[1] + true[3] / 2
    moved = measure_extent(frames[-1], cx, cy, frames[:-1])
    assert iou(moved.box, true) > 0.5, (moved.box, true)


def test_motion_cues_need_the_history():
    frames, true = _moving_patch(60)
    cx, cy = true[0] + 30, true[1] + 30
    props = click_proposals(frames[-1], cx, cy)
    still = features(frames[-1], cx, cy, props)
    moving = features(frames[-1], cx, cy, props, frames[:-1])
    assert still.shape == moving.shape == (len(props), len(FEATURES))
    assert not still[:, :4].any() and moving[:, :4].any()
    short = features(frames[-1], cx, cy, props, frames[-max(HISTORY_FRAMES):-1])   # one frame short
    assert not short[:, :4].any()


def test_held_out_weights_are_passed_down_and_score_as_the_fold(monkeypatch):
    """``held_out(clip)`` is an experiment scored by the clip's fold, passed as ``experiment=``:
    its scores are those of the fold put in the shipped weights' place (the old swap), and the
    shipped weights are never rewritten."""
    shipped = extent_model.ACTIVE
    name = sorted(extent_model.FOLDS)[0]
    exp = held_out(name)
    assert exp.weights is extent_model.FOLDS[name]
    assert extent_model.ACTIVE is shipped
    frames, true = _moving_patch(60)
    x, y = true[0] + 30, true[1] + 30
    props, flow = pool_proposals(frames[-1], x, y, frames[:-1])
    cues = features(frames[-1], x, y, props, flow=flow)
    held = {m: (scores(cues, motion=m, experiment=exp), temperature(motion=m, experiment=exp)) for m in (True, False)}
    plain = scores(cues, motion=True)
    monkeypatch.setattr(extent_model, "ACTIVE", extent_model.FOLDS[name])
    for m in (True, False):
        np.testing.assert_array_equal(held[m][0], scores(cues, motion=m))
        assert held[m][1] == temperature(motion=m)
    assert not np.allclose(held[True][0], plain)          # the fold is not the shipped fit: a real check
    with pytest.raises(KeyError, match="no held-out weights for clip 'nope'"):
        held_out("nope")


def test_consensus_takes_the_cluster_the_scores_agree_on_not_a_lone_top_score():
    """Three nearly equal boxes scoring 1.0, 0.9, 0.9 and a lone fragment scoring 1.1: the top
    score is the fragment; the consensus is the cluster's box that overlaps the others most."""
    boxes = np.array([[10, 10, 6, 3], [0, 0, 40, 60], [1, 0, 40, 62], [0, 2, 41, 58]], np.float64)
    s = np.array([1.1, 1.0, 0.9, 0.9])
    assert consensus(boxes, s, temperature=0.0) == 0
    assert consensus(boxes, s, temperature=0.5) == 1
    # a fragment far ahead of the rest (in units of the temperature) still wins
    assert consensus(boxes, np.array([5.0, 1.0, 0.9, 0.9]), temperature=0.5) == 0


def test_edge_over_ring_is_the_border_over_the_ring_mean():
    """``_ring_edge`` on a hand-made gradient: 2.0 in the ring, 9.0 inside the box (not counted)."""
    from sensekit.vision.extent import _ring_edge

    grad = np.full((20, 30), 2.0)
    grad[5:15, 10:20] = 9.0
    summed = cv2.integral(grad, sdepth=cv2.CV_64F)
    got = _ring_edge(summed, (10, 5, 20, 15), (0, 0, 30, 20), 1.5)
    assert got == pytest.approx(1.5 - np.log(2.0 + 1e-3))
    assert _ring_edge(summed, (0, 0, 30, 20), (0, 0, 30, 20), 1.5) == 0.0     # no ring


def test_a_still_fit_without_its_own_mean_and_std_takes_the_motion_fit_s_columns(monkeypatch):
    """train_extent.py writes the still cues' mean and std once (the motion fit's last columns):
    the scores are those of the still fit with them written out."""
    nm = len(MOTION_FEATURES)
    rng = np.random.default_rng(0)
    cues = rng.normal(size=(9, len(FEATURES)))
    motion = {"mean": list(rng.normal(size=len(FEATURES))), "std": list(rng.uniform(0.5, 2, len(FEATURES))),
              "weights": list(rng.normal(size=len(FEATURES)))}
    w = list(rng.normal(size=len(FEATURES) - nm))
    full = {"mean": motion["mean"][nm:], "std": motion["std"][nm:], "weights": w}
    monkeypatch.setattr(extent_model, "ACTIVE", {"motion": motion, "still": full})
    written_out = scores(cues, motion=False)
    monkeypatch.setattr(extent_model, "ACTIVE", {"motion": motion, "still": {"weights": w}})
    lean = scores(cues, motion=False)
    assert np.array_equal(lean, written_out)
    expected = ((cues[:, nm:] - np.asarray(full["mean"])) / np.asarray(full["std"])) @ np.asarray(w)
    assert np.allclose(lean, expected)


def test_the_cues_of_a_frame_are_the_same_to_the_bit_on_every_call():
    """A replay scores the click as the recording did: the cues do not depend on where numpy
    and OpenCV put their arrays (``cv2.magnitude`` did: ``edge_over_ring`` moved in its last
    bits from one call to the next, 181 of 300 calls, which a tie between boxes can turn into
    another box)."""
    frames, true = _moving_patch(60)
    x, y = true[0] + 30, true[1] + 30
    props, flow = pool_proposals(frames[-1], x, y, frames[:-1])
    first = features(frames[-1], x, y, props, flow=flow)
    rng = np.random.default_rng(0)
    held = []
    for _ in range(40):
        held.append(np.empty(int(rng.integers(1, 5000)), np.uint8))     # shifts the next allocations
        frame = np.empty_like(frames[-1])
        frame[:] = frames[-1]
        assert np.array_equal(features(frame, x, y, props, flow=flow), first)


@pytest.mark.parametrize("n", [1, 2, 3, 8, 9, 1000, 1001])
def test_the_fast_median_is_numpy_s_to_the_bit(n):
    from sensekit.vision.extent import _median

    a = np.random.default_rng(n).normal(size=(4, n)).astype(np.float32)
    a[:, ::3] = a[:, :1]                              # ties
    got, want = _median(a), np.median(a, axis=1)
    assert got.dtype == want.dtype
    assert np.array_equal(got, want)


def test_colour_separation_from_bin_counts_is_calchist_s_to_the_bit():
    """The box and ring histograms counted from one bin image equal ``cv2.calcHist`` with masks."""
    from sensekit.vision.extent import _colour_sep, _lab_bins

    rng = np.random.default_rng(4)
    small = cv2.GaussianBlur(rng.integers(0, 256, (120, 160, 3), dtype=np.uint8), (7, 7), 0)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2Lab)
    spec = ([0, 1, 2], [4, 8, 8], [0, 256, 0, 256, 0, 256])
    for inner, outer in [((40, 30, 70, 60), (25, 15, 85, 75)), ((0, 0, 9, 5), (0, 0, 14, 10)),
                         ((10, 10, 160, 120), (0, 0, 160, 120)), ((3, 3, 4, 4), (1, 1, 6, 6))]:
        X0, Y0, X1, Y1 = outer
        crop = np.ascontiguousarray(lab[Y0:Y1, X0:X1])
        ring = np.full(crop.shape[:2], 255, np.uint8)
        ring[inner[1] - Y0:inner[3] - Y0, inner[0] - X0:inner[2] - X0] = 0
        hi = np.asarray(cv2.calcHist([crop], spec[0], 255 - ring, spec[1], spec[2]), np.float64).ravel()
        ho = np.asarray(cv2.calcHist([crop], spec[0], ring, spec[1], spec[2]), np.float64).ravel()
        hi, ho = hi / max(1.0, float(hi.sum())), ho / max(1.0, float(ho.sum()))
        assert _colour_sep(_lab_bins(small), inner, outer) == 1.0 - float(np.sqrt(hi * ho).sum())
    assert _colour_sep(_lab_bins(small), (0, 0, 160, 120), (0, 0, 160, 120)) == 0.0
