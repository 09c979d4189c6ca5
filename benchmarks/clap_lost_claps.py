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

``--band``: a look added after the declared figures (not declared): every clip of every source
(annotated, recipe and negative) streamed the same way, and every judged burst that passed the gates
and the gap, was not a close call and scored ``T - W <= t < T - margin`` (a far call under the
threshold) given the wait's score it would get as a close call (``clap_wait.close_call_score`` on
the streamed samples; burst level, not streamed: a rescued clap's gap and recent claps are not
replayed). Counted for each ``W`` of ``--widths``: annotated (or recipe) claps the wait would then
find that the detector missed, and bursts it would lift on negative clips (new false claps, clips).

Usage: .venv/bin/python benchmarks/clap_lost_claps.py --folds DIR --out DIR [--offsets 0,517]
       [--sources j,tr,js30] [--block 512] [--band --widths 2,3,4.5]
"""
from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
from _reference import SHARED_DATA, data_refused
from clap_false_claps import Recorder, fold_maker, load_folds

from sensekit.audio.clap_features import FEATURES
from sensekit.evaluation.audio.clap_losses import NEAR_S
from sensekit.evaluation.audio.clap_lost import band_rows, lost_claps, source_counts
from sensekit.evaluation.audio.evaluate import read_clips, read_wav, recipe_onsets, stream_claps


class Looks(Recorder):
    """``Recorder`` keeping each burst's first look: peak sample -> its ``(peak_db,) + FEATURES`` values."""

    def __init__(self, *a: Any, **kw: Any) -> None:
        self.vals: dict[int, tuple[float, ...]] = {}
        super().__init__(*a, **kw)

    def _first_look(self, p: int, gap_ok: bool) -> tuple[tuple[float, ...], bool, float, bool]:
        got = super()._first_look(p, gap_ok)
        self.vals[p] = got[0]
        return got


def band(folds_: Any, sources: list[str], widths: list[float], block: int, offset: int) -> None:
    """``--band``: the far calls under ``T`` that a wait down to ``T - W`` would lift, per source and ``W``."""
    clips = [c for c in read_clips(SHARED_DATA) if c.source in sources]
    print(f"\n--band (after the declared figures; burst level), offset {offset}: far calls in [T - W, T - margin) "
          "the wait would lift: claps found that were missed (annotated+recipe) / new false claps on clap clips / "
          "on negative clips (clips)")
    print("| held out | " + " | ".join(f"W {w:g}" for w in widths) + " |")
    print("|---|" + "---|" * len(widths))
    for s in sources:
        got: list[dict[str, Any]] = []
        for c in (c for c in clips if c.source == s):
            x, rate = read_wav(SHARED_DATA / c.file)
            made: list[Looks] = []
            claps = stream_claps(x, rate, block=block, offset=offset, make=fold_maker(Looks, s, folds_, made))
            truth = c.onsets or (recipe_onsets(x, rate) if c.label == "clap" else [])
            y = np.concatenate([np.zeros(offset, np.float32), x]) if offset else x
            got.extend({**r, "clip": c.file, "negative": c.label != "clap", "recipe": not c.onsets}
                       for r in band_rows(made[-1], made[-1].vals, y, rate, claps, truth, offset / rate))
        cells = []
        for w in widths:
            lifted = [r for r in got if r["lifted"] and r["trees_minus_T"] >= -w]
            neg = [r for r in lifted if r["negative"]]
            cells.append(f"{sum(r['rescues'] for r in lifted if not r['recipe'])}+"
                         f"{sum(r['rescues'] for r in lifted if r['recipe'] and not r['negative'])} / "
                         f"{sum(not r['negative'] and not r['near_truth'] for r in lifted)} / "
                         f"{len(neg)} ({len({r['clip'] for r in neg})})")
        print(f"| {s} | " + " | ".join(cells) + " |")
        lifted_neg = [r for r in got if r["lifted"] and r["negative"] and r["trees_minus_T"] >= -max(widths)]
        for r in lifted_neg:
            print(f"|   | {r['clip'].split('/', 1)[-1]} {r['t_peak']:.3f} s, trees-T {r['trees_minus_T']:+.2f} |"
                  + " |" * (len(widths) - 1))


def stream_clip(folds_: Any, source: str, x: Any, rate: int, onsets: list[float], *, block: int,
                offset: int) -> dict[str, Any]:
    """One clip streamed through ``source``'s fold: its misses and false claps (``clap_lost.lost_claps``),
    each missed clap with every burst judged near it (``near``: its time, trees' score less ``T`` and
    ``(peak_db,) + FEATURES`` values), each false clap with its values (``features``)."""
    made: list[Looks] = []
    claps = stream_claps(x, rate, block=block, offset=offset, make=fold_maker(Looks, source, folds_, made))
    det, off_s = made[-1], offset / rate
    got = lost_claps(det, claps, onsets, off_s)
    names = ("peak_db", *FEATURES)
    for m in got["missed"]:
        m["near"] = [{"t_peak": j.t_peak - off_s, "trees_minus_T": j.trees - det.threshold,
                      **dict(zip(names, det.vals[round(j.t_peak * rate)]))}
                     for j in det.judged if NEAR_S[0] <= j.t_peak - off_s - m["onset"] <= NEAR_S[1]]
    for f in got["false"]:
        rec = [r for r in det.rows if abs(r["t"] - off_s - f["t"]) <= 1e-6]
        f["features"] = {k: rec[0][k] for k in names} if rec else {}
    return got


def print_clip(file: str, seconds: float, onsets: list[float], got: dict[str, Any]) -> None:
    print(f"  {file.split('/', 1)[-1]} ({seconds:.3f} s, {len(onsets)} claps): "
          f"tp {got['tp']} fp {got['fp']} fn {got['fn']}")
    for m in got["missed"]:
        near = ("no burst judged near it" if m["best"] is None else
                f"best burst {m['best']['t_peak']:.3f} s: trees-T {m['best']['trees_minus_T']:+.2f}, "
                f"rise {m['best']['rise_db']:.1f} dB, level {m['best']['peak_db']:.1f} dB, "
                f"close {m['best']['close']}, final-T {m['best']['final_minus_T']:+.2f}")
        print(f"    missed {m['onset']:.3f} s: {m['loss']}; {near}")
        for b in m["near"]:
            print(f"      burst {b['t_peak']:.3f} s, trees-T {b['trees_minus_T']:+.2f}: "
                  + " ".join(f"{k} {v:.2f}" for k, v in b.items() if k not in ("t_peak", "trees_minus_T")))
    for f in got["false"]:
        c = "close call" if f["close"] else "far call"
        tt = "" if math.isnan(f["trees_minus_T"]) else f", trees-T {f['trees_minus_T']:+.2f}"
        print(f"    false clap {f['t']:.3f} s ({f['from_onset']:+.3f} s from the nearest clap{tt}, {c})")
        if f["features"]:
            print("      " + " ".join(f"{k} {v:.2f}" for k, v in f["features"].items()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--folds", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--offsets", default="0,517")
    ap.add_argument("--sources", default="", help="comma-separated; default every source with annotated claps")
    ap.add_argument("--block", type=int, default=512)
    ap.add_argument("--band", action="store_true", help="the look after: far calls a wider wait would lift")
    ap.add_argument("--widths", default="2,3,4.5")
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
    if args.band:
        every = args.sources.split(",") if args.sources else sorted(folds_[0])
        for off in [int(v) for v in args.offsets.split(",")]:
            band(folds_, every, [float(v) for v in args.widths.split(",")], args.block, off)
        return 0
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
