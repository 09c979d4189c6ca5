#!/usr/bin/env python3
"""The floor route's training cache (``ROUTED_FLOOR.npz``, docs/claps_history.md, 8th, 11th and 24th passes).

Every burst of the shipped training copies and the low-SNR ones (``clap_training.AUGMENTATIONS`` +
``LOW_SNR``), streamed as ``clap_training.collect`` streams them (route off, every burst kept): 21 columns,
the 16 burst features, the expert's four patch features (``FloorRoute.patch``, NaN without the history)
and ``floor_spread_db`` (NaN without it). ``clap_expert_refit.py`` and ``clap_floor_route.py`` read it.
The twenty-fourth pass rebuilt it this way (the eleventh pass's file was lost): 43,245 bursts, 51 of the
originals on the route (1 clap), as the eleventh pass counted; the features and spread equal
``collect(patches=True)``'s on the copies both have.

``--part K/N`` streams the K-th of N contiguous runs of clips into ``OUT.K`` (run the parts at once on
several cores), ``--merge N`` joins ``OUT.0`` .. ``OUT.N-1`` into ``OUT`` in order. Cost: ~1.5 min on two
cores (the parts are uneven: the first holds the long clap clips).

Usage: .venv/bin/python benchmarks/clap_floor_cache.py --out ROUTED_FLOOR.npz [--part 0/2 | --merge 2]
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
from _reference import SHARED_DATA, data_refused

META = ("on_k", "on_v", "lab_k", "lab_v")
ROWS = ("X", "y", "source", "background", "variant", "clip")


def stream(x: np.ndarray, rate: int, block: int = 4096) -> list[Any]:
    """Every burst the detector judges (``clap_training.judged_bursts``, the route off)."""
    from sensekit.audio.clap import ClapDetector
    from sensekit.evaluation.audio import clap_training as ct

    det = ClapDetector(threshold=-20.0, min_rise_db=10.0, model=ct._NEUTRAL, noise_route=False)
    det.keep_features = True
    for k, i in enumerate(range(0, len(x), block)):
        det.process(x[i:i + block], i / rate, rate, index=k)
    return det.features


def part(out: Path, k: int, n: int) -> None:
    from sensekit.audio.clap_floor import FloorRoute
    from sensekit.evaluation.audio import clap_training as ct
    from sensekit.evaluation.audio.clap_augment import SYNTHETIC_KINDS
    from sensekit.evaluation.audio.evaluate import recipe_onsets

    src = ct._Clips(SHARED_DATA, SYNTHETIC_KINDS)
    counts, rows = {}, []
    for c in src.clips:
        x, rate = src.audio[c.file]
        counts[c.file] = len(c.onsets if c.onsets or c.label != "clap" else recipe_onsets(x, rate))
    for c in src.clips[len(src.clips) * k // n: len(src.clips) * (k + 1) // n]:
        x, rate = src.audio[c.file]
        onsets = c.onsets if c.onsets or c.label != "clap" else recipe_onsets(x, rate)
        for variant in ct.AUGMENTATIONS + ct.LOW_SNR:
            copy = src.variant(variant, c, onsets, np.random.default_rng(ct.seed_of(c.file, variant)))
            if copy is None:
                continue
            y, r, times, bg = copy
            feats = stream(y, r)
            labels = ct.label_bursts(feats, times) if c.label == "clap" else [0] * len(feats)
            fr = FloorRoute(r)
            for f, lab in zip(feats, labels):
                p = round(f.t_peak * r)
                has = p >= fr.pre
                patch = fr.patch(y, p) if has and p + int(fr._patch_idx.max()) < len(y) else (math.nan,) * 4
                spread = fr.floor_spread_db(y, p) if has else math.nan
                rows.append((np.r_[f.vector(), patch, spread], lab, c.source, bg, variant, c.file))
        print(f"# {c.file}", file=sys.stderr, flush=True)
    cols: dict[str, Any] = {name: np.array([r[i] for r in rows]) for i, name in enumerate(ROWS)}
    np.savez_compressed(out, **cols, on_k=np.array(list(counts)), on_v=np.array(list(counts.values())),
                        lab_k=np.array([c.file for c in src.clips]), lab_v=np.array([c.label for c in src.clips]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--part", default="0/1", help="K/N: the K-th of N runs of clips, written to OUT.K")
    ap.add_argument("--merge", type=int, default=0, help="join N parts into OUT")
    args = ap.parse_args(argv)
    if data_refused():
        return 2
    out: Path = args.out

    def name(k: int) -> Path:
        return out.with_name(f"{out.name}.{k}.npz")
    if args.merge:
        parts = [np.load(name(k)) for k in range(args.merge)]
        if any(not all(np.array_equal(p[m], parts[0][m]) for m in META) for p in parts):
            print("the parts were not made from the same clips", file=sys.stderr)
            return 2
        merged: dict[str, Any] = {**{r: np.concatenate([p[r] for p in parts]) for r in ROWS},
                                  **{m: parts[0][m] for m in META}}
        np.savez_compressed(args.out, **merged)
        print(f"wrote {args.out}")
        return 0
    k, n = (int(v) for v in args.part.split("/"))
    if not 0 <= k < n:
        print(f"--part {args.part}: K must be 0..N-1", file=sys.stderr)
        return 2
    part(args.out if n == 1 else name(k), k, n)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
