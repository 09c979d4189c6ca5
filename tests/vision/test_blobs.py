"""find_blobs: regions of a mask, joined pieces, contours; box_iou."""
import numpy as np
import pytest

from sensekit.errors import ConfigError
from sensekit.vision.blobs import box_iou, find_blobs


def mask_with(*rects: tuple[int, int, int, int], shape=(60, 80)) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    for x, y, w, h in rects:
        m[y:y + h, x:x + w] = 255
    return m


def test_regions_largest_first_with_box_centroid_area():
    m = mask_with((2, 3, 10, 5), (40, 20, 20, 20))
    regions = find_blobs(m, min_area_px=10)
    assert [r.box for r in regions] == [(40, 20, 20, 20), (2, 3, 10, 5)]
    assert [r.area_px for r in regions] == [400, 50]
    assert regions[0].cx == pytest.approx(49.5) and regions[0].cy == pytest.approx(29.5)


def test_small_regions_are_dropped():
    m = mask_with((2, 3, 10, 5), (40, 20, 20, 20))
    assert [r.area_px for r in find_blobs(m, min_area_px=51)] == [400]
    assert find_blobs(np.zeros((10, 10), np.uint8)) == []


def test_join_px_bridges_a_gap_but_counts_only_mask_pixels():
    m = mask_with((10, 10, 10, 20), (22, 10, 10, 20))      # two pieces 2 px apart
    assert len(find_blobs(m, min_area_px=10)) == 2
    (joined,) = find_blobs(m, min_area_px=10, join_px=5)
    assert joined.box == (10, 10, 22, 20)
    assert joined.area_px == 400
    assert joined.cx == pytest.approx(20.5)


def test_contour_outlines_the_region():
    m = mask_with((10, 10, 10, 20))
    (r,) = find_blobs(m, min_area_px=10)
    c = r.contour
    assert c.shape[1:] == (1, 2)
    xs, ys = c[:, 0, 0], c[:, 0, 1]
    assert (xs.min(), ys.min(), xs.max(), ys.max()) == (10, 10, 19, 29)


def test_bad_mask_is_a_clear_error():
    with pytest.raises(ConfigError, match="HxW uint8"):
        find_blobs(np.zeros((4, 4, 3), np.uint8))
    with pytest.raises(ConfigError, match="min_area_px"):
        find_blobs(np.zeros((4, 4), np.uint8), min_area_px=0)


def test_box_iou():
    assert box_iou((0, 0, 10, 10), (0, 0, 10, 10)) == 1.0
    assert box_iou((0, 0, 10, 10), (5, 0, 10, 10)) == pytest.approx(50 / 150)
    assert box_iou((0, 0, 10, 10), (10, 0, 10, 10)) == 0.0
    assert box_iou((0, 0, 0, 0), (0, 0, 10, 10)) == 0.0


@pytest.mark.parametrize("seed", range(5))
def test_regions_are_the_plain_statistics_of_each_label(seed):
    """Many regions, large and small, interleaved row by row: each kept region's box, centroid
    and area are those of its own pixels (computed here the plain way, label by label)."""
    import cv2

    rng = np.random.default_rng(seed)
    h, w = 120 + 40 * seed, 160 + 30 * seed
    mask = np.where(rng.random((h, w)) < 0.04, 255, 0).astype(np.uint8)       # specks: small regions
    for _ in range(12):
        y, x = int(rng.integers(0, h)), int(rng.integers(0, w))
        cv2.ellipse(mask, (x, y), (int(rng.integers(3, 30)), int(rng.integers(3, 30))), float(rng.integers(0, 180)),
                    0, 360, 255, -1)
    join = (0, 0, 5)[seed % 3]
    got = find_blobs(mask, min_area_px=40, join_px=join)
    assert len(got) >= 3
    joined = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (join, join))) \
        if join else mask
    n, labels = cv2.connectedComponents(joined, connectivity=8, ltype=cv2.CV_32S)
    want = []
    for i in range(1, n):
        ys, xs = np.nonzero((labels == i) & (mask > 0))
        if xs.size >= 40:
            box = (int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1))
            want.append((box, float(xs.mean()), float(ys.mean()), int(xs.size)))
    want.sort(key=lambda r: -r[3])
    assert [(r.box, r.cx, r.cy, r.area_px) for r in got] == want


@pytest.mark.parametrize("seed", range(8))
def test_labels_and_label_numbers_are_those_of_the_whole_frame(seed):
    """find_blobs labels only the box around the foreground; its regions' ``labels`` and
    ``label`` (their numbering decides ties in the order) are those of labelling the whole frame,
    also when that box starts on an odd row or column."""
    import cv2

    rng = np.random.default_rng(100 + seed)
    mask = np.zeros((120, 160), np.uint8)
    ox, oy = 31 + int(rng.integers(0, 40)), 21 + int(rng.integers(0, 30))     # foreground away from the corner
    for _ in range(14):
        x, y = ox + int(rng.integers(0, 60)), oy + int(rng.integers(0, 50))
        mask[y:y + int(rng.integers(1, 9)), x:x + int(rng.integers(1, 9))] = 255
    n, want = cv2.connectedComponents(mask, connectivity=8, ltype=cv2.CV_32S)
    got = find_blobs(mask, min_area_px=1)
    assert len(got) == n - 1
    for r in got:
        np.testing.assert_array_equal(r.labels, want)
        ys, xs = np.nonzero(want == r.label)
        assert (r.box[0], r.box[1], r.area_px) == (int(xs.min()), int(ys.min()), xs.size)
