"""Vision stages: the book's bitmap tools, a colour tracker, a motion detector, one runner stage.

- ``stages``: pure functions on BGR uint8 frames (mirror, blur, palette_map, threshold,
  color_bounds, edges, on_edge) with Flash's semantics.
- ``color_tracker.ColorTracker``: exact / HSV / colour-model tracking with One-Euro smoothing
  and tracked / lost / found events.
- ``motion.MotionDetector``: a background model (``background.BackgroundModel``, the
  default) or the book's frame difference with a learned noise floor; zones; exposure and
  lighting changes followed; motion / still events.
- ``blob_tracker.BlobTracker``: the blobs of the motion mask (``blobs.find_blobs``) with ids,
  velocity, enter / leave and zone events.
- ``pipeline.VisionStage``: the runner stage that shares intermediates and runs only the
  sub-stages someone listens to. ``options``: the ``sensekit events`` flags.
"""
from sensekit.vision.background import BackgroundModel
from sensekit.vision.blob_tracker import BlobTracker
from sensekit.vision.color_tracker import ColorTracker, TrackResult
from sensekit.vision.motion import MotionDetector, MotionResult
from sensekit.vision.pipeline import VisionStage
from sensekit.vision.smoothing import OneEuro2D, OneEuroFilter
from sensekit.vision.stages import (blur, color_bounds, edges, mirror, on_edge, palette_lut, palette_map,
                                    parse_color, threshold)

__all__ = ["BackgroundModel", "BlobTracker", "ColorTracker", "TrackResult", "MotionDetector", "MotionResult",
           "VisionStage", "OneEuroFilter", "OneEuro2D", "blur", "color_bounds", "edges", "mirror", "on_edge",
           "palette_lut", "palette_map", "parse_color", "threshold"]
