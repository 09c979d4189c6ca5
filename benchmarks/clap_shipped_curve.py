#!/usr/bin/env python3
"""The detector as it ships, held out: the noise route and the close-call wait together (24th pass).

Each held-out source is streamed through ``ClapDetector`` with its fold's constants: the clean trees and
their nested threshold (``--tree-folds``), the route's expert, rise split and expert threshold
(``--route-folds``, ``clap_floor_route.py --save-folds``) and the wait's ``WaitModel`` (the twenty-third
pass's per-fold constants, read from ``--out`` as ``clap_mel_wait.py --stream --shipped-detector`` reads
them). Modes, in the same process (a paired comparison): ``route`` (the wait off), ``route+wait`` (as
shipped), ``wait`` (the route off: the twenty-third pass's column, a check), ``none`` (both off: that pass's
"today"). Printed per mode: the
per-source table at each of ``--offsets``, the noise curve (every kind and SNR of ``--kinds``/``--snrs``,
the worst of ``--curve-offsets``) and the decision delays. ``--curve-json`` writes the ``route+wait`` curve
for ``plot_claps.py``; ``--route-json`` the ``route`` one.

Usage: .venv/bin/python benchmarks/clap_shipped_curve.py --cache /tmp/claps20/PATCH.npz
       --tree-folds /tmp/claps20/TREES.json --out /tmp/claps26 --route-folds M4_ROUTE.json
       [--modes route,route+wait] [--offsets 0,517] [--curve-offsets 0,517] [--no-curve]
       [--curve-json docs/claps_noise_curve.json] [--route-json ROUTE_CURVE.json]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from _clap_tables import add_stream_options, noise_curves, per_source_tables
from _reference import data_refused
from clap_mel_wait import Shipped, load, mel_scores

from sensekit.audio.clap_features import TreeModel
from sensekit.audio.clap_floor import FloorRoute
from sensekit.audio.clap_wait import WaitModel

MODES = ("route", "route+wait", "wait", "none")


class FoldRoute(FloorRoute):
    """``FloorRoute`` with a fold's expert (its threshold folded into its base) and rise split."""

    def __init__(self, rate: int, expert: TreeModel, split: float) -> None:
        super().__init__(rate)
        self._expert, self._split = expert, split

    def score(self, x: np.ndarray, p: int, vals: tuple[float, ...]) -> float | None:
        if vals[1] >= self._split or p < self.pre or not self.steady(x, p):
            return None
        return self._expert.score(np.asarray((*vals[1:], *self.patch(x, p))))


class ShippedFold(Shipped):
    """The shipped ``ClapDetector`` (its decisions recorded) with a fold's route."""

    def __init__(self, *, fold_route: tuple[TreeModel, float] | None = None, **kw: Any) -> None:
        self._fold_route = fold_route
        super().__init__(**kw)

    def _route_changed(self) -> None:
        super()._route_changed()
        if self._route is not None and self._fold_route is not None:
            self._route = FoldRoute(self._meter.rate, *self._fold_route)


def delays(dets: list[Any]) -> str:
    d = [(e - t) * 1000.0 for det in dets for t, e, _ in det.decisions]
    c = [(e - t) * 1000.0 for det in dets for t, e, close in det.decisions if close]

    def q(v: list[float], p: float) -> str:
        return f"{np.percentile(v, p):.0f}" if v else "-"
    return (f"claps {len(d)}: p50 {q(d, 50)} ms, p95 {q(d, 95)} ms; close calls {len(c)} "
            f"({100.0 * len(c) / max(1, len(d)):.0f} %): p50 {q(c, 50)} ms")


def options() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--tree-folds", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True, help="the twenty-third pass's folder (clap_mel_wait.py)")
    ap.add_argument("--route-folds", type=Path, default=None, help="needed by the route's modes")
    ap.add_argument("--modes", default="route,route+wait")
    add_stream_options(ap, kinds="white,pink,brown,hum,babble,speech", snrs="0,5,10,15,20,30")
    ap.add_argument("--curve-json", type=Path, default=None)
    ap.add_argument("--route-json", type=Path, default=None)
    return ap.parse_args()


def fold_constants(args: argparse.Namespace, modes: list[str]) -> tuple[list[str], dict[str, Any], dict[str, float],
                                                                       dict[str, Any], dict[str, WaitModel]]:
    """The sources, each one's trees, nested threshold, route (expert, split) and ``WaitModel``."""
    b, sources, _so, _sr, T, margin = load(args)
    _ms, lr = mel_scores(args, b, sources)
    pick = {s: (str(u), float(v)) for s, (u, v) in json.loads((args.out / "MEL_CHOICE.json").read_text()).items()}
    if any(u != "sum" for u, _ in pick.values()):
        raise SystemExit("the shipped detector has the sum rule only")
    trees = json.loads(args.tree_folds.read_text())["models"]
    if args.route_folds is None and any(m.startswith("route") for m in modes):
        raise SystemExit("the route's modes need --route-folds (clap_floor_route.py --save-folds)")
    rf: dict[str, Any] = json.loads(args.route_folds.read_text()) if args.route_folds is not None else {
        "nested": T, "chosen": {s: {"split": 0.0, "t_expert": float("nan")} for s in sources}, "models": {}}
    for s in sources:
        if rf["nested"][s] != T[s]:
            raise SystemExit(f"{s}: the route's clean threshold {rf['nested'][s]} is not the wait's {T[s]}")
    experts = {s: (TreeModel(rf["models"][s]["expert"]), float(rf["chosen"][s]["split"]))
               for s in sources if s in rf["models"]}
    ring = json.loads((args.out / "RING_130_late_above_db.json").read_text())
    waits = {s: WaitModel(ring[s], T[s], margin[s], pick[s][1], lr[s].w, lr[s].b) for s in sources}
    print("per source: clean threshold; rise split, expert threshold; wait margin, theta: " + "; ".join(
        f"{s} {T[s]:g}; {rf['chosen'][s]['split']:g}, {rf['chosen'][s]['t_expert']:g}; {margin[s]:g}, {pick[s][1]:g}"
        for s in sources), flush=True)
    return sources, trees, T, experts, waits


def write_curve(args: argparse.Namespace, mode: str, points: Any) -> None:
    """Writes the curve of ``route+wait`` to ``--curve-json`` and of ``route`` to ``--route-json``."""
    from sensekit.evaluation.audio.clap_noise import curve_json

    path = {"route+wait": args.curve_json, "route": args.route_json}.get(mode)
    if path is not None:
        what = ("the route on and the close-call wait on, as shipped" if mode == "route+wait"
                else "the route on, the close-call wait off")
        path.write_text(json.dumps(curve_json(points, f"leave-one-source-out (nested), {what}"), indent=1) + "\n")
        print(f"wrote {path}")


def main() -> int:
    args = options()
    if data_refused():
        return 2
    modes = args.modes.split(",")
    if any(m not in MODES for m in modes):
        print(f"--modes: one or more of {', '.join(MODES)}", file=sys.stderr)
        return 2
    sources, trees, T, experts, waits = fold_constants(args, modes)
    made: dict[str, list[Any]] = {m: [] for m in modes}

    def make_for(mode: str) -> Any:
        def for_source(s: str) -> Any:
            def make() -> Any:
                det = ShippedFold(model=trees[s], threshold=T[s], wait_model=waits[s],
                                  noise_route=mode.startswith("route"), close_call_wait=mode.endswith("wait"),
                                  fold_route=experts[s] if mode.startswith("route") else None)
                made[mode].append(det)
                return det
            return make
        return for_source

    per_source_tables(args, [int(v) for v in args.offsets.split(",") if v], modes, sources, make_for, made,
                      delays, title="{mode}, offset {off}", tag="{mode}, offset {off}")
    if not args.no_curve:
        noise_curves(args, modes, sources, make_for, made, delays,
                     then=lambda mode, points: write_curve(args, mode, points))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
