#!/usr/bin/env python3
"""A lower threshold for bursts over a babble-like floor, chosen nested leave-one-source-out.

The lever of the twelfth pass (docs/claps_history.md): a burst rising under 24 dB over a
floor whose ``floor_spread_db`` lies from 2 dB (the floor route's steady noise) to ``S`` dB
needs ``drop`` less than its fold's nested threshold. It is simulated on the bursts the
held-out detectors judge (``clap_babble_misses.run_mix``; the shipped trees' folds, each
source's nested threshold): a clap lost at the trees is found when its best burst lies in the
band and scores within ``drop``; every burst that is no clap, lies in the band and scores
within ``drop`` under the threshold counts as a new false clap (an upper bound: ``min_gap_ms``
merges are not counted). Conditions: the clips alone, every negative clip, and the clips over
babble and one speaker at each SNR (the noise curve's mixes, offset 0). For each held-out
source, (S, drop) is the grid point with the best pooled per-clap F1 on the *other* sources
over all conditions (drop 0: the shipped detector; ties: the smaller drop, then the smaller
S); that source is then scored at its choice (``--fixed S,drop``: one point for all, a
look). Prints per condition (negative clips by label) recall and false claps a minute,
shipped against the lever, and the nested choices. ``--streamed``: the same conditions
streamed again with the lever inside the detector (a floor route, the only one of those
detectors, that scores a burst in the band with the source's trees plus ``drop`` and leaves
the others to the trees), so merges are counted: exact.

Usage: .venv/bin/python benchmarks/clap_babble_band.py --folds SHIPPED.json [--snrs 0,5,10,15,20,30]
"""
from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from _clap_clips import add_data_option
from clap_babble_misses import fold_detector, in_band, new_acc, run_mix

SPREADS = (6.0, 10.0, 14.0, 18.0, 25.0)
DROPS = (0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0)


def tally(acc: dict[str, Any], s: float, d: float) -> tuple[int, int, int]:
    """(claps found, claps, false claps) of one accumulator under the lever (S, drop)."""
    got = sum(1 for w, t, sp, thr in acc["claps"] if w == "found" or (
        d > 0 and w == "score" and in_band(t.rise_db, sp, s) and t.score >= thr - d))
    new = sum(1 for m, r, sp in acc["others"] if d > 0 and m >= -d and in_band(r, sp, s)) if d > 0 else 0
    return got, len(acc["claps"]), acc["fp"] + new


def f1(accs: list[dict[str, Any]], s: float, d: float) -> float:
    tp = n = fp = 0
    for a in accs:
        g, k, f = tally(a, s, d)
        tp, n, fp = tp + g, n + k, fp + f
    return 2 * tp / (n + tp + fp) if n + tp + fp else 1.0


def with_band(s: float, d: float, model: dict[str, Any], base: type) -> type:
    """A floor route (``base``: ``clap_floor.FloorRoute``, for its ``floor_spread_db`` and ``pre``)
    that scores a burst rising under 24 dB over a floor spreading 2..``s`` dB with ``model``'s
    trees plus ``d`` (the lever inside the detector) and leaves every other burst to the trees
    (None), as the shipped column's detectors (the noise route off) do: the lever is the one
    difference between the two columns; ``d`` 0 is the shipped detector."""
    from sensekit.audio.clap_features import clap_score

    class Band(base):  # type: ignore[misc]
        def score(self, x: np.ndarray, p: int, vals: tuple[float, ...]) -> float | None:
            if d <= 0 or vals[1] >= 24.0 or p < self.pre:
                return None
            if 2.0 <= self.floor_spread_db(x, p) < s:
                return float(clap_score(np.asarray(vals[1:]), model)) + d
            return None
    return Band


def streamed(data: Path, snrs: list[float], folds: dict[str, Any],
             choice: dict[str, tuple[float, float]], band: Any = with_band) -> dict[str, dict[str, Any]]:
    """``collect`` with each source's lever inside its detector (its floor route, made by
    ``band``: ``with_band``'s signature)."""
    from sensekit.audio.clap_floor import FloorRoute

    out: dict[str, dict[str, Any]] = {}
    for src in folds["models"]:
        out.update(collect(data, snrs, folds, only=src,
                           route=band(*choice[src], folds["models"][src], FloorRoute)))
    return out


def collect(data: Path, snrs: list[float], folds: dict[str, Any],
            only: str | None = None, route: type | None = None) -> dict[str, dict[str, Any]]:
    """``{source: {condition: accumulator}}``; ``route``: the floor route's class of every detector,
    made with the route on (``clap_variants.detector_class``); None: the noise route off."""
    from sensekit.audio.clap_loudness import clap_loudness
    from sensekit.evaluation.audio.clap_noise import mix_at, noise_unit, other_speech
    from sensekit.evaluation.audio.clap_variants import detector_class
    from sensekit.evaluation.audio.evaluate import read_clips, read_wav

    made = detector_class(route=route)

    def detector(source: str) -> Any:
        return fold_detector(folds, source, made, noise_route=route is not None)

    clips = [c for c in read_clips(data) if only is None or c.source == only]
    audio = {c.file: read_wav(data / c.file) for c in clips}
    speech = [c for c in read_clips(data) if c.label == "speech"]
    audio.update({c.file: read_wav(data / c.file) for c in speech})
    out: dict[str, dict[str, Any]] = {}
    for c in clips:
        x, rate = audio[c.file]
        conds = out.setdefault(c.source, {})
        cond = "clips" if c.onsets else f"negative {c.label}"
        run_mix(detector(c.source), x.astype(np.float32), rate, c.onsets, conds.setdefault(cond, new_acc()))
        if not c.onsets:
            continue
        loud = clap_loudness(x, rate, c.onsets)
        for kind in ("babble", "speech"):
            unit = noise_unit(kind, c.file, len(x), rate, other_speech(audio, speech, c.source, rate))
            for snr in snrs:
                run_mix(detector(c.source), mix_at(x, unit, loud, snr), rate, c.onsets,
                        conds.setdefault(f"{kind} {snr:g} dB", new_acc()))
    return out


def print_streamed(by: dict[str, dict[str, Any]], lev: dict[str, dict[str, Any]], conds: list[str]) -> None:
    print(f"\nstreamed: {'condition':24s} {'shipped':>14s} {'lever':>14s}")
    for cond in conds:
        cells = []
        for d in (by, lev):
            accs = [cs[cond] for cs in d.values() if cond in cs]
            n = sum(len(a["claps"]) for a in accs)
            tp = sum(a["count"]["found"] for a in accs)
            fp, sec = sum(a["fp"] for a in accs), sum(a["seconds"] for a in accs)
            cells.append((f"{tp / n:.2f}" if n else "-") + f" / {60 * fp / sec:.1f}")
        print(f"          {cond:24s} {cells[0]:>14s} {cells[1]:>14s}")


def print_sources(by: dict[str, dict[str, Any]], lev: dict[str, dict[str, Any]]) -> None:
    """Per source, as claps.md's table: per-clap F1 on its clips; its negative clips firing
    (claps)."""
    print(f"\nstreamed, per source: {'per-clap F1':>24s} {'negative clips firing (claps)':>36s}")
    for src in sorted(by):
        cells = []
        for d in (by, lev):
            cs = d[src]
            a = cs.get("clips")
            f1c = "-"
            if a is not None and a["claps"]:
                tp = a["count"]["found"]
                f1c = f"{2 * tp / (len(a['claps']) + tp + a['fp']):.3f}"
            neg = [v for k, v in cs.items() if k.startswith("negative")]
            firing = f"{sum(v['firing'] for v in neg)}/{sum(v['mixes'] for v in neg)} ({sum(v['fp'] for v in neg)})"
            cells.append(f"{f1c} | {firing}")
        print(f"  {src:16s} shipped {cells[0]:>24s}   lever {cells[1]:>24s}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(ap)
    ap.add_argument("--folds", type=Path, required=True)
    ap.add_argument("--snrs", default="0,5,10,15,20,30")
    ap.add_argument("--streamed", action="store_true",
                    help="also stream every condition with the lever in the detector (exact, merges counted)")
    ap.add_argument("--fixed", help="S,drop for every source instead of the nested choice (a look, not a choice)")
    args = ap.parse_args(argv)
    folds = json.loads(args.folds.read_text())
    by = collect(args.data, [float(v) for v in args.snrs.split(",")], folds)
    grid = [(s, d) for d in DROPS for s in SPREADS]
    choice = {}
    for h in sorted(by):
        train = [a for src, conds in by.items() if src != h for a in conds.values()]
        best = max(f1(train, s, d) for s, d in grid)
        choice[h] = next((s, d) for s, d in grid if f1(train, s, d) >= best - 1e-12)
    if args.fixed:
        fixed = tuple(float(v) for v in args.fixed.split(","))
        choice = {h: (fixed[0], fixed[1]) for h in by}
    every = [a for conds in by.values() for a in conds.values()]
    print("choices (S, drop) by held-out source:", {h: c for h, c in choice.items()})
    print("on every source:", max(grid, key=lambda g: (f1(every, *g), -g[1], -g[0])),
          "counts", Counter(choice.values()))
    conds = list(dict.fromkeys(c for v in by.values() for c in v))
    conds.sort(key=lambda c: (c[0] != "c", c[0] != "n", c.split()[0], float(c.split()[1]) if c[0] in "bs" else 0, c))
    print(f"{'condition':24s} {'shipped: recall / false a minute':>34s} {'lever':>22s}")
    for cond in conds:
        cells = []
        for lever in (False, True):
            tp = n = fp = 0
            sec = 0.0
            for src, cs in by.items():
                if cond in cs:
                    s, d = choice[src] if lever else (0.0, 0.0)
                    g, k, f = tally(cs[cond], s, d)
                    tp, n, fp, sec = tp + g, n + k, fp + f, sec + cs[cond]["seconds"]
            cells.append((f"{tp / n:.2f}" if n else "-") + f" / {60 * fp / sec:.1f}")
        print(f"{cond:24s} {cells[0]:>34s} {cells[1]:>22s}")
    if args.streamed:
        lev = streamed(args.data, [float(v) for v in args.snrs.split(",")], folds, choice)
        print_streamed(by, lev, conds)
        print_sources(by, lev)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
