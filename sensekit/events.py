"""Typed event records, the dispatcher, and JSON-lines serialization.

Every event is a small frozen dataclass with a time ``t`` in seconds from the
start of its source. Each type has a registered ``name`` (``"clap"``,
``"color_tracked"``...). All event types live in one module, ``sensekit.event_types``, so the
catalogue (and the OSC address scheme derived from it) is in one place; they are re-exported here.

``Dispatcher.on(name, handler)`` rejects an unknown name when the handler is
attached, not when an event fires. It is typed by event name, as ``App.on`` is: in
``dispatcher.on("clap", lambda e: ...)`` mypy knows ``e`` is a ``Clap``, and a handler may take
its event's own class (``def on_clap(event: Clap)``), not another's (``on("clap", on_level)`` is a
mypy error). A handler that returns ``True`` stops the
event reaching later handlers. ``Dispatcher.version`` counts the changes of the
subscriptions; the runner compares it before every item and tells the stages
which of their events are wanted (``Runner``, ``Stage.listen``).

``to_jsonl(event)`` gives one line with sorted keys, floats rounded to 6
decimals and tuples as lists: logs diff cleanly and golden tests are stable. ``Event``, the
table ``EVENT_TYPES`` and the JSON lines are defined in ``sensekit.event_base`` and re-exported
here (with the records and the ``on`` overloads this module would pass 600 lines).
"""
from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, Callable, Iterable, Literal, TypeVar, cast, overload

from sensekit.errors import ConfigError
from sensekit.event_base import EVENT_TYPES as EVENT_TYPES, Box as Box, Event as Event, register as register
from sensekit.event_base import from_jsonl as from_jsonl, to_jsonl as to_jsonl, JsonlWriter as JsonlWriter
from sensekit.event_types import (Activity as Activity, ArmsUp as ArmsUp, AudioBlockSeen as AudioBlockSeen,
    BlobEnter as BlobEnter, BlobInfo as BlobInfo, BlobLeave as BlobLeave, Blobs as Blobs, Clap as Clap,
    ClapPattern as ClapPattern, ColorBounds as ColorBounds, ColorFound as ColorFound, ColorLost as ColorLost,
    ColorTracked as ColorTracked, Crouch as Crouch, Edges as Edges, FrameSeen as FrameSeen, Gesture as Gesture,
    Hand as Hand, HandLost as HandLost, Jump as Jump, Landmark as Landmark, Lean as Lean, Level as Level,
    Motion as Motion, Pinch as Pinch, Pitch as Pitch, Pose as Pose, PoseLandmark as PoseLandmark,
    PoseLost as PoseLost, Sound as Sound, SourceLost as SourceLost, SourceRestored as SourceRestored, Step as Step,
    Still as Still, Word as Word, ZoneEnter as ZoneEnter, ZoneLeave as ZoneLeave)
from sensekit.safe_read import short

# --- dispatch ---------------------------------------------------------------

Handler = Callable[[Event], "bool | None"]

#: the event class of a handler attached under a name that is not a literal
E = TypeVar("E", bound=Event)
#: the class a handler takes that its known event name does not send (``on("clap", on_level)``)
_W = TypeVar("_W", bound=Event)


class HandlerOfAnotherEvent:
    """Never made: what mypy says ``on(name, handler)`` returns when ``name`` is a known event's and
    ``handler`` takes another event's class. A coroutine left unused is an error under ``mypy
    --strict`` (``Value of type "Coroutine[Any, Any, HandlerOfAnotherEvent]" must be used``), and
    kept, it is no ``Handler`` for ``off``; at run time ``on`` returns the handler as always."""


_WrongClass = Coroutine[Any, Any, HandlerOfAnotherEvent]


class TypedOn:
    """``on(name, handler)`` typed by event name, for ``Dispatcher`` and ``App``
    (``sensekit.app.subscribe``) alike: one overload per event, the handler taking that event's
    class (``tests/test_dispatch_typed.py`` keeps the list complete and right), then one that
    takes a handler of any other event class and gives it away (``HandlerOfAnotherEvent``); a
    name that is not a literal (a loop over names, ``"*"``, a custom event's) takes a handler of
    any event class. A subclass attaches the handler in ``_attach``."""

    @overload
    def on(self, name: Literal["activity"], handler: Callable[[Activity], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["activity"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["arms_up"], handler: Callable[[ArmsUp], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["arms_up"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["audio_block"], handler: Callable[[AudioBlockSeen], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["audio_block"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["blob_enter"], handler: Callable[[BlobEnter], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["blob_enter"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["blob_leave"], handler: Callable[[BlobLeave], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["blob_leave"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["blobs"], handler: Callable[[Blobs], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["blobs"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["clap"], handler: Callable[[Clap], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["clap"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["clap_pattern"], handler: Callable[[ClapPattern], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["clap_pattern"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["color_bounds"], handler: Callable[[ColorBounds], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["color_bounds"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["color_found"], handler: Callable[[ColorFound], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["color_found"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["color_lost"], handler: Callable[[ColorLost], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["color_lost"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["color_tracked"], handler: Callable[[ColorTracked], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["color_tracked"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["crouch"], handler: Callable[[Crouch], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["crouch"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["edges"], handler: Callable[[Edges], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["edges"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["frame"], handler: Callable[[FrameSeen], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["frame"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["gesture"], handler: Callable[[Gesture], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["gesture"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["hand"], handler: Callable[[Hand], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["hand"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["hand_lost"], handler: Callable[[HandLost], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["hand_lost"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["jump"], handler: Callable[[Jump], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["jump"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["lean"], handler: Callable[[Lean], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["lean"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["level"], handler: Callable[[Level], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["level"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["motion"], handler: Callable[[Motion], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["motion"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["pinch"], handler: Callable[[Pinch], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["pinch"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["pitch"], handler: Callable[[Pitch], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["pitch"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["pose"], handler: Callable[[Pose], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["pose"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["pose_lost"], handler: Callable[[PoseLost], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["pose_lost"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["sound"], handler: Callable[[Sound], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["sound"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["step"], handler: Callable[[Step], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["step"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["source_lost"], handler: Callable[[SourceLost], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["source_lost"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["source_restored"], handler: Callable[[SourceRestored], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["source_restored"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["still"], handler: Callable[[Still], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["still"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["word"], handler: Callable[[Word], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["word"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["zone_enter"], handler: Callable[[ZoneEnter], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["zone_enter"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: Literal["zone_leave"], handler: Callable[[ZoneLeave], Any]) -> Handler: ...
    @overload
    def on(self, name: Literal["zone_leave"], handler: Callable[[_W], Any]) -> _WrongClass: ...  # type: ignore[overload-overlap]
    @overload
    def on(self, name: str, handler: Callable[[E], Any]) -> Handler: ...

    def on(self, name: str, handler: Callable[[E], Any]) -> Handler | _WrongClass:
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
