#!/usr/bin/env python3
"""What each NumPy call of the clap grid's 28 ms chunk costs on its own (for speed work).

Repeats one call ``--repeat`` times on arrays shaped as the grid's at 48 kHz (a chunk of 33
frames of 48 samples and the band's 15 samples of history): the clap band, the frame powers'
``einsum``, the reshape, the float32 -> float64 store, the moving mean's ``correlate``, the
comparison and ``count_nonzero``, a view, and ``nop`` (the loop alone). Under valgrind the
instructions of ``--repeat 11000`` minus ``--repeat 1000``, divided by 10000, are one call
(less ``nop``'s figure, the loop's own cost):

    valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        .venv/bin/python benchmarks/grid_call_cost.py band --repeat 1000

Without valgrind it prints the wall time per call (timeit, best of 5). Exit status 0; a
benchmark reports. docs/claps_history.md ("Fifth pass (clapspeed5)") gives the figures.

Usage: .venv/bin/python benchmarks/grid_call_cost.py CALL [--repeat N]
"""
from __future__ import annotations

import argparse
import timeit
from collections.abc import Callable
from typing import Any

import numpy as np

from sensekit.audio.clap_features import clap_band
from sensekit.audio.numpy_calls import correlate, count_nonzero, einsum


def calls() -> dict[str, Callable[[], Any]]:
    """name -> one call on arrays shaped as the grid's (seeded, so every run is the same)."""
    rng = np.random.default_rng(0)
    buf = (rng.standard_normal(8000) * 0.1).astype(np.float32)
    seg = buf[100: 100 + 33 * 48 + 15]
    d = clap_band(seg, 8).reshape(-1, 48)
    fp = np.abs(rng.standard_normal(512))
    ones = np.full(24, 10.0 ** 0.6 / 24)
    new = fp[40:73]
    thr = correlate(fp[10:66], ones, 0)
    hit = new >= thr
    p32 = einsum("ij,ij->i", d, d)
    a, b = seg[1:], seg[:-1]
    return {
        "nop": lambda: None,
        "band": lambda: clap_band(seg, 8),
        "add": lambda: a + b,
        "view": lambda: seg[1:],
        "reshape": lambda: seg[: 33 * 48].reshape(-1, 48),
        "einsum": lambda: einsum("ij,ij->i", d, d),
        "store": lambda: fp.__setitem__(slice(40, 73), p32),
        "correlate": lambda: correlate(fp[10:66], ones, 0),
        "compare": lambda: new >= thr,
        "count_nonzero": lambda: count_nonzero(hit),
    }


def main(argv: list[str] | None = None) -> int:
    table = calls()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("call", choices=sorted(table))
    ap.add_argument("--repeat", type=int, default=20000)
    args = ap.parse_args(argv)
    f = table[args.call]
    n = max(1, args.repeat)
    best = min(timeit.repeat(f, number=n, repeat=5)) if n >= 20000 else None
    if best is None:
        for _ in range(n):
            f()
        print(f"{args.call}: {n} calls")
    else:
        print(f"{args.call}: {best / n * 1e6:.2f} us a call (best of 5 x {n})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
