#!/usr/bin/env python3
"""Choose the re-finding reach leaving one clip out, from ``found_eval.py --json`` files.

Each JSON is one setting's runs (``found_eval.py --tracker refind_radius=R --tracker
refind_widen=W --json FILE``); the first is the reference (``main``: the whole frame). For each
clip, the setting is chosen on the other clips: among the settings that re-find every back run
the reference re-finds there and whose median delay is at most ``--max-extra`` (2) frames
longer, the one with the fewest false founds (ties: the shorter median delay, then the file
given first). Printed per held-out clip: the setting chosen, and on that clip its false founds,
re-found runs and median delay beside the reference's; then the sums over the held-out clips.

    .venv/bin/python benchmarks/found_loo.py main.json g_0.75_0.02.json g_1.5_0.05.json ...
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np


def _figures(rows: list[dict[str, Any]], clips: set[str]) -> dict[str, Any]:
    kept = [r for r in rows if r["clip"] in clips and not r["lost_before"]]
    back = {(r["clip"], r["label"], r["how"]): r["delay"] for r in kept if r["back"] and r["lost"]}
    delays = [d for d in back.values() if d is not None]
    return {"false": sum(len(r["false_found"]) for r in kept),
            "runs_false": sum(1 for r in kept if r["false_found"]),
            "refound": {k for k, d in back.items() if d is not None}, "delays": delays,
            "median": float(np.median(delays)) if delays else float("nan")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", type=Path, help="found_eval.py --json files; the first is the reference")
    ap.add_argument("--max-extra", type=float, default=2.0, help="frames of median delay allowed over the reference")
    args = ap.parse_args(argv)
    runs = {p.stem: json.loads(p.read_text()) for p in args.runs}
    ref = args.runs[0].stem
    clips = sorted({r["clip"] for r in runs[ref]})
    total: dict[str, list[Any]] = {"ref": [0, 0, 0, []], "chosen": [0, 0, 0, []]}
    print("held out                  chosen on the others        false founds (runs)   re-found   median delay"
          "   | reference: false (runs), re-found, median")
    for held in clips:
        train = set(clips) - {held}
        base = _figures(runs[ref], train)
        ok = []
        for name, rows in runs.items():
            f = _figures(rows, train)
            if base["refound"] <= f["refound"] and not f["median"] > base["median"] + args.max_extra:
                ok.append((f["false"], f["median"], list(runs).index(name), name))
        choice = min(ok)[3]
        got, was = _figures(runs[choice], {held}), _figures(runs[ref], {held})
        for key, f in (("chosen", got), ("ref", was)):
            total[key][0] += f["false"]
            total[key][1] += f["runs_false"]
            total[key][2] += len(f["refound"])
            total[key][3] += f["delays"]
        lost_refinds = len(was["refound"] - got["refound"])
        print(f"{held:25s} {choice:27s} {got['false']:6d} ({got['runs_false']})  {len(got['refound']):10d}"
              f" {got['median']:+10.1f}{' (' + str(lost_refinds) + ' lost)' if lost_refinds else ''}"
              f"   | {was['false']} ({was['runs_false']}), {len(was['refound'])}, {was['median']:+.1f}")
    for key in ("chosen", "ref"):
        f, n, k, d = total[key]
        print(f"all held out, {key:7s}: false founds {f} in {n} runs; re-found {k}; "
              f"median delay {np.median(d) if d else float('nan'):+.1f} frames")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
