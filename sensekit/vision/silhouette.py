"""SilhouetteStage: a person mask per frame, from MediaPipe's selfie segmentation.

Per video frame the stage keeps ``mask`` (HxW uint8, 255 where a person is, the frame's own
size) and ``area_share`` (the fraction of the frame that is person, 0..1). It emits no event
per frame: apps read the mask (``mask_layer()``; ``edge_snow`` piles its snow on it), the
layers module draws it (overlay ``silhouette``, for the app overlays and the browser panel),
and ``runs["silhouette"]`` counts the frames it ran on. The runner runs it on every frame
(``always_run``), since nothing subscribes to it.

Settings (the ``silhouette`` group, declared once below): ``threshold`` 0.5 (the model's
person probability above which a pixel is the person; MediaPipe's own examples use 0.1-0.5),
``model`` ``general`` (the square 256x256 model) or ``landscape`` (144x256, faster, made for
16:9 pictures). Both ship inside the ``mediapipe==0.10.21`` wheel of the ``hands`` extra, so
nothing is downloaded; without the extra, building the stage is a ``ConfigError`` naming the
install.

Cost (``benchmarks/silhouette_eval.py``): one small model call per frame, a few ms at
640x480 on one core, plus the resize of its output to the frame. Failure modes: it was made
for a person close to a webcam; small people in a wide picture (a crowd, a court) are found
badly or not at all; people are not told apart (one mask for everyone); objects held by a
person are usually left out. Deterministic for the same frames.
"""
from __future__ import annotations

from typing import Any, Literal, Mapping

import cv2
import numpy as np

from sensekit.arg_types import checked
from sensekit.capture.base import Item, VideoFrame
from sensekit.events import Event
from sensekit.settings import Tunable, setting
from sensekit.vision.mediapipe_base import RgbBuffer, filtered_native_stderr, load_solution
from sensekit.vision.shapes import Layer, MaskLayer

__all__ = ["SILHOUETTE_SETTINGS", "SilhouetteStage", "load_segmentation"]

MODELS = {"general": 0, "landscape": 1}       # MediaPipe's model_selection


def load_segmentation() -> Any:
    """``mediapipe.solutions.selfie_segmentation``, or ``ConfigError`` naming the install."""
    return load_solution("selfie_segmentation", "selfie segmentation model", "silhouettes need")


class SilhouetteStage(Tunable, section="silhouette",
                      title="person silhouettes (MediaPipe selfie segmentation; the hands extra)"):
    """A runner stage: frames in, ``mask`` and ``area_share`` kept, no events out."""

    consumes: Literal["video"] = "video"
    emits: frozenset[str] = frozenset()
    always_run = True
    threshold = setting(0.5, "person probability above which a pixel belongs to the silhouette",
                        unit="probability", lo=0.01, hi=0.99)
    model = setting("general", "general: the square model; landscape: the 16:9 one (faster, coarser)",
                    choices=tuple(MODELS))

    @checked
    def __init__(self, **settings: Any) -> None:
        self.init_settings(settings)
        self._solution = load_segmentation()
        self._graph: Any = None
        self._open()
        self.mask: np.ndarray | None = None
        self.area_share = 0.0
        self.runs = {"silhouette": 0}
        self._last_index = -1                  # the frame ``layers`` shows
        self._rgb = RgbBuffer()

    def _open(self) -> None:
        with filtered_native_stderr():
            self._graph = self._solution.SelfieSegmentation(model_selection=MODELS[self.model])

    def settings_changed(self, changed: Mapping[str, Any]) -> None:
        if "model" in changed:
            self.close()
            self._open()

    def close(self) -> None:
        if self._graph is not None:
            self._graph.close()
            self._graph = None

    def mask_layer(self) -> np.ndarray | None:
        """The last frame's person mask (HxW uint8, 0 or 255; the stage's buffer), or ``None``."""
        return self.mask

    def offers(self) -> frozenset[str]:
        return frozenset({"silhouette"})

    def layers(self, index: int) -> list[Layer]:
        """The person mask of frame ``index`` if it is the last one segmented (the panel and the
        apps' ``b`` key draw it)."""
        if index != self._last_index or self.mask is None:
            return []
        return [MaskLayer("silhouette", self.mask)]

    def segment(self, image: np.ndarray) -> np.ndarray:
        """The person mask of one BGR frame (a new or reused HxW uint8 array, 0/255)."""
        if self._pending:
            self.apply_pending()
        rgb = self._rgb(image)                 # checks a frame of a new size
        if self.mask is None or self.mask.shape != image.shape[:2]:
            self.mask = np.empty(image.shape[:2], np.uint8)
        if self.runs["silhouette"] == 0:
            with filtered_native_stderr():
                result = self._graph.process(rgb)
        else:
            result = self._graph.process(rgb)
        prob = result.segmentation_mask
        if prob is None:
            self.mask[:] = 0
        else:
            if prob.shape != self.mask.shape:
                prob = cv2.resize(prob, (self.mask.shape[1], self.mask.shape[0]), interpolation=cv2.INTER_LINEAR)
            np.greater(prob, self.threshold, out=self.mask.view(bool))   # 0/1 ...
            self.mask *= 255                                                # ... then 0/255
        self.area_share = cv2.countNonZero(self.mask) / self.mask.size
        self.runs["silhouette"] += 1
        return self.mask

    def process(self, item: Item) -> list[Event]:
        if isinstance(item, VideoFrame):
            self.segment(item.image)
            self._last_index = item.index
        return []


#: Every setting of the silhouette stage (``sensekit settings silhouette`` lists them).
SILHOUETTE_SETTINGS = SilhouetteStage.SETTINGS
