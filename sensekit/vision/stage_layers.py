"""What the vision stage's sub-stages made of a frame, as typed layers (``sensekit.vision.shapes``):
the pure part of ``VisionStage.layers``. The stage says which sub-stages ran on its last frame
and hands over its buffers; nothing here keeps state or copies a buffer, so a layer is valid
until the stage's next frame (as ``VisionStage.layers`` says).

- ``zone_layers``: the motion detector's zones, whatever the frame;
- ``frame_layers``: the picture the sub-stages saw, the edge map, the palette frame, the motion
  mask, the tracked box and region, each blob's outline and box - each only if its sub-stage ran;
- ``track_layers``, ``blob_layers``: the tracker's and the blob tracker's part of it.

Cost: a few Python objects per layer (no pixel work but the tracker's ``region_mask``).
"""
from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any, Iterable

import numpy as np

from sensekit.vision.blob_tracker import BlobTracker
from sensekit.vision.color_tracker import ColorTracker, TrackResult
from sensekit.vision.motion import MotionDetector, MotionResult
from sensekit.vision.shapes import Box, BoxShape, ContourShape, ImageLayer, Layer, MaskLayer

__all__ = ["zone_layers", "frame_layers", "track_layers", "blob_layers"]


def zone_layers(motion: MotionDetector) -> list[Layer]:
    """Each motion zone's box, labelled with its name."""
    return [BoxShape("zones", _box(box), label=str(name)) for name, box in motion.zone_boxes.items()]


def frame_layers(ran: AbstractSet[str], frame: np.ndarray, *, edge_map: np.ndarray | None,
                 quantized: np.ndarray | None, motion_result: MotionResult | None,
                 tracker: ColorTracker | None, track_result: TrackResult | None,
                 blobs: BlobTracker | None) -> list[Layer]:
    """The layers of one frame given the sub-stages that ran on it (``ran``: ``track``,
    ``motion``, ``blobs``, ``edges``, ``palette``...): the frame itself always, the rest when its
    sub-stage ran and its result is there."""
    pictures = {"frame": frame, "edges": edge_map if "edges" in ran else None,
                "palette": quantized if "palette" in ran else None}
    out: list[Layer] = [ImageLayer(name, image) for name, image in pictures.items() if image is not None]
    if "motion" in ran and motion_result is not None:
        out.append(MaskLayer("mask", motion_result.mask))
    if "track" in ran and tracker is not None:
        out.extend(track_layers(tracker, track_result, frame.shape))
    if "blobs" in ran and blobs is not None:
        out.extend(blob_layers(blobs))
    return out


def track_layers(tracker: ColorTracker, result: TrackResult | None, shape: tuple[int, ...]) -> list[Layer]:
    """The tracked box (when found) and the tracked colour's region."""
    out: list[Layer] = []
    if result is not None and result.found:
        out.append(BoxShape("box", _box(result.box)))
    region = tracker.region_mask(shape)
    if region is not None:
        out.append(MaskLayer("region", region))
    return out


def blob_layers(blobs: BlobTracker) -> list[Layer]:
    """Each visible blob's outline, and its box labelled with its id."""
    out: list[Layer] = []
    for track in blobs.visible:
        if track.region is not None:
            out.append(ContourShape("blobs", track.region.contour, id=track.id))
            out.append(BoxShape("blobs", _box(track.region.box), label=str(track.id), id=track.id))
    return out


def _box(box: Iterable[Any]) -> Box:
    x, y, w, h = (int(v) for v in box)
    return x, y, w, h
