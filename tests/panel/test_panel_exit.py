"""A piece that ends while panel clients wait for an answer ends quietly: no asyncio noise after
its last line (it printed "Task was destroyed but it is pending!" and the task, two lines for
each waiting request)."""
from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import threading
import time

from tests.panel.conftest import demo, free_port


def _post_picks(port: int, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            while not stop.is_set():
                c.request("POST", "/api/pick", body=json.dumps({"x": 100, "y": 100}),
                          headers={"Content-Type": "application/json"})
                c.getresponse().read()
        except OSError:
            time.sleep(0.05)


def test_a_run_that_ends_with_requests_waiting_ends_quietly(tmp_path):
    port = free_port()
    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")
    run = subprocess.Popen(
        [sys.executable, "-m", "sensekit", "run", "color_ball", "--headless", "--source", f"replay:{demo()}",
         "--frames", "90", "--panel", f"127.0.0.1:{port}"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stop = threading.Event()
    clients = [threading.Thread(target=_post_picks, args=(port, stop), daemon=True) for _ in range(8)]
    for c in clients:
        c.start()
    try:
        out, err = run.communicate(timeout=120)
    finally:
        stop.set()
    assert run.returncode == 0, err
    assert "color_ball: 90 frames" in out + err
    assert "Task was destroyed" not in err and "Traceback" not in err, err[-2000:]
