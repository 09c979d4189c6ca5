#!/usr/bin/env python3
"""A click's first box from the learned salient model (``salient_click``) beside the shipped one.

Every click case of ``extent_diagnose.py`` (each developer clip, its 3 start frames, the 5
clicks of ``track_eval.py``; ``--scales`` views made in memory as there): the shipped first
box (``segment_click`` with the extent weights fitted without the clip, the history given) and
the salient model's parts on each crop (``SalientClick.parts``), in the same run. Printed per
clip and scale: the share of first boxes within 25 % of the true width and height (size ok)
and with IoU > 0.5, for the shipped box and for each rule:

- ``whole``: the smallest crop whose part does not touch its edge, else the largest crop's
  (``SalientClick.segment``, what ships), over the crops given by ``--crops``;
- ``crop F``: one crop alone;
- ``stable``: the smaller of the two neighbouring crops whose parts overlap most (IoU);
- ``then extent``: ``whole``, and the shipped box where no crop has a part at the click;
- ``refine K``: the part on one crop K times the shipped box's long side (the shipped box where
  it has none): the shipped box's size choosing the crop.

``whole``, ``stable`` and ``then extent`` take ``:F,F,F`` to use only those crops (``--rules``).
``use_in_tracker`` gives ``track_eval.py --salient``'s trackers such a first box
(``ExperimentTracker(click_pool=...)``).

The model was not fitted to any of these clips; ``--choose`` picks among the rules named there
for each clip on the other four (most size-ok clicks over the scales) and prints the held-out
result. ``--cache FILE`` keeps the boxes (re-printing costs seconds).

    .venv/bin/python benchmarks/salient_eval.py --scales 0.5,1,2 [--input-px 160] [--crops 0.2,0.4,0.8]
                                                [--only coke] [--cache /tmp/salient.pkl]

Cost: ~0.33 s of CPU a click for 3 crops at 160 px, +0.1 s each refine crop; ~20 min for
the three scales at a load of ~12 on 2 cores.
"""
from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path
from typing import Any


from _reference import SHARED_DATA

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _first_box_hooks import mask_box, salient_in_tracker as use_in_tracker  # noqa: F401 (its name here)
from _rule_tables import print_held_out, print_rule_tables
from extent_diagnose import cases

from sensekit.errors import ConfigError, SourceError
from sensekit.evaluation.vision.clip_check import clips_to_run
from sensekit.evaluation.vision.evaluate import REFUSED, add_clip_options, iou, size_ok
from sensekit.evaluation.vision.held_out import unseen_by_fit
from sensekit.evaluation.vision.salient_click import SalientClick
from sensekit.vision.segment import segment_click

Box = tuple[float, float, float, float]
#: crops of these times the shipped box's long side, for the ``refine K`` rules
REFINE = (1.5, 2.0, 3.0)


def collect(folder: Path, names: list[str], factors: list[float], model: SalientClick) -> list[dict[str, Any]]:
    rows = []
    for factor in factors:
        for name, s, cname, frame, history, truth, (px, py) in cases(folder, names, factor):
            seg = segment_click(frame, px, py, history=history, experiment=unseen_by_fit(name))
            parts = [(f, mask_box(m), t) for f, m, t in model.parts(frame, px, py)]
            refined = []
            for k in REFINE:
                m, t = model.part(frame, px, py, int(round(k * max(seg.box[2], seg.box[3]))))
                refined.append((k, mask_box(m), t))
            rows.append({"clip": name, "scale": factor, "start": s, "click": cname, "truth": tuple(truth),
                         "shipped": tuple(float(v) for v in seg.box), "parts": parts,
                         "refined": refined})
            print(f"  x{factor:g} {name} f{s} {cname}: shipped {seg.box} salient "
                  + ", ".join(f"{f:g}:{None if b is None else tuple(int(v) for v in b)}{'*' if t else ''}"
                              for f, b, t in parts), file=sys.stderr, flush=True)
    return rows


def _iou_or_0(a: Box | None, b: Box | None) -> float:
    return 0.0 if a is None or b is None else iou(a, b)


def rule_box(row: dict[str, Any], rule: str) -> Box | None:
    """The first box ``rule`` gives on a cached case: ``shipped``; ``crop F``; ``whole`` /
    ``stable`` / ``then extent``, each optionally ``:F,F,F`` (the crops used; default all)."""
    if rule == "shipped":
        return tuple(row["shipped"])
    if rule.startswith("refine "):
        k = float(rule.split()[1])
        b = next((b for g, b, _t in row.get("refined", []) if abs(g - k) < 1e-9), None)
        return tuple(row["shipped"]) if b is None else b
    if rule.startswith("crop "):
        f = float(rule.split()[1])
        return next((b for g, b, _t in row["parts"] if abs(g - f) < 1e-9), None)
    name, _, crops = rule.partition(":")
    wanted = [float(v) for v in crops.split(",")] if crops else None
    parts = [p for p in row["parts"] if wanted is None or any(abs(p[0] - f) < 1e-9 for f in wanted)]
    found = [(b, t) for _f, b, t in parts if b is not None]
    box = None
    if name == "stable":
        pairs = [(_iou_or_0(parts[i][1], parts[i + 1][1]), -i) for i in range(len(parts) - 1)]
        if pairs and max(pairs)[0] > 0:
            box = parts[-max(pairs)[1]][1]
    elif found:
        box = next((b for b, t in found if not t), found[-1][0])
    if box is None and name == "then extent":
        return tuple(row["shipped"])
    return box


def rates(rows: list[dict[str, Any]], rule: str) -> tuple[float, float, int]:
    ok = right = 0
    for r in rows:
        b = rule_box(r, rule)
        if b is not None:
            ok += size_ok(b, r["truth"])
            right += iou(b, r["truth"]) > 0.5
    n = max(1, len(rows))
    return ok / n, right / n, sum(rule_box(r, rule) is None for r in rows)


def _rows(args: argparse.Namespace, names: list[str]) -> list[dict[str, Any]]:
    """The clicks' rows: read from ``--cache`` when it exists, else collected (and kept there)."""
    factors = [float(v) for v in args.scales.split(",")]
    crops = [float(v) for v in args.crops.split(",")]
    if args.cache is not None and args.cache.exists():
        cached: list[dict[str, Any]] = pickle.loads(args.cache.read_bytes())
        return cached
    rows = collect(args.clips, names, factors, SalientClick(crops=crops, input_px=args.input_px))
    if args.cache is not None:
        args.cache.write_bytes(pickle.dumps(rows))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_clip_options(ap, SHARED_DATA / "video" / "tracking", frames=False)
    ap.add_argument("--scales", default="0.5,1,2")
    ap.add_argument("--crops", default="0.2,0.4,0.8")
    ap.add_argument("--input-px", type=int, default=160)
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--rules", default="", help="more rules to print, ';'-separated (e.g. 'whole:0.2,0.4,0.8')")
    ap.add_argument("--choose", default="", help="rules to choose among per clip on the others, ';'-separated")
    args = ap.parse_args(argv)
    if (names := clips_to_run(args.clips, args.only)) is None:
        return REFUSED
    try:
        rows = _rows(args, names)
    except (SourceError, ConfigError) as e:
        print(e, file=sys.stderr)
        return 2
    crops = sorted({f for r in rows for f, _b, _t in r["parts"]})
    rules = (["shipped", "whole", "stable", "then extent"] + [f"crop {f:g}" for f in crops]
             + [f"refine {k:g}" for k in REFINE] + [v.strip() for v in args.rules.split(";") if v.strip()])
    print_rule_tables(rows, rules, rates, none_label="no part at the click", width=14)
    if args.choose:
        print_held_out(rows, [v.strip() for v in args.choose.split(";")], rates)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
