#!/usr/bin/env python3
"""How late the first clap judged by the floor route is reported, in a fresh process.

The noise route (``clap.noise_route``, ``clap_floor``) loads the expert's trees
(``clap_noise_model``) once per process. This replays a clap clip mixed with seeded white noise
(``--snr`` dB under its claps, ``clap_noise.mix_at``) in 512-sample blocks through a
``ClapDetector()`` built as the apps build it (no rate until the first block), each run in a
fresh Python process (so every lazy import is paid as a user pays it), and times every
``process`` call (``time.perf_counter``). The blocks are taken to arrive in real time; a block
is processed when it has arrived and the previous one is done, so a slow call delays the blocks
queued behind it. A clap's *delay* is the wall time from the arrival of the block that
completes it to the end of the call that reports it (the detector's own look-ahead,
``latency_ms``, comes on top and is the same for every clap).

Prints, per run and as medians over ``--repeats`` runs: the delay of the first routed clap
(one the expert judged), the median delay of the later routed claps, the slowest call and which
block it was, and the time to build the detector and to ``import sensekit.audio.clap``.
Exit status 0; a benchmark reports.

    .venv/bin/python benchmarks/clap_first_route.py [--clip clap_k_steady13.wav] [--snr 10]
        [--repeats 5]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from _reference import SHARED_DATA

if TYPE_CHECKING:                 # (numpy is imported in the timed run, not before it)
    import numpy as np

BS = 512


def one_run(clip: str, snr_db: float) -> dict[str, object]:
    """In this (fresh) process: import, build, stream; the times and the claps."""
    import time

    t0 = time.perf_counter()
    from sensekit.audio.clap import ClapDetector
    t_import = time.perf_counter() - t0

    from sensekit.audio.clap_loudness import clap_loudness
    from sensekit.evaluation.audio.clap_noise import mix_at, noise_unit
    from sensekit.evaluation.audio.evaluate import read_clips, read_wav

    clips = {c.file: c for c in read_clips(SHARED_DATA)}
    c = clips[f"audio/{clip}"]
    x, rate = read_wav(SHARED_DATA / c.file)
    y = mix_at(x, noise_unit("white", c.file, len(x), rate, []), clap_loudness(x, rate, c.onsets), snr_db)
    blocks = [y[i:i + BS].copy() for i in range(0, len(y) - BS + 1, BS)]
    t0 = time.perf_counter()
    det = ClapDetector()
    t_build = time.perf_counter() - t0
    calls, claps = [], []
    for k, b in enumerate(blocks):
        t0 = time.perf_counter()
        got = det.process(b, k * BS / rate, rate, index=k)
        calls.append(time.perf_counter() - t0)
        claps += [(k, float(cl.t)) for cl in got]
    # which claps the expert judged: the same stream again (untimed) through a detector whose
    # floor route notes its answers (``clap_variants.detector_class``: that detector's route only)
    from sensekit.audio.clap_floor import FloorRoute
    from sensekit.evaluation.audio.clap_variants import detector_class

    routed_t: set[int] = set()

    class Noting(FloorRoute):
        def score(self, xb: np.ndarray, p: int, vals: tuple[float, ...]) -> float | None:
            s = super().score(xb, p, vals)
            if s is not None:
                routed_t.add(round(probe._b0 + p))
            return s

    probe = detector_class(route=Noting)()
    probe.process(blocks[0], 0.0, rate, index=0)
    probe_claps = []
    for k, b in enumerate(blocks[1:], 1):
        probe_claps += [float(cl.t) for cl in probe.process(b, k * BS / rate, rate, index=k)]
    routed_peaks = sorted(routed_t)
    # a clap is routed when a routed peak lies within 12 ms after its onset
    routed = [any(0 <= p / rate - t <= 0.012 for p in routed_peaks) for _, t in claps]
    # real-time queue: block k arrives at (k + 1) * BS / rate
    done, delay = 0.0, []
    for k, dt in enumerate(calls):
        arrive = (k + 1) * BS / rate
        done = max(arrive, done) + dt
        delay.append(done - arrive)
    slow = max(range(len(calls)), key=calls.__getitem__)
    return {"import_ms": 1e3 * t_import, "build_ms": 1e3 * t_build,
            "claps": [[k, t, r, 1e3 * delay[k]] for (k, t), r in zip(claps, routed)],
            "slowest_ms": 1e3 * calls[slow], "slowest_block": slow,
            "slowest_t": slow * BS / rate, "same_claps": probe_claps == [t for _, t in claps]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clip", default="clap_k_steady13.wav")
    ap.add_argument("--snr", type=float, default=10.0)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(one_run(args.clip, args.snr)))
        return 0
    here = Path(__file__).resolve().parent
    first, later, imp, build = [], [], [], []
    for i in range(args.repeats):
        out = subprocess.run([sys.executable, str(here / "clap_first_route.py"), "--one", "--clip", args.clip,
                              "--snr", str(args.snr)], check=True, capture_output=True, text=True).stdout
        r = json.loads(out)
        routed = [c for c in r["claps"] if c[2]]
        f = routed[0][3] if routed else float("nan")
        rest = statistics.median(c[3] for c in routed[1:]) if len(routed) > 1 else float("nan")
        first.append(f)
        later.append(rest)
        imp.append(r["import_ms"])
        build.append(r["build_ms"])
        print(f"run {i + 1}: {len(r['claps'])} claps, {len(routed)} routed; first routed clap "
              f"(t {routed[0][1] if routed else float('nan'):.3f} s) {f:.1f} ms late, later ones "
              f"{rest:.2f} ms (median); slowest call {r['slowest_ms']:.1f} ms at block "
              f"{r['slowest_block']} (t {r['slowest_t']:.3f} s); build {r['build_ms']:.1f} ms, "
              f"import sensekit.audio.clap {r['import_ms']:.0f} ms"
              + ("" if r["same_claps"] else "; PROBE CLAPS DIFFER"))
    print(f"{args.clip} + white noise {args.snr:g} dB, {args.repeats} fresh processes (medians): "
          f"first routed clap {statistics.median(first):.1f} ms late, later routed claps "
          f"{statistics.median(later):.2f} ms; ClapDetector() {statistics.median(build):.1f} ms; "
          f"import sensekit.audio.clap {statistics.median(imp):.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
