"""Overlays drawn from the stages' own intermediate results, and computed only when missing."""
from __future__ import annotations

import numpy as np

from sensekit.capture.base import VideoFrame
from sensekit.vision.layers import LayerGrabber, Layers, compose, offered
from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.motion import MotionDetector
from sensekit.vision.pipeline import VisionStage
from sensekit.vision.shapes import BoxShape, ContourShape, LayerSource, MaskLayer, PointsShape, TextShape


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


def test_a_computed_palette_follows_the_stages_palette_spread():
    import cv2

    from sensekit.vision.layers import DEFAULT_LEVELS
    from sensekit.vision.stages import palette_lut

    for spread in (False, True):
        stage = VisionStage(tracker=ColorTracker("#fafafa"), palette_spread=spread)
        _, layers = _run(stage)
        compose(layers, {"palette"})
        assert "palette" in layers.computed
        want = cv2.LUT(layers.image, palette_lut(DEFAULT_LEVELS, spread=spread))
        assert np.array_equal(compose(layers, {"palette"}), want)


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
    boxes = [s for s in layers.shapes_of("blobs") if isinstance(s, BoxShape)]
    outlines = [s for s in layers.shapes_of("blobs") if isinstance(s, ContourShape)]
    assert [b.id for b in boxes] == [o.id for o in outlines] == [t.id for t in stage.blobs.visible] != []
    blob_id, (x, y, _, h), outline = boxes[0].id, boxes[0].box, outlines[0].points
    assert boxes[0].label == str(blob_id) and len(outline) >= 4
    picture = compose(layers, {"blobs"})
    assert tuple(picture[y + h // 2, x]) == blob_colour(blob_id)        # the box's left edge
    assert (compose(layers, set()) == layers.image).all()               # nothing unless asked
    assert layers.copy({"mask"}).shapes_of("blobs") == []


def test_the_stage_shows_what_it_made_as_typed_layers():
    """``VisionStage.layers()``: typed values, only of the sub-stages that ran on the last frame."""
    stage = VisionStage(motion=MotionDetector(method="difference", threshold=20, zones_px={"door": (0, 0, 20, 20)}),
                        tracker=ColorTracker("#fafafa"), edges=True)
    assert isinstance(stage, LayerSource)
    assert stage.offers() == {"mask", "edges", "region", "box", "zones"}
    assert stage.layers(0) == []                              # no frame yet (the zones need its size)
    _run(stage)
    names = [layer.name for layer in stage.layers(2)]
    assert {"frame", "mask", "edges", "region", "box", "zones"} <= set(names)
    zones = {s.label: s.box for s in stage.layers(2) if s.name == "zones"}
    assert zones["door"] == (0, 0, 20, 20) and set(zones) == {"door", "left", "right"}
    stage.listen(frozenset())                                             # nobody listens: nothing runs
    stage.process(VideoFrame(9, 1.0, _frames(1)[0]))
    assert {layer.name for layer in stage.layers(9)} == {"zones"}
    assert stage.layers(2) == stage.layers(8) == [s for s in stage.layers(9) if s.name == "zones"]


def test_shapes_are_drawn_in_their_ids_colour():
    from sensekit.vision.layers import blob_colour

    image = np.zeros((60, 80, 3), np.uint8)
    hand = PointsShape("hands", np.array([[10.0, 10.0], [30.0, 10.0]]), links=((0, 1),), id=3)
    text = TextShape("pose", "up", (40, 50), id=None)
    layers = Layers(image, shapes=[hand, text])
    picture = compose(layers, {"hands"})
    assert tuple(picture[10, 20]) == blob_colour(3) and tuple(picture[10, 10]) == blob_colour(3)
    assert (picture[40:, :] == 0).all()                                   # the pose text is not asked for
    assert (compose(layers, {"pose"})[40:52, 40:60] == 255).any()          # white: no id


def test_hands_and_bodies_as_layers_without_mediapipe():
    """The hand and pose stages' layers are built from their tracked state by pure functions."""
    from sensekit.vision.hands import HAND_LINKS, TrackedHand, hand_layers
    from sensekit.vision.pose import POSE_LINKS, TrackedPerson, pose_layers

    rng = np.random.default_rng(0)
    hand = TrackedHand(id=2, handedness="left", score=0.9, landmarks=rng.uniform(0, 50, (21, 3)), box=(1, 2, 30, 40),
                       gesture="fist", pinching=False, last_t=0.0)
    points, box = hand_layers([hand])
    assert isinstance(points, PointsShape) and points.points.shape == (21, 2) and points.links == HAND_LINKS
    assert isinstance(box, BoxShape) and box.box == (1, 2, 30, 40) and box.label == "2 fist" and box.id == 2
    assert len(HAND_LINKS) == 23 and max(max(link) for link in HAND_LINKS) == 20
    person = TrackedPerson(id=5, landmarks=rng.uniform(0, 50, (33, 4)), box=(0, 0, 9, 9), last_t=0.0)
    points, box = pose_layers([person])
    assert isinstance(points, PointsShape) and points.points.shape == (33, 2) and points.links == POSE_LINKS
    assert isinstance(box, BoxShape) and box.label == "5" and box.id == 5


def test_offered_overlays_come_from_what_stages_offer():
    """The panel offers the raster overlays always, and a shape overlay only when a stage fills it."""
    from sensekit.vision.layers import offered

    class Hands:                                   # a stage showing hands (no MediaPipe needed)
        def offers(self):
            return frozenset({"hands"})

        def layers(self, index):
            pts = np.array([[5.0, 5.0], [20.0, 5.0]])
            return [PointsShape("hands", pts, links=((0, 1),), id=1)] if index == 7 else []

    assert offered([object()]) == ["mask", "edges", "palette"]
    assert offered([Hands()]) == ["mask", "edges", "palette", "hands"]
    assert offered([VisionStage(motion=MotionDetector())]) == ["mask", "edges", "palette", "zones"]
    grabber = LayerGrabber()
    image = np.zeros((30, 40, 3), np.uint8)
    assert grabber.grab(image, [Hands(), object()], index=6).shapes == []     # not this frame
    layers = grabber.grab(image, [Hands(), object()], index=7)
    assert [s.name for s in layers.shapes] == ["hands"]
    assert (compose(layers, {"hands"})[5, 5:21] > 0).all()                   # the link is drawn


class _PersonMask:
    """Stands in for the silhouette stage (which needs MediaPipe): it shows a person mask as a layer."""

    def __init__(self) -> None:
        self.mask = np.zeros((60, 80), np.uint8)
        self.mask[10:50, 30:50] = 255
        self.last_index = -1

    def offers(self) -> frozenset[str]:
        return frozenset({"silhouette"})

    def layers(self, index: int) -> list:
        return [MaskLayer("silhouette", self.mask)] if index == self.last_index else []


def test_a_person_mask_is_a_silhouette_overlay_offered_only_when_a_stage_makes_one():
    vision = VisionStage(motion=MotionDetector(), edges=True)
    person = _PersonMask()
    assert "silhouette" not in offered([vision]) and "silhouette" in offered([vision, person])
    grabber = LayerGrabber()
    f = _frames(1)[0]
    vision.process(VideoFrame(0, 0.0, f))
    layers = grabber.grab(f, [vision, person])
    assert layers.silhouette is None                       # the stage did not run on this frame
    person.last_index = 1
    vision.process(VideoFrame(1, 0.1, f))
    layers = grabber.grab(f, [vision, person], index=1)
    assert layers.silhouette is person.mask
    kept = layers.copy(["silhouette"])
    assert kept.silhouette is not person.mask and np.array_equal(kept.silhouette, person.mask)
    picture = compose(layers, {"silhouette"})
    inside, outside = picture[30, 40].astype(int), picture[30, 5].astype(int)
    assert inside[1] > inside[2] + 50 and (outside == f[30, 5]).all()   # green over the person only


class _Posed:
    """A stage that shows skeletons (the protocol ``PoseStage`` meets), moved by hand."""

    def __init__(self) -> None:
        self.last_index = -1
        self.people: list[tuple[int, np.ndarray]] = []

    def offers(self) -> frozenset[str]:
        return frozenset({"pose"})

    def layers(self, index: int) -> list:
        return []

    def skeletons(self, index: int) -> list[tuple[int, np.ndarray]]:
        return self.people if index == self.last_index else []


def test_skeletons_are_taken_only_from_a_frame_the_pose_stage_ran_on():
    posed, grabber, image = _Posed(), LayerGrabber(), _frames(1)[0]
    bones = np.arange(33 * 4, dtype=float).reshape(33, 4)
    posed.people = [(7, bones)]
    posed.last_index = 4
    layers = grabber.grab(image, [posed], index=4)
    assert [i for i, _ in layers.poses] == [7] and np.array_equal(layers.poses[0][1], bones)
    assert layers.poses[0][1] is not bones                     # a copy: the stage may reuse its arrays
    assert grabber.grab(image, [posed], index=5).poses == []   # a frame it skipped shows nobody
    assert "pose" in offered([posed]) and "pose" not in offered([VisionStage(motion=MotionDetector())])
