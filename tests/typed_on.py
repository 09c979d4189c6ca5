"""Helpers of the tests that ``on`` is typed by event name (``tests/test_dispatch_typed.py``,
``tests/apps/test_subscribe.py``): the overloads' table, and ``mypy --strict`` on a user's file."""
from __future__ import annotations

import typing
from pathlib import Path
from typing import Any, Callable

import sensekit.events


def _literal_overloads(on: Callable[..., Any]) -> list[tuple[str, Any]]:
    """(event name, what its handler takes) of each literal-name overload of ``on``, in order."""
    out = []
    for fn in typing.get_overloads(on):
        hints = typing.get_type_hints(fn, globalns=vars(sensekit.events))
        if typing.get_origin(hints["name"]) is typing.Literal:
            (name,) = typing.get_args(hints["name"])
            params, _ = typing.get_args(hints["handler"])
            out.append((name, params[0]))
    return out


def named_overloads(on: Callable[..., Any]) -> dict[str, type]:
    """Event name -> the class its overload's handler takes (the literal-name overloads of ``on``)."""
    out: dict[str, type] = {}
    for name, takes in _literal_overloads(on):
        if isinstance(takes, typing.TypeVar):
            continue                           # the next one: a handler of another class
        assert name not in out, f"two overloads for {name!r}"
        out[name] = takes
    return out


def wrong_class_overloads(on: Callable[..., Any]) -> list[str]:
    """The names whose overload right after their own takes a handler of any other event class
    (and gives ``HandlerOfAnotherEvent``, which ``mypy --strict`` refuses to leave unused)."""
    pairs = _literal_overloads(on)
    return [name for (name, takes), (before, own) in zip(pairs[1:], pairs) if isinstance(takes, typing.TypeVar)
            and before == name and not isinstance(own, typing.TypeVar)]


#: lines a user writes, each with whether ``mypy --strict`` must report an error on it: a handler
#: of another event's class under a known name is refused; its own class, a loop over names, ``"*"``
#: and a custom event's name (any class) are not
ON_CASES: list[tuple[str, bool]] = [
    ("d.on('clap', on_clap)", False),
    ("d.on('clap', on_level)", True),
    ("d.on('level', lambda e: print(e.level))", False),
    ("d.on('clap', lambda e: print(e.level))", True),
    ("d.on('mine', on_mine)", False),
    ("d.on('*', on_level)", False),
    ("d.on(some_name, on_level)", False),
    ("for name in ('clap', 'level'): d.on(name, lambda e: print(e.t))", False),
    ("d.off('clap', d.on('clap', on_level))", True),
    ("App().on('clap', on_level)", True),
    ("App().on('level', on_level)", False),
]
ON_CASES_HEAD = """\
from dataclasses import dataclass
from typing import ClassVar

from sensekit.app.subscribe import Subscriber
from sensekit.events import Clap, Dispatcher, Event, Level, register


@register
@dataclass(frozen=True, slots=True)
class Mine(Event):
    name: ClassVar[str] = "mine"


class App(Subscriber):
    pass


def on_clap(e: Clap) -> None: ...
def on_level(e: Level) -> None: ...
def on_mine(e: Mine) -> None: ...


d = Dispatcher()
some_name: str = 'level'
"""


def mypy_strict(tmp_path: Path, code: str) -> tuple[str, str, int]:
    """``mypy --strict`` on ``code`` written as ``tmp_path/mine.py`` (no cache kept): stdout, stderr, status."""
    from mypy import api

    (tmp_path / "mine.py").write_text(code)
    return api.run(["--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"),
                    str(tmp_path / "mine.py")])
