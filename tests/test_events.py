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


def test_handlers_run_in_order_and_true_stops_propagation():
    d = Dispatcher()
    seen = []
    d.on("clap", lambda e: seen.append("first") or True)
    d.on("clap", lambda e: seen.append("second"))
    d.on("*", lambda e: seen.append("everything"))
    d.dispatch(Clap(t=1.0, strength=0.5))
    assert seen == ["first"]


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
