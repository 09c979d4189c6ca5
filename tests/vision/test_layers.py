"""Overlays drawn from the stages' own intermediate results, and computed only when missing."""
from __future__ import annotations

import numpy as np

from sensekit.capture.base import VideoFrame
from sensekit.vision.layers import LayerGrabber, Layers, compose, offered
from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.motion import MotionDetector
from sensekit.vision.pipeline import VisionStage


def _frames(n: int = 3) -> list[np.ndarray]:
    """A grey room with a white square moving right 8 px a frame."""
    out = []
    for i in range(n):
        f = np.full((60, 80, 3), 90, np.uint8)
        f[20:36, 10 + 8 * i:26 + 8 * i] = 250
        out.append(f)
    return out


def _run(stage: VisionStage) -> tuple[LayerGrabber, Layers]:
    grabber = LayerGrabber()
    layers = None
    for i, f in enumerate(_frames()):
        stage.process(VideoFrame(i, i / 15, f))
        layers = grabber.grab(f, [stage], index=i)
    assert layers is not None
    return grabber, layers


def test_the_mask_is_the_motion_detectors_own():
    stage = VisionStage(motion=MotionDetector(method="difference", threshold=20))
    _, layers = _run(stage)
    assert layers.mask is stage.motion_result.mask
    picture = compose(layers, {"mask"})
    moving = stage.motion_result.mask > 0
    assert moving.any() and "mask" not in layers.computed
    assert (picture[moving][:, 2] > picture[moving][:, 0]).all()           # tinted red
    assert (picture[~moving] == layers.image[~moving]).all()              # the rest untouched


def test_edges_and_palette_from_the_stage_when_it_makes_them():
    stage = VisionStage(edges=True, levels=4, bounds_color="#ffffff")
    _, layers = _run(stage)
    assert layers.edges is stage.edge_map and layers.palette is stage.quantized
    compose(layers, {"edges", "palette"})
    assert layers.computed == set()


def test_what_no_stage_makes_is_computed_from_the_picture():
    stage = VisionStage(tracker=ColorTracker("#fafafa"))
    _, layers = _run(stage)
    assert layers.mask is None and layers.edges is None and layers.palette is None
    picture = compose(layers, {"mask", "edges", "palette"})
    assert layers.computed == {"mask", "edges", "palette"}
    assert picture.shape == layers.image.shape and not np.array_equal(picture, layers.image)


def test_the_tracked_box_and_colour_region():
    stage = VisionStage(tracker=ColorTracker("#fafafa"))
    _, layers = _run(stage)
    assert layers.box == (26, 20, 16, 16)
    assert layers.region is not None and layers.region.shape == (60, 80)
    assert (layers.region[20:36, 26:42] > 0).all() and layers.region.sum() == 255 * 16 * 16


def test_a_copy_owns_its_arrays_and_results_of_skipped_frames_are_not_reused():
    stage = VisionStage(motion=MotionDetector(method="difference", threshold=20))
    grabber, layers = _run(stage)
    snap = layers.copy({"mask"})
    assert snap.mask is not None and not np.shares_memory(snap.mask, stage.motion_result.mask)
    assert snap.edges is None
    # the stage did not run on this frame: its old mask must not be shown for it
    again = grabber.grab(_frames(1)[0], [stage])
    assert again.mask is None


def test_blobs_are_drawn_with_their_ids_colour():
    from sensekit.vision.layers import blob_colour
    from sensekit.vision.blob_tracker import BlobTracker

    stage = VisionStage(motion=MotionDetector(method="difference", threshold=20),
                        blobs=BlobTracker(min_area_px=20, confirm_frames=1), motion_events=False)
    grabber = LayerGrabber()
    for i, f in enumerate(_frames(4)):
        stage.process(VideoFrame(i, i / 15, f))
        layers = grabber.grab(f, [stage], index=i)
    assert "motion" not in stage.emits and "blobs" in stage.emits
    assert [b[0] for b in layers.blobs] == [t.id for t in stage.blobs.visible] != []
    blob_id, (x, y, _, h), outline = layers.blobs[0]
    assert len(outline) >= 4
    picture = compose(layers, {"blobs"})
    assert tuple(picture[y + h // 2, x]) == blob_colour(blob_id)        # the box's left edge
    assert (compose(layers, set()) == layers.image).all()               # nothing unless asked
    assert layers.copy({"mask"}).blobs == []


class _Posed:
    """A stage that shows skeletons (the protocol ``PoseStage`` meets), moved by hand."""

    def __init__(self) -> None:
        self.runs = {"frames": 0}
        self.people: list[tuple[int, np.ndarray]] = []

    def skeletons(self) -> list[tuple[int, np.ndarray]]:
        return self.people


def test_skeletons_are_taken_only_from_a_frame_the_pose_stage_ran_on():
    posed, grabber, image = _Posed(), LayerGrabber(), _frames(1)[0]
    bones = np.arange(33 * 4, dtype=float).reshape(33, 4)
    posed.people = [(7, bones)]
    posed.runs["frames"] += 1
    layers = grabber.grab(image, [posed])
    assert [i for i, _ in layers.poses] == [7] and np.array_equal(layers.poses[0][1], bones)
    assert layers.poses[0][1] is not bones                     # a copy: the stage may reuse its arrays
    assert grabber.grab(image, [posed]).poses == []            # a frame it skipped shows nobody
    assert "pose" in offered([posed]) and "pose" not in offered([VisionStage(motion=MotionDetector())])
