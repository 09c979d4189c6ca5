#!/usr/bin/env python3
"""The browser panel: frames delivered to clients, the latency it adds, and what it costs the piece.

    .venv/bin/python benchmarks/panel.py [--seconds 8] [--steps 600] [--no-browser]

1. **Delivery** (320x240, the bundled demo recording replayed in real time at 2x and 4x, i.e.
   30 and 60 camera frames/s, through ``Runner`` with motion tracking and clap detection and a
   ``Panel``): 1 and 3 WebSocket clients that decode every JPEG (``cv2.imdecode``, as a browser
   would) and acknowledge it; with no overlay and with all four (mask, edges, palette, colour
   region). Per client: frames/s received, and the **added latency** of each frame = the wall
   time it was decoded at the client - the wall time the run handed it to the panel
   (``tap_unix`` in the frame header; same machine, same clock): median, p95, max. The
   delivered rate is also given as a ratio to the source's frame rate (1.00 = every frame).
   With ``--browser`` (default when chromium and playwright are installed) the same is
   measured inside headless Chromium: the page's own counters (``sensekitPanel.stats``: frames
   drawn per second and latency after the picture is drawn).
2. **The piece's own frame rate** with and without a panel client: an app (motion_paddle,
   which runs motion detection on the camera view) runs ``--steps`` fixed steps headless and
   flat out on the demo recording (a) without a panel, (b) with a panel nobody watches, (c)
   with one client streaming every overlay. Ratios to (a) in the same run. Then the same app
   paced in real time (30 steps/s, what ``--panel`` does) for ``--seconds``: steps/s and the
   CPU the process used, without and with a client.

Targets (issue 13): >= 15 fps delivered at 320x240, < 100 ms added latency. Exit status 0
(a benchmark reports; it does not judge). Prints a table, then one JSON line per row.
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import aiohttp
import cv2
import numpy as np

from sensekit.app.host import AppHost, RunOptions
from sensekit.app.registry import load
from sensekit.app.sources import bundled_source
from sensekit.audio.clap import ClapDetector
from sensekit.audio.pipeline import AudioStage
from sensekit.capture.replay import ReplaySource
from sensekit.clock import ScaledClock
from sensekit.panel import Panel, parse_panel_address
from sensekit.panel.attach import app_panel
from sensekit.panel.control import StagesControl
from sensekit.panel.frames import unpack
from sensekit.paths import bundled_recording
from sensekit.runner import Runner
from sensekit.settings.live import Tuning
from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.motion import MotionDetector
from sensekit.vision.pipeline import VisionStage

ALL_OVERLAYS = ["mask", "edges", "palette", "region"]
WARMUP_S = 1.0
ROWS: list[dict[str, Any]] = []


class _Stopped(Exception):
    pass


class Piece:
    """The demo replay in real time x ``speed`` through motion + tracking + claps, with a panel."""

    def __init__(self, speed: float) -> None:
        self.source = ReplaySource(bundled_recording("demo"), realtime=True, loop=True,
                                   clock=ScaledClock(speed))
        self.source.open()
        self.fps = 15.0 * speed
        self.runner = Runner(self.source, [
            VisionStage(tracker=ColorTracker("#eb2d14"), motion=MotionDetector()),
            AudioStage(clap=ClapDetector())])
        self.runner.dispatcher.on("clap", lambda e: None)
        self.runner.dispatcher.on("motion", lambda e: None)
        self.runner.dispatcher.on("color_tracked", lambda e: None)
        self.panel = Panel(parse_panel_address("127.0.0.1:0"), self.runner,
                           StagesControl(self.runner, Tuning(lambda: self.runner.stages), None,
                                         Path("venue.toml")),
                           info={"title": "benchmark", "inputs": ["video", "audio"]})
        self.url = self.panel.start()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        def check(_item: object) -> None:
            if self.stop.is_set():
                raise _Stopped
        with contextlib.suppress(_Stopped):
            self.runner.run(on_item=check)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(10)
        self.panel.close()
        self.source.close()


async def _client(url: str, seconds: float, overlays: list[str]) -> dict[str, Any]:
    latencies: list[float] = []
    counted = 0
    async with aiohttp.ClientSession() as s, s.ws_connect(url + "ws/video") as ws:
        await ws.send_json({"overlays": overlays})
        start = time.monotonic()
        end = start + WARMUP_S + seconds
        while time.monotonic() < end:
            try:
                msg = await ws.receive(timeout=max(0.01, end - time.monotonic()))
            except TimeoutError:
                break
            if msg.type != aiohttp.WSMsgType.BINARY:
                break
            meta, jpeg = unpack(msg.data)
            image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
            done = time.time()
            await ws.send_json({"ack": 1})
            assert image is not None and image.shape[:2] == (meta["h"], meta["w"])
            if time.monotonic() - start >= WARMUP_S:
                counted += 1
                latencies.append((done - meta["tap_unix"]) * 1000.0)
    return {"fps": counted / seconds, "latencies": latencies}


def _summary(latencies: list[float]) -> tuple[float, float, float]:
    if not latencies:
        return float("nan"), float("nan"), float("nan")
    q = sorted(latencies)
    return statistics.median(q), q[min(len(q) - 1, int(0.95 * len(q)))], q[-1]


def delivery(seconds: float) -> None:
    print(f"\n1. delivery at 320x240 ({seconds:g} s per row after {WARMUP_S:g} s warm-up)")
    print(f"{'source fps':>10} {'piece fps':>9} {'clients':>7} {'overlays':>9} {'fps/client':>11} {'ratio':>6} "
          f"{'lat p50':>8} {'p95':>6} {'max':>6}  (ms)")
    for speed in (2.0, 4.0):
        piece = Piece(speed)
        try:
            for clients in (1, 3):
                for overlays in ([], ALL_OVERLAYS):
                    async def run_all(url: str = piece.url, n: int = clients,
                                      want: list[str] = overlays) -> list[dict[str, Any]]:
                        return list(await asyncio.gather(*(_client(url, seconds, want) for _ in range(n))))
                    frames0, t0 = piece.runner.stats.frames, time.monotonic()
                    results = asyncio.run(run_all())
                    made = (piece.runner.stats.frames - frames0) / (time.monotonic() - t0)
                    fps = min(r["fps"] for r in results)
                    lat = _summary([x for r in results for x in r["latencies"]])
                    label = "all" if overlays else "none"
                    print(f"{piece.fps:10.0f} {made:9.1f} {clients:7d} {label:>9} {fps:11.1f} "
                          f"{fps / piece.fps:6.2f} {lat[0]:8.1f} {lat[1]:6.1f} {lat[2]:6.1f}")
                    ROWS.append({"part": "delivery", "source_fps": piece.fps, "piece_fps": round(made, 1),
                                 "clients": clients,
                                 "overlays": label, "fps_per_client": round(fps, 2),
                                 "ratio_to_source": round(fps / piece.fps, 3),
                                 "latency_ms_p50": round(lat[0], 1), "latency_ms_p95": round(lat[1], 1),
                                 "latency_ms_max": round(lat[2], 1)})
        finally:
            piece.close()


def browser_delivery(seconds: float) -> None:
    chromium = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None  # type: ignore[assignment]
    if chromium is None or sync_playwright is None:
        print("\n1b. in a browser: skipped (needs chromium and playwright)")
        return
    print(f"\n1b. in headless Chromium (the page's own counters over {seconds:g} s)")
    print(f"{'source fps':>10} {'overlays':>9} {'fps drawn':>10} {'ratio':>6} {'lat p50':>8} {'p95':>6}  (ms)")
    args = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=args)
        for speed in (2.0,):
            piece = Piece(speed)
            try:
                for overlays in ([], ALL_OVERLAYS):
                    page = browser.new_page(viewport={"width": 1280, "height": 900})
                    page.goto(piece.url)
                    for o in overlays:
                        page.check(f"#overlay-toggles input[value={o}]")
                    page.wait_for_function("() => sensekitPanel.stats.frames > 5", timeout=20_000)
                    time.sleep(WARMUP_S)
                    f0 = page.evaluate("sensekitPanel.stats.frames")
                    lat: list[float] = []
                    t0 = time.monotonic()
                    while time.monotonic() - t0 < seconds:
                        time.sleep(0.1)
                        lat.append(page.evaluate("sensekitPanel.stats.latency_ms"))
                    fps = (page.evaluate("sensekitPanel.stats.frames") - f0) / (time.monotonic() - t0)
                    page.close()
                    p50, p95, _ = _summary(lat)
                    label = "all" if overlays else "none"
                    print(f"{piece.fps:10.0f} {label:>9} {fps:10.1f} {fps / piece.fps:6.2f} {p50:8.1f} {p95:6.1f}")
                    ROWS.append({"part": "browser", "source_fps": piece.fps, "overlays": label,
                                 "fps_drawn": round(fps, 2), "ratio_to_source": round(fps / piece.fps, 3),
                                 "latency_ms_p50": round(p50, 1), "latency_ms_p95": round(p95, 1)})
            finally:
                piece.close()
        browser.close()


def _app_run(steps: int, *, panel: bool, client: bool, realtime: bool = False,
             seconds: float = 0.0) -> tuple[float, float]:
    """Steps/s and CPU % of motion_paddle headless on the demo (flat out, or paced)."""
    app_cls = load("motion_paddle")
    source = bundled_source(app_cls, loop=True)
    with source:
        frames = int(seconds * 30) if realtime else steps
        host = AppHost(app_cls, source, RunOptions(headless=True, frames=frames, realtime=realtime))
        p = app_panel(host, parse_panel_address("127.0.0.1:0")) if panel else None
        stop = threading.Event()
        thread = None
        if p is not None and client:
            def watch() -> None:
                async def go() -> None:
                    async with aiohttp.ClientSession() as s, s.ws_connect(p.url + "ws/video") as ws:
                        await ws.send_json({"overlays": ALL_OVERLAYS})
                        while not stop.is_set():
                            try:
                                msg = await ws.receive(timeout=0.5)
                            except TimeoutError:
                                continue
                            if msg.type != aiohttp.WSMsgType.BINARY:
                                return
                            cv2.imdecode(np.frombuffer(unpack(msg.data)[1], np.uint8), cv2.IMREAD_COLOR)
                            await ws.send_json({"ack": 1})
                asyncio.run(go())
            thread = threading.Thread(target=watch, daemon=True)
            thread.start()
            time.sleep(0.5)
        try:
            result = host.run()
        finally:
            stop.set()
            if thread is not None:
                thread.join(5)
            if p is not None:
                p.close()
    cpu = 100.0 * result.cpu_s / result.wall_s if result.wall_s > 0 else 0.0
    return result.fps, cpu


def piece_rate(steps: int, seconds: float) -> None:
    print(f"\n2. the piece's own frame rate (motion_paddle, {steps} steps flat out; "
          f"then {seconds:g} s paced)")
    base = None
    for label, panel, client in (("no panel", False, False), ("panel, no client", True, False),
                                 ("panel + 1 client (all overlays)", True, True)):
        fps, cpu = _app_run(steps, panel=panel, client=client)
        base = base or fps
        print(f"  flat out  {label:<32} {fps:7.1f} steps/s  ratio {fps / base:5.2f}")
        ROWS.append({"part": "piece", "mode": "flat out", "case": label, "steps_per_s": round(fps, 1),
                     "ratio": round(fps / base, 3)})
    for label, panel, client in (("panel, no client", True, False),
                                 ("panel + 1 client (all overlays)", True, True)):
        fps, cpu = _app_run(steps, panel=panel, client=client, realtime=True, seconds=seconds)
        print(f"  paced     {label:<32} {fps:7.1f} steps/s  CPU {cpu:4.0f} %")
        ROWS.append({"part": "piece", "mode": "paced 30/s", "case": label, "steps_per_s": round(fps, 1),
                     "cpu_percent": round(cpu, 1)})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="measuring time per delivery row")
    parser.add_argument("--steps", type=int, default=600, help="steps of each flat-out piece run")
    parser.add_argument("--no-browser", action="store_true", help="skip the Chromium measurement")
    args = parser.parse_args(argv)
    delivery(args.seconds)
    if not args.no_browser:
        browser_delivery(args.seconds)
    piece_rate(args.steps, args.seconds)
    print()
    for row in ROWS:
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
