#!/usr/bin/env python3
"""The twenty-ninth pass (docs/claps_history.md): a knock's modes ring on, a room's decay is noise.

Every source's clips streamed through the shipped ``ClapDetector`` with its own fold's constants, as
``clap_false_claps.py`` does (its ``Recorder``: the trees of ``TREES.json``, the wait of
``WAIT_FOLDS.json``, ``RING_130_late_above_db.json`` and ``MEL_LR.json``; 512-sample blocks, route off).

Default (measure): every burst is held until 130 ms after its peak are in (as a close call is; the
decisions are the shipped detector's: the per-source table must equal the twenty-sixth pass's) and
every clap emitted gets ``clap_ring_modes.ring_line_db`` (and the backup ``ring_peak_db``); prints
the per-source table, the bar, each negative source's false claps against the labelled claps and
sharwin's recipe claps (AUC), and keeps ``RINGMODES_<offset>.json`` in ``--out``.

``--veto SCOPE``: the declared vetoes, cuts nested from ``RINGMODES_0.json`` (for a held-out source:
the other clap sources' true claps and, unless sharwin is held out, sharwin's recipe claps, in scope
and with their ring in), streamed at each offset and on the noise curve:

* ``close``: a close call (already held 130 ms: no delay) is dropped when ``ring_line_db`` > the cut;
* ``ring``: as ``close``, and a far call with ``fall20_ms`` >= ``RING_GATE_MS`` is held 130 ms (as a
  close call) and dropped the same way (delay measured);
* ``floor``: item 3, a close call is dropped when the ring's trees' log-odds over T are under a floor
  (the smallest of the pool's close calls).

Usage: .venv/bin/python benchmarks/clap_ring_modes.py --folds /tmp/claps30 --out DIR [--offsets 0]
       [--veto close|ring|floor] [--no-curve]
"""
from __future__ import annotations

from typing import Any

import numpy as np
from clap_false_claps import Folds, Recorder, VetoBench, auc, bar_table, fold_maker, nested_cuts, veto_main

from sensekit.audio.clap_features import FEATURES
from sensekit.evaluation.audio.clap_mel_score import LinearScore
from sensekit.evaluation.audio.clap_ring_modes import ring_available, ring_line_db, ring_peak_db

RING_GATE_MS = 15.0          # declared: a far call that rings (knocks 29 ms, labelled claps 6 ms: 26th pass)
SCOPES = ("close", "ring", "floor")
_FALL20 = 1 + FEATURES.index("fall20_ms")

class RingRecorder(Recorder):
    """``Recorder`` with the ring's modes: ``scope`` None and ``hold_all``: measure (every burst held,
    the decisions unchanged); else the declared veto of ``scope`` with ``cut``."""

    def __init__(self, lr: LinearScore, scope: str | None, cut: float | None, hold_all: bool, **kw: Any) -> None:
        self._scope, self._cut, self._hold_all = scope, cut, hold_all
        super().__init__(lr, None, **kw)

    def _holds(self, p: int) -> bool:
        close = super()._holds(p)
        look = self._look
        assert look is not None
        return close or self._hold_all or (self._scope == "ring" and bool(look[2])
                                           and look[1][_FALL20] >= RING_GATE_MS)

    def _vetoes(self, row: dict[str, Any]) -> bool:
        if self._scope is None or self._cut is None or not row["ring_in"]:
            return False
        if self._scope == "floor":
            return bool(row["close"]) and row["ring_over_T"] < self._cut
        in_scope = row["close"] or (self._scope == "ring" and row["gated"])
        return bool(in_scope) and row["ring_line_db"] > self._cut

    def _drops(self, row: dict[str, Any], x: np.ndarray, p: int, rate: int) -> bool:
        row.update(ring_line_db=ring_line_db(x, p, rate), ring_peak_db=ring_peak_db(x, p, rate),
                   ring_in=ring_available(len(x), p, rate), gated=row["fall20_ms"] >= RING_GATE_MS)
        return self._vetoes(row)


def maker(s: str, folds_: Folds, made: list[RingRecorder], scope: str | None, cut: float | None) -> Any:
    return fold_maker(RingRecorder, s, folds_, made, scope, cut, scope is None)


def in_scope(r: dict[str, Any], scope: str) -> bool:
    return bool(r["ring_in"]) and bool(r["close"] or (scope == "ring" and r["gated"]))


def _cuts(rows: list[dict[str, Any]], sources: list[str], scope: str) -> dict[str, float]:
    """Per held-out source: over the other clap sources' true claps and (unless held out) sharwin's
    recipe claps in scope, the largest ``ring_line_db`` (``floor``: the smallest ring over T)."""
    floor = scope == "floor"
    return nested_cuts(rows, sources, "ring_over_T" if floor else "ring_line_db",
                       in_scope=lambda r: in_scope(r, scope), recipe=True, smallest=floor)


def _med_max(v: np.ndarray) -> str:
    return f"{np.median(v):.1f} ({v.max():.1f})" if len(v) else "-"


def feature_table(rows: list[dict[str, Any]]) -> None:
    true = [r for r in rows if r["true"] and r["ring_in"]]
    rec = [r for r in rows if r["source"] == "sharwin" and r["recipe_true"] and r["ring_in"]]
    negs = sorted({r["source"] for r in rows if r["kind"] == "negative"})
    print(f"\nper feature: median (max) of the labelled claps ({len(true)}), sharwin's recipe claps ({len(rec)}); "
          "per negative source the median of its false claps and AUC(false > labelled), AUC(false > recipe)")
    print("| feature | labelled | sharwin recipe | " + " | ".join(negs) + " |")
    print("|---|---|---|" + "---|" * len(negs))
    for n in ("ring_line_db", "ring_peak_db", "attack_peak_db", "fall20_ms"):
        tv = np.array([r[n] for r in true], np.float64)
        rv = np.array([r[n] for r in rec], np.float64)
        cells = []
        for s in negs:
            fv = np.array([r[n] for r in rows if r["source"] == s and r["kind"] == "negative" and r["ring_in"]],
                          np.float64)
            cells.append(f"{np.median(fv):.1f} ({auc(fv, tv):.2f}, {auc(fv, rv):.2f})" if len(fv) else "-")
        print(f"| {n} | {_med_max(tv)} | {_med_max(rv)} | " + " | ".join(cells) + " |")


def listing(rows: list[dict[str, Any]], off: int) -> None:
    print(f"\nevery false clap on a negative clip, offset {off} (t - T; close; fall20_ms; ring_line_db; ring over T):")
    for r in rows:
        if r["kind"] == "negative":
            ring = f" ring {r['ring_over_T']:+.2f}" if r["close"] else ""
            print(f"  {r['source']:8s} {r['clip'].split('/', 1)[-1][:40]:40s} {r['t']:7.3f}s t-T {r['t_minus_T']:+.2f} "
                  f"{'close' if r['close'] else 'far  '} fall20 {r['fall20_ms']:5.1f} line {r['ring_line_db']:5.1f}"
                  f"{'' if r['ring_in'] else ' (no ring)'}{ring}")


def _report(veto: str | None, per: dict[str, Any], rows: list[dict[str, Any]], off: int) -> None:
    listing(rows, off)
    bar_table(per, rows, off)
    if not veto:
        feature_table(rows)


RING = VetoBench(rows_file="RINGMODES", measure="measure", veto_option={"choices": SCOPES, "default": None},
                 cuts=_cuts, cut_label=lambda scope: f"{scope} ", make=maker, report=_report)


def main() -> int:
    return veto_main(RING, __doc__)


if __name__ == "__main__":
    raise SystemExit(main())
