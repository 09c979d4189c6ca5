"""What to track, as text: a click ``X,Y`` or a colour ``#RRGGBB`` (``--track-color``), or a
box ``X,Y,W,H`` (``--track-box``), in pixels of the (mirrored) picture as shown.

Used by ``sensekit events`` and by ``sensekit run`` (``sensekit.app.picking``). Bad text is a
``ConfigError`` naming the option and the value.
"""
from __future__ import annotations

from sensekit.errors import ConfigError
from sensekit.vision.stages import parse_color

__all__ = ["parse_track_target", "parse_track_box", "check_track_box"]


def parse_track_target(text: str) -> tuple[float, float] | int:
    """``"X,Y"`` -> a click point; ``"#RRGGBB"`` -> a colour."""
    s = text.strip()
    if "," in s:
        parts = s.split(",")
        try:
            x, y = (float(p) for p in parts)
        except ValueError:
            raise ConfigError(f"--track-color must be X,Y or #RRGGBB, got {text!r}") from None
        return (x, y)
    try:
        return parse_color(s)
    except ConfigError:
        raise ConfigError(f"--track-color must be X,Y or #RRGGBB, got {text!r}") from None


def parse_track_box(text: str) -> tuple[float, float, float, float]:
    """``"X,Y,W,H"`` (pixels) -> a box; width and height at least 2."""
    parts = [p for p in text.replace(" ", "").split(",") if p]
    try:
        x, y, w, h = (float(p) for p in parts)
    except ValueError:
        raise ConfigError(f"--track-box must be X,Y,W,H in pixels, got {text!r}") from None
    if w < 2 or h < 2 or x < 0 or y < 0:
        raise ConfigError(f"--track-box {text!r} needs x, y >= 0 and a width and height of at least 2 px")
    return (x, y, w, h)


def check_track_box(box: tuple[float, float, float, float], size: tuple[int, int] | None) -> None:
    """A box must lie inside a frame of ``size`` (w, h) when the size is known."""
    x, y, w, h = box
    if size is not None and (x + w > size[0] or y + h > size[1]):
        raise ConfigError(f"--track-box {x:g},{y:g},{w:g},{h:g} is not inside the {size[0]}x{size[1]} frame")
