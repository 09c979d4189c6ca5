#!/usr/bin/env python3
"""Clap detection on the shared developer clips: per clip, per source, at many start offsets,
and leave-one-source-out (every constant chosen without the source it is scored on).

1. The shipped detector (``ClapDetector()``), 512-sample blocks, offset 0: the clip table,
   the summary (per clip, per clap +-60 ms on clap_onsets.csv, per clap against the recipe
   times of the continuous-clapping clips) and the per-source table.
2. The same at every start offset of ``--offsets`` (zero samples prepended; default a sweep
   0, 1, 2, 3, 5, 7, 11, 23, 64, 100, 257, 333, 517, 800, 1000): per-clap and clip F1 at
   each offset, and the minimum over them.
3. Leave-one-source-out (``--loso nested``, the default): for each source, the trees are
   trained on the other sources only (clips and mixed-in backgrounds), and the threshold is
   chosen on the other sources' single folds only (``clap_folds.nested_thresholds``); the
   source's clips are then streamed through that detector. ``--loso pairs`` chooses it by a
   strict inner leave-one-source-out (trees that saw neither source: 91 more fits);
   ``--loso quick`` uses one threshold chosen from all the single folds (the shipped choice:
   optimistic for the figures it was chosen on); ``--loso none`` skips this part.

4. The noise curve (``sensekit.evaluation.audio.clap_noise``): every annotated clap clip mixed with
   white, pink, brown, hum, babble and single-speaker speech at 0-30 dB SNR (the claps'
   loudest 5 ms RMS over the noise RMS), at the start offsets of ``--curve-offsets``:
   recall and false claps per minute. With ``--loso quick|nested`` each clip is scored by
   its source's held-out detector (leave-one-source-out); with ``--loso none`` by the
   shipped one (not held out). ``--curve-json`` writes it for ``benchmarks/plot_claps.py``.

The per-clip and per-clap numbers of part 1 are asserted in tests/audio/test_real_clips.py.
Cost: parts 1-2 ~1 min; part 3 ~1-2 min to collect the training bursts plus ~5 s per fit
(14 fits nested or quick, 105 pairs; the pairs run took 30 min on a busy 2-core machine).
With ``--folds`` (``train_clap.py --save-folds``) nothing is fitted.

Usage: .venv/bin/python benchmarks/audio_eval.py [--data ../shared/data] [--block 512]
       [--offsets 0,1,...] [--loso nested|pairs|quick|none] [--curve-offsets 0,517]
       [--curve-json docs/claps_noise_curve.json] [--no-curve]
"""
from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _reference import SHARED_DATA, data_refused

REPO = Path(__file__).resolve().parents[1]
OFFSETS = (0, 1, 2, 3, 5, 7, 11, 23, 64, 100, 257, 333, 517, 800, 1000)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path,
                    default=SHARED_DATA)
    ap.add_argument("--block", type=int, default=512, help="block size in samples (default 512)")
    ap.add_argument("--offsets", default=",".join(map(str, OFFSETS)),
                    help="start offsets in samples to sweep (comma-separated)")
    ap.add_argument("--loso", choices=("nested", "pairs", "quick", "none"), default="nested")
    ap.add_argument("--curve-offsets", default="0,517", help="start offsets of the noise curve")
    ap.add_argument("--curve-json", type=Path, default=None, help="write the noise curve here")
    ap.add_argument("--no-curve", action="store_true", help="skip the noise curve")
    ap.add_argument("--folds", type=Path, default=None,
                    help="with --loso nested|quick: the folds written by train_clap.py "
                         "--save-folds (the same fits, not repeated)")
    ap.add_argument("--cache", type=Path, default=None,
                    help="keep the collected training bursts in this .npz (read it when it exists)")
    args = ap.parse_args(argv)
    if data_refused(args.data):
        return 2
    from sensekit.audio.clap import ClapDetector
    from sensekit.evaluation.audio.evaluate import evaluate, format_sources, format_table

    def say(message: str) -> None:
        print(f"# {message}", file=sys.stderr, flush=True)
    ev = evaluate(args.data, block=args.block)
    print(format_table(ev))
    print()
    offsets = [int(v) for v in args.offsets.split(",") if v.strip()]
    print(f"start offset sweep ({args.block}-sample blocks): {len(offsets)} offsets")
    print(f"{'offset':>7s} {'per clap F1':>12s} {'clip F1':>8s} {'recipe F1':>10s}")
    worst = [1.0, 1.0, 1.0]
    for off in offsets:
        e = ev if off == 0 else evaluate(args.data, block=args.block, offset=off, book=False)
        row = (e.per_clap.f1, e.clip.f1, e.recipe.f1)
        worst = [min(a, b) for a, b in zip(worst, row)]
        print(f"{off:7d} {row[0]:12.3f} {row[1]:8.3f} {row[2]:10.3f}")
    print(f"{'min':>7s} {worst[0]:12.3f} {worst[1]:8.3f} {worst[2]:10.3f}")
    if args.loso == "none":
        if not args.no_curve:
            curve(args, None, "shipped detector (trained on every source: not held out)")
        return 0

    print()
    folds = heldout_folds(args, say)
    if folds is None:
        return 2
    sources = {}
    for src, (model, threshold) in sorted(folds.items()):
        e = evaluate(args.data, block=args.block, book=False, only_sources=[src],
                     make=functools.partial(ClapDetector, model=model, threshold=threshold, noise_route=False))
        sources[src] = e.sources[src]
        say(f"held out {src}: threshold {threshold}")
    how = {"nested": "threshold chosen on the other sources' folds",
           "pairs": "threshold chosen by an inner leave-one-source-out",
           "quick": "one threshold from all the single folds"}[args.loso]
    print(format_sources(sources, title="leave-one-source-out"))
    print(f"(each source scored by trees trained without it; {how}; offset 0)")
    print("(the noise route is off here: its expert, clap_noise_model, heard every source; the route's "
          "held-out figures are the eleventh pass's, docs/claps_history.md)")
    if not args.no_curve:
        def make_for(source: str) -> Callable[[], ClapDetector]:
            model, threshold = folds[source]
            return lambda: ClapDetector(model=model, threshold=threshold, noise_route=False)
        curve(args, make_for, f"leave-one-source-out ({args.loso})")
    return 0


def heldout_folds(args: argparse.Namespace,
                  say: Callable[[str], None]) -> dict[str, tuple[Any, float]] | None:
    """Each source's (trees, threshold) chosen without it: read from ``--folds`` or fitted."""
    from sensekit.evaluation.audio import clap_folds as cf
    from sensekit.evaluation.audio import clap_training as ct

    if args.folds is not None and args.loso in ("nested", "quick"):
        import json
        saved = json.loads(args.folds.read_text())
        if args.loso == "nested" and "nested" not in saved:
            print(f"{args.folds} has no nested thresholds (written before them): run "
                  "train_clap.py --save-folds again, or --loso quick", file=sys.stderr)
            return None
        from sensekit.evaluation.audio.evaluate import read_clips
        streamed = {c.source for c in read_clips(args.data)}   # not the training-only sources (clap_words)
        return {s: (m, float(saved["nested"][s] if args.loso == "nested" else saved["threshold"]))
                for s, m in saved["models"].items() if s in streamed}
    say("collecting training bursts (clips and augmented copies)")
    bursts = ct.collect_cached(args.data, args.cache)
    inner = {"nested": "others", "pairs": "pairs", "quick": "shared"}[args.loso]
    return cf.loso(bursts, inner=inner, progress=lambda m: say(f"fit {m}"))


def curve(args: argparse.Namespace, make_for: Callable[[str], Callable[[], Any]] | None,
          mode: str) -> None:
    import json

    from sensekit.evaluation.audio.clap_noise import curve_json, format_curve, noise_curve

    offsets = [int(v) for v in args.curve_offsets.split(",") if v.strip()]
    points = noise_curve(args.data, offsets=offsets, block=args.block, make_for=make_for)
    print()
    print(f"noise curve: {mode}; offsets {offsets}; {args.block}-sample blocks")
    print(format_curve(points))
    if args.curve_json is not None:
        args.curve_json.write_text(json.dumps(curve_json(points, mode), indent=1) + "\n")
        print(f"wrote {args.curve_json}")


if __name__ == "__main__":
    raise SystemExit(main())
