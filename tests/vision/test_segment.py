"""Click segmentation: the box a click gives on plain objects, boxes, errors, real backgrounds."""
from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from sensekit.capture.base import VideoFrame
from sensekit.capture.spec import open_source
from sensekit.errors import ConfigError
from sensekit.vision.segment import check_click, part_at, segment_box, segment_click
from tests.vision.ball_scenes import CHECK, TUNE, background_frames, ball_scenes, degrade, render_ball
from tests.vision.synth import background


def _within(box, true, frac=0.2) -> bool:
    return abs(box[2] / true[2] - 1) <= frac and abs(box[3] / true[3] - 1) <= frac


@pytest.mark.parametrize("diameter", [16, 24, 40, 64, 96])
@pytest.mark.parametrize("colour", [(40, 40, 210), (170, 90, 235), (200, 90, 30), (40, 210, 230)])
def test_click_on_a_plain_ball_gives_its_size(diameter, colour):
    """Red, pink, blue, yellow balls on the green-grey test texture (a green ball's shaded side
    has that texture's colour: the leak case, see the module docstring of segment.py)."""
    rng = np.random.default_rng(diameter)
    bg = cv2.resize(background(160, 120), (640, 480))
    frame, mask = render_ball(bg, 300.0, 220.0, diameter / 2, diameter / 2 * 1.05, colour)
    frame = degrade(frame, rng, noise_sigma=3.0, codec="jpeg", quality=70)
    ys, xs = np.nonzero(mask)
    true = (xs.min(), ys.min(), xs.max() - xs.min() + 1, ys.max() - ys.min() + 1)
    picked = segment_click(frame, 300, 220)
    assert _within(picked.box, true), f"{picked.box} vs true {true}"
    assert picked.mask[220, 300] and picked.mask.sum() > 0.6 * mask.sum()
    assert len(picked.outline()) >= 1


def test_the_40x42_ball_that_came_out_89x89():
    """The reported case: a plain ball of 40x42 px next to a hand of a similar hue."""
    rng = np.random.default_rng(7)
    bg = cv2.resize(background(160, 120), (640, 480))
    cv2.ellipse(bg, (350, 260), (40, 60), 20, 0, 360, (120, 150, 215), -1)      # a skin-like hand
    frame, _mask = render_ball(bg, 300.0, 230.0, 20.0, 21.0, (30, 110, 235))     # orange ball
    frame = degrade(frame, rng, codec="h264", quality=26)
    picked = segment_click(frame, 300, 230)
    _x, _y, w, h = picked.box
    assert abs(w - 40) <= 8 and abs(h - 42) <= 8, picked.box


def test_box_pick_keeps_the_box_and_cuts_out_the_object():
    rng = np.random.default_rng(2)
    bg = cv2.resize(background(160, 120), (320, 240))
    frame, mask = render_ball(bg, 160.0, 120.0, 20.0, 20.0, (40, 40, 210))
    frame = degrade(frame, rng, codec="none")
    picked = segment_box(frame, (130, 90, 60, 60))
    assert picked.box == (130, 90, 60, 60)
    inside = picked.mask[90:150, 130:190]
    assert picked.mask.sum() == inside.sum()                       # nothing outside the box
    overlap = (picked.mask & mask).sum() / mask.sum()
    assert overlap > 0.8 and picked.mask.sum() < 1.4 * mask.sum()  # the ball, not the corners


def test_bad_clicks_and_boxes_are_named():
    frame = background()
    with pytest.raises(ConfigError, match=r"click \(160, 5\) is outside the 160x120 frame"):
        segment_click(frame, 160, 5)
    with pytest.raises(ConfigError, match="inside the 160x120 frame"):
        segment_box(frame, (150, 10, 20, 20))
    with pytest.raises(ConfigError, match="box must be"):
        segment_box(frame, (1, 2, 3))



def test_a_click_is_checked_and_made_whole_pixels():
    frame = np.zeros((120, 160, 3), np.uint8)
    assert check_click(frame, 159.9, 0.0) == (159, 0)
    for x, y in [(160, 5), (-0.5, 5), (5, 120)]:
        with pytest.raises(ConfigError, match=rf"click \({x:g}, {y:g}\) is outside the 160x120 frame"):
            check_click(frame, x, y)


def test_the_part_under_a_point_or_the_nearest_within_reach():
    mask = np.zeros((40, 60), bool)
    mask[5:15, 5:15] = True                       # a square
    mask[20:30, 40:50] = True                     # another
    mask[14, 15] = True                           # touching the first on its corner: 8-connected
    square = mask.copy()
    square[20:30, 40:50] = False
    assert np.array_equal(part_at(mask, 8, 8), square)
    assert np.array_equal(part_at(mask, 18, 14), square)        # 3 px off: within the default reach
    assert part_at(mask, 19, 14) is None                        # 4 px off
    assert np.array_equal(part_at(mask, 19, 14, reach_px=4), square)
    near = part_at(mask, 36, 25, reach_px=4)                    # nearer the second square
    assert near is not None and near.sum() == 100 and near[25, 45]
    assert part_at(np.zeros((10, 10), bool), 5, 5) is None

def test_demo_ball_clicked_on_several_frames(recordings_dir):
    truth = json.loads((recordings_dir / "demo.truth.json").read_text())
    balls = {f["index"]: f["ball"] for f in truth["frames"]}
    sizes = []
    with open_source(str(recordings_dir / "demo.skrec")) as source:
        while len(sizes) < 6:
            item = source.read()
            if isinstance(item, VideoFrame) and item.index % 40 == 0:
                b = balls[item.index]
                box = segment_click(item.image, b["cx"], b["cy"]).box
                sizes.append(box[2:])
                assert _within(box, (0, 0, 2 * b["r"], 2 * b["r"])), (item.index, box)
    assert len(sizes) == 6


@pytest.mark.parametrize("group, seed, bar", [(TUNE, 1, 0.8), (CHECK, 2, 0.8)])
def test_plain_balls_on_real_backgrounds(shared_data, group, seed, bar):
    """Balls of 14-96 px on frames of the developer videos, JPEG/H.264: most clicks give the
    size within 20 % (measured 0.87 on TUNE and 0.94 on CHECK: see benchmarks/track_eval.py)."""
    scenes = ball_scenes(background_frames(shared_data, group, per_source=2), seed=seed,
                         per_background=2, diameters_px=(14, 42, 96))
    ok = [_within(segment_click(s.frame, *s.centre).box, s.box) for s in scenes]
    assert len(ok) >= 40
    assert np.mean(ok) >= bar, f"{np.mean(ok):.2f} of {len(ok)} within 20 %"


def _frame(path, index):
    with open_source(f"file:{path}") as source:
        for item in source:
            if isinstance(item, VideoFrame) and item.index == index:
                return item.image
    raise AssertionError(f"no frame {index} in {path}")


def _seen(frame, factor, centre):
    """``frame`` with its content ``factor`` times larger around ``centre`` (as track_eval --scales)."""
    H, W = frame.shape[:2]
    if factor >= 1:
        x0 = min(max(0.0, centre[0] - W / factor / 2), W - W / factor)
        y0 = min(max(0.0, centre[1] - H / factor / 2), H - H / factor)
        M = np.array([[factor, 0, -x0 * factor], [0, factor, -y0 * factor]])
    else:
        M = np.array([[factor, 0, W * (1 - factor) / 2], [0, factor, H * (1 - factor) / 2]])
    flags = cv2.INTER_AREA if factor < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(frame, M, (W, H), flags=flags, borderMode=cv2.BORDER_REPLICATE), M


@pytest.mark.parametrize("factor", [0.5, 1.0, 2.0])
def test_the_sprinter_clicked_at_any_size_gives_its_size(shared_data, factor):
    """Real footage, no size assumed: the centre click on the sprinter of bolt1 (frame 6, with the
    6 frames before it), seen half, once and twice as large: the first box is within 25 % of the
    true width and height each time (the fixed-size prior box of earlier versions fitted only
    one of the three). bolt1 is one of the clips the weights were fitted on: a check of the
    behaviour, not a held-out figure (those are in docs/tracking.md)."""
    from sensekit.evaluation.vision.evaluate import load_clip, size_ok

    clip = load_clip(shared_data / "video" / "tracking", "vot_bolt1_rva")
    frames = []
    with open_source(f"file:{clip.video}") as source:
        for item in source:
            if isinstance(item, VideoFrame):
                frames.append(item.image)
                if len(frames) == 7:
                    break
    x, y, w, h = clip.truth[6]
    seen = [_seen(f, factor, (x + w / 2, y + h / 2)) for f in frames]
    M = seen[-1][1]
    true = (x * factor + M[0, 2], y * factor + M[1, 2], w * factor, h * factor)
    picked = segment_click(seen[-1][0], true[0] + true[2] / 2, true[1] + true[3] / 2,
                           history=[s for s, _ in seen[:-1]])
    assert size_ok(picked.box, true), f"x{factor:g}: {picked.box} vs true {tuple(round(v) for v in true)}"
    assert picked.mask.any() and picked.method in ("colour region", "proposal")
