#!/usr/bin/env python3
"""The thirty-seventh pass (docs/claps_history.md): what today's detector loses on the clap sources, clap by clap.

Every clip with annotated onsets (``clap_onsets.csv``) is streamed, held out, through its source's fold
of a folds folder (``--folds``: ``TREES.json``, ``WAIT_FOLDS.json``, ``RING_130_late_above_db.json``,
``MEL_LR.json``; the detector ``clap_false_claps.py`` builds: ``ClapDetector`` with the fold's trees,
``T`` and close-call wait, route off), in ``--block``-sample blocks after ``--offsets`` zeros. Then,
with ``evaluate.match``'s greedy matching (60 ms):

- each annotated clap no reported clap matches: where it was lost (``clap_losses.loss_of``: the
  latest step any burst near it reached) and the best judged burst near it (``clap_losses.best_near``:
  the trees' score less ``T``, its rise and level);
- each reported clap no annotated clap matches (a false clap on a clap clip): its time, the nearest
  annotated clap, the trees' score less ``T`` and whether it was a close call.

Printed per source (tp / fp / fn, per-clap F1) and per clip; kept as ``LOST_<offset>.json`` in
``--out``. Evaluation only: nothing is fitted, nothing in ``sensekit/audio`` changes.

Usage: .venv/bin/python benchmarks/clap_lost_claps.py --folds DIR --out DIR [--offsets 0,517]
       [--sources j,tr,js30] [--block 512]
"""
from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from _reference import SHARED_DATA, data_refused
from clap_false_claps import Recorder, fold_maker, load_folds

from sensekit.evaluation.audio.clap_lost import lost_claps, source_counts
from sensekit.evaluation.audio.evaluate import read_clips, read_wav, stream_claps


def stream_clip(folds_: Any, source: str, x: Any, rate: int, onsets: list[float], *, block: int,
                offset: int) -> dict[str, Any]:
    """One clip streamed through ``source``'s fold: its misses and false claps (``clap_lost.lost_claps``)."""
    made: list[Recorder] = []
    claps = stream_claps(x, rate, block=block, offset=offset, make=fold_maker(Recorder, source, folds_, made))
    return lost_claps(made[-1], claps, onsets, offset / rate)


def print_clip(file: str, seconds: float, onsets: list[float], got: dict[str, Any]) -> None:
    print(f"  {file.split('/', 1)[-1]} ({seconds:.3f} s, {len(onsets)} claps): "
          f"tp {got['tp']} fp {got['fp']} fn {got['fn']}")
    for m in got["missed"]:
        near = ("no burst judged near it" if m["best"] is None else
                f"best burst {m['best']['t_peak']:.3f} s: trees-T {m['best']['trees_minus_T']:+.2f}, "
                f"rise {m['best']['rise_db']:.1f} dB, level {m['best']['peak_db']:.1f} dB, "
                f"close {m['best']['close']}, final-T {m['best']['final_minus_T']:+.2f}")
        print(f"    missed {m['onset']:.3f} s: {m['loss']}; {near}")
    for f in got["false"]:
        c = "close call" if f["close"] else "far call"
        tt = "" if math.isnan(f["trees_minus_T"]) else f", trees-T {f['trees_minus_T']:+.2f}"
        print(f"    false clap {f['t']:.3f} s ({f['from_onset']:+.3f} s from the nearest clap{tt}, {c})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--folds", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--offsets", default="0,517")
    ap.add_argument("--sources", default="", help="comma-separated; default every source with annotated claps")
    ap.add_argument("--block", type=int, default=512)
    args = ap.parse_args(argv)
    if data_refused():
        return 2
    folds_ = load_folds(args.folds)
    clips = [c for c in read_clips(SHARED_DATA) if c.onsets]
    wanted = args.sources.split(",") if args.sources else sorted({c.source for c in clips})
    missing = [s for s in wanted if s not in folds_[0]]
    if missing:
        raise SystemExit(f"no fold for source(s) {', '.join(missing)} in {args.folds}")
    args.out.mkdir(parents=True, exist_ok=True)
    for off in [int(v) for v in args.offsets.split(",")]:
        kept: list[dict[str, Any]] = []
        print(f"\nheld out, streamed ({args.folds}, {args.block}-sample blocks, offset {off})")
        for s in wanted:
            rows = []
            for c in (c for c in clips if c.source == s):
                x, rate = read_wav(SHARED_DATA / c.file)
                got = stream_clip(folds_, s, x, rate, c.onsets, block=args.block, offset=off)
                rows.append({"source": s, "clip": c.file, "seconds": len(x) / rate, "onsets": c.onsets, **got})
            tp, fp, fn, f1 = source_counts(rows)
            print(f"{s}: per-clap F1 {f1:.3f} (tp {tp}, fp {fp}, fn {fn})")
            for r in rows:
                print_clip(r["clip"], r["seconds"], r["onsets"], r)
            kept.extend(rows)
        (args.out / f"LOST_{off}.json").write_text(json.dumps(kept, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
