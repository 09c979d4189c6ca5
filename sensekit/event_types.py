"""Every event record: a small frozen dataclass per event type, registered by its ``name``.

All event types live in this one module, so the catalogue (and the OSC address scheme derived
from it) is in one place; ``sensekit.events`` re-exports every one of them with the dispatcher,
so import them from there. ``Event``, ``EVENT_TYPES`` and the JSON lines are in
``sensekit.event_base``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from sensekit.event_base import Box, Event, register

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
