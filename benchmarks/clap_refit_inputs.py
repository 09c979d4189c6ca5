#!/usr/bin/env python3
"""The thirty-first pass (docs/claps_history.md): the trees refit with the vetoes' features as inputs.

Declared in ``sensekit/evaluation/audio/clap_extra_inputs.py`` (which features, how they enter the
trees, the folds, the ship rule) before any held-out figure.

``--build --patch PATCH.npz``: every clip and its augmented copies made again (``clap_training.collect``,
``AUGMENTATIONS``), each burst's ``EXTRA`` measured on its copy at its peak sample; the bursts' rows are
checked equal to ``PATCH.npz``'s (the seventeenth pass's cache, less its ``sp0`` copies, which no fold
trains on), kept in ``--out/EXTRA.npz``. Then the 14 folds fitted on ``FEATURES + EXTRA``
(``clap_training.train(leave_out=[s])``, nothing else changed) and each held-out source's threshold
nested (``clap_folds.nested_thresholds`` on the other sources' folds), written as a folds folder
``--out/refit`` (``TREES.json``, ``WAIT_FOLDS.json`` with the refit ``T``; the ring's trees and log-mel
weights of ``--folds``). Controls: today's ``T`` nested the same way from ``--folds``' trees, and one
fold (``--control``) refit on ``FEATURES`` alone against ``--folds``' trees.

Default (stream): every source's clips through ``clap_false_claps.py``'s ``Recorder`` and ``stream_rows``
with the refit folds (``RefitDetector``: ``EXTRA`` measured on the detector's buffer when the trees
look), 512-sample blocks, route off; the per-source table, the delays, the bar and every false clap, at
each offset; then the noise curve. The untouched side is ``clap_false_claps.py --folds`` the same folds.

``--cost CLIP``: us per 512-sample block of the shipped ``ClapDetector`` and of a ``RefitDetector``
(fold ``--control``'s refit trees and wait; otherwise the shipped settings, the floor route on) on one
clip, interleaved in the same process (best of 5 each), and the ratio.

Usage: .venv/bin/python benchmarks/clap_refit_inputs.py --folds /tmp/claps30 --out /tmp/claps40 --build \\
           --patch /tmp/claps20/PATCH.npz
       .venv/bin/python benchmarks/clap_refit_inputs.py --folds /tmp/claps40/refit --out /tmp/claps40
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from _reference import SHARED_DATA
from clap_false_claps import Folds, Recorder, bar_table, fold_parser, folds_and_sources, report, stream_rows
from clap_ring_stream import delays

from sensekit.audio.clap_wait import WaitModel
from sensekit.evaluation.audio import clap_training as ct
from sensekit.evaluation.audio.clap_extra_inputs import EXTRA, RefitDetector, extra_inputs
from sensekit.evaluation.audio.clap_folds import nested_thresholds

KEYS = ("source", "background", "variant", "clip")


def say(m: str) -> None:
    print(f"# {time.strftime('%H:%M:%S')} {m}", file=sys.stderr, flush=True)


def collect_extra(out: Path, patch: Path) -> ct.Bursts:
    """The training bursts with ``EXTRA`` (``out/EXTRA.npz`` when there), checked against ``patch``."""
    z = np.load(patch, allow_pickle=False)
    keep = z["variant"] != ct.SPEECH0
    meta = {k: z[k].tolist() for k in ("on_k", "on_v", "lab_k", "lab_v")}
    b = ct.Bursts(z["X"][keep], z["y"][keep], z["source"][keep], z["background"][keep], z["variant"][keep],
                  z["clip"][keep], dict(zip(meta["on_k"], meta["on_v"])), dict(zip(meta["lab_k"], meta["lab_v"])))
    cache = out / "EXTRA.npz"
    if not cache.is_file():
        got = ct.collect(SHARED_DATA, extra=extra_inputs, progress=lambda f: None)
        assert got.E is not None
        same = (got.X.shape == b.X.shape and np.array_equal(got.X, b.X, equal_nan=True)
                and np.array_equal(got.y, b.y) and all(np.array_equal(getattr(got, k), getattr(b, k)) for k in KEYS))
        if not same:
            raise SystemExit(f"the bursts made again differ from {patch}'s: {got.X.shape} against {b.X.shape}")
        np.savez_compressed(cache, E=got.E)
        say(f"{len(got.y)} bursts made again, equal to {patch}'s rows; EXTRA kept in {cache}")
    b.E = np.load(cache)["E"]
    return b


def fold_scores(b: ct.Bursts, models: dict[str, Any]) -> dict[str, np.ndarray]:
    return {s: ct.scores(b, m) for s, m in models.items()}


def build(args: argparse.Namespace) -> int:
    b = collect_extra(args.out, args.patch)
    assert b.E is not None
    wide = ct.Bursts(np.hstack([b.X, b.E]), b.y, b.source, b.background, b.variant, b.clip, b.onsets, b.labels)
    old = json.loads((args.folds / "TREES.json").read_text())["models"]
    wait = json.loads((args.folds / "WAIT_FOLDS.json").read_text())
    sources = sorted(old)
    models = {}
    for s in sources:
        say(f"refit without {s}")
        models[s] = ct.train(wide, leave_out=[s])
    T = nested_thresholds(wide, fold_scores(wide, models))
    say("refit T nested: " + ", ".join(f"{s} {v:g}" for s, v in T.items()))
    d = args.out / "refit"
    d.mkdir(parents=True, exist_ok=True)
    (d / "TREES.json").write_text(json.dumps({"models": models, "extra": list(EXTRA)}))
    (d / "WAIT_FOLDS.json").write_text(json.dumps({s: {**wait[s], "T": T[s]} for s in sources}))
    for name in ("RING_130_late_above_db.json", "MEL_LR.json"):
        (d / name).unlink(missing_ok=True)
        (d / name).symlink_to((args.folds / name).resolve())
    control = ct.train(b, leave_out=[args.control])
    say(f"control: {args.control}'s fold refit on FEATURES equals --folds' trees: {control == old[args.control]}")
    today = nested_thresholds(b, fold_scores(b, old))
    was = ", ".join(f"{s} {wait[s]['T']:g}" for s in sources)
    say("control: today's T nested from --folds' trees: " + ", ".join(f"{s} {v:g}" for s, v in today.items())
        + f" (WAIT_FOLDS.json: {was})")
    return 0


class RefitRecorder(Recorder, RefitDetector):
    """``Recorder`` (what decided each clap) on a ``RefitDetector`` (the trees see ``EXTRA``)."""


def maker(s: str, folds_: Folds, made: list[RefitRecorder]) -> Any:
    trees, folds, ring, lr = folds_
    f = folds[s]
    wm = WaitModel(ring[s], f["T"], f["margin"], f["theta"], lr[s].w, lr[s].b)

    def make() -> RefitRecorder:
        det = RefitRecorder(lr[s], None, model=trees[s], threshold=f["T"], noise_route=False, wait_model=wm)
        made.append(det)
        return det
    return make


def stream(args: argparse.Namespace, folds_: Folds, sources: list[str]) -> None:
    from sensekit.evaluation.audio.evaluate import format_sources

    for off in [int(v) for v in args.offsets.split(",")]:
        made: list[RefitRecorder] = []
        per, hits = stream_rows(args, sources, off, lambda s: maker(s, folds_, made), made)
        rows = [{**row, "t": t, "source": s, "clip": r.clip.file, "label": r.clip.label, "kind": kind, "true": true}
                for s, r, row, t, kind, true in hits]
        print(format_sources(per, title=f"refit off {off}"))
        print(f"decision delay (refit, off {off}): {delays(made)}", flush=True)
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"REFIT_{off}.json").write_text(json.dumps(rows))
        report(rows, off)
        bar_table(per, rows, off)
    if not args.no_curve:
        from sensekit.evaluation.audio.clap_noise import format_curve, noise_curve

        made_c: list[RefitRecorder] = []
        points = noise_curve(SHARED_DATA, offsets=[int(v) for v in args.offsets.split(",")], block=args.block,
                             make_for=lambda s: maker(s, folds_, made_c), only_sources=sources,
                             kinds=args.kinds.split(","), snrs_db=[float(v) for v in args.snrs.split(",")])
        print("noise curve: refit, leave-one-source-out (nested)")
        print(format_curve(points))
        print(f"decision delay (refit, noise curve): {delays(made_c)}", flush=True)


def cost(args: argparse.Namespace, folds_: Folds, clip: Path, rounds: int = 5) -> None:
    """us per block of the shipped detector and of a RefitDetector on ``clip``, interleaved."""
    from sensekit.audio.clap import ClapDetector
    from sensekit.audio.clap_model import MODEL
    from sensekit.audio.clap_wait import SHIPPED
    from sensekit.evaluation.audio.evaluate import read_wav

    x, rate = read_wav(clip)
    trees, folds, ring, lr = folds_
    f, n, s = folds[args.control], len(range(0, len(x), args.block)), args.control
    wm = WaitModel(ring[s], f["T"], f["margin"], f["theta"], lr[s].w, lr[s].b)

    looks = [0]

    def run(make: Any) -> float:
        det = make()
        t0 = time.perf_counter()
        for k, i in enumerate(range(0, len(x), args.block)):
            det.process(x[i:i + args.block], i / rate, rate, index=k)
        looks[0] = getattr(det, "measured", looks[0])
        return (time.perf_counter() - t0) / n * 1e6

    makers = {"shipped": ClapDetector,
              "inputs only": lambda: RefitDetector(model=MODEL, wait_model=SHIPPED),
              "refit": lambda: RefitDetector(model=trees[s], threshold=f["T"], wait_model=wm)}
    best = dict.fromkeys(makers, float("inf"))
    for _ in range(rounds):
        for name, make in makers.items():
            best[name] = min(best[name], run(make))
    print(f"{clip.name} ({len(x) / rate:.1f} s, {n} blocks of {args.block}), best of {rounds}, us/block: shipped "
          f"{best['shipped']:.1f}; the shipped trees and wait with the extra inputs measured (their cost alone) "
          f"{best['inputs only']:.1f}, ratio {best['inputs only'] / best['shipped']:.2f}; refit ({s}'s fold, its T "
          f"and wait) {best['refit']:.1f}, ratio {best['refit'] / best['shipped']:.2f}; the extra inputs measured on "
          f"{looks[0]} bursts")
    t0 = time.perf_counter()
    for k in range(200):
        extra_inputs(x, len(x) // 4 + 97 * k, rate)
    print(f"extra_inputs: {(time.perf_counter() - t0) / 200 * 1e6:.0f} us a call at {rate} Hz")


def main() -> int:
    ap = fold_parser(__doc__)
    ap.add_argument("--build", action="store_true")
    ap.add_argument("--patch", type=Path, default=Path("/tmp/claps20/PATCH.npz"))
    ap.add_argument("--control", default="km")
    ap.add_argument("--cost", type=Path, default=None)
    args = ap.parse_args()
    if args.build:
        return build(args)
    loaded = folds_and_sources(args)
    if loaded is None:
        return 2
    folds_, sources = loaded
    if args.cost is not None:
        cost(args, folds_, args.cost)
        return 0
    stream(args, folds_, sources)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
