#!/usr/bin/env python3
"""sensekit.collide against ../shared/bench/collide_ref.py, in one process, on the same data.

Circles: the reference's own scene (``make_scene``: N circles, r ~ U[2, 10], 10 % area,
3 drifting snapshots). For each N the reference grid and ``sensekit.collide.circle_pairs``
are checked to return the same pair set on every snapshot, then timed alternately
(reference, sensekit, reference, sensekit) so machine noise hits both alike.
Masks: the reference's two 100x100 stars; raw ``mask_a.overlap(mask_b, offset)`` against
``sensekit.collide.hit_test(mask_a, pos_a, mask_b, pos_b)`` at the same offsets.

stdout: JSON lines in the reference's shape (``name``, ``params`` with ``method`` or
``impl``, ``median_ms``...), plus one ``{"name": "ratio", ...}`` line per comparison with
``ratio = sensekit / reference`` of the medians and the acceptance limit.
stderr: ``#`` lines, including a readable summary.

Usage: .venv/bin/python benchmarks/collide.py [--n 1000,10000,100000] [--budget 0.5]
       [--bench-dir ../shared/bench]
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

from _against_reference import alternating, log_summary, print_ratio, reference_and_options
from _reference import SHARED_BENCH as DEFAULT_BENCH, median_ms



def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", default="1000,10000,100000", help="circle counts (default %(default)s)")
    ap.add_argument("--rmin", type=float, default=2.0)
    ap.add_argument("--rmax", type=float, default=10.0)
    ap.add_argument("--density", type=float, default=0.10)
    ap.add_argument("--snapshots", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2, help="alternating timing rounds (default 2)")
    ap.add_argument("--no-masks", action="store_true")
    ap.add_argument("--bench-dir", type=Path, default=DEFAULT_BENCH)
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    # import the reference first (from --bench-dir) so its timing knobs can be added
    cr, bu, args = reference_and_options(ap, "collide_ref")

    from sensekit.collide import circle_pairs, hit_test

    rng = np.random.default_rng(args.seed)
    summary: list[tuple[str, float, float, float, float | None]] = []
    for n in bu.parse_int_list(args.n):
        r, world, snaps = cr.make_scene(n, args.rmin, args.rmax, args.density, args.snapshots, rng)
        ref_fn = lambda i: cr.pairs_grid(snaps[i % len(snaps)], r, args.rmax, world)  # noqa: E731
        our_fn = lambda i: circle_pairs(snaps[i % len(snaps)], r)  # noqa: E731
        for s, p in enumerate(snaps):
            want = cr.canonical(*cr.pairs_grid(p, r, args.rmax, world))
            got = circle_pairs(p, r)
            got = got[:, 0] * (1 << 32) + got[:, 1]
            assert np.array_equal(got, want), f"N={n} snapshot {s}: sensekit != reference grid"
        bu.log(f"verify N={n}: sensekit == reference grid on {len(snaps)} snapshots")
        P = {"n": n, "world": round(world, 1), "density": args.density,
             "rmin": args.rmin, "rmax": args.rmax}
        ref_stats, our_stats = alternating(bu, ref_fn, our_fn, args)
        bu.emit("collide.circles", dict(P, method="grid"), ref_stats[-1])
        bu.emit("collide.circles", dict(P, method="sensekit"), our_stats[-1])
        limit = 1.0 if n >= 100000 else None
        ratio = print_ratio(f"circle_pairs N={n} vs reference grid", our_stats, ref_stats, limit)
        summary.append((f"grid N={n}", median_ms(our_stats), median_ms(ref_stats), ratio, limit))

    if not args.no_masks:
        ma, _ = cr.star_mask(rot_deg=0)
        mb, _ = cr.star_mask(rot_deg=18)
        offsets = {"centered": (0, 0), "partial": (30, 20), "tips": (-58, -58),
                   "bbox_only": (70, 70)}
        pa = (100, 100)
        for label, (ox, oy) in offsets.items():
            pb = (pa[0] + ox, pa[1] + oy)
            assert hit_test(ma, pa, mb, pb) == (ma.overlap(mb, (ox, oy)) is not None), label
            raw = lambda i: ma.overlap(mb, (ox, oy))  # noqa: E731
            ours_fn = lambda i: hit_test(ma, pa, mb, pb)  # noqa: E731
            rs, us = alternating(bu, raw, ours_fn, args, inner=200)
            P = {"size": "100x100", "offset": [ox, oy], "case": label, "op": "overlap"}
            bu.emit("collide.mask", dict(P, impl="pygame"), rs[-1])
            bu.emit("collide.mask", dict(P, impl="sensekit"), us[-1])
            ratio = print_ratio(f"hit_test {label} vs raw Mask.overlap", us, rs, 1.5, ms_digits=None)
            summary.append((f"hit_test {label}", median_ms(us), median_ms(rs), ratio, 1.5))

    ok = log_summary(bu, summary, width=28,
                     unit=lambda what: ("us", 1000.0) if what.startswith("hit_test") else ("ms", 1.0))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
