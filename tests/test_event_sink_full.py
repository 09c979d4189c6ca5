"""``--events PATH`` on a disk that is full: for a show the camera and the apps matter more
than the log, so the run goes on. One warning names the events file, the reason and the lines
that got out; the file is cut back to its last whole line; later lines are dropped, counted, and
reported when the run ends. (The run used to end on the first failed write, exit 2.)

Real substitutes for a full disk: ``/dev/full`` (every write is ENOSPC; a character device, so
the non-blocking path), a file size limit (``RLIMIT_FSIZE``: the kernel refuses to grow a
regular file past it, EFBIG; Python ignores the SIGXFSZ that comes with it), and ``os.write``
replaced by a disk with a few kB free (a short write mid-line, then ENOSPC).
"""
from __future__ import annotations

import errno
import json
import logging
import os
import re
import resource
import subprocess
import sys

import pytest

import sensekit.event_sink as event_sink
from sensekit.event_sink import EventSink


def _line(k: int) -> str:
    return json.dumps({"event": "clap", "t": k, "pad": "x" * 40}) + "\n"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_dev_full_is_said_once_and_every_line_is_counted(caplog):
    sink = EventSink("/dev/full")
    with caplog.at_level(logging.WARNING, logger="sensekit"):
        for k in range(10):
            sink.write(_line(k))                                # never raises
        sink.close()
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2 and "events to '/dev/full': cannot write (No space left on device) after 0 line(s)" \
        in said[0] and "0 of 10 lines written, 10 dropped" in said[1]
    assert sink.stats()["event_lines_dropped"] == 10


def test_a_disk_that_fills_mid_line_keeps_the_whole_lines_and_counts_the_rest(tmp_path, monkeypatch, caplog):
    free = [4000]                                               # bytes left on the "disk"
    real_write = os.write

    def full_disk(fd: int, data: bytes) -> int:
        if free[0] <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        n = real_write(fd, bytes(data[:free[0]]))
        free[0] -= n
        return n

    monkeypatch.setattr(event_sink.os, "write", full_disk)
    path = tmp_path / "ev.jsonl"
    sink = EventSink(path)
    with caplog.at_level(logging.WARNING, logger="sensekit"):
        for k in range(500):
            sink.write(_line(k))
            if k % 50 == 49:
                sink.flush()                                    # as the run's loop does
        sink.close()
    text = path.read_text()
    kept = [json.loads(line)["t"] for line in text.splitlines()]
    assert text.endswith("\n") and kept == list(range(len(kept))) and 0 < len(kept) < 500   # whole lines only
    assert sink.dropped == 500 - len(kept) and sink.failed == os.strerror(errno.ENOSPC)
    (first, last) = [r.getMessage() for r in caplog.records]
    assert f"cannot write (No space left on device) after {len(kept)} line(s); the run goes on" in first
    assert f"{len(kept)} of 500 lines written, {500 - len(kept)} dropped" in last


def test_a_run_whose_events_file_cannot_grow_goes_on_and_reports_the_drops(tmp_path):
    def limit() -> None:                   # in the child only: 4 kB files
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    r = subprocess.run([sys.executable, "-m", "sensekit", "run", "clapper", "--headless", "--frames", "600",
                        "--events", "ev.jsonl"],
                       cwd=tmp_path, preexec_fn=limit, capture_output=True, text=True, timeout=120,
                       env={**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"})
    assert r.returncode == 0, r.stderr[-2000:]
    assert "Traceback" not in r.stderr
    said = [line for line in r.stderr.splitlines() if "ev.jsonl" in line]
    assert len(said) == 2 and "cannot write (File too large)" in said[0] and "the run goes on" in said[0]
    assert "dropped after the write failed (File too large)" in said[1], r.stderr[-2000:]
    written, total, dropped = map(int, re.search(r"(\d+) of (\d+) lines written, (\d+) dropped", said[1]).groups())
    assert dropped > 0 and written + dropped == total          # the run went on to its 600 frames
    text = (tmp_path / "ev.jsonl").read_text()
    assert len(text) <= 4096 and text.endswith("\n")
    assert all(json.loads(line) for line in text.splitlines())
