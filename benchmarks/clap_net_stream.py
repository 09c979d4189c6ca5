#!/usr/bin/env python3
"""The fifteenth pass's candidate streamed, held out: each source's clips (and the noise curve's
mixes of its clap clips) through a detector whose every judged burst is scored by the mean of
its fold's trees and its fold's net (``clap_net``: the patch and the 16 features), at a
threshold chosen on the other sources' folds only; or, ``--mode trees``, main's trees of the
same folds at their nested thresholds (the reference, the same script and minutes).

The candidate enters the detector through the floor route's hook (as ``clap_babble_band.py``
does), so ``sensekit/audio/clap.py`` is unchanged: the route object scores every burst with
the candidate (the floor expert is not used: route off on both sides, as ``audio_eval.py``
scores folds), and the detector keeps the 0.3 s of history the patch needs.

Usage: .venv/bin/python benchmarks/clap_net_stream.py --cache BURSTS.npz --tree-folds T.json
       --net-folds N.json [--net-models M.json] [--mode mean|net|trees] [--route] [--threshold T]
       [--offsets 0,517] [--curve-offsets 0,517] [--no-curve] [--sources a,b]
  (the files written by benchmarks/clap_net_look.py; its N.json keeps each fold's net)
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from _reference import SHARED_DATA


def candidate_route(trees: dict[str, Any], net: dict[str, Any], *, alone: bool = False,
                    expert_first: type | None = None, threshold: float = 0.0) -> type:
    """A stand-in for ``clap_floor.FloorRoute`` that scores every burst: the mean of the trees'
    and the net's log-odds (``alone``: the net's). ``expert_first``: the real ``FloorRoute``,
    whose noise expert keeps the bursts it takes (the route on), judged at its own threshold
    as on main (its score plus the detector's ``threshold``)."""
    from sensekit.audio.clap_features import TreeModel
    from sensekit.evaluation.audio.clap_mlp import MlpModel
    from sensekit.evaluation.audio.clap_patch import BurstPatch

    tm = TreeModel(trees)
    mm = MlpModel(net)

    class Candidate:
        def __init__(self, rate: int) -> None:
            self._patch = BurstPatch(rate)
            self._floor = None if expert_first is None else expert_first(rate)
            self.pre = max(self._patch.pre, 0 if self._floor is None else self._floor.pre)

        def score(self, x: np.ndarray, p: int, vals: tuple[float, ...]) -> float | None:
            if self._floor is not None:
                e: float | None = self._floor.score(x, p, vals)
                if e is not None:
                    return e + threshold
            v = np.asarray(vals[1:])
            t = tm.score(v)
            n = float(mm.scores(self._patch(x, p)[None], v[None])[0])
            return n if alone else 0.5 * (t + n)
    return Candidate


def thresholds(args: argparse.Namespace, trees: dict[str, Any]) -> dict[str, float]:
    """Each source's threshold: chosen on the other sources' folds (``clap_folds.nested_thresholds``)
    of the trees or of the mean, from the bursts' held-out scores; or ``--threshold`` for all."""
    from sensekit.evaluation.audio import clap_folds as cf
    from sensekit.evaluation.audio import clap_training as ct

    b = ct.collect_cached(args.data, args.cache, patches=True)
    train = b.variant != ct.SPEECH0
    tb = ct.Bursts(b.X[train], b.y[train], b.source[train], b.background[train], b.variant[train],
                   b.clip[train], b.onsets, b.labels)
    got = json.loads(args.net_folds.read_text())
    tree_sc = {s: ct.scores(b, trees[s])[train] for s in trees}
    if args.mode == "trees":
        fold_sc = tree_sc
    elif args.mode == "net":
        fold_sc = {s: np.asarray(got[s]["scores"])[train] for s in trees}
    else:
        fold_sc = {s: 0.5 * (tree_sc[s] + np.asarray(got[s]["scores"])[train]) for s in trees}
    nested = {s: float(v) for s, v in cf.nested_thresholds(tb, fold_sc).items()}
    print(f"# {args.mode}: nested thresholds {nested}", file=sys.stderr, flush=True)
    if args.threshold is not None:
        nested = {s: args.threshold for s in nested}
    return nested


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=SHARED_DATA)
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--tree-folds", type=Path, required=True)
    ap.add_argument("--net-folds", type=Path, required=True)
    ap.add_argument("--net-models", type=Path, default=None,
                    help="the fold nets (JSON, source -> model); default: --net-folds' own")
    ap.add_argument("--mode", choices=("mean", "net", "trees"), default="mean")
    ap.add_argument("--route", action="store_true",
                    help="the floor route on: its expert (clap_noise_model, which heard every "
                         "source: not held out) first, as on main")
    ap.add_argument("--block", type=int, default=512)
    ap.add_argument("--offsets", default="0")
    ap.add_argument("--curve-offsets", default="0,517")
    ap.add_argument("--no-curve", action="store_true")
    ap.add_argument("--sources", default="")
    ap.add_argument("--threshold", type=float, default=None,
                    help="one threshold for every source instead of the nested ones (NOT a nested "
                         "choice: splits a candidate's gain between its ranking and its threshold)")
    args = ap.parse_args(argv)
    if not (args.data / "labels.csv").is_file():
        print(f"shared data not found at {args.data}", file=sys.stderr)
        return 2
    import sensekit.audio.clap_floor as cfl
    from sensekit.audio.clap import ClapDetector
    from sensekit.evaluation.audio.clap_noise import format_curve, noise_curve
    from sensekit.evaluation.audio.evaluate import evaluate, format_sources

    trees = json.loads(args.tree_folds.read_text())["models"]
    nets = json.loads((args.net_models or args.net_folds).read_text())
    if args.net_models is None:
        nets = {s: v["model"] for s, v in nets.items()}
    nested = thresholds(args, trees)
    sources = sorted(trees) if not args.sources else args.sources.split(",")

    original = cfl.FloorRoute

    def make_for(source: str) -> Any:
        route = candidate_route(trees[source], nets[source], alone=args.mode == "net",
                                expert_first=original if args.route else None,
                                threshold=float(nested[source]))

        def make() -> ClapDetector:
            if args.mode == "trees":          # main's fold detector, as audio_eval.py makes it
                cfl.FloorRoute = original  # type: ignore[misc]
                return ClapDetector(model=trees[source], threshold=float(nested[source]),
                                    noise_route=args.route)
            cfl.FloorRoute = route  # type: ignore[misc]
            return ClapDetector(model=trees[source], threshold=float(nested[source]), noise_route=True)
        return make
    try:
        for off in [int(v) for v in args.offsets.split(",")]:
            per = {}
            for s in sources:
                e = evaluate(args.data, block=args.block, offset=off, book=False, only_sources=[s], make=make_for(s))
                if s in e.sources:
                    per[s] = e.sources[s]
            print(format_sources(per, title=f"{args.mode}{' route' if args.route else ''} off {off}"))
            print(flush=True)
        if not args.no_curve:
            offsets = [int(v) for v in args.curve_offsets.split(",")]
            points = noise_curve(args.data, offsets=offsets, block=args.block, make_for=make_for,
                                 only_sources=sources)
            how = "nested" if args.threshold is None else f"threshold {args.threshold:g} for all: not nested"
            print(f"noise curve: {args.mode}, leave-one-source-out ({how}); offsets {offsets}")
            print(format_curve(points))
    finally:
        cfl.FloorRoute = original  # type: ignore[misc]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
