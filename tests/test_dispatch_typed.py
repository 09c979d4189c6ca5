"""``Dispatcher.on`` is typed by event name, as ``App.on`` is: the README's ten lines
(``dispatcher.on("clap", lambda e: ... e.strength ...)``) pass ``mypy --strict`` in a user's
project, and a handler may take its event's own class. Before, ``on`` took a handler of
``Event``: mypy said '"Event" has no attribute "strength"' on the README's lambda and refused
``def on_clap(event: Clap)``."""
from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest

from sensekit.events import EVENT_TYPES, Clap, Dispatcher
from tests.typed_on import ON_CASES, ON_CASES_HEAD, mypy_strict, named_overloads, wrong_class_overloads

REPO = Path(__file__).resolve().parents[1]


def test_every_event_has_one_overload_with_its_own_class():
    assert named_overloads(Dispatcher.on) == dict(EVENT_TYPES)
    assert sorted(wrong_class_overloads(Dispatcher.on)) == sorted(EVENT_TYPES)   # then one for another class
    assert len(typing.get_overloads(Dispatcher.on)) == 2 * len(EVENT_TYPES) + 1     # and one for any name


def test_a_typed_handler_gets_its_events_and_off_takes_it_back():
    heard: list[float] = []

    def on_clap(event: Clap) -> None:
        heard.append(event.strength)

    d = Dispatcher()
    assert d.on("clap", on_clap) is on_clap
    d.dispatch(Clap(t=1.0, strength=0.5))
    d.off("clap", on_clap)
    d.dispatch(Clap(t=2.0, strength=0.7))
    assert heard == [0.5]


@pytest.mark.heavy
def test_the_readme_lines_and_a_typed_handler_pass_mypy_strict(tmp_path):

    readme = (REPO / "README.md").read_text()
    ten_lines = re.search(r"## The library in ten lines\n\n```python\n(.*?)```", readme, re.S)
    assert ten_lines is not None
    code = ten_lines.group(1) + (
        "from sensekit.events import Clap\n\n\n"
        "def on_clap(event: Clap) -> None:\n"
        "    print(event.strength)\n\n\n"
        "dispatcher.on('clap', on_clap)\n"
        "dispatcher.off('clap', on_clap)\n"
        "for name in ('clap', 'level'):\n"
        "    dispatcher.on(name, lambda e: print(e.t))\n")
    out, err, status = mypy_strict(tmp_path, code)
    assert status == 0, out + err


@pytest.mark.heavy
def test_mypy_strict_refuses_a_handler_of_another_event_under_a_known_name(tmp_path):
    """``on('clap', on_level)`` type-checked before (the any-name overload took it); every line of
    ``typed_on.ON_CASES`` now gets an error exactly when the table says so, ``App.on`` alike."""
    head = ON_CASES_HEAD.count("\n")
    out, err, _ = mypy_strict(tmp_path, ON_CASES_HEAD + "".join(line + "\n" for line, _ in ON_CASES))
    flagged = {int(line.split(":")[1]) - head - 1 for line in out.splitlines() if ": error:" in line}
    assert flagged <= set(range(len(ON_CASES))), out + err        # none in the head
    assert {ON_CASES[i][0] for i in flagged} == {line for line, error in ON_CASES if error}, out + err
