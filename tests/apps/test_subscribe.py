"""``App.on`` is typed by event name: one overload per event, each with the event's own class."""
from __future__ import annotations

import typing

import pytest

from sensekit.app.subscribe import Subscriber
from sensekit.errors import ConfigError
from sensekit.events import EVENT_TYPES, Dispatcher, Level


def _named_overloads() -> dict[str, type]:
    """Event name -> the class its overload's handler takes (the literal-name overloads)."""
    out: dict[str, type] = {}
    for fn in typing.get_overloads(Subscriber.on):
        hints = typing.get_type_hints(fn)
        if typing.get_origin(hints["name"]) is typing.Literal:
            (name,) = typing.get_args(hints["name"])
            params, _ = typing.get_args(hints["handler"])
            assert name not in out, f"two overloads for {name!r}"
            out[name] = params[0]
    return out


def test_every_event_has_one_overload_with_its_own_class():
    named = _named_overloads()
    assert named == dict(EVENT_TYPES)
    assert len(typing.get_overloads(Subscriber.on)) == len(EVENT_TYPES) + 1     # and one for any name


def test_on_attaches_to_the_dispatcher_and_checks_the_name_now():
    class Hosted(Subscriber):
        def __init__(self) -> None:
            self.dispatcher = Dispatcher()

        def _dispatcher(self) -> Dispatcher:
            return self.dispatcher

    app, heard = Hosted(), []
    handler = app.on("level", lambda e: heard.append(e.level))
    app.dispatcher.dispatch(Level(t=0.5, level=42.0))
    assert heard == [42.0]
    app.dispatcher.off("level", handler)
    app.dispatcher.dispatch(Level(t=0.6, level=7.0))
    assert heard == [42.0]
    with pytest.raises(ConfigError, match="unknown event name 'levle'; did you mean 'level'\\?; known events: "):
        app.on("levle", print)                    # the tutorial's typo gets its spelling
    with pytest.raises(ConfigError, match="unknown event name 'zzz'; known events: activity, "):
        app.on("zzz", print)
