"""The view-change cue: a cut changes most of the thumbnail, a moving object a little."""
import numpy as np

from sensekit.vision.view_change import ViewChange, thumbnail, view_change


def _scene(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    cells = rng.integers(0, 256, (24, 32, 3), dtype=np.uint8)
    return np.repeat(np.repeat(cells, 20, axis=0), 20, axis=1)      # 480x640, 20 px cells


def test_a_cut_changes_most_of_the_picture_and_a_moving_object_little():
    a = _scene(1)
    moved = a.copy()
    moved[200:260, 300:360] = (0, 0, 255)                  # a 60x60 object moves in
    cut = _scene(2)
    v = ViewChange()
    assert v.update(a) == 0.0                               # nothing to compare with yet
    assert v.update(moved) < 0.05
    assert v.update(cut) > 0.7
    assert v.update(cut) == 0.0
    assert v.update(cut[:240]) == 0.0                       # a new frame size starts again


def test_view_change_counts_cells_beyond_the_level():
    a = np.zeros((24, 32, 3), np.uint8)
    b = a.copy()
    b[:12, :, 1] = 41                                       # half the cells, one channel, past 40
    assert view_change(a, b) == 0.5
    b[:12, :, 1] = 40
    assert view_change(a, b) == 0.0
    assert thumbnail(np.zeros((480, 640, 3), np.uint8)).shape == (24, 32, 3)
    assert thumbnail(np.zeros((480, 640), np.uint8)).shape == (24, 32)
