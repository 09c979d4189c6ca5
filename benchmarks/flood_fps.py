"""Frame rate of a running piece under a flood at one of its network doors (hardening 6).

    .venv/bin/python benchmarks/flood_fps.py osc [--frames 6000] [--runs 2]
    .venv/bin/python benchmarks/flood_fps.py panel-pick|panel-save|panel-info [--frames 3000]

``osc``: ``sensekit run color_ball --headless`` on the looped demo recording (unpaced: as fast
as it goes) with ``--osc-control``, alone and while another process sends valid settings
(``/sensekit/set/tracker/hue_tolerance``) to it as fast as it can; the app's own frames/s line
and the ``OSC at the end`` counts are printed for each run. ``panel-*``: the same app with
``--panel`` (which paces the replay at its 30 frames/s), alone and while eight client threads
post picks (``/api/pick``), saves (``/api/save``) or read ``/api/info`` back to back; the wall
time for ``--frames`` frames and the answers' status counts are printed.

Runs alternate (alone, flooded, alone, ...) so both see the same load of a shared machine.
It prints numbers and asserts nothing. Cost: about 20 s an OSC run, ``frames / 30`` s a
panel run.
"""
from __future__ import annotations

import argparse
import collections
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from multiprocessing import Event, Process
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "recordings" / "demo.skrec"
ENV = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy")


def _free_port(kind: int) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _osc_flood(port: int, stop: Any) -> None:
    from pythonosc.osc_message_builder import OscMessageBuilder
    grams = []
    for i in range(10):
        b = OscMessageBuilder("/sensekit/set/tracker/hue_tolerance")
        b.add_arg(float(8 + i % 5))
        grams.append(b.build().dgram)
    n = 0
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        while not stop.is_set():
            s.sendto(grams[n % 10], ("127.0.0.1", port))
            n += 1


def osc_run(frames: int, flood: bool) -> str:
    port = _free_port(socket.SOCK_DGRAM)
    cmd = [sys.executable, "-m", "sensekit", "run", "color_ball", "--headless", "--source", f"replay:{DEMO}",
           "--loop", "--frames", str(frames), "--osc-control", f"127.0.0.1:{port}"]
    stop = Event()
    proc = subprocess.Popen(cmd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    flooder = None
    if flood:
        time.sleep(1.0)
        flooder = Process(target=_osc_flood, args=(port, stop))
        flooder.start()
    out, err = proc.communicate(timeout=600)
    stop.set()
    if flooder is not None:
        flooder.join()
    keep = [line for line in (out + err).splitlines() if " fps," in line or line.startswith("OSC at the end")]
    return " | ".join(keep)


BODIES: dict[str, Any] = {"pick": {"x": 100, "y": 100}, "save": {}, "info": None}


def _client(port: int, route: str, stop: threading.Event, codes: collections.Counter[Any]) -> None:
    while not stop.is_set():
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            while not stop.is_set():
                if route == "info":
                    c.request("GET", "/api/info")
                else:
                    c.request("POST", f"/api/{route}", body=json.dumps(BODIES[route]),
                              headers={"Content-Type": "application/json"})
                r = c.getresponse()
                r.read()
                codes[r.status] += 1
        except OSError:
            time.sleep(0.05)


def panel_run(route: str | None, frames: int, workdir: Path) -> str:
    port = _free_port(socket.SOCK_STREAM)
    cmd = [sys.executable, "-m", "sensekit", "run", "color_ball", "--headless", "--source", f"replay:{DEMO}",
           "--loop", "--frames", str(frames), "--panel", f"127.0.0.1:{port}"]
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=workdir, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stop = threading.Event()
    codes: collections.Counter[Any] = collections.Counter()
    clients = [threading.Thread(target=_client, args=(port, route, stop, codes), daemon=True)
               for _ in range(8 if route else 0)]
    time.sleep(1.5)
    for c in clients:
        c.start()
    try:
        proc.communicate(timeout=max(120, frames / 30 * 4))
        done = f"{time.monotonic() - t0:.1f} s"
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        done = f"not done in {time.monotonic() - t0:.0f} s"
    stop.set()
    return f"{frames} frames: {done}; answers {dict(codes)}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("door", choices=["osc", "panel-pick", "panel-save", "panel-info"])
    p.add_argument("--frames", type=int, default=None)
    p.add_argument("--runs", type=int, default=1, help="pairs of runs (alone, flooded)")
    args = p.parse_args()
    workdir = Path(os.environ.get("TMPDIR", "/tmp")) / "sensekit-flood-fps"
    workdir.mkdir(exist_ok=True)
    for _ in range(args.runs):
        for flood in (False, True):
            if args.door == "osc":
                line = osc_run(args.frames or 6000, flood)
            else:
                route = args.door.split("-", 1)[1] if flood else None
                line = panel_run(route, args.frames or 3000, workdir)
            print(f"{args.door:10s} {'flooded' if flood else 'alone':8s} {line}", flush=True)


if __name__ == "__main__":
    main()
