#!/usr/bin/env python3
"""sensekit's vision pipeline vs the raw-OpenCV reference chain, same frames, same process.

The reference is ``../shared/bench/vision_ref.py``'s ``CvChain.chain``: flip, 10x10 box blur,
4-level LUT, colour-bounds rect, red-channel frame-difference rect (< 0x33 -> 0), and the
book's edge filter. sensekit runs ``Runner.process`` on a ``VisionStage`` configured the same
way (mirror, blur 10, 4 levels spread like the reference, bounds of the disc colour, motion
by the book's frame difference with its fixed threshold on the red channel - not the default
background model -, horizontal edges), with handlers subscribed to ``color_bounds``,
``motion`` and ``edges``, so events are built and dispatched.

Before timing, the outputs are checked equal to the reference's on every frame (blurred and
quantised images, both rects, edge map). Timing alternates reference and sensekit frame by
frame; prints the median ms of each and the ratio per size, then one JSON line per size.

    .venv/bin/python benchmarks/vision.py [--sizes 320x240,640x480] [--rounds 400]
"""
from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _reference import load_reference
from sensekit.capture.base import Item, Source, VideoFrame
from sensekit.events import ColorBounds, Dispatcher, Event, Motion
from sensekit.runner import Runner
from sensekit.vision.motion import MotionDetector
from sensekit.vision.pipeline import VisionStage
from sensekit.vision.stages import bgr_to_packed_rgb


class _NoSource(Source):
    kind = "benchmark"

    def read(self, timeout: float | None = None) -> Item | None:
        raise EOFError


def make_stage(ref: Any, levels: int, blur_k: int, edge_k: int) -> VisionStage:
    return VisionStage(mirror=True, blur_px=blur_k, levels=levels, palette_spread=True,
                       bounds_color=bgr_to_packed_rgb(ref.DISC_BGR),
                       motion=MotionDetector(method="difference", threshold=ref.MOTION_T, channel="red",
                                              min_amount=0.0),
                       edges=True, edge_blur_px=edge_k, edge_threshold=ref.EDGE_T)


def verify(ref: Any, frames: list[np.ndarray], levels: int, blur_k: int, edge_k: int) -> int:
    """sensekit's intermediates and rects must equal the reference chain's on every frame."""
    cv = ref.CvChain(levels, blur_k, edge_k, ref.DISC_BGR)
    got: dict[str, Any] = {}
    d = Dispatcher()

    def note_box(e: Event) -> None:
        if isinstance(e, ColorBounds):
            got["color_rect"] = e.box
        elif isinstance(e, Motion):
            got["motion_rect"] = e.box

    d.on("color_bounds", note_box)
    d.on("motion", note_box)
    d.on("edges", lambda e: None)
    stage = make_stage(ref, levels, blur_k, edge_k)
    runner = Runner(_NoSource(), [stage], d)
    prev = cv.blur(cv.flip(frames[-1]))
    runner.process(VideoFrame(-1, 0.0, frames[-1]))       # prime the motion detector
    found = 0
    for i, f in enumerate(frames):
        got.clear()
        a = cv.chain(f, prev)
        runner.process(VideoFrame(i, (i + 1) / 30, f))
        assert stage._b is not None and np.array_equal(a["blur"], stage._b), "blur differs"
        assert stage._q is not None and np.array_equal(a["quant"], stage._q), "palette differs"
        assert stage.edge_map is not None and np.array_equal(a["edges"], stage.edge_map), "edges differ"
        assert tuple(a["color_rect"]) == tuple(got.get("color_rect", (0, 0, 0, 0))), "colour rect differs"
        mr = tuple(a["motion_rect"])
        assert mr == tuple(got.get("motion_rect", (0, 0, 0, 0))), f"motion rect differs {mr} {got}"
        found += a["color_rect"][2] > 0
        prev = a["blur"]
    return found


def bench(ref: Any, frames: list[np.ndarray], levels: int, blur_k: int, edge_k: int,
          rounds: int, warmup: int) -> tuple[list[float], list[float], dict[str, int]]:
    n = len(frames)
    cv = ref.CvChain(levels, blur_k, edge_k, ref.DISC_BGR)
    counts: dict[str, int] = {}

    def count(e: Any) -> None:
        counts[e.name] = counts.get(e.name, 0) + 1

    d = Dispatcher()
    for name in ("color_bounds", "motion", "still", "edges"):
        d.on(name, count)
    runner = Runner(_NoSource(), [make_stage(ref, levels, blur_k, edge_k)], d)
    items = [VideoFrame(i, i / 30, f) for i, f in enumerate(frames)]
    prev = cv.blur(cv.flip(frames[-1]))
    t_ref: list[float] = []
    t_sk: list[float] = []
    gc_was = gc.isenabled()
    gc.disable()
    try:
        for k in range(warmup + rounds):
            i = k % n
            # alternate which goes first, so neither always runs on a warm cache
            if k % 2 == 0:
                t0 = time.perf_counter_ns()
                prev = cv.chain(frames[i], prev)["blur"]
                t1 = time.perf_counter_ns()
                runner.process(items[i])
                t2 = time.perf_counter_ns()
                dr, ds = t1 - t0, t2 - t1
            else:
                t0 = time.perf_counter_ns()
                runner.process(items[i])
                t1 = time.perf_counter_ns()
                prev = cv.chain(frames[i], prev)["blur"]
                t2 = time.perf_counter_ns()
                ds, dr = t1 - t0, t2 - t1
            if k >= warmup:
                t_ref.append(dr / 1e6)
                t_sk.append(ds / 1e6)
    finally:
        if gc_was:
            gc.enable()
    return t_ref, t_sk, counts


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="320x240,640x480")
    ap.add_argument("--levels", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=600, help="timed frames per size (default %(default)s)")
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--frames", type=int, default=16)
    ap.add_argument("--seed", type=int, default=12345)
    ap.add_argument("--threads", type=int, help="cv2.setNumThreads(N)")
    args = ap.parse_args()
    ref = load_reference("vision_ref")
    import cv2
    if args.threads is not None:
        cv2.setNumThreads(args.threads)
    blur_k, edge_k = 10, 3
    print(f"{'size':>9}  {'reference ms':>12}  {'sensekit ms':>11}  {'ratio':>6}  (median per frame; "
          f"cv threads {cv2.getNumThreads()})")
    records = []
    for wh in args.sizes.split(","):
        w, h = (int(v) for v in wh.lower().split("x"))
        frames = ref.synth_frames(w, h, args.frames, args.seed)
        found = verify(ref, frames, args.levels, blur_k, edge_k)
        t_ref, t_sk, counts = bench(ref, frames, args.levels, blur_k, edge_k, args.rounds, args.warmup)
        mr, ms = statistics.median(t_ref), statistics.median(t_sk)
        print(f"{wh:>9}  {mr:12.3f}  {ms:11.3f}  {ms / mr:6.3f}   (outputs equal on {len(frames)} frames, "
              f"colour found in {found}; events {counts})")
        records.append({"name": "vision.sensekit.chain_vs_ref", "params": {"size": wh, "levels": args.levels,
                        "blur_k": blur_k, "edge_blur_k": edge_k, "rounds": args.rounds},
                        "ref_median_ms": round(mr, 6), "sensekit_median_ms": round(ms, 6),
                        "ratio": round(ms / mr, 4), "ref_min_ms": round(min(t_ref), 6),
                        "sensekit_min_ms": round(min(t_sk), 6)})
    for r in records:
        print(json.dumps(r, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
