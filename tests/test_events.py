"""Events: the catalogue, the dispatcher's checks, and stable JSON lines."""
from __future__ import annotations

import pytest

from sensekit.errors import ConfigError
from sensekit.events import (EVENT_TYPES, Clap, Dispatcher, JsonlWriter, Motion, from_jsonl,
                             to_jsonl)


def test_unknown_event_name_is_rejected_when_the_handler_is_attached():
    d = Dispatcher()
    with pytest.raises(ConfigError, match="'clpa'.*known events: .*clap"):
        d.on("clpa", print)


def test_handlers_run_in_order_and_true_stops_the_rest_of_that_name():
    d = Dispatcher()
    seen = []
    d.on("clap", lambda e: seen.append("first") or True)
    d.on("clap", lambda e: seen.append("second"))
    d.dispatch(Clap(t=1.0, strength=0.5))
    assert seen == ["first"]


def test_the_log_sees_every_event_whatever_other_handlers_return(tmp_path):
    """A ``"*"`` observer (the JSON-lines log) is not stopped by a handler that consumes an event."""
    d = Dispatcher()
    with open(tmp_path / "log.jsonl", "w", encoding="utf-8") as stream:
        log = JsonlWriter(stream)
        d.on("*", log)
        d.on("clap", lambda e: True)            # consumes claps
        d.on("*", lambda e: True)               # an observer that returns True stops nothing
        for i in range(3):
            d.dispatch(Clap(t=float(i), strength=0.5))
        d.dispatch(Motion(t=3.0, box=(0, 0, 1, 1), amount=0.1))
    lines = (tmp_path / "log.jsonl").read_text(encoding="utf-8").splitlines()
    assert [from_jsonl(line).name for line in lines] == ["clap", "clap", "clap", "motion"]


def test_wildcard_and_wants():
    d = Dispatcher()
    assert not d.wants({"motion"})
    d.on("motion", lambda e: None)
    assert d.wants({"motion", "edges"}) and not d.wants({"clap"})
    d.on("*", lambda e: None)
    assert d.wants({"clap"})


def test_jsonl_is_stable_sorted_and_rounded():
    line = to_jsonl(Motion(t=1 / 3, box=(1, 2, 3, 4), amount=0.5, zones={"right": 0.25, "left": 0.125}))
    assert line == ('{"amount":0.5,"box":[1,2,3,4],"event":"motion","t":0.333333,'
                    '"zones":{"left":0.125,"right":0.25}}')


def test_jsonl_round_trip_for_every_event_type():
    for name, cls in EVENT_TYPES.items():
        event = cls(t=2.5)
        back = from_jsonl(to_jsonl(event))
        assert type(back) is cls and back.t == 2.5, name


def test_jsonl_writer_counts(tmp_path):
    import io
    buf = io.StringIO()
    w = JsonlWriter(buf)
    w(Clap(t=0.5, strength=1.0))
    w(Clap(t=0.75, strength=0.5))
    assert w.count == 2 and buf.getvalue().count("\n") == 2


def test_from_jsonl_rejects_unknown_names():
    with pytest.raises(ConfigError, match="'nope'"):
        from_jsonl('{"event": "nope", "t": 0}')
