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

from typing import Any

import numpy as np
from clap_false_claps import Folds, Recorder, VetoBench, auc, bar_table, fold_maker, nested_cuts, veto_main

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

    def _drops(self, row: dict[str, Any], x: np.ndarray, p: int, rate: int) -> bool:
        row.update(low_rise_db=low_rise_db(x, p, rate), early_in=early_available(len(x), p, rate))
        return bool(self._cut is not None and row["early_in"] and not row["close"] and row["low_rise_db"] > self._cut)


def in_scope(r: dict[str, Any]) -> bool:
    return bool(r["early_in"]) and not r["close"]


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


def _cuts(rows: list[dict[str, Any]], sources: list[str], _veto: bool) -> dict[str, float]:
    """Per held-out source: the largest ``low_rise_db`` over the other clap sources' true far-call
    claps and (unless held out) sharwin's recipe far-call claps."""
    return nested_cuts(rows, sources, "low_rise_db", in_scope=in_scope, recipe=True)


def _make(s: str, folds_: Folds, made: list[EarlyRecorder], _veto: bool, cut: float | None) -> Any:
    return fold_maker(EarlyRecorder, s, folds_, made, cut)


def _report(veto: bool, per: dict[str, Any], rows: list[dict[str, Any]], off: int) -> None:
    if not veto:
        feature_table(rows)
    listing(rows, off)
    bar_table(per, rows, off)


EARLY = VetoBench(rows_file="EARLY", measure="measure", veto_option={"action": "store_true"}, cuts=_cuts,
                  cut_label=lambda _veto: "", make=_make, report=_report)


def main() -> int:
    return veto_main(EARLY, __doc__)


if __name__ == "__main__":
    raise SystemExit(main())
