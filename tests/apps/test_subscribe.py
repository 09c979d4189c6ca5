"""``App.on`` is typed by event name: one overload per event, each with the event's own class."""
from __future__ import annotations

import typing

import pytest

from sensekit.app.subscribe import Subscriber
from sensekit.errors import ConfigError
from sensekit.events import EVENT_TYPES, Dispatcher, Level
from tests.typed_on import mypy_strict, named_overloads, wrong_class_overloads


def test_every_event_has_one_overload_with_its_own_class():
    named = named_overloads(Subscriber.on)
    assert named == dict(EVENT_TYPES)
    assert sorted(wrong_class_overloads(Subscriber.on)) == sorted(EVENT_TYPES)   # then one for another class
    assert len(typing.get_overloads(Subscriber.on)) == 2 * len(EVENT_TYPES) + 1     # and one for any name


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


def test_app_on_and_dispatcher_on_share_one_overload_list():
    """The overloads are written once (``events.TypedOn``): a new event gets its overload in one
    place, and ``App.on`` and ``Dispatcher.on`` cannot drift apart."""
    assert Subscriber.on is Dispatcher.on
    assert typing.get_overloads(Subscriber.on) == typing.get_overloads(Dispatcher.on)


@pytest.mark.heavy
def test_an_app_s_handlers_keep_their_event_types_under_mypy_strict(tmp_path):
    """Through the shared overloads an app's ``self.on`` still gives each name its own class:
    ``e.hz`` of a pitch passes, of a clap it does not (with only the any-name overload both
    would fail)."""

    code = (
        "from sensekit.app.subscribe import Subscriber\n\n\n"
        "class Mine(Subscriber):\n"
        "    def start(self) -> None:\n"
        "        self.on('pitch', lambda e: print(e.hz))\n"
        "        self.on('clap', lambda e: print(e.hz))\n")
    out, err, status = mypy_strict(tmp_path, code)
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert status == 1 and [line.split(":")[1] for line in errors] == ["7"], out + err
    assert 'has no attribute "hz"' in errors[0], out
