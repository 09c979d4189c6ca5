"""What an audio stage shows of its last block: the level and the level graph's lines.

An audio stage with something to show implements ``TraceSource``, as a vision stage implements
``sensekit.vision.shapes.LayerSource``: ``lines_offered()`` names the horizontal lines it can
draw under the level, and ``trace(index)`` returns what it measured on audio block ``index``,
if that is the last block it processed (a lazy stage skipped on a block shows nothing, so an
old level never stands for a new block). The browser panel's level graph draws only these;
it never reads a stage's attributes.

Lines are in the level's units (0..100): ``"activity threshold"`` (``activity.silence_level``),
``"clap min level"`` (``clap.min_level``), ``"noise floor"`` (the floor in use, once learnt).
Cost: a small frozen dataclass per call; nothing is copied.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

__all__ = ["LevelLine", "LevelTrace", "TraceSource", "ACTIVITY_LINE", "CLAP_LINE", "FLOOR_LINE"]

ACTIVITY_LINE = "activity threshold"
CLAP_LINE = "clap min level"
FLOOR_LINE = "noise floor"


@dataclass(frozen=True)
class LevelLine:
    """A horizontal line of the level graph: its name and its level (0..100)."""
    name: str
    level: float


@dataclass(frozen=True)
class LevelTrace:
    """What a stage measured on one audio block: the block's time and level, and the lines."""
    t: float
    level: float
    lines: tuple[LevelLine, ...] = ()

    def line_levels(self) -> dict[str, float]:
        """``{name: level}`` of the lines, in order."""
        return {line.name: line.level for line in self.lines}


@runtime_checkable
class TraceSource(Protocol):
    """An audio stage that shows its level and the lines it judges it by."""

    def lines_offered(self) -> frozenset[str]:
        """The line names this stage can draw (its detectors')."""
        ...

    def trace(self, index: int) -> LevelTrace | None:
        """What the stage measured on audio block ``index``; ``None`` unless that is the last
        block it processed."""
        ...
