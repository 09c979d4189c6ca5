#!/usr/bin/env python3
"""What the clap stage costs on a dense real clip, and which part costs it (for speed work).

Streams the clip (default the shared laughter clip, looped to ``--seconds``) in 512-sample
blocks through fresh ``ClapDetector``s, ``--passes`` times, the block energy given as the
level stage gives it. Prints the CPU time per block of the fastest pass (``time.process_time``:
on a shared machine it moves less than wall time) and how many grid chunks, peak searches and
judged bursts one pass holds.

``--replay grid,search,measure,score``: the first pass records what those parts return and
the later passes replay it, so they cost (almost) nothing. Under valgrind, the instructions
of ``--passes 3`` minus ``--passes 2`` are one pass; with and without a part replayed, the
difference is that part's cost:

    PYTHONHASHSEED=0 OPENBLAS_NUM_THREADS=1 valgrind --tool=callgrind \\
        .venv/bin/python benchmarks/clap_cost.py --passes 2 --replay score

(Fix the hash seed: without it, runs of the same code move by ~1.7k instructions a block.)

``--white DBFS``: seeded white noise of that RMS added to the looped clip, so that most
bursts lie over a steady floor and the floor route (``clap_floor``) hands them to its expert:
the noisy room the route is for (e.g. ``--white -30``).

(docs/claps.md, "Exact speed-ups", gives the figures). Exit status 0; a benchmark reports.

Usage: .venv/bin/python benchmarks/clap_cost.py [--passes 5] [--seconds 20] [--clip WAV]
       [--replay PARTS] [--white DBFS] [--[no-]noise-route]
"""
from __future__ import annotations

import argparse
import gc
import time
from pathlib import Path
from typing import Any

import numpy as np
from _identity import looped_blocks
from _reference import SHARED_DATA

from sensekit.audio.clap import ClapDetector

PARTS = ("grid", "search", "measure", "score")


class Parts:
    """The four parts' calls, what they returned (``log``) and the replay state of a run: the
    first pass records, the later ones replay the parts in ``replay`` once ``state["replay"]``."""

    def __init__(self, replay: set[str], log: dict[str, list[Any]], state: dict[str, Any]) -> None:
        self.replay, self.log, self.state = replay, log, state
        self.calls = dict.fromkeys(PARTS, 0)

    def replaying(self, part: str) -> bool:
        """Count a call of ``part``; whether it is replayed."""
        self.calls[part] += 1
        return part in self.replay and bool(self.state["replay"])

    def next(self, part: str) -> Any:
        i = self.state[part]
        self.state[part] = i + 1
        return self.log[part][i]


class Counted(ClapDetector):
    """A ``ClapDetector`` whose four parts (the grid, the peak search, its meter's ``measure`` and
    the trees' score) count their calls, record their effect and replay it (``Parts``); nothing of
    ``sensekit.audio`` is rewritten."""

    def __init__(self, parts: Parts, **settings: Any) -> None:
        self.parts = parts
        super().__init__(**settings)

    def _grid(self, k0: int, k1: int) -> None:
        if self.parts.replaying("grid"):
            self._regions.extend(self.parts.next("grid"))
            self._due = min(self._due, self._regions[0] + self._ahead) if self._regions else self._due
            return
        n = len(self._regions)
        super()._grid(k0, k1)
        self.parts.log["grid"].append(self._regions[n:])

    def _find_peaks(self, starts: list[int]) -> None:
        if self.parts.replaying("search"):
            peaks, self._last_found = self.parts.next("search")
            self._peaks.extend(peaks)
            return
        n = len(self._peaks)
        super()._find_peaks(starts)
        self.parts.log["search"].append((self._peaks[n:], self._last_found))

    def _configure(self, rate: int) -> None:
        super()._configure(rate)
        measure, parts = self._meter.measure, self.parts

        def measure_(x: np.ndarray, p: int, *, gain2: float = 1.0) -> Any:
            if parts.replaying("measure"):
                return parts.next("measure")
            v = measure(x, p, gain2=gain2)
            parts.log["measure"].append(v)
            return v
        self._meter.measure = measure_  # type: ignore[method-assign]   # this detector's meter only

    def _tree_score(self, vals: tuple[float, ...]) -> float:
        if self.parts.replaying("score"):
            return float(self.parts.next("score"))
        s = super()._tree_score(vals)
        self.parts.log["score"].append(s)
        return s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--passes", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--clip", type=Path, default=SHARED_DATA / "audio" / "laugh_room-small_0.wav")
    ap.add_argument("--replay", default="", help=f"comma list of {', '.join(PARTS)}")
    ap.add_argument("--noise-route", action=argparse.BooleanOptionalAction, default=None,
                    help="clap.noise_route on or off (clap_floor; default: the detector's default, on)")
    ap.add_argument("--white", type=float, default=None, metavar="DBFS",
                    help="add seeded white noise of this RMS (dBFS) to the looped clip")
    args = ap.parse_args(argv)
    replay = {p for p in args.replay.split(",") if p}
    if replay - set(PARTS):
        raise SystemExit(f"--replay: unknown part(s) {sorted(replay - set(PARTS))}; known: {PARTS}")
    bs = 512
    blocks, energy, rate = looped_blocks(args.clip, args.seconds, bs, white_dbfs=args.white)
    ts = [k * bs / rate for k in range(len(blocks))]
    log: dict[str, list[Any]] = {p: [] for p in PARTS}
    state: dict[str, Any] = dict.fromkeys(PARTS, 0)
    state["replay"] = False
    parts = Parts(replay, log, state)
    calls = parts.calls
    gc.disable()
    best, per_pass = float("inf"), dict(calls)
    for i in range(args.passes):
        state.update(dict.fromkeys(PARTS, 0), replay=i > 0)
        calls.update(dict.fromkeys(PARTS, 0))
        route = {} if args.noise_route is None else {"noise_route": args.noise_route}
        proc = Counted(parts, **route).process
        t0 = time.process_time()
        for k in range(len(blocks)):
            proc(blocks[k], ts[k], rate, energy=energy[k])
        dt = time.process_time() - t0
        if i == 0:
            per_pass = dict(calls)
        elif dt < best:
            best = dt
    if args.passes < 2:
        best = dt
    noise = "" if args.white is None else f" plus white noise at {args.white:g} dBFS"
    print(f"{args.clip.name}{noise} looped to {len(blocks) * bs / rate:g} s, {len(blocks)} blocks of {bs}; "
          f"per pass: {per_pass['grid']} grid chunks, {per_pass['search']} peak searches, "
          f"{per_pass['measure']} bursts judged, {per_pass['score']} scored by the trees")
    print(f"clap stage (replayed: {', '.join(sorted(replay)) or 'nothing'}): "
          f"{best / len(blocks) * 1e6:.2f} us CPU per block, {bs / rate / (best / len(blocks)):.0f}x real time")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
