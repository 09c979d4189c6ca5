"""MotionDetector: book semantics, noise floor, zones, lighting, background model, CDnet."""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from sensekit.errors import ConfigError
from sensekit.events import Motion
from sensekit.vision.motion import MotionDetector, parse_zones
from tests.vision.synth import background, noisy


def _scene(rng, square_at=None, gain=1.0, sigma=3.0, w=160, h=120):
    f = background(w, h).astype(np.float32) * gain
    f = np.clip(f, 0, 255).astype(np.uint8)
    if square_at is not None:
        x, y = square_at
        cv2.rectangle(f, (x, y), (x + 15, y + 15), (250, 250, 250), -1)
    return noisy(f, rng, sigma)


def test_book_threshold_on_red_difference_gives_the_motion_box():
    prev = np.zeros((6, 8, 3), np.uint8)
    cur = prev.copy()
    cur[1, 2] = (0, 0, 0x33)            # red diff exactly 0x33: moves (the book zeroes < 0x33)
    cur[4, 6] = (0, 0, 0x32)            # 0x32: noise
    cur[3, 1] = (200, 200, 0)           # big change but not in red: ignored on the red channel
    md = MotionDetector(threshold=0x33, channel="red", min_amount=0)
    md.update(prev)
    r = md.update(cur)
    assert r.box == (2, 1, 1, 1) and r.amount == pytest.approx(1 / 48)
    md2 = MotionDetector(threshold=0x33, channel="max", min_amount=0)
    md2.update(prev)
    assert md2.update(cur).box == (1, 1, 2, 3)


def test_noise_floor_is_learned_instead_of_a_fixed_threshold():
    rng = np.random.default_rng(0)
    md = MotionDetector()
    for _ in range(20):
        r = md.update(_scene(rng, sigma=6.0))
    assert not r.moving and r.amount < 0.001
    # the learned threshold sits above the noise (diff of two sigma-6 frames: sigma ~8.5)
    assert 15 < md.threshold < 60
    quiet = MotionDetector()
    for _ in range(20):
        quiet.update(_scene(rng, sigma=1.0))
    assert quiet.threshold < md.threshold
    r = md.update(_scene(rng, square_at=(40, 40), sigma=6.0))
    assert r.moving and r.box[0] <= 40 and r.box[0] + r.box[2] >= 55


def test_zones_halves_and_user_rectangles():
    rng = np.random.default_rng(1)
    md = MotionDetector(zones={"corner": (0, 0, 40, 40)})
    md.update(_scene(rng))
    r = md.update(_scene(rng, square_at=(10, 10)))
    assert set(r.zones) == {"left", "right", "corner"}
    assert r.zones["left"] > 0.02 and r.zones["right"] < 0.002 and r.zones["corner"] > 0.1
    r = md.update(_scene(rng, square_at=(120, 80)))     # square gone from the left, now right
    assert r.zones["right"] > 0 and r.zones["corner"] > 0.1   # its old place changed too
    r = md.update(_scene(rng, square_at=(120, 80)))
    assert r.zones["left"] < 0.002 and r.zones["corner"] < 0.005 and not r.moving


def test_user_zones_may_redefine_left_and_right():
    md = MotionDetector(zones={"left": (0, 60, 80, 60), "right": (80, 60, 80, 60)})
    a = np.zeros((120, 160, 3), np.uint8)
    b = a.copy()
    b[10:20, 100:110] = 255                     # top right: outside both redefined zones
    md.update(a)
    r = md.update(b)
    assert r.moving and r.zones == {"left": 0.0, "right": 0.0}


def test_global_lighting_change_is_not_motion():
    rng = np.random.default_rng(2)
    for method in ("difference", "background"):
        md = MotionDetector(method=method)
        events = []
        for k in range(40):
            events += md.step(_scene(rng), k / 30)
        events.clear()
        r = md.update(_scene(rng, gain=1.4))            # a lamp switched on
        assert r.lighting_change and r.amount < 0.01, method
        for k in range(5):
            r = md.update(_scene(rng, gain=1.4))
            assert r.amount < 0.01, method
        r = md.update(_scene(rng, gain=1.4, square_at=(60, 50)))
        assert r.moving, method                          # and real motion still shows


def test_events_motion_then_still_once():
    rng = np.random.default_rng(3)
    md = MotionDetector(still_after_frames=3)
    names = []
    for k in range(5):
        names += [e.name for e in md.step(_scene(rng), k / 30)]
    for k in range(4):
        evs = md.step(_scene(rng, square_at=(20 + 12 * k, 30)), (5 + k) / 30)
        assert evs and isinstance(evs[0], Motion) and evs[0].zones["left"] > 0
        names += [e.name for e in evs]
    for k in range(8):
        names += [e.name for e in md.step(_scene(rng), (9 + k) / 30)]
    assert names.count("motion") == 5 and names.count("still") == 1   # 4 moves + square leaving
    assert names[-1] != "motion"


def test_background_model_answers_is_something_there():
    rng = np.random.default_rng(4)
    md = MotionDetector(method="background", learn_frames=10)
    for _ in range(15):
        md.update(_scene(rng))
    for _ in range(10):                                  # an object arrives and stays still
        r = md.update(_scene(rng, square_at=(70, 40)))
    assert r.moving and abs(r.box[0] - 70) <= 2 and abs(r.box[2] - 16) <= 3
    diff = MotionDetector()
    for _ in range(3):
        rd = diff.update(_scene(rng, square_at=(70, 40)))
    assert not rd.moving                                 # frame difference: nothing moves


@pytest.mark.parametrize("zones, match", [
    ({"door": (150, 0, 20, 20)}, r"zone 'door' \(150, 0, 20, 20\) is outside the 160x120 frame"),
    ({"neg": (-1, 0, 5, 5)}, "zone 'neg'"),
    ({"flat": (0, 0, 0, 5)}, "zone 'flat'"),
])
def test_zone_outside_the_frame_is_named(zones, match):
    md = MotionDetector(zones=zones)
    with pytest.raises(ConfigError, match=match):
        md.update(np.zeros((120, 160, 3), np.uint8))
    with pytest.raises(ConfigError, match=match):
        MotionDetector(zones=zones, frame_size=(160, 120))


def test_parse_zones_and_bad_values():
    assert parse_zones("a=0,0,10,10; b=5,5,2,2") == {"a": (0, 0, 10, 10), "b": (5, 5, 2, 2)}
    with pytest.raises(ConfigError, match="'a=1,2,3'"):
        parse_zones("a=1,2,3")
    with pytest.raises(ConfigError, match="'bogus'"):
        MotionDetector(method="bogus")
    with pytest.raises(ConfigError, match="HxWx3 uint8"):
        MotionDetector().update(np.zeros((4, 4), np.uint8))


# --- real footage: CDnet highway ----------------------------------------------------------

def _fmeasure(masks, gts, roi) -> float:
    tp = fp = fn = 0
    for m, g in zip(masks, gts):
        valid = roi & (g != 85) & (g != 170)      # 85 outside ROI, 170 unknown: not scored
        pos = g == 255                            # 0 static and 50 shadow are negatives
        pred = m > 0
        tp += np.count_nonzero(pred & pos & valid)
        fp += np.count_nonzero(pred & ~pos & valid)
        fn += np.count_nonzero(~pred & pos & valid)
    p = tp / max(1, tp + fp)
    r = tp / max(1, tp + fn)
    return 2 * p * r / max(1e-12, p + r)


def test_cdnet_highway_fmeasure_against_mog2(shared_data, capsys):
    folder = shared_data / "video" / "motion" / "cdnet_highway_a"
    inputs = sorted((folder / "input").glob("in*.jpg"))
    assert len(inputs) == 300
    roi = cv2.imread(str(folder / "ROI.bmp"), cv2.IMREAD_GRAYSCALE) > 0
    bg = MotionDetector(method="background")
    diff = MotionDetector(method="difference")
    mog2 = cv2.createBackgroundSubtractorMOG2()
    m_bg, m_diff, m_mog, gts = [], [], [], []
    for p in inputs:
        frame = cv2.imread(str(p))
        gts.append(cv2.imread(str(folder / "groundtruth" / p.name.replace("in", "gt").replace(".jpg", ".png")),
                              cv2.IMREAD_GRAYSCALE))
        m_bg.append(bg.update(frame).mask.copy())
        m_diff.append(diff.update(frame).mask.copy())
        m_mog.append(mog2.apply(frame) == 255)           # 127 = shadow: not foreground
    f_bg = _fmeasure(m_bg, gts, roi)
    f_diff = _fmeasure(m_diff, gts, roi)
    f_mog = _fmeasure(m_mog, gts, roi)
    with capsys.disabled():
        print("\nCDnet highway 470-769 (cold start, all 300 frames)   pixel F-measure")
        print(f"  sensekit background model (default settings)        {f_bg:.3f}")
        print(f"  sensekit frame difference (learned noise floor)     {f_diff:.3f}")
        print(f"  OpenCV MOG2 (defaults, shadows excluded)            {f_mog:.3f}")
    assert f_bg >= 0.85
    assert f_bg > f_mog
