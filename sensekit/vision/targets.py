"""What to track: a ``Target`` (a click, a box or a colour), parsed once and handed to
``VisionStage.track`` by whoever asks (an app's click or drag, ``--track-color``,
``--track-box``, ``--pick``, the browser panel).

As text: a click ``X,Y`` or a colour ``#RRGGBB`` (``--track-color``), or a box ``X,Y,W,H``
(``--track-box``), in pixels of the (mirrored) picture as shown (``target_from_text``); a
pixel ``X,Y`` in whole non-negative pixels (``--pick``, ``calibrate --pick-color``:
``parse_pixel``).
Used by ``sensekit events`` and by ``sensekit run`` (``sensekit.app.picking``). Bad text is a
``ConfigError`` naming the option and the value.

How a target is tracked is one rule, ``Target.method``: the ``tracker.method`` setting when it
names a method, else ``DEFAULT_METHOD`` by the target's kind (the colour model for a click or a
box, hsv for a colour). Every door (``VisionStage.track``) and ``ColorTracker`` itself follow it;
the ``tracker.method`` setting is left as the user set it (none by default).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sensekit.arg_types import check_fields
from sensekit.errors import ConfigError
from sensekit.vision.stages import parse_color

__all__ = ["Target", "Method", "DEFAULT_METHOD", "target_from_text", "parse_track_target", "parse_track_box",
           "check_track_box", "parse_pixel"]


#: how a colour tracker tracks: the book's exact colour, a colour within a tolerance, or the
#: object/surround colour model learnt from a click or a box
Method = Literal["exact", "hsv", "model"]
#: how each kind of target is tracked when the ``tracker.method`` setting names no method
DEFAULT_METHOD: dict[str, Method] = {"click": "model", "box": "model", "color": "hsv", "resize": "model"}


@dataclass(frozen=True)
class Target:
    """What to track. ``kind`` ``"click"``: ``point`` (x, y) and, when the asker read it, the
    colour under the pointer as the user saw it (``bgr``); ``"box"``: ``box`` (x, y, w, h);
    ``"color"``: ``color`` (``0xRRGGBB``); ``"resize"``: ``step`` +1 / -1, the last click's
    next larger / smaller box (``sensekit.vision.click_pool``). Pixels of the picture as shown
    (mirrored if the stage mirrors). Build with ``Target.click``, ``Target.region``,
    ``Target.colour``, ``Target.grow`` or ``Target.shrink``. A click on the spot of the last
    click (``VisionStage.AGAIN_PX``) takes that click's next guess of another size."""
    kind: Literal["click", "box", "color", "resize"]
    point: tuple[float, float] | None = None
    box: tuple[float, float, float, float] | None = None
    color: int | None = None
    bgr: tuple[int, int, int] | None = None
    step: int = 0

    def __post_init__(self) -> None:
        check_fields(self)          # Target(kind="box", box=5): one TypeError naming `box` (arg_types)

    @classmethod
    def grow(cls) -> Target:
        """The last click's next larger box (``click_pool``: the mouse wheel, ``+``)."""
        return cls("resize", step=1)

    @classmethod
    def shrink(cls) -> Target:
        """The last click's next smaller box (the mouse wheel, ``-``)."""
        return cls("resize", step=-1)

    @classmethod
    def click(cls, x: float, y: float, bgr: tuple[int, int, int] | None = None) -> Target:
        """A click at pixel ``x, y``; ``bgr``: the colour the user saw there, when read."""
        return cls("click", point=(float(x), float(y)), bgr=bgr)

    @classmethod
    def region(cls, box: tuple[float, float, float, float]) -> Target:
        """A box ``x, y, w, h`` in pixels."""
        x, y, w, h = (float(v) for v in box)
        return cls("box", box=(x, y, w, h))

    @classmethod
    def colour(cls, color: int | str) -> Target:
        """A colour: ``0xRRGGBB``, or ``"#RRGGBB"`` text (``parse_color``)."""
        return cls("color", color=parse_color(color))

    def method(self, setting: str | None = None) -> Method:
        """How this target is tracked, given the ``tracker.method`` setting (``None``: the kind's
        ``DEFAULT_METHOD``). ``ConfigError`` for a method it cannot be tracked by: a colour by the
        model (it learns from a click or a box), a box by a colour (exact or hsv)."""
        if setting is None or self.kind == "resize":      # a resize: a box of the click's pool
            return DEFAULT_METHOD[self.kind]
        if setting not in ("exact", "hsv", "model"):
            raise ConfigError(f"method must be exact, hsv or model, got {setting!r}")
        if self.kind == "color" and setting == "model":
            raise ConfigError("--track-method model needs a click point X,Y or a box, not a colour "
                              "(`tracker.method` is model)")
        if self.kind == "box" and setting != "model":
            raise ConfigError(f"--track-box starts the colour model; --track-method must be model or none "
                              f"(`tracker.method` is {setting})")
        return setting  # type: ignore[return-value]

    def check_inside(self, size: tuple[int, int] | None) -> None:
        """A click or box must lie inside a frame of ``size`` (w, h) when the size is known (the
        message names the option that gives them: ``--track-color X,Y``, ``--track-box``)."""
        if size is None:
            return
        if self.point is not None:
            x, y = self.point
            if not (0 <= x < size[0] and 0 <= y < size[1]):
                raise ConfigError(f"--track-color {x:g},{y:g} is outside the {size[0]}x{size[1]} frame")
        if self.box is not None:
            check_track_box(self.box, size)


def target_from_text(track_color: str | None = None, track_box: str | None = None) -> Target | None:
    """``--track-color X,Y|#RRGGBB`` or ``--track-box X,Y,W,H`` as a ``Target`` (``None`` for
    neither; both is an error)."""
    if track_color and track_box:
        raise ConfigError("give --track-color or --track-box, not both")
    if track_box:
        return Target.region(parse_track_box(track_box))
    if track_color:
        t = parse_track_target(track_color)
        return Target.click(*t) if isinstance(t, tuple) else Target("color", color=t)
    return None


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


def parse_pixel(text: str, *, option: str) -> tuple[int, int]:
    """``"X,Y"`` -> ``(X, Y)``, whole non-negative pixels; ``ConfigError`` naming ``option``."""
    try:
        x, y = (int(part) for part in text.split(","))
    except ValueError:
        raise ConfigError(f"{option} must be X,Y in whole pixels, got {text!r}") from None
    if x < 0 or y < 0:
        raise ConfigError(f"{option} must be non-negative pixels, got {text!r}")
    return x, y


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
