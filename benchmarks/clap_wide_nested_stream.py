#!/usr/bin/env python3
"""The thirty-eighth pass's held-out stream (docs/claps_history.md): today's folds with the close-call wait
reaching down to ``T - W_s``, ``W_s`` nested per held-out source by ``clap_wide_nested.py``.

``--veto FILE``: that script's ``WIDE_NESTED.json`` (source -> ``W``). The detector is
``clap_wide_look.Wide`` (``clap_false_claps.py``'s ``Recorder``, route off, with the twenty-fifth pass's
``Shipped(wide=W, low=False)``). ``--out`` must hold a measure run's ``CLAPS_0.json`` (not read beyond its
presence). Prints the per-source table, the decision delay, what fires and the noise curve (``--no-curve``:
not).

Usage: .venv/bin/python benchmarks/clap_wide_nested_stream.py --folds DIR --out DIR --veto WIDE_NESTED.json
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from clap_false_claps import Folds, VetoBench, _report, fold_maker, veto_main
from clap_wide_look import Wide


def reaches_of(path: str, sources: list[str]) -> dict[str, float]:
    """The nested ``W`` of every held-out source from ``WIDE_NESTED.json``; refuses a missing source."""
    got = {str(k): float(v) for k, v in json.loads(Path(path).read_text()).items()}
    missing = [s for s in sources if s not in got]
    if missing:
        raise SystemExit(f"{path} has no nested W for source(s) {', '.join(missing)}")
    return {s: got[s] for s in sources}


def _make(s: str, folds_: Folds, made: list[Any], _path: str | None, w: float | None) -> Any:
    if w is None:
        raise SystemExit("give --veto WIDE_NESTED.json (clap_wide_nested.py's output)")
    return fold_maker(Wide, s, folds_, made, w)


NESTED = VetoBench(
    rows_file="CLAPS", measure="shipped wait", veto_option={"type": str, "default": None},
    cuts=lambda _rows, sources, path: reaches_of(path, sources),
    cut_label=lambda _path: "W (nested) ", cut_digits=2,
    make=_make, report=lambda v, per, rows, off: _report(True, per, rows, off), recipe=False)


def main() -> int:
    return veto_main(NESTED, __doc__)


if __name__ == "__main__":
    raise SystemExit(main())
