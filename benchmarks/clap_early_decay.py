#!/usr/bin/env python3
"""The thirtieth pass (docs/claps_history.md): a far call's first 10-30 ms, a contact's thud against a clap's decay.

Every source's clips streamed through the shipped ``ClapDetector`` with its own fold's constants
(``clap_false_claps.py``'s ``Recorder`` and ``stream_rows``; 512-sample blocks, route off).

Default (measure): every burst held until 130 ms after its peak are in (the decisions unchanged: the
per-source table must equal the twenty-sixth pass's); every clap emitted gets
``clap_early_decay.low_rise_db``; prints the per-source table, the bar, the false claps and the feature
against the labelled and sharwin's recipe claps (AUC), and keeps ``EARLY_<offset>.json`` in ``--out``.

``--veto``: the declared veto, cuts nested from ``EARLY_0.json`` (for a held-out source: the largest
``low_rise_db`` of the other clap sources' true far-call claps and, unless sharwin is held out,
sharwin's recipe far-call claps): a far call is dropped when ``low_rise_db`` > the cut (judged 31.5 ms
after its peak: no added delay, nothing held), streamed at each offset and on the noise curve.

Usage: .venv/bin/python benchmarks/clap_early_decay.py --folds /tmp/claps30 --out DIR [--veto] [--no-curve]
"""
from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np
from clap_false_claps import (Folds, Recorder, TOL_S, auc, bar_table, fold_maker, fold_parser, folds_and_sources,
                              offsets_of, print_curve, stream_rows)
from clap_ring_stream import delays

from sensekit.evaluation.audio.clap_early_decay import early_available, low_rise_db
from sensekit.evaluation.audio.clap_mel_score import LinearScore


class EarlyRecorder(Recorder):
    """``Recorder`` with ``low_rise_db``: ``cut`` None: measure (every burst held 130 ms, the decisions
    unchanged); else far calls over ``cut`` are dropped (nothing held)."""

    def __init__(self, lr: LinearScore, cut: float | None, **kw: Any) -> None:
        self._cut = cut
        super().__init__(lr, None, **kw)

    def _holds(self, p: int) -> bool:
        return super()._holds(p) or self._cut is None

    def _judge(self, p: int, onset: int) -> Any:
        mark = self._mark()
        clap = super()._judge(p, onset)
        if clap is None:
            return None
        b0, rate = self._b0, self._meter.rate
        x = self._buf[: self._end - b0]
        row = self.rows[-1]
        row.update(low_rise_db=low_rise_db(x, p - b0, rate), early_in=early_available(len(x), p - b0, rate))
        if self._cut is not None and row["early_in"] and not row["close"] and row["low_rise_db"] > self._cut:
            self._undo(mark)
            return None
        return clap


def run(args: argparse.Namespace, sources: list[str], off: int, cuts: dict[str, float] | None,
        folds_: Folds) -> tuple[dict[str, Any], list[dict[str, Any]], list[EarlyRecorder]]:
    made: list[EarlyRecorder] = []
    per, hits = stream_rows(args, sources, off,
                            lambda s: fold_maker(EarlyRecorder, s, folds_, made, None if cuts is None else cuts[s]),
                            made)
    rows = [{**row, "t": t, "source": s, "clip": r.clip.file, "label": r.clip.label, "kind": kind, "true": true,
             "recipe_true": kind == "recipe" and any(abs(t - o) <= TOL_S for o in r.recipe)}
            for s, r, row, t, kind, true in hits]
    return per, rows, made


def in_scope(r: dict[str, Any]) -> bool:
    return bool(r["early_in"]) and not r["close"]


def nested_cuts(rows: list[dict[str, Any]], sources: list[str]) -> dict[str, float]:
    """Per held-out source: the largest ``low_rise_db`` over the other clap sources' true far-call
    claps and (unless held out) sharwin's recipe far-call claps."""
    out = {}
    for s in sources:
        pool = [r["low_rise_db"] for r in rows if r["source"] != s and in_scope(r)
                and (r["true"] or (r["source"] == "sharwin" and r["recipe_true"]))]
        out[s] = float(max(pool))
    return out


def feature_table(rows: list[dict[str, Any]]) -> None:
    true = np.array([r["low_rise_db"] for r in rows if r["true"] and in_scope(r)], np.float64)
    rec = np.array([r["low_rise_db"] for r in rows if r["source"] == "sharwin" and r["recipe_true"] and in_scope(r)],
                   np.float64)
    print(f"\nlow_rise_db on far calls: labelled claps {len(true)} median {np.median(true):.1f} max {true.max():.1f}; "
          f"sharwin recipe {len(rec)} median {np.median(rec):.1f} max {rec.max():.1f}")
    for s in sorted({r["source"] for r in rows if r["kind"] == "negative"}):
        fv = np.array([r["low_rise_db"] for r in rows if r["source"] == s and r["kind"] == "negative" and in_scope(r)],
                      np.float64)
        if len(fv):
            print(f"  {s:8s} far false claps {len(fv):3d} median {np.median(fv):6.1f} max {fv.max():6.1f} "
                  f"AUC(false > labelled) {auc(fv, true):.2f} AUC(false > recipe) {auc(fv, rec):.2f}")


def listing(rows: list[dict[str, Any]], off: int) -> None:
    print(f"\nevery false clap on a negative clip, offset {off} (t - T; close/far; low_rise_db):")
    for r in rows:
        if r["kind"] == "negative":
            print(f"  {r['source']:8s} {r['clip'].split('/', 1)[-1][:40]:40s} {r['t']:7.3f}s t-T {r['t_minus_T']:+.2f} "
                  f"{'close' if r['close'] else 'far  '} low_rise {r['low_rise_db']:6.1f}")


def main() -> int:
    from sensekit.evaluation.audio.evaluate import format_sources

    ap = fold_parser(__doc__)
    ap.add_argument("--veto", action="store_true")
    args = ap.parse_args()
    loaded = folds_and_sources(args)
    if loaded is None:
        return 2
    folds_, sources = loaded
    cuts = None
    if args.veto:
        cuts = nested_cuts(json.loads((args.out / "EARLY_0.json").read_text()), sources)
        print("cut per held-out source (nested): " + ", ".join(f"{s} {v:.2f}" for s, v in cuts.items()), flush=True)
    name = "veto" if args.veto else "measure"
    for off in offsets_of(args):
        per, rows, made = run(args, sources, off, cuts, folds_)
        print(format_sources(per, title=f"{name} off {off}"))
        print(f"decision delay ({name}, off {off}): {delays(made)}", flush=True)
        if not args.veto:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / f"EARLY_{off}.json").write_text(json.dumps(rows))
            feature_table(rows)
        listing(rows, off)
        bar_table(per, rows, off)
    if not args.no_curve:
        made_c: list[EarlyRecorder] = []
        print_curve(args, sources,
                    lambda s: fold_maker(EarlyRecorder, s, folds_, made_c, None if cuts is None else cuts[s]), name)
        print(f"decision delay ({name}, noise curve): {delays(made_c)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
