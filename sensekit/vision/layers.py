"""What the detector sees, drawn over the camera picture: motion mask, edges, palette, colour region.

``LayerGrabber.grab(image, stages)`` collects, for one frame, the stages' **own** intermediate
results - the motion detector's mask, the edge sub-stage's map, the palette-mapped frame, the
colour tracker's region and box, the motion zones - as references into the stages' buffers
(``Layers``). A result counts only if its sub-stage ran on this frame (``VisionStage.runs``
moved since the last grab). ``Layers.copy()`` makes a snapshot another thread may keep.

``compose(layers, overlays)`` draws the chosen raster overlays over the picture and returns a
new BGR image (``OVERLAYS``: ``mask`` red, ``edges`` cyan on a dimmed picture, ``palette``
the palette-mapped frame, ``region`` the tracked colour's pixels in yellow, ``blobs`` each
blob's outline, box and id in a colour of its own; nothing when no blob tracker runs). An overlay whose
stage does not run here is computed from the picture with the same library functions
(``edges()``, ``palette_lut()``, a frame difference for the mask; ``Layers.computed`` says
which), so every app can show all of them. The app host (keys ``m``/``e``/``p``) and the
browser panel both draw with it.

Cost: grabbing is a few attribute reads; composing one 320x240 frame with every overlay is
about 1 ms (OpenCV calls on the whole frame). Failure modes: none on good frames; layers of
another size than the picture are ignored.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np

from sensekit.vision.stages import EDGE_THRESHOLD, edges, palette_lut

__all__ = ["DEFAULT_LEVELS", "MASK_THRESHOLD", "OVERLAYS", "LayerGrabber", "Layers", "compose", "offered",
           "draw_blobs", "blob_layer", "blob_colour", "ShowsPoses"]

Box = tuple[int, int, int, int]
OVERLAYS: tuple[str, ...] = ("mask", "edges", "palette", "region", "blobs")
#: palette levels when no stage maps a palette (the book's 4)
DEFAULT_LEVELS = 4
#: frame difference that counts as motion when no motion detector runs (the book's 0x33)
MASK_THRESHOLD = 0x33

_RED = np.array([40, 40, 255], np.float32)
_CYAN = np.array([255, 230, 0], np.uint8)
_YELLOW = np.array([0, 220, 255], np.float32)


@runtime_checkable
class ShowsPoses(Protocol):
    """A stage that can show body skeletons (``PoseStage``): the panel draws them as vectors."""

    def skeletons(self) -> list[tuple[int, np.ndarray]]: ...


@dataclass
class Layers:
    """One frame and what the stages made of it. Arrays may be the stages' reused buffers
    until ``copy()``; ``mask``, ``region`` are HxW (non-zero = on), ``edges`` HxW or HxWx3."""

    image: np.ndarray
    index: int = 0
    t: float = 0.0
    mask: np.ndarray | None = None
    edges: np.ndarray | None = None
    palette: np.ndarray | None = None
    region: np.ndarray | None = None
    #: the tracked object's box (pixels), when the tracker found it on this frame
    box: Box | None = None
    #: the blobs seen on this frame: (id, box, outline points (N, 1, 2)) (``VisionStage.blobs``)
    blobs: list[tuple[int, Box, np.ndarray]] = field(default_factory=list)
    #: the people posed on this frame: (id, landmarks (33, 4) x px, y px, z, visibility)
    poses: list[tuple[int, np.ndarray]] = field(default_factory=list)
    #: motion zones, pixels (the detector's own, left/right halves included)
    zones: dict[str, Box] = field(default_factory=dict)
    #: how to compute what no stage made: palette levels, edge direction, blur, threshold
    levels: int = DEFAULT_LEVELS
    edge_options: dict[str, Any] = field(default_factory=dict)
    #: the previous picture (for a frame-difference mask when no motion detector runs)
    previous: np.ndarray | None = None
    #: overlays that ``compose`` had to compute itself (filled by ``compose``)
    computed: set[str] = field(default_factory=set)

    def copy(self, overlays: Iterable[str] = OVERLAYS) -> Layers:
        """A snapshot that owns its arrays (only the ``overlays`` asked for are copied)."""
        want = set(overlays)

        def own(a: np.ndarray | None, name: str) -> np.ndarray | None:
            return None if a is None or name not in want else a.copy()

        return replace(self, image=self.image.copy(), mask=own(self.mask, "mask"),
                       edges=own(self.edges, "edges"), palette=own(self.palette, "palette"),
                       region=own(self.region, "region"), zones=dict(self.zones),
                       blobs=list(self.blobs) if "blobs" in want else [],
                       computed=set())


class LayerGrabber:
    """Collects ``Layers`` from a run's stages; remembers what ran, and the previous picture."""

    def __init__(self) -> None:
        self._runs: dict[int, dict[str, int]] = {}
        self._previous: np.ndarray | None = None

    def grab(self, image: np.ndarray, stages: Sequence[Any], *, index: int = 0, t: float = 0.0,
             keep_previous: bool = False) -> Layers:
        """The layers of the frame ``image`` that the ``stages`` just processed.

        ``keep_previous=True`` keeps a copy of ``image`` for the next grab's fallback mask
        (only needed when no motion detector runs and someone shows the mask)."""
        layers = Layers(image=image, index=index, t=t, previous=self._previous)
        for stage in stages:
            runs = getattr(stage, "runs", None)
            if runs is None:
                continue
            before = self._runs.get(id(stage), {})
            ran = {k for k, v in runs.items() if v > before.get(k, 0)}
            self._runs[id(stage)] = dict(runs)
            if isinstance(stage, ShowsPoses):
                if "frames" in ran:
                    layers.poses = [(int(i), np.array(p, copy=True)) for i, p in stage.skeletons()]
                continue
            self._from_vision(stage, ran, layers)
        self._previous = image.copy() if keep_previous and layers.mask is None else None
        return layers

    @staticmethod
    def _from_vision(stage: Any, ran: set[str], layers: Layers) -> None:
        frame = getattr(stage, "frame", None)
        if isinstance(frame, np.ndarray) and frame.shape == layers.image.shape and ran:
            layers.image = frame                       # what the sub-stages saw
        if getattr(stage, "levels", None):
            layers.levels = int(stage.levels)
        layers.edge_options = {"direction": getattr(stage, "edge_direction", "horizontal"),
                               "blur_px": getattr(stage, "edge_blur_px", 3),
                               "threshold_value": getattr(stage, "edge_threshold", EDGE_THRESHOLD)}
        result = getattr(stage, "motion_result", None)
        if "motion" in ran and result is not None:
            layers.mask = result.mask
        blobs = getattr(stage, "blobs", None)
        if "blobs" in ran and blobs is not None:
            layers.blobs = blob_layer(blobs.visible)
        motion = getattr(stage, "motion", None)
        if motion is not None and getattr(motion, "zones", None):
            layers.zones = {str(k): _box(box) for k, box in motion.zones.items()}
        if "edges" in ran and getattr(stage, "edge_map", None) is not None:
            layers.edges = stage.edge_map
        quantized = getattr(stage, "quantized", None)
        if "palette" in ran and quantized is not None:
            layers.palette = quantized
        tracker = getattr(stage, "tracker", None)
        if "track" in ran and tracker is not None:
            track = getattr(stage, "track_result", None)
            if track is not None and track.found:
                layers.box = _box(track.box)
            layers.region = _full_region(tracker, layers.image.shape[:2])


def offered(stages: Iterable[Any]) -> list[str]:
    """The overlays worth offering for these stages: the raster ones always (computed when no
    stage makes them), the tracked ``region`` and ``box`` only with a colour tracker, the motion
    ``zones`` only with a motion detector, ``blobs`` only with a blob tracker (otherwise they
    would draw nothing), the ``pose`` skeletons only with a pose stage."""
    names = list(OVERLAYS)
    vision = [s for s in stages if getattr(s, "runs", None) is not None]
    if not any(getattr(s, "blobs", None) is not None for s in vision):
        names.remove("blobs")
    if not any(getattr(s, "tracker", None) is not None for s in vision):
        names.remove("region")
    else:
        names.append("box")
    if any(getattr(s, "motion", None) is not None for s in vision):
        names.append("zones")
    if any(isinstance(s, ShowsPoses) for s in vision):
        names.append("pose")
    return names


def _box(box: Sequence[Any]) -> Box:
    x, y, w, h = (int(v) for v in box)
    return x, y, w, h


def _full_region(tracker: Any, shape: tuple[int, ...]) -> np.ndarray | None:
    """The tracker's last colour mask placed in a frame-sized array (the model tracker keeps
    only its search window)."""
    mask: np.ndarray | None = getattr(tracker, "last_mask", None)
    if mask is None:
        return None
    if mask.shape[:2] == shape[:2]:
        return mask
    x0, y0 = getattr(tracker, "last_mask_origin", (0, 0))
    full = np.zeros(shape[:2], np.uint8)
    h = max(0, min(mask.shape[0], shape[0] - y0))
    w = max(0, min(mask.shape[1], shape[1] - x0))
    full[y0:y0 + h, x0:x0 + w] = mask[:h, :w]
    return full


def _fits(a: np.ndarray | None, image: np.ndarray) -> bool:
    return a is not None and a.shape[:2] == image.shape[:2]


def _tint(out: np.ndarray, on: np.ndarray, color: np.ndarray, alpha: float) -> None:
    """Blend ``color`` into ``out`` where ``on`` (HxW bool), in place."""
    if on.any():
        px = out[on].astype(np.float32)
        out[on] = (px * (1.0 - alpha) + color * alpha).astype(np.uint8)


def compose(layers: Layers, overlays: Iterable[str]) -> np.ndarray:
    """The picture with the chosen ``overlays`` drawn over it (a new BGR image)."""
    want = set(overlays)
    image = layers.image
    if "palette" in want:
        pal = layers.palette
        if not _fits(pal, image) or pal is None or pal.ndim != 3:
            pal = cv2.LUT(image, palette_lut(layers.levels))
            layers.computed.add("palette")
        out = pal.copy()
    else:
        out = image.copy()
    if "edges" in want:
        e = layers.edges
        if not _fits(e, image) or e is None:
            e = edges(image, **layers.edge_options)
            layers.computed.add("edges")
        strength = e.max(axis=2) if e.ndim == 3 else e
        out = cv2.convertScaleAbs(out, alpha=0.5)                # dim the picture
        on = strength > 0
        out[on] = _CYAN
    if "mask" in want:
        m = layers.mask
        if not _fits(m, image) or m is None:
            m = _difference_mask(layers.previous, image)
            layers.computed.add("mask")
        _tint(out, m > 0, _RED, 0.6)
    if "region" in want and _fits(layers.region, image) and layers.region is not None:
        _tint(out, layers.region > 0, _YELLOW, 0.55)
    if "blobs" in want:
        draw_blobs(out, layers.blobs)
    return out


def blob_layer(tracks: Iterable[Any]) -> list[tuple[int, Box, np.ndarray]]:
    """``(id, box, outline)`` of each visible track of a ``BlobTracker`` (outlines copied)."""
    out = []
    for tr in tracks:
        region = tr.region
        if region is not None:
            out.append((int(tr.id), _box(region.box), region.contour))
    return out


def blob_colour(blob_id: int) -> tuple[int, int, int]:
    """A bright BGR colour of its own for each id (the same id, the same colour)."""
    hsv = np.array([[[(blob_id * 47) % 180, 200, 255]]], np.uint8)
    bgr = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    return int(bgr[0, 0, 0]), int(bgr[0, 0, 1]), int(bgr[0, 0, 2])


def draw_blobs(out: np.ndarray, blobs: Iterable[tuple[int, Box, np.ndarray]]) -> None:
    """Each blob's outline, box and id over ``out`` (BGR, in place), in the id's colour."""
    scale = max(1, out.shape[1] // 320)
    for blob_id, (x, y, w, h), outline in blobs:
        colour = blob_colour(blob_id)
        if len(outline):
            cv2.drawContours(out, [outline], -1, colour, scale)
        cv2.rectangle(out, (x, y), (x + w - 1, y + h - 1), colour, 1)
        label = str(blob_id)
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, 0.4 * scale, scale)
        ty = max(th + 2, y - 2)
        cv2.rectangle(out, (x, ty - th - 2), (x + tw + 2, ty + 1), colour, -1)
        cv2.putText(out, label, (x + 1, ty - 1), cv2.FONT_HERSHEY_SIMPLEX, 0.4 * scale, (0, 0, 0), scale,
                    cv2.LINE_AA)


def _difference_mask(previous: np.ndarray | None, image: np.ndarray) -> np.ndarray:
    """255 where any channel changed by at least ``MASK_THRESHOLD`` since ``previous``."""
    if previous is None or previous.shape != image.shape:
        return np.zeros(image.shape[:2], np.uint8)
    diff = cv2.absdiff(previous, image).max(axis=2)
    return np.where(diff >= MASK_THRESHOLD, 255, 0).astype(np.uint8)
