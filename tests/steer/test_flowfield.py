"""FlowField: sampling, optical-flow and motion-mask builders, following it."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from sensekit.errors import ConfigError
from sensekit.steer import FlowField, Vehicle, follow_flow

DT = 1 / 60


def test_sample_is_the_containing_cell_and_zero_outside():
    v = np.zeros((2, 3, 2))
    v[1, 2] = (0.5, -0.5)
    f = FlowField(v, cell=10, origin=(100, 0))
    got = f.sample([(125, 15), (129.9, 19.9), (119.9, 15), (99, 5), (131, 5)])
    assert np.allclose(got, [(0.5, -0.5), (0.5, -0.5), (0, 0), (0, 0), (0, 0)])


def test_from_optical_flow_of_a_moving_pattern():
    rng = np.random.default_rng(0)
    base = cv2.GaussianBlur((rng.random((120, 160)) * 255).astype(np.uint8), (0, 0), 3)
    moved = np.roll(base, 3, axis=1)                        # everything 3 px to the right
    flow = cv2.calcOpticalFlowFarneback(base, moved, None, 0.5, 3, 15, 3, 5, 1.2, 0)
    field = FlowField.from_optical_flow(flow, cell_px=20, full_px=3.0, world_size=(320, 240))
    assert field.shape == (6, 8) and field.cell == 40.0
    inner = field.vectors[1:-1, 1:-1]
    # Farneback under-estimates a little; the direction is what matters
    assert (inner[..., 0] > 0.6).all() and np.abs(inner[..., 1]).max() < 0.15
    # a vehicle dropped in the field ends up moving with it
    v = Vehicle((160, 120))
    for _ in range(60):
        v.update(follow_flow(v, field), DT)
    assert v.velocity[0] > 0.8 * v.max_speed


def test_from_motion_points_away_from_the_moving_area():
    mask = np.zeros((160, 160), dtype=np.uint8)
    mask[64:96, 64:96] = 255                                 # a hand in the middle
    field = FlowField.from_motion(mask, cell_px=16)
    left = field.sample([(40, 80)])[0]
    right = field.sample([(120, 80)])[0]
    above = field.sample([(80, 40)])[0]
    assert left[0] < 0 and right[0] > 0 and above[1] < 0
    toward = FlowField.from_motion(mask, cell_px=16, away=False).sample([(40, 80)])[0]
    assert toward[0] > 0
    assert np.hypot(*field.vectors.reshape(-1, 2).T).max() <= 1.0 + 1e-9
    assert not field.sample([(5, 5)]).any()                  # far from motion: no push



def _block_means(a, k):
    """Each k x k block's mean (partial edge blocks over the pixels they hold), block by block."""
    rows, cols = -(-a.shape[0] // k), -(-a.shape[1] // k)
    return np.array([[a[r * k:(r + 1) * k, c * k:(c + 1) * k].mean(axis=(0, 1)) for c in range(cols)]
                     for r in range(rows)])


@pytest.mark.parametrize("shape", [(240, 320), (37, 53), (16, 5)])
def test_builders_pool_whole_and_partial_blocks_as_block_means(shape):
    rng = np.random.default_rng(sum(shape))
    mask = rng.random(shape) < 0.2
    field = FlowField.from_motion(mask.astype(np.uint8) * 255, cell_px=16, reach_cells=0, full_fraction=1.0)
    # with no blur and full at 1, a block's strength (the vector's length) is its share of moving pixels
    share = _block_means(mask.astype(np.float64), 16)
    lengths = np.hypot(field.vectors[..., 0], field.vectors[..., 1])
    moving = lengths > 0
    assert np.allclose(lengths[moving], share[moving], rtol=1e-12, atol=0)
    assert FlowField.from_motion(mask, cell_px=16).shape == share.shape
    flow = rng.normal(0, 2, (*shape, 2)).astype(np.float32)
    pooled = FlowField.from_optical_flow(flow, cell_px=16, full_px=1e6).vectors * 1e6
    assert np.allclose(pooled, _block_means(flow.astype(np.float64), 16), rtol=1e-9, atol=1e-12)


def test_bad_inputs_name_the_value():
    with pytest.raises(ConfigError, match=r"`flow`.*dtype uint8"):
        FlowField.from_optical_flow(np.zeros((4, 4, 2), np.uint8))
    with pytest.raises(ConfigError, match=r"`mask`.*shape \(4, 4, 3\)"):
        FlowField.from_motion(np.zeros((4, 4, 3), np.uint8))
    with pytest.raises(ConfigError, match=r"`cell`.*0"):
        FlowField(np.zeros((2, 2, 2)), cell=0)
    with pytest.raises(ConfigError, match=r"`points`.*row 0"):
        FlowField(np.zeros((2, 2, 2)), cell=1).sample([(np.nan, 0)])
