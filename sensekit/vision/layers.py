"""What the detector sees, drawn over the camera picture: motion mask, edges, palette, colour region.

``LayerGrabber.grab(image, stages)`` collects, for one frame, what each stage shows of it: the
typed layers its ``layers()`` returns (``sensekit.vision.shapes``: the motion detector's mask,
the edge map, the palette-mapped frame, the colour tracker's region and box, each blob's
outline and box, the motion zones, hands and bodies as points) into one ``Layers``. Pictures
and masks are references into the stages' buffers; ``Layers.copy()`` makes a snapshot another
thread may keep. No stage attribute is read: a stage shows only what it returns.

``compose(layers, overlays)`` draws the chosen overlays over the picture and returns a new BGR
image (``OVERLAYS``: ``mask`` red, ``edges`` cyan on a dimmed picture, ``palette`` the
palette-mapped frame, ``region`` the tracked colour's pixels in yellow, ``blobs``, ``hands``,
``pose`` the shapes of each tracked thing in a colour of its own id; ``silhouette`` the person
mask of the silhouette stage in green, offered only when one runs). A raster overlay no
stage made here is computed from the picture with the same library functions (``edges()``,
``palette_lut()``, a frame difference for the mask; by the stage's ``Recipe``;
``Layers.computed`` says which), so every app can show all of them. ``box`` and ``zones`` are
not drawn here: the panel draws them as vectors from ``Layers.box`` / ``Layers.zones``. The
app host (keys ``m``/``e``/``p``) and the browser panel both draw with it; ``offered(stages)``
names what is worth offering.

Cost: grabbing is one ``layers()`` call per stage; composing one 320x240 frame with every
overlay is about 1 ms (OpenCV calls on the whole frame). Failure modes: none on good frames;
layers of another size than the picture are ignored.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol, runtime_checkable

import cv2
import numpy as np

from sensekit.events import Box
from sensekit.vision.shapes import (BoxShape, ContourShape, HasRecipe, ImageLayer, Layer, LayerSource, MaskLayer,
                                    PointsShape, Recipe, Shape, TextShape)
from sensekit.vision.stages import edges, palette_lut

__all__ = ["DEFAULT_LEVELS", "MASK_THRESHOLD", "OVERLAYS", "LayerGrabber", "Layers", "compose", "offered",
           "draw_shapes", "blob_colour", "ShowsPoses"]

OVERLAYS: tuple[str, ...] = ("mask", "edges", "palette", "region", "blobs", "hands", "pose", "silhouette")
#: the overlays a stage may fill with shapes (drawn by ``compose``; ``box``/``zones`` are the panel's)
SHAPE_OVERLAYS = frozenset({"blobs", "hands", "pose"})
#: raster overlays ``compose`` computes itself when no stage made them: always offered
COMPUTED = ("mask", "edges", "palette")
#: palette levels when no stage maps a palette (the book's 4)
DEFAULT_LEVELS = 4
#: frame difference that counts as motion when no motion detector runs (the book's 0x33)
MASK_THRESHOLD = 0x33

_RED = np.array([40, 40, 255], np.float32)
_CYAN = np.array([255, 230, 0], np.uint8)
_YELLOW = np.array([0, 220, 255], np.float32)
_WHITE = (255, 255, 255)
_GREEN = np.array([80, 230, 60], np.float32)


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
    #: the person mask of a silhouette stage (HxW, non-zero = a person)
    silhouette: np.ndarray | None = None
    #: the people posed on this frame: (id, landmarks (33, 4) x px, y px, z, visibility), for the
    #: panel, which draws the skeletons itself (it leaves out the points MediaPipe sees poorly)
    poses: list[tuple[int, np.ndarray]] = field(default_factory=list)
    #: the stages' shapes (boxes, outlines, points, text), in drawing order
    shapes: list[Layer] = field(default_factory=list)
    #: how to compute what no stage made (palette levels, edge options)
    recipe: Recipe = field(default_factory=Recipe)
    #: the previous picture (for a frame-difference mask when no motion detector runs)
    previous: np.ndarray | None = None
    #: overlays that ``compose`` had to compute itself (filled by ``compose``)
    computed: set[str] = field(default_factory=set)

    @property
    def box(self) -> Box | None:
        """The tracked object's box (pixels), when the tracker found it on this frame."""
        return next((s.box for s in self.shapes if isinstance(s, BoxShape) and s.name == "box"), None)

    @property
    def zones(self) -> dict[str, Box]:
        """The motion zones, pixels (the detector's own, left/right halves included)."""
        return {s.label: s.box for s in self.shapes if isinstance(s, BoxShape) and s.name == "zones"}

    def shapes_of(self, name: str) -> list[Layer]:
        return [s for s in self.shapes if s.name == name]

    def copy(self, overlays: Iterable[str] = OVERLAYS) -> Layers:
        """A snapshot that owns its arrays (only the ``overlays`` asked for are copied; the
        ``box`` and ``zones`` always, for the panel's header)."""
        want = set(overlays) | {"box", "zones"}

        def own(a: np.ndarray | None, name: str) -> np.ndarray | None:
            return None if a is None or name not in want else a.copy()

        return replace(self, image=self.image.copy(), mask=own(self.mask, "mask"),
                       edges=own(self.edges, "edges"), palette=own(self.palette, "palette"),
                       region=own(self.region, "region"), silhouette=own(self.silhouette, "silhouette"),
                       shapes=[_own_shape(s) for s in self.shapes if s.name in want], computed=set())


def _own_shape(shape: Layer) -> Layer:
    if isinstance(shape, ContourShape | PointsShape):
        return replace(shape, points=shape.points.copy())
    return shape


@runtime_checkable
class ShowsPoses(Protocol):
    """A stage that shows body skeletons (``PoseStage``): the panel draws them as vectors."""

    def skeletons(self, index: int) -> list[tuple[int, np.ndarray]]: ...


class LayerGrabber:
    """Collects ``Layers`` from a run's stages; remembers the previous picture."""

    def __init__(self) -> None:
        self._previous: np.ndarray | None = None

    def grab(self, image: np.ndarray, stages: Sequence[object], *, index: int = 0, t: float = 0.0,
             keep_previous: bool = False) -> Layers:
        """The layers of the frame ``image`` that the ``stages`` just processed.

        ``keep_previous=True`` keeps a copy of ``image`` for the next grab's fallback mask
        (only needed when no motion detector runs and someone shows the mask)."""
        layers = Layers(image=image, index=index, t=t, previous=self._previous)
        for stage in stages:
            if isinstance(stage, HasRecipe):
                layers.recipe = stage.recipe()
            if isinstance(stage, LayerSource):
                for layer in stage.layers(index):
                    _add(layers, layer)
            if isinstance(stage, ShowsPoses):
                layers.poses = [(int(i), np.array(p, copy=True)) for i, p in stage.skeletons(index)]
        self._previous = image.copy() if keep_previous and layers.mask is None else None
        return layers


def _add(layers: Layers, layer: Layer) -> None:
    """File one stage layer into ``layers``: pictures and masks by name, shapes in order."""
    if isinstance(layer, ImageLayer):
        if layer.name == "frame":
            if layer.image.shape == layers.image.shape:
                layers.image = layer.image                  # what the sub-stages saw
        elif layer.name == "edges":
            layers.edges = layer.image
        elif layer.name == "palette":
            layers.palette = layer.image
    elif isinstance(layer, MaskLayer):
        if layer.name == "mask":
            layers.mask = layer.mask
        elif layer.name == "region":
            layers.region = layer.mask
        elif layer.name == "silhouette":
            layers.silhouette = layer.mask
    else:
        layers.shapes.append(layer)


def offered(stages: Iterable[object]) -> list[str]:
    """The overlays worth offering for these stages: the raster ones always (computed when no
    stage makes them), and what a stage ``offers()`` (the tracked ``region`` and ``box``, the
    motion ``zones``, ``blobs``, ``hands``, ``pose``, ``silhouette``); nothing else, as it would draw nothing."""
    filled: set[str] = set(COMPUTED)
    for stage in stages:
        if isinstance(stage, LayerSource):
            filled |= stage.offers()
    names = [n for n in OVERLAYS if n in filled]
    return names + [n for n in ("box", "zones") if n in filled]


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
    out = _palette(layers) if "palette" in want else image.copy()
    if "edges" in want:
        strength = _edges(layers)
        out = cv2.convertScaleAbs(out, alpha=0.5)                # dim the picture
        out[strength > 0] = _CYAN
    if "mask" in want:
        m = layers.mask
        if not _fits(m, image) or m is None:
            m = _difference_mask(layers.previous, image)
            layers.computed.add("mask")
        _tint(out, m > 0, _RED, 0.6)
    if "region" in want and _fits(layers.region, image) and layers.region is not None:
        _tint(out, layers.region > 0, _YELLOW, 0.55)
    if "silhouette" in want and _fits(layers.silhouette, image) and layers.silhouette is not None:
        _tint(out, layers.silhouette > 0, _GREEN, 0.5)
    draw_shapes(out, [s for s in layers.shapes if s.name in want & SHAPE_OVERLAYS])
    return out


def _palette(layers: Layers) -> np.ndarray:
    """The stage's palette frame, or the picture through the recipe's palette (a new array)."""
    pal = layers.palette
    if not _fits(pal, layers.image) or pal is None or pal.ndim != 3:
        pal = cv2.LUT(layers.image, palette_lut(layers.recipe.levels or DEFAULT_LEVELS,
                                                spread=layers.recipe.palette_spread))
        layers.computed.add("palette")
    return pal.copy()


def _edges(layers: Layers) -> np.ndarray:
    """The edge strength (HxW): the stage's map, or one computed by the recipe."""
    e = layers.edges
    if not _fits(e, layers.image) or e is None:
        r = layers.recipe
        e = edges(layers.image, direction=r.edge_direction, blur_px=r.edge_blur_px, threshold_value=r.edge_threshold)
        layers.computed.add("edges")
    return e.max(axis=2) if e.ndim == 3 else e


def blob_colour(blob_id: int) -> tuple[int, int, int]:
    """A bright BGR colour of its own for each id (the same id, the same colour)."""
    hsv = np.array([[[(blob_id * 47) % 180, 200, 255]]], np.uint8)
    bgr = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    return int(bgr[0, 0, 0]), int(bgr[0, 0, 1]), int(bgr[0, 0, 2])


def draw_shapes(out: np.ndarray, shapes: Iterable[Layer]) -> None:
    """Draw ``shapes`` over ``out`` (BGR, in place), in order, each in its id's colour (white
    without one): outlines, boxes with their label on a tab, points and their links, text.
    Lines are one pixel per 320 of width."""
    scale = max(1, out.shape[1] // 320)
    for shape in shapes:
        if not isinstance(shape, Shape):
            continue
        colour = _WHITE if shape.id is None else blob_colour(shape.id)
        if isinstance(shape, ContourShape):
            if len(shape.points):
                cv2.drawContours(out, [shape.points], -1, colour, scale)
        elif isinstance(shape, BoxShape):
            _draw_box(out, shape, colour, scale)
        elif isinstance(shape, PointsShape):
            _draw_points(out, shape, colour, scale)
        elif isinstance(shape, TextShape):
            cv2.putText(out, shape.text, shape.at, cv2.FONT_HERSHEY_SIMPLEX, 0.4 * scale, colour, scale)


def _draw_box(out: np.ndarray, shape: BoxShape, colour: tuple[int, int, int], scale: int) -> None:
    x, y, w, h = shape.box
    cv2.rectangle(out, (x, y), (x + w - 1, y + h - 1), colour, 1)
    if not shape.label:
        return
    (tw, th), _ = cv2.getTextSize(shape.label, cv2.FONT_HERSHEY_SIMPLEX, 0.4 * scale, scale)
    ty = max(th + 2, y - 2)
    cv2.rectangle(out, (x, ty - th - 2), (x + tw + 2, ty + 1), colour, -1)
    cv2.putText(out, shape.label, (x + 1, ty - 1), cv2.FONT_HERSHEY_SIMPLEX, 0.4 * scale, (0, 0, 0), scale,
                cv2.LINE_AA)


def _draw_points(out: np.ndarray, shape: PointsShape, colour: tuple[int, int, int], scale: int) -> None:
    pts = np.round(shape.points).astype(np.int32)
    for a, b in shape.links:
        cv2.line(out, (int(pts[a, 0]), int(pts[a, 1])), (int(pts[b, 0]), int(pts[b, 1])), colour, scale)
    for x, y in pts:
        cv2.circle(out, (int(x), int(y)), 2 * scale, colour, -1)


def _difference_mask(previous: np.ndarray | None, image: np.ndarray) -> np.ndarray:
    """255 where any channel changed by at least ``MASK_THRESHOLD`` since ``previous``."""
    if previous is None or previous.shape != image.shape:
        return np.zeros(image.shape[:2], np.uint8)
    diff = cv2.absdiff(previous, image).max(axis=2)
    return np.where(diff >= MASK_THRESHOLD, 255, 0).astype(np.uint8)
