#!/usr/bin/env python3
"""Capture-to-event latency (p50, p99) through the real substitutes for a camera and a microphone.

    .venv/bin/python benchmarks/latency.py [--seconds 15] [--fps 30] [--size 320x240]
                                           [--rate 48000] [--block 512] [--only NAME]

What is measured: the time from the moment something happens in front of the "device" to
the moment the event it causes is dispatched to handlers (``Runner`` -> ``Dispatcher``),
through the real drivers:

- **camera**: ``tests/capture/mjpeg_server.py`` serves an MJPEG stream over HTTP on
  127.0.0.1. Each frame carries its number in 16 black/white 8x8 blocks in the top-left
  corner and shows an orange-red ball moving over a grey gradient. The server notes the
  ``time.monotonic()`` when it *starts* a frame (before the JPEG encode, so the encode, the
  HTTP hop, OpenCV/FFmpeg's decode, the grab thread, the runner and the stages all count).
  sensekit reads it with ``CameraSource`` (``camera:http://...``) and runs colour tracking
  and motion (``VisionStage``); the latency of a frame is taken at the dispatch of its first
  ``color_tracked``/``motion`` event. Target: one frame interval (33.3 ms at 30 fps).
- **microphone**: ``tests/capture/alsa_pacedmic.py``: ALSA's ``file`` plugin reading a FIFO
  that a feeder writes one period (``--block`` samples) at a time at the sample rate, so
  PortAudio gets each period when its last sample is "captured", like a sound card. Every
  ~107 ms the feeder puts a clap-like burst (5 ms of decaying noise) at a random position
  in a period; the burst's first samples carry its number. The capture time of the burst
  is that of its first sample (the period's write time minus the samples after it), so the
  wait for the rest of the block counts. sensekit reads it with ``MicrophoneSource`` and
  runs ``AudioStage`` with activity (level 60, timeout 30 ms) and clap detection; the
  latency is taken at the dispatch of the ``activity`` (activating) and ``clap`` events.
  Target: one block + 2 ms (12.7 ms at 512 samples, 48 kHz).

Scenarios, each in a fresh process (PortAudio reads the ALSA configuration once):
``camera`` (one camera), ``mic`` (one microphone), ``camera+mic`` (both as one
``CombinedSource``, which keeps their items in time order), and ``load``: 4 cameras and
2 microphones at once, as two ``camera+mic`` sources and two cameras, one ``Runner``
thread each, on this machine's cores (the feeders and MJPEG servers run in the parent
process). ``--only load-separate`` runs the same six devices as six plain sources. The
first 2 s of each scenario are not counted (connection, FFmpeg probing, noise-floor
learning).

Printed: one row per stream kind and scenario with the count, p50, p99 and max in ms, the
target and whether p99 meets it, the frames that gave no event (dropped by the camera's
keep-the-latest policy when the consumer was busy), and the CPU the consumer used; then one
JSON line per row. Linux only (ALSA). Exit status 0 (a benchmark reports; it does not judge).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

if TYPE_CHECKING:
    from sensekit.events import Event

WARMUP_S = 2.0
MARK = 32000            # marker samples: MARK, 1000 + id, MARK (bit-exact through the int16 path)
BURST = 240             # samples of decaying noise after the marker (5 ms at 48 kHz)
MARKER_EVERY = 10       # periods between bursts (~107 ms at 512 / 48 kHz)
ID_BITS, ID_BLOCK = 16, 8
BALL_BGR = (20, 45, 235)  # "#eb2d14"


# --- what the devices "see" ---------------------------------------------------------------

def draw_frame(k: int, size: tuple[int, int]) -> np.ndarray:
    """Frame ``k``: a grey gradient, a moving orange-red ball, ``k`` in binary top-left."""
    import cv2

    w, h = size
    img = np.empty((h, w, 3), np.uint8)
    img[:] = np.linspace(60, 190, w, dtype=np.uint8)[None, :, None]
    x = int(w * (0.2 + 0.6 * (0.5 + 0.5 * np.sin(k * 0.08))))
    cv2.circle(img, (x, h // 2), max(6, h // 10), BALL_BGR, -1)
    for b in range(ID_BITS):
        img[:ID_BLOCK, b * ID_BLOCK:(b + 1) * ID_BLOCK] = 255 if (k >> b) & 1 else 0
    return img


def read_frame_id(img: np.ndarray) -> int:
    blocks = img[1:ID_BLOCK - 1, :ID_BITS * ID_BLOCK].reshape(ID_BLOCK - 2, ID_BITS, ID_BLOCK, 3)
    bits = blocks[:, :, 1:-1].mean(axis=(0, 2, 3)) > 128
    return int(sum(1 << b for b in range(ID_BITS) if bits[b]))


class MarkedAudio:
    """``fill(mic, n)`` for ``PacedMics``: quiet noise, and a numbered burst every few periods."""

    def __init__(self, period: int, seed: int = 5) -> None:
        self.period = period
        self.rng = np.random.default_rng(seed)
        self.markers: dict[tuple[int, int], tuple[int, int]] = {}   # (mic, id) -> (period n, position)
        self._next_id = [0] * 8
        self._lock = threading.Lock()

    def __call__(self, mic: int, n: int) -> np.ndarray:
        with self._lock:
            data = (self.rng.standard_normal(self.period) * 30).astype(np.int16)   # about -60 dBFS
            if n % MARKER_EVERY == MARKER_EVERY // 2:
                k = self._next_id[mic]
                self._next_id[mic] += 1
                p = int(self.rng.integers(0, self.period - BURST))
                env = np.exp(-np.arange(BURST) / (BURST / 5))
                data[p:p + BURST] = np.clip(self.rng.standard_normal(BURST) * 9000 * env, -20000, 20000)
                data[p:p + 3] = (MARK, 1000 + k, MARK)
                self.markers[(mic, k)] = (n, p)
            return data


def find_markers(samples: np.ndarray) -> list[tuple[int, int]]:
    """``(id, position)`` of every marker in a float32 block (exact: int16 / 32768)."""
    s = np.rint(np.asarray(samples, np.float64).reshape(-1) * 32768.0).astype(np.int64)
    at = np.flatnonzero((s[:-2] == MARK) & (s[2:] == MARK))
    return [(int(s[i + 1]) - 1000, int(i)) for i in at]


# --- the consumer (a fresh process) ----------------------------------------------------------

class MarkerTap:
    """A stage that notes where each audio marker is, in the source's time (emits nothing)."""

    consumes = "audio"
    emits: frozenset[str] = frozenset()
    always_run = True

    def __init__(self) -> None:
        self.onsets: list[tuple[float, int]] = []       # (onset t, id)

    def process(self, item: Any) -> list[Event]:
        for k, pos in find_markers(item.samples):
            self.onsets.append((item.t + pos / item.rate, k))
        return []


def consume(spec: dict[str, Any]) -> dict[str, Any]:  # noqa: C901 (see pyproject: later)
    from sensekit.audio.activity import ActivityDetector
    from sensekit.audio.clap import ClapDetector
    from sensekit.audio.pipeline import AudioStage
    from sensekit.capture.camera import CameraSource
    from sensekit.capture.combined import CombinedSource
    from sensekit.capture.microphone import MicrophoneSource
    from sensekit.events import Activity
    from sensekit.runner import Runner
    from sensekit.vision.color_tracker import ColorTracker
    from sensekit.vision.motion import MotionDetector
    from sensekit.vision.pipeline import VisionStage

    records: list[tuple[str, int, int, float, str]] = []   # (kind, device, id, dispatched, event)
    lock = threading.Lock()
    t_start = time.monotonic()
    lanes = []
    for lane in spec["lanes"]:
        cam = CameraSource(lane["camera"]) if lane.get("camera") else None
        mic = (MicrophoneSource(lane["mic"], sample_rate=spec["rate"], block_size=spec["block"])
               if lane.get("mic") else None)
        source = CombinedSource(cam, mic) if cam and mic else (cam or mic)
        if source is None:
            raise ValueError(f"lane {lane!r} has neither a camera nor a microphone")
        runner = Runner(source)
        stages: list[Any] = []
        if cam:
            stages.append(VisionStage(tracker=ColorTracker("#eb2d14", method="hsv"),
                                      motion=MotionDetector()))
        tap = None
        if mic:
            tap = MarkerTap()
            stages += [tap, AudioStage(activity=ActivityDetector(60.0, 30.0), clap=ClapDetector())]
        runner.stages = stages
        lanes.append((lane, source, runner, tap))

    def video_handler(lane: dict[str, Any], runner: Runner) -> Callable[[Event], None]:
        seen: set[int] = set()

        def on_event(event: Event) -> None:
            now = time.monotonic()
            frame = runner.latest_frame
            assert frame is not None, "a video event before any frame"
            k = read_frame_id(frame.image)
            if k not in seen:
                seen.add(k)
                with lock:
                    records.append(("video", lane["camera_index"], k, now, event.name))
        return on_event

    def audio_handler(lane: dict[str, Any], tap: MarkerTap, block_s: float) -> Callable[[Event], None]:
        done: set[tuple[str, int]] = set()

        def on_event(event: Event) -> None:
            now = time.monotonic()
            if isinstance(event, Activity) and not event.activating:
                return
            for onset, k in reversed(tap.onsets[-8:]):
                if event.t - 0.06 <= onset <= event.t + block_s + 1e-3 and (event.name, k) not in done:
                    done.add((event.name, k))
                    with lock:
                        records.append(("audio", lane["mic_index"], k, now, event.name))
                    return
        return on_event

    block_s = spec["block"] / spec["rate"]
    for lane, source, runner, tap in lanes:
        if lane.get("camera"):
            handler = video_handler(lane, runner)
            runner.dispatcher.on("color_tracked", handler)
            runner.dispatcher.on("motion", handler)
        if tap is not None:
            handler = audio_handler(lane, tap, block_s)
            runner.dispatcher.on("activity", handler)
            runner.dispatcher.on("clap", handler)
        source.open()

    threads = [threading.Thread(target=runner.run, daemon=True) for _, _, runner, _ in lanes]
    cpu0 = time.process_time()
    t_run = time.monotonic()
    for t in threads:
        t.start()
    time.sleep(spec["seconds"] + WARMUP_S)
    cpu = time.process_time() - cpu0
    wall = time.monotonic() - t_run
    stats = [source.stats() for _, source, _, _ in lanes]
    for _, source, _, _ in lanes:
        source.close()
    for t in threads:
        t.join(timeout=5)
    return {"records": records, "t_run": t_run, "cpu_s": cpu, "wall_s": wall,
            "open_s": t_run - t_start, "stats": stats}


# --- the parent: devices, scenarios, the table ----------------------------------------------

def run_scenario(name: str, cameras: int, mics: int, lanes_of: Any, args: argparse.Namespace,  # noqa: C901 (see pyproject: later)
                 folder: Path) -> list[dict[str, Any]]:
    from tests.capture.alsa_pacedmic import PacedMics
    from tests.capture.mjpeg_server import MjpegServer

    sent: list[dict[int, float]] = [dict() for _ in range(cameras)]

    def maker(i: int) -> Any:
        count = iter(range(1 << ID_BITS))

        def make(n: int, size: tuple[int, int]) -> np.ndarray:
            k = next(count)
            sent[i][k] = time.monotonic()
            return draw_frame(k, size)
        return make

    audio = MarkedAudio(args.block)
    servers = [MjpegServer(size=args.size, fps=args.fps, make_frame=maker(i)).start()
               for i in range(cameras)]
    paced = PacedMics(folder / name, max(mics, 1), rate=args.rate, period=args.block, fill=audio)
    if mics:
        paced.start()
    spec = {"lanes": lanes_of([s.url for s in servers], paced.names[:mics]), "seconds": args.seconds,
            "rate": args.rate, "block": args.block}
    try:
        proc = subprocess.run([sys.executable, __file__, "--consume", json.dumps(spec)],
                              env=paced.env, capture_output=True, text=True,
                              timeout=args.seconds + 120)
    finally:
        paced.stop()
        for s in servers:
            s.stop()
    if proc.returncode != 0:
        raise SystemExit(f"{name}: the consumer failed:\n{proc.stderr[-3000:]}")
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    start = out["t_run"] + WARMUP_S
    end = start + args.seconds - 0.2          # later captures may not have been dispatched yet
    rows = []
    for kind, event_names, label in (("video", {"color_tracked", "motion"}, "camera frame"),
                                     ("audio", {"activity"}, "activity"),
                                     ("audio", {"clap"}, "clap")):
        lat, devices = [], set()
        for k_, dev, ident, t_disp, ev in out["records"]:
            if k_ != kind or ev not in event_names:
                continue
            if kind == "video":
                t_cap = sent[dev].get(ident)
            else:
                n_p = audio.markers.get((dev, ident))
                t_cap = (paced.capture_time(dev, *n_p) if n_p and n_p[0] in paced.written[dev]
                         else None)
            if t_cap is None or not start <= t_cap <= end:
                continue
            lat.append((t_disp - t_cap) * 1000.0)
            devices.add(dev)
        if not lat:
            continue
        if kind == "video":
            target = 1000.0 / args.fps
            expected = sum(1 for d in range(cameras) for t in sent[d].values() if start <= t <= end)
            note = f"{expected - len(lat)} of {expected} frames gave no event"
        else:
            target = 1000.0 * args.block / args.rate + 2.0
            expected = sum(1 for (d, _), (n, p) in audio.markers.items()
                           if d < mics and n in paced.written[d]
                           and start <= paced.capture_time(d, n, p) <= end)
            note = f"events for {len(lat)} of {expected} bursts"
        a = np.asarray(lat)
        rows.append({"scenario": name, "stream": label, "devices": len(devices), "n": len(a),
                     "p50_ms": round(float(np.percentile(a, 50)), 2),
                     "p99_ms": round(float(np.percentile(a, 99)), 2),
                     "max_ms": round(float(a.max()), 2), "target_ms": round(target, 1),
                     "meets": bool(np.percentile(a, 99) <= target), "note": note,
                     "consumer_cpu": round(out["cpu_s"] / out["wall_s"], 2),
                     "loadavg": round(os.getloadavg()[0], 1)})
    return rows


SCENARIOS = {
    "camera": (1, 0, lambda cams, mics: [{"camera": cams[0], "camera_index": 0}]),
    "mic": (0, 1, lambda cams, mics: [{"mic": mics[0], "mic_index": 0}]),
    "camera+mic": (1, 1, lambda cams, mics: [
        {"camera": cams[0], "camera_index": 0, "mic": mics[0], "mic_index": 0}]),
    "load": (4, 2, lambda cams, mics: [
        {"camera": cams[0], "camera_index": 0, "mic": mics[0], "mic_index": 0},
        {"camera": cams[1], "camera_index": 1, "mic": mics[1], "mic_index": 1},
        {"camera": cams[2], "camera_index": 2},
        {"camera": cams[3], "camera_index": 3}]),
    "load-separate": (4, 2, lambda cams, mics: [
        {"camera": c, "camera_index": i} for i, c in enumerate(cams)] + [
        {"mic": m, "mic_index": i} for i, m in enumerate(mics)]),
}


DEFAULT_SCENARIOS = ["camera", "mic", "camera+mic", "load"]


def _size(text: str) -> tuple[int, int]:
    w, _, h = text.lower().partition("x")
    return int(w), int(h)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=15.0, help="measured seconds per scenario")
    p.add_argument("--fps", type=float, default=30.0)
    p.add_argument("--size", type=_size, default=(320, 240))
    p.add_argument("--rate", type=int, default=48000)
    p.add_argument("--block", type=int, default=512)
    p.add_argument("--only", choices=sorted(SCENARIOS), action="append")
    p.add_argument("--consume", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.consume:
        print(json.dumps(consume(json.loads(args.consume))))
        return 0
    from tests.capture.alsa_filemic import unavailable_reason
    reason = unavailable_reason()
    if reason:
        raise SystemExit(f"cannot run: {reason}")
    print(f"capture-to-event latency: {args.size[0]}x{args.size[1]} MJPEG at {args.fps:g} fps, "
          f"{args.rate} Hz audio in {args.block}-sample blocks, {args.seconds:g} s per scenario, "
          f"{os.cpu_count()} CPU(s), load average {os.getloadavg()[0]:.1f} (other work on the "
          f"machine shows in the tails)")
    header = f"{'scenario':<8} {'stream':<13} {'dev':>3} {'n':>5} {'p50 ms':>7} {'p99 ms':>7} " \
             f"{'max ms':>7} {'target':>7}  {'p99 ok':<6} {'CPU':>4}  note"
    print(header)
    rows = []
    with tempfile.TemporaryDirectory(prefix="sensekit-latency-") as tmp:
        for name in args.only or DEFAULT_SCENARIOS:
            cameras, mics, lanes_of = SCENARIOS[name]
            for r in run_scenario(name, cameras, mics, lanes_of, args, Path(tmp)):
                rows.append(r)
                print(f"{r['scenario']:<8} {r['stream']:<13} {r['devices']:>3} {r['n']:>5} "
                      f"{r['p50_ms']:>7.1f} {r['p99_ms']:>7.1f} {r['max_ms']:>7.1f} "
                      f"{r['target_ms']:>7.1f}  {'yes' if r['meets'] else 'NO':<6} "
                      f"{r['consumer_cpu']:>4.0%}  {r['note']}", flush=True)
    for r in rows:
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
