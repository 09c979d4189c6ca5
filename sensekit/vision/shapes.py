"""The typed layers a stage shows of its last frame: pictures, masks and shapes.

A vision stage that has something to show implements ``LayerSource``: ``layers(index)`` returns
what it made of frame ``index`` (if it processed that frame last), as the values below, and ``offers()`` names the
overlays it can ever fill (for the panel's toggles). ``sensekit.vision.layers`` collects them
for the pygame overlays and the browser panel; neither reads a stage's attributes.

Every layer has a ``name``: the overlay it belongs to (``"mask"``, ``"edges"``, ``"palette"``,
``"region"``, ``"box"``, ``"zones"``, ``"blobs"``, ``"hands"``, ``"pose"``) or ``"frame"`` (the
picture the sub-stages saw: mirrored when the stage mirrors). Pictures and masks may be the
stage's reused buffers: valid until its next frame (``Layers.copy()`` snapshots them).
Coordinates are pixels of that picture; ``id`` groups the shapes of one tracked thing (its
colour when drawn). A ``Recipe`` says how to compute, for a stage's own settings, the raster
overlays it did not make on this frame.

Cost: building the list is a few tuples per frame, no pixel is copied.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

import numpy as np

from sensekit.events import Box
from sensekit.vision.stages import EDGE_THRESHOLD

__all__ = ["Box", "ImageLayer", "MaskLayer", "BoxShape", "ContourShape", "PointsShape", "TextShape",
           "Shape", "Layer", "Recipe", "LayerSource", "HasRecipe"]



@dataclass(frozen=True)
class ImageLayer:
    """A picture the size of the frame: BGR HxWx3, or an HxW / HxWx3 strength map (``edges``)."""
    name: str
    image: np.ndarray


@dataclass(frozen=True)
class MaskLayer:
    """HxW, non-zero = on (the motion mask, the tracked colour's region)."""
    name: str
    mask: np.ndarray


@dataclass(frozen=True)
class BoxShape:
    """A box (x, y, w, h); ``label`` written above it when drawn (a zone's name, a blob's id)."""
    name: str
    box: Box
    label: str = ""
    id: int | None = None


@dataclass(frozen=True)
class ContourShape:
    """An outline: int32 points (N, 1, 2), OpenCV's contour layout."""
    name: str
    points: np.ndarray
    id: int | None = None


@dataclass(frozen=True)
class PointsShape:
    """Points (N, 2) float, drawn as dots; ``links`` pairs of indices drawn as lines (a skeleton)."""
    name: str
    points: np.ndarray
    links: tuple[tuple[int, int], ...] = ()
    id: int | None = None


@dataclass(frozen=True)
class TextShape:
    """A short text at (x, y), its baseline's left end (a gesture's name)."""
    name: str
    text: str
    at: tuple[int, int]
    id: int | None = None


Shape = BoxShape | ContourShape | PointsShape | TextShape
Layer = ImageLayer | MaskLayer | Shape


@dataclass(frozen=True)
class Recipe:
    """How to compute what a stage did not make itself, by its own settings: the palette's
    levels and spread (``stages.palette_lut``) and the edge map's options
    (``sensekit.vision.stages.edges``)."""
    levels: int | None = None
    palette_spread: bool = False
    edge_direction: Literal["horizontal", "any"] = "horizontal"
    edge_blur_px: int = 3
    edge_threshold: int = EDGE_THRESHOLD


@runtime_checkable
class LayerSource(Protocol):
    """A stage that shows its intermediate results."""

    def offers(self) -> frozenset[str]:
        """The overlay names this stage can fill (whatever ran on the last frame)."""
        ...

    def layers(self, index: int) -> list[Layer]:
        """What the stage made of frame ``index``: nothing drawn from a frame's results unless
        that is the last frame it processed (a lazy stage skipped on a frame shows nothing)."""
        ...


@runtime_checkable
class HasRecipe(Protocol):
    def recipe(self) -> Recipe:
        ...
