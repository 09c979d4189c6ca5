#!/usr/bin/env python3
"""What each audio stage of ``sk.all`` costs on a dense real clip (for speed work).

Streams the clip (default the shared laughter clip, looped to ``--seconds``) in 512-sample
blocks through ``--stages`` of level, activity, clap and pitch, called as
``benchmarks/audio.py``'s ``sk.all`` calls them, ``--passes`` times with fresh detectors.
Prints the CPU time per block of the fastest pass after the first (``time.process_time``) and
how many pitch analyses a pass holds. Under valgrind, the instructions of ``--passes 3`` minus
``--passes 2`` are one pass (imports and set-up cancel); with one stage left out, the
difference is that stage's cost:

    PYTHONHASHSEED=0 OPENBLAS_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \\
        .venv/bin/python benchmarks/stage_cost.py --passes 2 --stages level,activity,clap

(Fix the hash seed: without it, runs of the same code move by ~1.7k instructions a block.)

Exit status 0; a benchmark reports.

Usage: .venv/bin/python benchmarks/stage_cost.py [--passes 5] [--seconds 20] [--clip WAV]
       [--stages level,activity,clap,pitch]
"""
from __future__ import annotations

import argparse
import gc
import time
from pathlib import Path

import numpy as np
from _identity import looped_blocks
from _reference import SHARED_DATA

from sensekit.audio.activity import ActivityDetector
from sensekit.audio.clap import ClapDetector
from sensekit.audio.level import LevelMeter
from sensekit.audio.pitch import PitchTracker

STAGES = ("level", "activity", "clap", "pitch")


def one_pass(blocks: list[np.ndarray], energy: list[float], rate: int, stages: set[str]) -> int:
    """Stream ``blocks`` once through fresh detectors; returns the pitch analyses."""
    bs = len(blocks[0])
    m = LevelMeter()
    mp, ap_ = m.process, ActivityDetector(10, 2000).process
    cp, pt = ClapDetector().process, PitchTracker()
    pp = pt.process
    lv_on, act_on = "level" in stages, "activity" in stages
    clap_on, pitch_on = "clap" in stages, "pitch" in stages
    for k in range(len(blocks)):
        x, t = blocks[k], k * bs / rate
        e = energy[k]
        if lv_on:
            lv = mp(x, t, rate)
            if lv is None:
                continue
            if act_on:
                ap_(lv, t)
            e = m.energy
        if clap_on:
            cp(x, t, rate, energy=e)
        if pitch_on:
            pp(x, t, rate, energy=e)
    return pt.analyses


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--passes", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--clip", type=Path, default=SHARED_DATA / "audio" / "laugh_room-small_0.wav")
    ap.add_argument("--stages", default=",".join(STAGES), help=f"comma list of {', '.join(STAGES)}")
    args = ap.parse_args(argv)
    stages = {s for s in args.stages.split(",") if s}
    if stages - set(STAGES):
        raise SystemExit(f"--stages: unknown stage(s) {sorted(stages - set(STAGES))}; known: {STAGES}")
    if args.passes < 1:
        raise SystemExit(f"--passes must be at least 1, got {args.passes}")
    bs = 512
    blocks, energy, rate = looped_blocks(args.clip, args.seconds, bs)
    gc.disable()
    times, analyses = [], 0
    for _ in range(args.passes):
        t0 = time.process_time()
        analyses = one_pass(blocks, energy, rate, stages)
        times.append(time.process_time() - t0)
    best = min(times[1:]) if len(times) > 1 else times[0]
    print(f"{args.clip.name} looped to {len(blocks) * bs / rate:g} s, {len(blocks)} blocks of {bs}; "
          f"stages {','.join(s for s in STAGES if s in stages)}: {best / len(blocks) * 1e6:.2f} us CPU "
          f"per block ({bs / rate / (best / len(blocks)):.0f}x real time); {analyses} pitch analyses a pass")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
