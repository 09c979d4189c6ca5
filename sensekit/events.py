"""Typed event records, the dispatcher, and JSON-lines serialization.

Every event is a small frozen dataclass with a time ``t`` in seconds from the
start of its source. Each type has a registered ``name`` (``"clap"``,
``"color_tracked"``...). All event types live in this one module, so the catalogue
(and the OSC address scheme derived from it) is in one place.

``Dispatcher.on(name, handler)`` rejects an unknown name when the handler is
attached, not when an event fires. It is typed by event name, as ``App.on`` is: in
``dispatcher.on("clap", lambda e: ...)`` mypy knows ``e`` is a ``Clap``, and a handler may take
its event's own class (``def on_clap(event: Clap)``). A handler that returns ``True`` stops the
event reaching later handlers. ``Dispatcher.version`` counts the changes of the
subscriptions; the runner compares it before every item and tells the stages
which of their events are wanted (``Runner``, ``Stage.listen``).

``to_jsonl(event)`` gives one line with sorted keys, floats rounded to 6
decimals and tuples as lists: logs diff cleanly and golden tests are stable. ``Event``, the
table ``EVENT_TYPES`` and the JSON lines are defined in ``sensekit.event_base`` and re-exported
here (this module would pass 600 lines with them and the ``on`` overloads).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterable, Literal, TypeVar, cast, overload

from sensekit.errors import ConfigError
from sensekit.event_base import EVENT_TYPES as EVENT_TYPES, Box as Box, Event as Event, register as register
from sensekit.event_base import from_jsonl as from_jsonl, to_jsonl as to_jsonl, JsonlWriter as JsonlWriter
from sensekit.safe_read import short

# --- foundation -------------------------------------------------------------


@register
@dataclass(frozen=True, slots=True)
class FrameSeen(Event):
    """One record per video frame: makes replay determinism visible."""
    name: ClassVar[str] = "frame"
    index: int = 0
    width: int = 0
    height: int = 0
    checksum: str = ""


@register
@dataclass(frozen=True, slots=True)
class AudioBlockSeen(Event):
    """One record per audio block: makes replay determinism visible."""
    name: ClassVar[str] = "audio_block"
    index: int = 0
    samples: int = 0
    rate: int = 0
    checksum: str = ""


@register
@dataclass(frozen=True, slots=True)
class SourceLost(Event):
    """A live camera or microphone stopped delivering (unplugged, no frames): ``source`` names
    it, ``reason`` says what was seen; the source tries to reconnect."""
    name: ClassVar[str] = "source_lost"
    source: str = ""
    reason: str = ""


@register
@dataclass(frozen=True, slots=True)
class SourceRestored(Event):
    """A lost live source delivers again."""
    name: ClassVar[str] = "source_restored"
    source: str = ""


# --- vision -----------------------------------------------------------------

@register
@dataclass(frozen=True, slots=True)
class ColorTracked(Event):
    """The tracked colour's blob this frame (smoothed centre)."""
    name: ClassVar[str] = "color_tracked"
    box: Box = (0, 0, 0, 0)            # largest blob
    union_box: Box = (0, 0, 0, 0)      # all matching pixels, as getColorBoundsRect
    cx: float = 0.0                    # centre, pixels
    cy: float = 0.0
    nx: float = 0.0                    # centre, 0..1 of width/height
    ny: float = 0.0
    area_px: int = 0
    confidence: float = 0.0


@register
@dataclass(frozen=True, slots=True)
class ColorLost(Event):
    """The tracked colour or object is no longer seen (after ``tracker.lost_after_frames``)."""
    name: ClassVar[str] = "color_lost"


@register
@dataclass(frozen=True, slots=True)
class ColorFound(Event):
    """The colour is seen again after being lost."""
    name: ClassVar[str] = "color_found"
    cx: float = 0.0
    cy: float = 0.0


@register
@dataclass(frozen=True, slots=True)
class Motion(Event):
    """Something moves: the box around the moving pixels, the moving share of the frame and of
    each zone."""
    name: ClassVar[str] = "motion"
    box: Box = (0, 0, 0, 0)
    amount: float = 0.0                # fraction of pixels moving, 0..1
    zones: dict[str, float] = field(default_factory=dict)   # zone name -> amount 0..1


@register
@dataclass(frozen=True, slots=True)
class Still(Event):
    """Motion has stopped."""
    name: ClassVar[str] = "still"


@register
@dataclass(frozen=True, slots=True)
class ColorBounds(Event):
    """The book's ``getColorBoundsRect``: the box of every pixel of one exact colour."""
    name: ClassVar[str] = "color_bounds"
    box: Box = (0, 0, 0, 0)            # (0, 0, 0, 0) when no pixel has the colour
    color: int = 0                     # 0xRRGGBB looked for (after quantization)


@register
@dataclass(frozen=True, slots=True)
class Edges(Event):
    """An edge map was computed; the map itself is ``VisionStage.edge_map``."""
    name: ClassVar[str] = "edges"
    nonzero: int = 0                   # non-zero values in the map (pixels x channels)
    fraction: float = 0.0              # nonzero / size of the map


@dataclass(frozen=True, slots=True)
class BlobInfo:
    """One blob of a ``blobs`` event (not an event itself): its id stays while it is in view."""
    id: int = 0
    box: Box = (0, 0, 0, 0)
    cx: float = 0.0                    # centroid of its mask pixels, pixels
    cy: float = 0.0
    area_px: int = 0
    vx: float = 0.0                    # velocity of the centroid, pixels per second
    vy: float = 0.0
    #: OSC type tags of ``osc_values()`` (``/sensekit/blob/<id>`` and inside ``/sensekit/blobs``)
    osc_tags: ClassVar[str] = "iiiiiffiff"

    def osc_values(self) -> tuple[Any, ...]:
        """The flat OSC arguments: id, x, y, w, h, cx, cy, area_px, vx, vy (``osc_types``)."""
        x, y, w, h = self.box
        return (self.id, x, y, w, h, self.cx, self.cy, self.area_px, self.vx, self.vy)


@register
@dataclass(frozen=True, slots=True)
class Blobs(Event):
    """Every frame of ``--blobs``: the blobs in view with their ids (``sensekit.vision.blob_tracker``)."""
    name: ClassVar[str] = "blobs"
    count: int = 0
    blobs: tuple[BlobInfo, ...] = ()

    @classmethod
    def parse_fields(cls, fields: dict[str, Any]) -> dict[str, Any]:
        """The blobs read from JSON (dicts) as ``BlobInfo`` records."""
        fields["blobs"] = tuple(b if isinstance(b, BlobInfo) else
                                BlobInfo(**{**b, "box": tuple(b.get("box", (0, 0, 0, 0)))})
                                for b in fields.get("blobs", ()))
        return fields


@register
@dataclass(frozen=True, slots=True)
class BlobEnter(Event):
    """A new blob, seen for ``blobs.confirm_frames`` frames: it has its id from now on."""
    name: ClassVar[str] = "blob_enter"
    id: int = 0
    box: Box = (0, 0, 0, 0)
    cx: float = 0.0
    cy: float = 0.0


@register
@dataclass(frozen=True, slots=True)
class BlobLeave(Event):
    """A blob unseen for ``blobs.max_missing_frames`` frames (where it was last seen)."""
    name: ClassVar[str] = "blob_leave"
    id: int = 0
    cx: float = 0.0
    cy: float = 0.0
    seconds: float = 0.0               # how long it was in view


@register
@dataclass(frozen=True, slots=True)
class ZoneEnter(Event):
    """A blob's centroid entered a motion zone."""
    name: ClassVar[str] = "zone_enter"
    zone: str = ""
    id: int = 0


@register
@dataclass(frozen=True, slots=True)
class ZoneLeave(Event):
    """A blob's centroid left a motion zone (or the blob left)."""
    name: ClassVar[str] = "zone_leave"
    zone: str = ""
    id: int = 0


# --- hands (sensekit/vision/hands.py; needs the `hands` extra) ----------------

Landmark = tuple[float, float, float]  # x, y pixels; z pixels (MediaPipe's relative depth x width)


@register
@dataclass(frozen=True, slots=True)
class Hand(Event):
    """One tracked hand on one frame. ``landmarks`` are MediaPipe's 21 points, in its order."""
    name: ClassVar[str] = "hand"
    id: int = 0                        # stable while the hand is tracked
    handedness: str = ""               # "left" | "right": the person's hand (see hands.py)
    score: float = 0.0                 # confidence of the handedness, 0..1
    gesture: str = "none"              # current gesture (hand_gestures.GESTURES or "none")
    box: Box = (0, 0, 0, 0)            # around the landmarks, pixels
    landmarks: tuple[Landmark, ...] = ()   # 21 x (x, y, z) pixels


@register
@dataclass(frozen=True, slots=True)
class Gesture(Event):
    """A hand's gesture changed (held long enough to count)."""
    name: ClassVar[str] = "gesture"
    id: int = 0
    gesture: str = "none"              # open_palm, fist, point, thumbs_up, thumbs_down, victory, ok, none,
    #                                    or a taught name (sensekit teach gesture)
    confidence: float = 1.0            # taught gestures: share of the nearest examples that agree


@register
@dataclass(frozen=True, slots=True)
class Pinch(Event):
    """Thumb and index tips met (``pinching`` true) or parted (false), with hysteresis."""
    name: ClassVar[str] = "pinch"
    id: int = 0
    pinching: bool = False
    x: float = 0.0                     # midpoint of the two fingertips, pixels
    y: float = 0.0


@register
@dataclass(frozen=True, slots=True)
class HandLost(Event):
    """Hand ``id`` has not been seen for ``hands.lost_after_ms``; its id is forgotten."""
    name: ClassVar[str] = "hand_lost"
    id: int = 0


# --- body (sensekit/vision/pose.py; needs the `hands` extra) ------------------

PoseLandmark = tuple[float, float, float, float]  # x, y pixels; z pixels (relative depth); visibility 0..1


@register
@dataclass(frozen=True, slots=True)
class Pose(Event):
    """One person's pose on one frame. ``landmarks`` are MediaPipe Pose's 33 points, in its order."""
    name: ClassVar[str] = "pose"
    id: int = 0                        # stable while the person stays in view
    score: float = 0.0                 # mean visibility of the 33 points, 0..1
    box: Box = (0, 0, 0, 0)            # around the visible landmarks, pixels
    landmarks: tuple[PoseLandmark, ...] = ()   # 33 x (x, y, z, visibility)


@register
@dataclass(frozen=True, slots=True)
class PoseLost(Event):
    """Person ``id`` has not been seen for ``pose.lost_after_ms``; its id is forgotten."""
    name: ClassVar[str] = "pose_lost"
    id: int = 0


@register
@dataclass(frozen=True, slots=True)
class ArmsUp(Event):
    """Both wrists went above the head (``up`` true) or came down (false)."""
    name: ClassVar[str] = "arms_up"
    id: int = 0
    up: bool = False


@register
@dataclass(frozen=True, slots=True)
class Lean(Event):
    """The torso started leaning (``direction`` left/right in the image) or stood up again (none)."""
    name: ClassVar[str] = "lean"
    id: int = 0
    direction: str = "none"            # left | right | none
    angle_deg: float = 0.0             # torso from vertical, + towards the image's right


@register
@dataclass(frozen=True, slots=True)
class Crouch(Event):
    """Both knees bent (``crouching`` true) or straightened again (false)."""
    name: ClassVar[str] = "crouch"
    id: int = 0
    crouching: bool = False


@register
@dataclass(frozen=True, slots=True)
class Jump(Event):
    """A take-off: hips and feet rose quickly above where they rested."""
    name: ClassVar[str] = "jump"
    id: int = 0
    rise: float = 0.0                  # hip rise at take-off, torso lengths


@register
@dataclass(frozen=True, slots=True)
class Step(Event):
    """A person's feet (a visible ankle) went into a named zone (``inside`` true) or left it (false)."""
    name: ClassVar[str] = "step"
    id: int = 0
    zone: str = ""
    inside: bool = True


# --- audio ------------------------------------------------------------------

@register
@dataclass(frozen=True, slots=True)
class Level(Event):
    """Activity level of one audio block, 0..100."""
    name: ClassVar[str] = "level"
    level: float = 0.0


@register
@dataclass(frozen=True, slots=True)
class Activity(Event):
    """The level crossed the silence threshold (Flash's ActivityEvent)."""
    name: ClassVar[str] = "activity"
    activating: bool = False
    level: float = 0.0


@register
@dataclass(frozen=True, slots=True)
class Clap(Event):
    """A hand clap was heard, ``strength`` 0..1."""
    name: ClassVar[str] = "clap"
    strength: float = 0.0              # 0..1


@register
@dataclass(frozen=True, slots=True)
class ClapPattern(Event):
    """``count`` claps, each within the maximum gap of the previous one."""
    name: ClassVar[str] = "clap_pattern"
    count: int = 2
    times: tuple[float, ...] = ()


@register
@dataclass(frozen=True, slots=True)
class Pitch(Event):
    """The sung or whistled pitch of this stretch of audio (``hz`` 0 when unvoiced)."""
    name: ClassVar[str] = "pitch"
    hz: float = 0.0                    # 0 when unvoiced
    confidence: float = 0.0            # voicing confidence 0..1


@register
@dataclass(frozen=True, slots=True)
class Word(Event):
    """A listed command word was said (``sensekit.audio.words``, or a word taught from takes:
    ``sensekit.audio.taught_words``); ``t`` is when it was heard."""
    name: ClassVar[str] = "word"
    word: str = ""
    start: float = 0.0                 # the word's start and end in the source's seconds
    end: float = 0.0
    confidence: float = 0.0            # 0..1; 0.5 at the spotter's threshold, a taught word's probability


@register
@dataclass(frozen=True, slots=True)
class Sound(Event):
    """A taught sound was made (``sensekit.audio.sounds``); ``t`` is when it was heard."""
    name: ClassVar[str] = "sound"
    sound: str = ""
    start: float = 0.0
    end: float = 0.0
    confidence: float = 0.0            # 0..1; 0.5 at the acceptance distance


# --- dispatch ---------------------------------------------------------------

Handler = Callable[[Event], "bool | None"]

#: the event class of a handler attached under a name that is not a literal
E = TypeVar("E", bound=Event)


class TypedOn:
    """``on(name, handler)`` typed by event name, for ``Dispatcher`` and ``App``
    (``sensekit.app.subscribe``) alike: one overload per event, the handler taking that event's
    class (``tests/test_dispatch_typed.py`` keeps the list complete and right); a name that is
    not a literal (a loop over names, ``"*"``) takes a handler of any event class. A subclass
    attaches the handler in ``_attach``."""

    @overload
    def on(self, name: Literal["activity"], handler: Callable[[Activity], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["arms_up"], handler: Callable[[ArmsUp], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["audio_block"], handler: Callable[[AudioBlockSeen], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["blob_enter"], handler: Callable[[BlobEnter], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["blob_leave"], handler: Callable[[BlobLeave], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["blobs"], handler: Callable[[Blobs], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["clap"], handler: Callable[[Clap], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["clap_pattern"], handler: Callable[[ClapPattern], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["color_bounds"], handler: Callable[[ColorBounds], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["color_found"], handler: Callable[[ColorFound], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["color_lost"], handler: Callable[[ColorLost], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["color_tracked"], handler: Callable[[ColorTracked], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["crouch"], handler: Callable[[Crouch], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["edges"], handler: Callable[[Edges], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["frame"], handler: Callable[[FrameSeen], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["gesture"], handler: Callable[[Gesture], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["hand"], handler: Callable[[Hand], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["hand_lost"], handler: Callable[[HandLost], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["jump"], handler: Callable[[Jump], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["lean"], handler: Callable[[Lean], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["level"], handler: Callable[[Level], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["motion"], handler: Callable[[Motion], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["pinch"], handler: Callable[[Pinch], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["pitch"], handler: Callable[[Pitch], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["pose"], handler: Callable[[Pose], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["pose_lost"], handler: Callable[[PoseLost], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["sound"], handler: Callable[[Sound], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["step"], handler: Callable[[Step], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["source_lost"], handler: Callable[[SourceLost], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["source_restored"], handler: Callable[[SourceRestored], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["still"], handler: Callable[[Still], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["word"], handler: Callable[[Word], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["zone_enter"], handler: Callable[[ZoneEnter], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["zone_leave"], handler: Callable[[ZoneLeave], Any]) -> Handler: ...
    @overload
    def on(self, name: str, handler: Callable[[E], Any]) -> Handler: ...

    def on(self, name: str, handler: Callable[[E], Any]) -> Handler:
        """Attach ``handler`` to the event ``name`` (checked now, not when it fires); returns the
        handler as the dispatcher holds it (for ``off``)."""
        return self._attach(name, cast(Handler, handler))

    def _attach(self, name: str, handler: Handler) -> Handler:
        raise NotImplementedError


class Dispatcher(TypedOn):
    """Routes events to handlers by name; ``"*"`` receives every event.

    Handlers of one name run in the order they were attached, and one that returns ``True``
    stops the rest *of that name* (an app's key handler can consume a key). ``"*"`` handlers
    are observers (the JSON-lines log, OSC, the panel): they see every event, whatever the
    named handlers returned, so a log never misses what an app consumed.
    """

    def __init__(self) -> None:
        self._handlers: dict[str, list[Handler]] = {}
        #: bumped by every ``on``/``off``: who listens may have changed
        self.version = 0

    def _attach(self, name: str, handler: Handler) -> Handler:
        """``on``: call ``handler(event)`` for every event called ``name`` (``"*"``: every event,
        after the named handlers); an unknown name is a ``ConfigError`` now. Returns the handler."""
        if name != "*" and name not in EVENT_TYPES:
            from sensekit.suggest import close_matches, did_you_mean

            known = ", ".join(sorted(EVENT_TYPES))
            close = did_you_mean(close_matches(str(name), EVENT_TYPES))
            hint = f"; {close}" if close else ""
            raise ConfigError(f"unknown event name {name!r}{hint}; known events: {known}")
        if not callable(handler):          # on("level", self.hear()) passed what hear returned
            raise ConfigError(f"the handler for {name!r} must be a function that takes the event, got "
                              f"{short(handler)} (pass the method itself: self.hear, not self.hear())")
        self._handlers.setdefault(name, []).append(handler)
        self.version += 1
        return handler

    def off(self, name: str, handler: Callable[[Any], Any]) -> None:
        """Stop calling ``handler`` for ``name``."""
        self._handlers.get(name, []).remove(handler)
        self.version += 1

    def wanted(self, names: Iterable[str]) -> frozenset[str]:
        """The names among ``names`` that some handler listens to (all of them for ``"*"``)."""
        if self._handlers.get("*"):
            return frozenset(names)
        return frozenset(n for n in names if self._handlers.get(n))

    def wants(self, names: Iterable[str]) -> bool:
        """True if any handler listens to one of ``names`` (or to everything)."""
        if self._handlers.get("*"):
            return True
        return any(self._handlers.get(n) for n in names)

    def dispatch(self, event: Event) -> None:
        """Hand ``event`` to its handlers in the order attached (one that returns ``True`` stops
        it there), then to the ``"*"`` observers."""
        for handler in self._handlers.get(event.name, ()):
            if handler(event) is True:
                break
        for observer in self._handlers.get("*", ()):
            observer(event)
