#!/usr/bin/env python3
"""The thirty-seventh pass's look after (docs/claps_history.md): today's folds with the close-call wait
reaching down to ``T - W`` for a fixed ``W``, streamed held out.

Not a candidate: ``W`` (``--veto W``, the same for every fold) was picked after the pass's burst-level
look (``clap_lost_claps.py --band``), so these figures say how a streamed wait down to ``T - W``
differs from that look (the gap, the recent claps, the decision delay), not which ``W`` to ship; a later
pass nests ``W`` from the other sources before measuring. The detector is ``clap_false_claps.py``'s
(``Recorder``, route off) with the twenty-fifth pass's ``Shipped(wide=W, low=False)``: every burst
scoring in ``[T - W, T)`` that passes the gates waits for the ring and the log-mel score, as a close
call does. ``--out`` must hold a measure run's ``CLAPS_0.json`` (``clap_false_claps.py --out``; not read
beyond its presence). Prints the per-source table, the decision delay and what fires; ``--no-curve``: no
noise curve.

Usage: .venv/bin/python benchmarks/clap_wide_look.py --folds DIR --out DIR --veto 2 [--offsets 0,517] [--no-curve]
"""
from __future__ import annotations

from typing import Any

from clap_false_claps import Folds, Recorder, VetoBench, _report, fold_maker, veto_main


class Wide(Recorder):
    """``Recorder`` whose close-call wait also takes every burst in ``[T - wide, T)``."""

    def __init__(self, lr: Any, wide: float, **kw: Any) -> None:
        super().__init__(lr, None, wide=wide, low=False, **kw)


def _make(s: str, folds_: Folds, made: list[Any], w: float | None, cut: float | None) -> Any:
    if cut is None:
        raise SystemExit("give --veto W (the wait's reach under T)")
    return fold_maker(Wide, s, folds_, made, cut)


WIDE = VetoBench(
    rows_file="CLAPS", measure="shipped wait", veto_option={"type": float, "default": None},
    cuts=lambda _rows, sources, w: dict.fromkeys(sources, float(w)),
    cut_label=lambda _w: "W (fixed, not nested) ", cut_digits=2,
    make=_make, report=lambda w, per, rows, off: _report(True, per, rows, off), recipe=False)


def main() -> int:
    return veto_main(WIDE, __doc__)


if __name__ == "__main__":
    raise SystemExit(main())
