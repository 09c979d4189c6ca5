"""The vision chain against the frames an odd camera or a user's own code hands it.

Every sub-stage runs (mirror, blur, palette, colour tracking, bounds, motion, blobs, edges).
A camera that changes resolution mid-stream (real footage, shrunk then enlarged) goes on
giving events inside the new frame; a frame with no pixels or no image at all is one
``ConfigError`` line (they used to be a NumPy reshape error and an AttributeError).
"""
from __future__ import annotations

import cv2
import numpy as np
import pytest

from sensekit.capture.base import VideoFrame
from sensekit.errors import ConfigError
from sensekit.vision.blob_tracker import BlobTracker
from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.motion import MotionDetector
from sensekit.vision.pipeline import VisionStage

PEOPLE = "video/people/pets2009_vtest_part1.mp4"


def full_stage() -> VisionStage:
    return VisionStage(mirror=True, blur_px=3, levels=4, tracker=ColorTracker("#404040"),
                       motion=MotionDetector(), blobs=BlobTracker(), edges=True, bounds_color=0x000000)


@pytest.fixture(scope="module")
def footage(shared_data) -> list[np.ndarray]:
    cap = cv2.VideoCapture(str(shared_data / PEOPLE))
    frames = []
    while len(frames) < 45:
        ok, img = cap.read()
        if not ok:
            break
        frames.append(img)
    cap.release()
    assert len(frames) == 45
    return frames


def boxes(events: list) -> list[tuple[int, int, int, int]]:
    out = []
    for e in events:
        d = e.to_dict()
        for key in ("box", "union_box"):
            if d.get(key) is not None:
                out.append(tuple(d[key]))
        for blob in d.get("blobs") or ():
            out.append(tuple(blob["box"]) if isinstance(blob, dict) else tuple(blob[1:5]))
    return out


def test_a_camera_that_changes_resolution_mid_stream(footage):
    h, w = footage[0].shape[:2]
    sizes = [(w, h)] * 15 + [(w // 2, h // 2)] * 15 + [(w, h)] * 15
    st = full_stage()
    per_size: dict[tuple[int, int], int] = {}
    for i, (img, (fw, fh)) in enumerate(zip(footage, sizes)):
        frame = img if (fw, fh) == (w, h) else cv2.resize(img, (fw, fh), interpolation=cv2.INTER_AREA)
        events = st.process(VideoFrame(i, i / 25, frame))
        assert {"edges", "color_bounds"} <= {e.name for e in events}, i
        for x, y, bw, bh in boxes(events):
            assert min(x, y) >= 0 and x + bw <= fw and y + bh <= fh, (i, (x, y, bw, bh), (fw, fh))
        per_size[(fw, fh)] = per_size.get((fw, fh), 0) + sum(e.name == "motion" for e in events)
        assert st.edge_map is not None and st.edge_map.shape[:2] == (fh, fw)
    # people walk in this footage: motion is found again at each size once the model relearns it
    assert per_size[(w // 2, h // 2)] > 0 and per_size[(w, h)] > 0


@pytest.mark.parametrize("image, fragment", [
    (np.zeros((0, 0, 3), np.uint8), "has no pixels"),
    (np.zeros((0, 320, 3), np.uint8), "has no pixels"),
    (np.zeros((240, 0, 3), np.uint8), "has no pixels"),
    (None, "must be an HxWx3 uint8 numpy array, got NoneType"),
    (np.zeros((240, 320), np.uint8), "must be an HxWx3 uint8 array"),
    (np.zeros((240, 320, 3), np.float32), "must be an HxWx3 uint8 array"),
])
def test_frames_with_no_pixels_or_no_image_are_one_line_errors(image, fragment):
    st = full_stage()
    st.process(VideoFrame(0, 0.0, np.full((24, 32, 3), 90, np.uint8)))
    with pytest.raises(ConfigError) as err:
        st.process(VideoFrame(1, 0.1, image))
    assert fragment in str(err.value) and "\n" not in str(err.value)
