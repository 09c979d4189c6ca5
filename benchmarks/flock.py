#!/usr/bin/env python3
"""sensekit.steer.Flock against ../shared/bench/flock_ref.py, in one process, on the same data.

For each N the reference's own state is built (``init_state`` with the same seed, the same
world size for ~20 boids within inSightDist, inSightDist 200, tooCloseDist 60, maxSpeed 10,
maxForce 1, mass 1, one step = dt 1, wrap). ``Flock`` gets the same numbers (``radius`` =
inSightDist, ``separation_radius`` = tooCloseDist, ``response_s=1`` so a force is applied
per step exactly as in the book) and the same "in sight" rule (within the radius and in
front). Before timing, the per-boid neighbour counts of the two are checked to be equal, so
both do the same neighbour work. A timed run is one full step from the stored state (the
reference's cKDTree and sensekit's grid are rebuilt each time), reference and sensekit
alternately for ``--rounds`` rounds.

The rules are not bit-identical: sensekit steers with the neighbours' mean heading (the
reference averages velocities as Peters does) and weighs separation by closeness; the
neighbour search, which dominates the cost, is the same work.

stdout: JSON lines in the reference's shape (``flock.step``, ``method`` kdtree / sensekit)
plus a ``ratio`` line per N (acceptance: N = 5000 at most 1.0x). stderr: ``#`` summary.

Usage: .venv/bin/python benchmarks/flock.py [--n 1000,5000,20000] [--budget 0.5]
"""
from __future__ import annotations

import argparse
import math
import sys
from typing import Any
from pathlib import Path

import numpy as np

from _against_reference import alternating, log_summary, print_ratio, reference_and_options
from _reference import SHARED_BENCH as DEFAULT_BENCH, median_ms



def ref_counts(pos: np.ndarray, vel: np.ndarray, R: float, fr: Any) -> np.ndarray:
    """In-sight neighbour count per boid, computed the reference's way (cKDTree)."""
    from scipy.spatial import cKDTree
    h = fr.headings(vel)
    ij = cKDTree(pos).query_pairs(R * (1 + 1e-9), output_type="ndarray")
    i, j = ij[:, 0], ij[:, 1]
    d = pos[j] - pos[i]
    inr = (d * d).sum(1) <= R * R
    i, j, d = i[inr], j[inr], d[inr]
    a = (d * h[i]).sum(1) >= 0
    b = (d * h[j]).sum(1) <= 0
    n = len(pos)
    return np.bincount(i[a], minlength=n) + np.bincount(j[b], minlength=n)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", default="1000,5000,20000", help="boid counts (default %(default)s)")
    ap.add_argument("--neighbours", type=float, default=20.0)
    ap.add_argument("--insight", type=float, default=200.0)
    ap.add_argument("--tooclose", type=float, default=60.0)
    ap.add_argument("--max-speed", type=float, default=10.0)
    ap.add_argument("--max-force", type=float, default=1.0)
    ap.add_argument("--mass", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=2, help="alternating timing rounds (default 2)")
    ap.add_argument("--bench-dir", type=Path, default=DEFAULT_BENCH)
    fr, bu, args = reference_and_options(ap, "flock_ref")

    from sensekit.steer import Flock

    summary = []
    for n in bu.parse_int_list(args.n):
        world = math.sqrt(n * math.pi * args.insight ** 2 / args.neighbours)
        P = fr.Params(args, world)
        pos0, vel0 = fr.init_state(n, P, np.random.default_rng(args.seed))
        flock = Flock(pos0, vel0, radius=args.insight, separation_radius=args.tooclose,
                      max_speed=args.max_speed, max_force=args.max_force, mass=args.mass,
                      response_s=1.0, edges="wrap", bounds=(world, world))
        flock.forces()
        want = ref_counts(pos0, vel0, args.insight, fr)
        assert np.array_equal(flock.neighbour_counts, want), f"N={n}: neighbour sets differ"
        flock.step(1.0)
        assert np.isfinite(flock.positions).all() and np.isfinite(flock.velocities).all()
        bu.log(f"verify N={n}: same in-sight neighbour count for every boid "
               f"(mean {want.mean():.2f}); one step finite")

        def ref_run(_: int) -> None:
            fr.step_kdtree(pos0.copy(), vel0.copy(), P)

        def our_run(_: int) -> None:
            flock.positions = pos0.copy()
            flock.velocities = vel0.copy()
            flock.step(1.0)

        ref_stats, our_stats = alternating(bu, ref_run, our_run, args)
        params = {"n": n, "world": round(world, 1), "insight": args.insight,
                  "tooclose": args.tooclose, "max_speed": args.max_speed,
                  "max_force": args.max_force, "warm_steps": 0}
        bu.emit("flock.step", dict(params, method="kdtree"), ref_stats[-1],
                mean_neighbours=round(float(want.mean()), 2))
        bu.emit("flock.step", dict(params, method="sensekit"), our_stats[-1],
                mean_neighbours=round(float(want.mean()), 2))
        limit = 1.0 if n == 5000 else None
        ratio = print_ratio(f"Flock.step N={n} vs cKDTree reference", our_stats, ref_stats, limit)
        summary.append((f"flock N={n}", median_ms(our_stats), median_ms(ref_stats), ratio, limit))

    return 0 if log_summary(bu, summary, width=16) else 1


if __name__ == "__main__":
    sys.exit(main())
