"""The motion-boundary cue (sensekit/evaluation/vision/motion_edge.py, branch click23, not shipped)
on a synthetic scene: a two-coloured object moving over a textured still background (blocks of
its own colours) scores highest on its own box, above its half (a part) and a box twice its
size (the object with background); a still scene gives 0 to every box; the experiment
(``MOTION_EDGE``, passed down the call) adds one motion column and leaves every other column as it was."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from sensekit.evaluation.vision.motion_edge import EPS, MOTION_EDGE, NAME, band_and_ring, motion_edge_cues, \
    motion_edge_maps
from sensekit.vision import extent
from sensekit.vision.extent import pool_proposals
from tests.vision.moving_object import OBJ, moving_object_frames



def _frames(moving: bool) -> list[np.ndarray]:
    """The history (6 frames) and the frame clicked (``moving_object.py``; the object's noise up to 40)."""
    return moving_object_frames(moving, object_noise=40)


def _cues(frames: list[np.ndarray], boxes: list[tuple[float, float, float, float]]) -> np.ndarray:
    small, f = extent._small(frames[-1])
    flow = extent._flows(small, frames[:-1])
    h, w = small.shape[:2]
    return motion_edge_cues(flow, [extent._rects(b, f, w, h) for b in boxes])[:, 0]


def test_the_whole_moving_object_scores_above_its_part_and_above_it_with_background() -> None:
    x, y, w, h = OBJ
    whole, part, with_bg = _cues(_frames(True), [OBJ, (x, y, w, h / 2), (x - w / 2, y - h / 2, 2 * w, 2 * h)])
    assert whole > part + 0.3
    assert whole > with_bg + 0.3
    assert whole > 0.5                           # its outline is a motion boundary, its ring is not


def test_a_still_scene_gives_every_box_zero() -> None:
    x, y, w, h = OBJ
    got = _cues(_frames(False), [OBJ, (x, y, w, h / 2), (x - w / 2, y - h / 2, 2 * w, 2 * h)])
    assert np.abs(got).max() < 0.05


def test_no_flow_gives_zeros_and_a_bad_flow_is_named() -> None:
    assert not motion_edge_cues(None, [((0, 0, 5, 5), (0, 0, 9, 9))]).any()
    with pytest.raises(ValueError, match=r"\(3, 4, 4\)"):
        motion_edge_maps(np.zeros((3, 4, 4), np.float32))


def test_a_step_in_the_flow_is_on_the_band_not_in_the_ring() -> None:
    flow = np.zeros((2, 40, 40), np.float32)
    flow[0, 10:30, 10:30] = 5.0                   # a square moving 5 px right on a still scene
    summed = cv2.integral(motion_edge_maps(flow)[0], sdepth=cv2.CV_64F)
    band, ring = band_and_ring(summed, (10, 10, 30, 30), (0, 0, 40, 40))
    assert band > 1.0 and ring == 0.0
    # the flow is on the earlier frame's grid: the square is now 5 px on, and is looked at where it was
    cue = motion_edge_cues(flow, [((15, 10, 35, 30), (5, 0, 45, 40))])[0, 0]
    assert cue == pytest.approx(np.log((band + EPS) / EPS))
    assert motion_edge_cues(flow, [((15, 10, 35, 30), (5, 0, 45, 40))])[0, 0] > \
        motion_edge_cues(flow, [((15, 10, 25, 30), (10, 5, 30, 35))])[0, 0] + 1     # its left half


def test_the_experiment_adds_one_motion_column_and_changes_no_other() -> None:
    frames = _frames(True)
    x, y = OBJ[0] + OBJ[2] / 2, OBJ[1] + OBJ[3] / 4
    props, flow = pool_proposals(frames[-1], x, y, frames[:-1])
    nm = len(extent.MOTION_FEATURES)
    shipped = (extent.MOTION_FEATURES, extent.FEATURES)
    before = extent.features(frames[-1], x, y, props, flow=flow)
    names = extent.feature_names(MOTION_EDGE)
    assert MOTION_EDGE.motion_features[-1] == NAME and names[nm] == NAME and len(names) == before.shape[1] + 1
    after = extent.features(frames[-1], x, y, props, flow=flow, experiment=MOTION_EDGE)
    still = extent.features(frames[-1], x, y, props, experiment=MOTION_EDGE)
    assert after.shape == (len(props), len(names))
    assert shipped == (extent.MOTION_FEATURES, extent.FEATURES) and NAME not in extent.FEATURES
    np.testing.assert_array_equal(np.delete(after, nm, axis=1), before)
    np.testing.assert_array_equal(extent.features(frames[-1], x, y, props, flow=flow), before)   # nothing left set
    assert after[:, nm].std() > 0.1
    assert not still[:, nm].any()                 # without a history the column is 0


def test_a_model_file_without_the_cue_is_refused_by_name(tmp_path, monkeypatch) -> None:
    """``--motion-edge MODEL_PY`` of the benchmarks: no file, or a model fitted without the cue
    (the shipped ``extent_model.py``: one motion weight fewer), is a ConfigError naming it, and the
    shipped cues and weights are as they were afterwards."""
    import sys
    from pathlib import Path

    from sensekit.errors import ConfigError
    from sensekit.vision import extent_model

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from _first_box_hooks import extent_experiment

    with pytest.raises(ConfigError, match="no model file at"):
        extent_experiment(motion_edge=tmp_path / "absent.py")
    keep = extent_model.ACTIVE
    with pytest.raises(ConfigError, match="18 motion weights, the cues of this run are 19"):
        extent_experiment(motion_edge=Path(sys.modules["sensekit.vision.extent_model"].__file__ or ""))
    assert NAME not in extent.FEATURES
    assert extent_model.ACTIVE is keep
