"""Exact Flash semantics of the stateless stages, on tiny hand-made arrays."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from sensekit.errors import ConfigError
from sensekit.vision import stages as S


def px(*rgbs: int) -> np.ndarray:
    """A 1xN BGR frame from 0xRRGGBB values."""
    return np.array([[S.packed_rgb_to_bgr(c) for c in rgbs]], np.uint8)


def rgb(frame: np.ndarray) -> list[int]:
    return [S.bgr_to_packed_rgb(p) for p in frame.reshape(-1, 3)]


# --- colours and validation -------------------------------------------------------

def test_parse_color_forms():
    assert S.parse_color("#FF8000") == 0xFF8000
    assert S.parse_color("0x00ff00") == 0x00FF00
    assert S.parse_color("0000ff") == 0x0000FF
    assert S.parse_color((255, 128, 0)) == 0xFF8000
    assert S.parse_color(0x123456) == 0x123456
    assert S.packed_rgb_to_bgr(0x112233) == (0x33, 0x22, 0x11)


@pytest.mark.parametrize("bad", ["#FF80", "red", "#GG0000", "", (1, 2), (256, 0, 0), -1, 0x1000000])
def test_parse_color_rejects_and_names_value(bad):
    with pytest.raises(ConfigError) as err:
        S.parse_color(bad)
    assert repr(bad) in str(err.value)


@pytest.mark.parametrize("bad", [np.zeros((4, 4), np.uint8), np.zeros((4, 4, 3), np.float32),
                                 np.zeros((4, 4, 4), np.uint8), [[1, 2, 3]]])
def test_frames_must_be_hxwx3_uint8(bad):
    with pytest.raises(ConfigError, match="HxWx3 uint8"):
        S.mirror(bad)


# --- mirror, blur --------------------------------------------------------------

def test_mirror_flips_left_right_into_a_new_array():
    f = px(0x010203, 0x040506, 0x070809)
    m = S.mirror(f)
    assert rgb(m) == [0x070809, 0x040506, 0x010203]
    assert m is not f and rgb(f)[0] == 0x010203
    dst = np.empty_like(f)
    assert S.mirror(f, dst=dst) is dst


def test_box_blur_is_blurfilter_box_and_gaussian_differs():
    rng = np.random.default_rng(1)
    f = rng.integers(0, 256, (20, 30, 3), dtype=np.uint8)
    assert np.array_equal(S.blur(f, size_px=10), cv2.blur(f, (10, 10)))
    assert np.array_equal(S.blur(f, size_px=(5, 3)), cv2.blur(f, (5, 3)))
    assert np.array_equal(S.blur(f, size_px=1), f)
    g = S.blur(f, size_px=10, method="gaussian")
    assert np.array_equal(g, cv2.GaussianBlur(f, (11, 11), 0))


@pytest.mark.parametrize("bad", [0, -3, (4, 0)])
def test_blur_size_below_one_names_the_value(bad):
    with pytest.raises(ConfigError, match=r"blur size must be >= 1 pixel, got"):
        S.blur(np.zeros((4, 4, 3), np.uint8), size_px=bad)


# --- palette ---------------------------------------------------------------------

def test_palette_levels_follow_make_palette_arrays():
    lut = S.palette_lut(4)                 # div = 64: floor(v / 64) * 64
    assert lut[0] == 0 and lut[63] == 0 and lut[64] == 64 and lut[127] == 64
    assert lut[128] == 128 and lut[255] == 192
    assert sorted(set(S.palette_lut(8).tolist())) == list(range(0, 256, 32))
    assert S.palette_lut(3)[255] == 255     # div = 85 -> 0, 85, 170, 255 (as the book's code does)
    assert sorted(set(S.palette_lut(4, spread=True).tolist())) == [0, 85, 170, 255]
    assert np.array_equal(S.palette_lut(256), np.arange(256))


@pytest.mark.parametrize("bad", [1, 0, 257, 2.5, True])
def test_levels_outside_2_256_name_the_value(bad):
    with pytest.raises(ConfigError, match=r"`levels` must be 2\.\.256, got"):
        S.palette_lut(bad)


def test_palette_map_levels_and_per_channel_levels():
    f = px(0x3F4080, 0xFFFFFF)
    assert rgb(S.palette_map(f, levels=4)) == [0x004080, 0xC0C0C0]
    # (r, g, b) levels: red 2 levels (div 128), green 4, blue 256 (identity)
    assert rgb(S.palette_map(f, levels=(2, 4, 256))) == [0x004080, 0x80C0FF]


def test_palette_map_channel_tables_and_flash_packed_tables():
    f = px(0x102030)
    inv = 255 - np.arange(256)
    # plain per-channel tables: red inverted, green and blue unchanged
    assert rgb(S.palette_map(f, luts=(inv, None, None))) == [0xEF2030]
    # Flash packed tables: red array moves red into blue; green array drops green;
    # blue keeps its own place (None). Output = red[r] + green[g] + blue[b].
    red = np.arange(256)            # r -> 0x0000rr (into blue)
    green = np.zeros(256, int)
    out = S.palette_map(f, luts=(red, green, None), packed=True)
    assert rgb(out) == [0x000000 + 0x10 + 0x30]
    # the same tables read per channel: red identity, green zeroed
    assert rgb(S.palette_map(f, luts=(red, green, None))) == [0x100030]
    # ...and with a table of packed values > 255 the sum wraps at 24 bits, as in Flash
    red2 = np.arange(256) << 16
    grey = (np.arange(256) << 16) | (np.arange(256) << 8) | np.arange(256)
    out = S.palette_map(px(0x8000FF), luts=(red2, None, grey))
    assert rgb(out) == [(0x800000 + 0x0000 + 0xFFFFFF) & 0xFFFFFF]
    with pytest.raises(ConfigError, match="256 entries"):
        S.palette_map(f, luts=(np.arange(10), None, None))
    with pytest.raises(ConfigError, match="exactly one"):
        S.palette_map(f)


# --- threshold --------------------------------------------------------------------

THR_PIXELS = (0x100000, 0x330000, 0x33FFFF, 0x500000)   # red 0x10, 0x33, 0x33, 0x50


@pytest.mark.parametrize("op, hits", [
    ("<", [True, False, False, False]),
    ("<=", [True, True, True, False]),
    ("==", [False, True, True, False]),
    (">=", [False, True, True, True]),
    (">", [False, False, False, True]),
    ("!=", [True, False, False, True]),
])
def test_threshold_every_operation_with_red_mask(op, hits):
    src = px(*THR_PIXELS)
    out = S.threshold(src, op=op, value=0x330000, color=0x0000FF, mask=0xFF0000)
    expect = [0x0000FF if h else p for h, p in zip(hits, THR_PIXELS)]
    assert rgb(out) == expect
    assert rgb(src) == list(THR_PIXELS)                     # source untouched


def test_threshold_without_mask_compares_whole_pixel_values():
    # 0x0000FF (pure blue) is numerically less than 0x010000 (almost black): Flash's gotcha
    src = px(0x0000FF, 0x010000)
    out = S.threshold(src, op="<", value=0x010000, color=0xFFFFFF)
    assert rgb(out) == [0xFFFFFF, 0x010000]


def test_threshold_partial_mask_and_value_are_both_masked():
    src = px(0x12345F, 0x12346F)
    # mask 0x0000F0: compare the high nibble of blue; value 0xAB0050 & mask = 0x50
    out = S.threshold(src, op="==", value=0xAB0050, color=0x000000, mask=0x0000F0)
    assert rgb(out) == [0x000000, 0x12346F]


def test_threshold_copy_source_versus_destination():
    src = px(0x100000, 0x500000)
    dest = px(0xAAAAAA, 0xBBBBBB)
    keep = S.threshold(src, op="<", value=0x330000, color=0x000000, mask=0xFF0000, dest=dest)
    assert rgb(keep) == [0x000000, 0xBBBBBB]                 # false -> destination pixel
    copy = S.threshold(src, op="<", value=0x330000, color=0x000000, mask=0xFF0000, dest=dest,
                       copy_source=True)
    assert rgb(copy) == [0x000000, 0x500000]                 # false -> source pixel
    assert rgb(dest) == [0xAAAAAA, 0xBBBBBB]
    with pytest.raises(ConfigError, match="one of <, <=, ==, >=, >, !="):
        S.threshold(src, op="=>", value=0)


# --- colour bounds ---------------------------------------------------------------------

def test_color_bounds_find_true_false_mask_and_empty():
    f = np.zeros((5, 6, 3), np.uint8)
    f[1, 2] = S.packed_rgb_to_bgr(0xFF0000)
    f[3, 4] = S.packed_rgb_to_bgr(0xFF0010)
    assert S.color_bounds(f, 0xFF0000) == (2, 1, 1, 1)
    assert S.color_bounds(f, "#FF0000", mask=0xFF0000) == (2, 1, 3, 3)   # only red compared
    # find=False: every pixel that is NOT black -> the same two pixels' box
    assert S.color_bounds(f, 0x000000, find=False) == (2, 1, 3, 3)
    # find=False for red: everything except (1, 2) -> the whole frame
    assert S.color_bounds(f, 0xFF0000, find=False) == (0, 0, 6, 5)
    assert S.color_bounds(f, 0x00FF00) == (0, 0, 0, 0)
    # a partial (non whole-channel) mask takes the packed path
    assert S.color_bounds(f, 0xF00000, mask=0xF00000) == (2, 1, 3, 3)
    assert S.color_bounds(f, 0x000010, mask=0x0000F0) == (4, 3, 1, 1)
    full = np.full((2, 2, 3), 7, np.uint8)
    assert S.color_bounds(full, 0x070707, find=False) == (0, 0, 0, 0)


# --- edges ---------------------------------------------------------------------------

def test_horizontal_edges_book_kernel_blur_threshold():
    f = np.zeros((12, 8, 3), np.uint8)
    f[:6] = 200                              # bright top, dark bottom: a horizontal edge
    e = S.edges(f)
    assert e.shape == f.shape
    raw = np.zeros_like(f, dtype=np.int32)
    i = f.astype(np.int32)
    raw[:-1] = np.clip(4 * i[:-1] - 4 * i[1:], 0, 255)     # 4*I(y) - 4*I(y+1), replicate border
    expect = cv2.blur(raw.astype(np.uint8), (3, 3))
    expect[expect < S.EDGE_THRESHOLD] = 0
    assert np.array_equal(e, expect)
    assert e[5].any() and not e[:4].any() and not e[8:].any()
    # a dark-to-bright edge going down is not lit (the kernel is one-sided, as in the book)
    assert not S.edges(255 - f).any()


def test_book_edge_filter_equals_the_generic_convolution():
    rng = np.random.default_rng(7)
    for shape in ((1, 5, 3), (2, 3, 3), (37, 41, 3)):
        f = rng.integers(0, 256, shape, dtype=np.uint8)
        want = cv2.filter2D(f, -1, S.EDGE_KERNEL, borderType=cv2.BORDER_REPLICATE)
        assert np.array_equal(S.book_edge_filter(f), want), shape
    f[10:12] = 0                                    # big jumps saturate at 255, small ones scale by 4
    f[9] = 200
    f[8] = 201
    e = S.book_edge_filter(f)
    assert (e[9] == 255).all() and (e[8] == 4).all() and not e[10].any()


def test_edges_any_direction_sees_vertical_edges_too():
    f = np.zeros((10, 10, 3), np.uint8)
    f[:, 5:] = 255
    assert not S.edges(f).any()               # horizontal kernel: no horizontal edge here
    e = S.edges(f, direction="any")
    assert e.shape == (10, 10) and e[:, 4:6].all() and not e[:, :2].any()
    with pytest.raises(ConfigError, match="'diagonal'"):
        S.edges(f, direction="diagonal")


def test_on_edge_scalar_vector_and_outside():
    e = np.zeros((4, 5, 3), np.uint8)
    e[2, 3, 1] = 40
    assert S.on_edge(e, 3, 2) is True
    assert S.on_edge(e, 3.7, 2.2) is True     # truncated to whole pixels
    assert S.on_edge(e, 0, 0) is False
    assert S.on_edge(e, -1, 2) is False and S.on_edge(e, 99, 2) is False
    hits = S.on_edge(e, np.array([3, 0, 3, 10]), np.array([2, 0, 3, -1]))
    assert hits.tolist() == [True, False, False, False]
    grey = e.max(axis=2)
    assert S.on_edge(grey, np.array([3.0]), np.array([2.0])).tolist() == [True]
