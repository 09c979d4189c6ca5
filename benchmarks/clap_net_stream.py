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
       --net-folds N.json [--net-models M.json] [--mode mean|net|trees|gated] [--route] [--threshold T]
       [--gate-threshold nested|trees|T] [--margin nested|M] [--veto-side both|claps]
       [--offsets 0,517] [--curve-offsets 0,517] [--no-curve]
       [--sources a,b] [--kinds white,pink,...] [--snrs 0,5,10] [--dense CLIP]
  --mode gated: the sixteenth pass's candidate (``clap_net_gate``): the mean only for bursts rising
  < 24 dB over a floor that moves, the trees for every other, each branch at its own threshold
  (the files written by benchmarks/clap_net_look.py; its N.json keeps each fold's net)
  --mode veto [--margin nested|M] [--veto-side both|claps]: the seventeenth pass's candidate
  (``clap_net_veto``): the trees decide; the mean only where the trees' score is within the
  margin of their threshold (``claps``: only demoting the trees' claps)
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from _reference import SHARED_DATA, data_refused


def close_call(veto: tuple[float, str] | None, threshold: float,
               counts: dict[str, int] | None) -> Callable[[float], bool]:
    """Whether a burst of trees score ``t`` needs the patch: always without ``veto``, else when
    ``t`` is within the margin of ``threshold`` (``clap_net_veto.in_margin``); counted in
    ``counts`` ("bursts", "patched")."""
    from sensekit.evaluation.audio.clap_net_veto import in_margin

    def needs_patch(t: float) -> bool:
        inside = veto is None or bool(in_margin(np.array([t]), threshold=threshold,
                                                margin=veto[0], side=veto[1])[0])
        if counts is not None:
            counts["bursts"] = counts.get("bursts", 0) + 1
            counts["patched"] = counts.get("patched", 0) + int(inside)
        return inside
    return needs_patch


def candidate_route(trees: dict[str, Any], net: dict[str, Any], *, alone: bool = False,
                    expert_first: type | None = None, threshold: float = 0.0,
                    gate_shift: float | None = None, floor_route: type | None = None,
                    gate_rise: float = 24.0, veto: tuple[float, str] | None = None,
                    counts: dict[str, int] | None = None) -> type:
    """A stand-in for ``clap_floor.FloorRoute`` that scores every burst: the mean of the trees'
    and the net's log-odds (``alone``: the net's). ``expert_first``: the real ``FloorRoute``,
    whose noise expert keeps the bursts it takes (the route on), judged at its own threshold
    as on main (its score plus the detector's ``threshold``). ``gate_shift`` (the sixteenth
    pass, ``clap_net_gate``): only a burst rising < 24 dB over a floor that is not steady gets the
    mean, less ``gate_shift`` (its branch threshold less the trees'); every other the trees'.
    ``floor_route``: the real ``FloorRoute`` class, whose ``steady`` test the gate asks;
    ``gate_rise``: the gate's rise split (the route's 24 dB; ``inf``: every burst over a moving floor).
    ``veto`` (the seventeenth pass, ``clap_net_veto``): (margin, side): the mean only for a burst
    whose trees score is within the margin of ``threshold``, the patch skipped for every other;
    ``counts`` gets "bursts" and "patched" added up."""
    from sensekit.audio.clap_features import TreeModel
    from sensekit.evaluation.audio.clap_mlp import MlpModel
    from sensekit.evaluation.audio.clap_patch import BurstPatch

    if gate_shift is not None and floor_route is None:
        raise ValueError("gate_shift needs floor_route (the real FloorRoute, for its steady test)")
    tm = TreeModel(trees)
    mm = MlpModel(net)
    needs_patch = close_call(veto, threshold, counts)

    class Candidate:
        def __init__(self, rate: int) -> None:
            self._patch = BurstPatch(rate)
            self._floor = None if expert_first is None else expert_first(rate)
            self._gate = None if gate_shift is None or floor_route is None else floor_route(rate)
            self.pre = max(self._patch.pre, 0 if self._floor is None else self._floor.pre,
                           0 if self._gate is None else self._gate.pre)

        def score(self, x: np.ndarray, p: int, vals: tuple[float, ...]) -> float | None:
            if self._floor is not None:
                e: float | None = self._floor.score(x, p, vals)
                if e is not None:
                    return e + threshold
            v = np.asarray(vals[1:])
            t = tm.score(v)
            if not needs_patch(t):
                return t
            if self._gate is not None and (vals[1] >= gate_rise or p < self._gate.pre
                                           or self._gate.steady(x, p)):
                return t
            n = float(mm.scores(self._patch(x, p)[None], v[None])[0])
            if alone:
                return n
            return 0.5 * (t + n) - (gate_shift or 0.0)
    return Candidate


def thresholds(args: argparse.Namespace, trees: dict[str, Any]) -> tuple[dict[str, float], dict[str, float]]:
    """Each source's threshold: chosen on the other sources' folds (``clap_folds.nested_thresholds``)
    of the trees or of the mean, from the bursts' held-out scores; or ``--threshold`` for all.
    And (``--mode gated``) each source's gated branch threshold (``clap_net_gate``; the trees'
    threshold for both branches with ``--gate-threshold trees``, or a number for all)."""
    from sensekit.evaluation.audio import clap_folds as cf
    from sensekit.evaluation.audio import clap_net_gate as cg
    from sensekit.evaluation.audio import clap_training as ct

    b = ct.collect_cached(args.data, args.cache, patches=True)
    train = b.variant != ct.SPEECH0
    tb = ct.Bursts(b.X[train], b.y[train], b.source[train], b.background[train], b.variant[train],
                   b.clip[train], b.onsets, b.labels)
    got = json.loads(args.net_folds.read_text())
    tree_sc = {s: ct.scores(b, trees[s])[train] for s in trees}
    if args.mode in ("trees", "gated", "veto"):
        fold_sc = tree_sc
    elif args.mode == "net":
        fold_sc = {s: np.asarray(got[s]["scores"])[train] for s in trees}
    else:
        fold_sc = {s: 0.5 * (tree_sc[s] + np.asarray(got[s]["scores"])[train]) for s in trees}
    nested = {s: float(v) for s, v in cf.nested_thresholds(tb, fold_sc).items()}
    print(f"# {args.mode}: nested thresholds {nested}", file=sys.stderr, flush=True)
    if args.threshold is not None:
        nested = {s: args.threshold for s in nested}
    gated: dict[str, float] = {}
    if args.mode == "veto":
        nested = {s: v + args.veto_offset for s, v in nested.items()} if args.veto_offset else nested
        from sensekit.evaluation.audio import clap_net_veto as cv
        net_sc = {s: np.asarray(got[s]["scores"])[train] for s in trees}
        if args.margin == "nested":    # at the nested thresholds (shifted by --veto-offset)
            gated = cv.nested_margins(tb, tree_sc, net_sc, nested, side=args.veto_side)
        else:
            gated = {s: float(args.margin) for s in nested}
        for s in sorted(trees):
            m = b.source == s
            inside = cv.in_margin(tree_sc[s][m[train]], threshold=nested[s], margin=gated[s], side=args.veto_side)
            print(f"# veto {args.veto_side}: {s} margin {gated[s]:g}; cached bursts in the margin "
                  f"{int(inside.sum())} of {len(inside)}", file=sys.stderr, flush=True)
    elif args.mode == "gated":
        net_sc = {s: np.asarray(got[s]["scores"])[train] for s in trees}
        g = cg.bursts_gate(b, rise_split=args.gate_rise)[train]
        if args.gate_threshold == "nested":
            gated = cg.nested_gate_thresholds(tb, g, tree_sc, net_sc, nested)
        elif args.gate_threshold == "trees":
            gated = dict(nested)
        else:
            gated = {s: float(args.gate_threshold) for s in nested}
        gated = {k: v + args.gate_offset for k, v in gated.items()}
        print(f"# gated: branch thresholds {gated}; gated bursts {int(g.sum())} of {len(g)}",
              file=sys.stderr, flush=True)
    return nested, gated


def load_nets(args: argparse.Namespace) -> dict[str, Any]:
    """Each fold's net: ``--net-models``, or the models kept in ``--net-folds``."""
    nets: dict[str, Any] = json.loads((args.net_models or args.net_folds).read_text())
    return nets if args.net_models is not None else {s: v["model"] for s, v in nets.items()}


def dense_counts(args: argparse.Namespace) -> None:
    """``--dense``: the shipped trees at their threshold, the route on (as shipped), over one
    clip: how many bursts the trees judge and how many are inside each margin of
    ``clap_net_veto.MARGINS`` (the patches the veto would compute; the first fold's net is
    only called, the counts do not depend on it), for ``--veto-side``."""
    from sensekit.audio.clap_floor import FloorRoute
    from sensekit.audio.clap_model import MODEL, THRESHOLD
    from sensekit.evaluation.audio.clap_net_veto import MARGINS
    from sensekit.evaluation.audio.clap_variants import detector_class
    from sensekit.evaluation.audio.evaluate import read_wav

    path, side = args.dense, args.veto_side
    net = next(iter(load_nets(args).values()))
    x, rate = read_wav(path)
    print(f"{path.name}: {len(x) / rate:.1f} s; the shipped trees at {THRESHOLD:g}, route on; veto {side}")
    for margin in MARGINS:
        counts: dict[str, int] = {}
        route = candidate_route(MODEL, net, expert_first=FloorRoute, threshold=THRESHOLD,
                                veto=(margin, side), counts=counts)
        det = detector_class(route=route)(threshold=THRESHOLD, noise_route=True)
        for i in range(0, len(x), 512):
            det.process(x[i:i + 512], i / rate, rate)
        print(f"margin {margin:g}: bursts judged by the trees {counts.get('bursts', 0)}, "
              f"inside the margin (patch computed) {counts.get('patched', 0)}")


def print_counts(args: argparse.Namespace, counts: dict[str, dict[str, int]]) -> None:
    """``--mode veto``: each source's bursts judged and those that needed the patch."""
    if args.mode != "veto":
        return
    print("bursts judged / with the patch (in the margin), every stream of this run:")
    for s, c in sorted(counts.items()):
        print(f"{s:16s} {c.get('bursts', 0):7d} {c.get('patched', 0):7d}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=SHARED_DATA)
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--tree-folds", type=Path, required=True)
    ap.add_argument("--net-folds", type=Path, required=True)
    ap.add_argument("--net-models", type=Path, default=None,
                    help="the fold nets (JSON, source -> model); default: --net-folds' own")
    ap.add_argument("--mode", choices=("mean", "net", "trees", "gated", "veto"), default="mean")
    ap.add_argument("--margin", default="nested",
                    help="--mode veto: the trees-score margin inside which the net may change a "
                         "decision: nested (clap_net_veto, on the other sources' folds) or a number for all")
    ap.add_argument("--veto-offset", type=float, default=0.0,
                    help="--mode veto: added to every source's nested threshold before the margin is "
                         "chosen (0.25: one threshold step up)")
    ap.add_argument("--veto-side", choices=("both", "claps"), default="both",
                    help="--mode veto: both (demote or promote) or claps (only veto the trees' claps)")
    ap.add_argument("--gate-threshold", default="nested",
                    help="--mode gated: the gated branch's threshold: nested (clap_net_gate, on the "
                         "other sources' folds), trees (the trees' own) or a number for all")
    ap.add_argument("--gate-offset", type=float, default=0.0,
                    help="--mode gated: added to every branch threshold (0.25: one threshold step up)")
    ap.add_argument("--gate-rise", type=float, default=24.0,
                    help="--mode gated: bursts rising under this over a moving floor get the net "
                         "(24: the route's split; inf: every burst over a moving floor)")
    ap.add_argument("--kinds", default=",".join(("white", "pink", "brown", "hum", "babble", "speech")))
    ap.add_argument("--snrs", default="0,5,10,15,20,30")
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
    ap.add_argument("--dense", type=Path, default=None,
                    help="only count, on this clip (benchmarks/audio.py's dense clip: "
                         "audio/laugh_room-small_0.wav), the bursts inside each veto margin")
    args = ap.parse_args(argv)
    if data_refused(args.data):
        return 2
    if args.dense is not None:
        dense_counts(args)
        return 0
    from sensekit.audio.clap import ClapDetector
    from sensekit.audio.clap_floor import FloorRoute
    from sensekit.evaluation.audio.clap_noise import format_curve, noise_curve
    from sensekit.evaluation.audio.clap_variants import detector_class
    from sensekit.evaluation.audio.evaluate import evaluate, format_sources

    trees = json.loads(args.tree_folds.read_text())["models"]
    nets = load_nets(args)
    nested, gated = thresholds(args, trees)
    sources = sorted(trees) if not args.sources else args.sources.split(",")

    original = FloorRoute

    counts: dict[str, dict[str, int]] = {}

    def make_for(source: str) -> Any:
        veto = (gated[source], args.veto_side) if args.mode == "veto" else None
        route = candidate_route(trees[source], nets[source], alone=args.mode == "net",
                                expert_first=original if args.route else None,
                                threshold=float(nested[source]),
                                gate_shift=gated[source] - nested[source] if gated and veto is None else None,
                                floor_route=original, gate_rise=args.gate_rise, veto=veto,
                                counts=counts.setdefault(source, {}))

        def make() -> ClapDetector:
            if args.mode == "trees":          # main's fold detector, as audio_eval.py makes it
                return ClapDetector(model=trees[source], threshold=float(nested[source]),
                                    noise_route=args.route)
            return detector_class(route=route)(model=trees[source], threshold=float(nested[source]),
                                               noise_route=True)
        return make
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
                             only_sources=sources, kinds=args.kinds.split(","),
                             snrs_db=[float(v) for v in args.snrs.split(",")])
        how = "nested" if args.threshold is None else f"threshold {args.threshold:g} for all: not nested"
        print(f"noise curve: {args.mode}, leave-one-source-out ({how}); offsets {offsets}")
        print(format_curve(points))
    print_counts(args, counts)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
