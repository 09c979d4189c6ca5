"""``--events PATH`` on a disk that is full: the run ends with one line naming the events file
(it said only "[Errno 28] No space left on device", naming nothing).

Real substitutes for a full disk: ``/dev/full`` (every write is ENOSPC; a character device, so
the non-blocking path) and a file size limit (``RLIMIT_FSIZE``: the kernel refuses to grow a
regular file past it, EFBIG; Python ignores the SIGXFSZ that comes with it).
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest

from sensekit.event_sink import EventSink


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
def test_dev_full_names_the_events_file():
    sink = EventSink("/dev/full")
    with pytest.raises(OSError) as err:
        for k in range(10):
            sink.write(f'{{"event": "clap", "t": {k}}}\n')
    assert "cannot write events to '/dev/full' after 0 line(s)" in str(err.value)
    sink.close()


def test_a_run_whose_events_file_cannot_grow_ends_in_one_line(tmp_path):
    def limit() -> None:                   # in the child only: 4 kB files
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    r = subprocess.run([sys.executable, "-m", "sensekit", "run", "clapper", "--headless", "--frames", "600",
                        "--events", "ev.jsonl", "--screenshot", "shot.png"],
                       cwd=tmp_path, preexec_fn=limit, capture_output=True, text=True, timeout=120,
                       env={**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"})
    errors = [line for line in r.stderr.splitlines() if "error" in line.lower()]
    assert r.returncode == 2, r.stderr[-2000:]
    assert "Traceback" not in r.stderr
    assert len(errors) == 1 and "cannot write events to 'ev.jsonl' after" in errors[0], r.stderr[-2000:]
    assert "File too large" in errors[0]
    assert (tmp_path / "ev.jsonl").stat().st_size <= 4096
