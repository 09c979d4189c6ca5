"""``EventSink``: ``--events`` to a FIFO whose reader stops never blocks the run for long; what
waited and what was dropped is counted (issue 21). A regular file gets every line."""
from __future__ import annotations

import json
import logging
import os
import threading
import time
from pathlib import Path

import pytest

from sensekit.errors import ConfigError
from sensekit.event_sink import EventSink

from tests.hang_guard import returns

LINE = json.dumps({"event": "motion", "t": 1.0, "pad": "x" * 80}) + "\n"


@pytest.fixture()
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "events.jsonl"
    os.mkfifo(path)
    return path


def test_a_regular_file_gets_every_line(tmp_path):
    sink = EventSink(tmp_path / "e.jsonl")
    for _ in range(10_000):
        sink.write(LINE)
    sink.close()
    assert (tmp_path / "e.jsonl").read_text() == LINE * 10_000
    assert sink.stats() == {"event_lines": 10_000, "event_lines_waited": 0, "event_lines_dropped": 0}


def test_a_fifo_whose_reader_stopped_does_not_block(fifo, caplog):
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)        # opened, never read
    try:
        sink = EventSink(fifo, max_buffer_bytes=256 << 10, close_timeout_s=0.2)

        def write_all() -> None:
            for _ in range(20_000):                                # ~2 MB: far beyond the pipe
                sink.write(LINE)

        returns(write_all, what="20,000 lines written to a FIFO whose reader stopped")
        with caplog.at_level(logging.WARNING, logger="sensekit"):
            sink.close()
        s = sink.stats()
        assert s["event_lines_waited"] > 0 and s["event_lines_dropped"] > 0
        got = b""
        while True:
            try:
                chunk = os.read(reader, 1 << 16)
            except BlockingIOError:
                break
            if not chunk:
                break
            got += chunk
    finally:
        os.close(reader)
    # what the reader got is whole lines, in order; the rest is counted as dropped
    assert got.count(b"\n") + s["event_lines_dropped"] == 20_000
    assert got == LINE.encode() * got.count(b"\n")
    assert "the reader fell behind" in caplog.text and "dropped" in caplog.text


def test_a_slow_reader_gets_every_line_that_waited(fifo):
    got: list[bytes] = []

    def read_slowly() -> None:
        with open(fifo, "rb") as f:
            while True:
                time.sleep(0.002)
                chunk = f.read1(4096)
                if not chunk:
                    return
                got.append(chunk)

    t = threading.Thread(target=read_slowly)
    t.start()
    deadline = time.monotonic() + 5
    sink = None
    while sink is None and time.monotonic() < deadline:
        try:
            sink = EventSink(fifo, close_timeout_s=20)
        except ConfigError:                                        # the reader has not opened yet
            time.sleep(0.01)
    assert sink is not None
    for _ in range(3000):
        sink.write(LINE)
    sink.close()
    t.join(10)
    assert b"".join(got) == LINE.encode() * 3000
    assert sink.stats()["event_lines_dropped"] == 0


def test_a_fifo_without_a_reader_is_a_clear_error(fifo):
    with pytest.raises(ConfigError, match="no process is reading it"):
        EventSink(fifo)


def test_a_reader_that_goes_away_drops_the_rest(fifo):
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    sink = EventSink(fifo)
    sink.write(LINE)
    os.close(reader)
    for _ in range(10):
        sink.write(LINE)
    sink.close()
    assert sink.stats()["event_lines_dropped"] == 10


def test_sensekit_run_events_to_a_fifo_whose_reader_reads_to_the_end(fifo, recordings_dir):
    """`mkfifo ev.jsonl; consumer < ev.jsonl &; sensekit run APP --events ev.jsonl`: the option's
    check opened the FIFO for writing and closed it, so the consumer read its end of file and
    went (`cat`: 0 bytes), and the run stopped at once: `cannot write events to 'ev.jsonl': no
    process is reading it`, exit 2. The check now leaves a FIFO unopened: the reader gets every
    line, as with a regular file."""
    import threading

    from sensekit.cli import main

    demo = recordings_dir / "demo.skrec"
    if not demo.is_dir():
        pytest.skip("recordings/demo.skrec not generated (python -m sensekit.synth)")
    got: list[bytes] = []

    def consumer() -> None:
        with open(fifo, "rb") as f:               # as `cat` and `python consumer.py < FIFO` read
            got.append(f.read())
    reader = threading.Thread(target=consumer, daemon=True)
    reader.start()
    code = main(["run", "color_ball", "--source", str(demo), "--headless", "--frames", "30",
                 "--events", str(fifo)])
    reader.join(20)
    assert code == 0
    lines = got[0].decode().splitlines() if got else []
    assert len(lines) >= 10 and all(line.startswith("{") for line in lines), got
