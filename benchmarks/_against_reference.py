"""Timing sensekit against a reference of ../shared/bench in one process, as ``collide.py`` and
``flock.py`` do: the reference loaded from ``--bench-dir`` before the options are parsed (its
``benchutil`` adds the timing options), the two timed in alternating rounds (reference,
sensekit, reference, ...) so machine noise hits both alike, a ``ratio`` JSON line per
comparison and a summary with a verdict per acceptance limit."""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

from _reference import load_reference, median_ms

#: one summary row: (what, sensekit ms, reference ms, ratio, acceptance limit or None)
SummaryRow = tuple[str, float, float, float, float | None]


def reference_and_options(ap: argparse.ArgumentParser, name: str, *, budget: float = 0.5,
                          min_runs: int = 5) -> tuple[ModuleType, ModuleType, argparse.Namespace]:
    """The reference ``name`` (e.g. ``"flock_ref"``) from the ``--bench-dir`` that ``ap`` takes,
    its ``benchutil`` and the command line parsed with benchutil's timing options added."""
    pre, _ = ap.parse_known_args()
    reference = load_reference(name, pre.bench_dir)
    benchutil = sys.modules["benchutil"]
    benchutil.add_timing_args(ap, budget=budget, min_runs=min_runs)
    return reference, benchutil, ap.parse_args()


def alternating(benchutil: ModuleType, reference_fn: Callable[[int], Any], sensekit_fn: Callable[[int], Any],
                args: argparse.Namespace, **measure: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``args.rounds`` timings of each, the reference first in every round: (reference's, sensekit's);
    ``measure``: more of ``benchutil.measure``'s options (``inner``)."""
    reference_stats: list[dict[str, Any]] = []
    sensekit_stats: list[dict[str, Any]] = []
    for _ in range(args.rounds):
        reference_stats.append(benchutil.measure(reference_fn, args, **measure))
        sensekit_stats.append(benchutil.measure(sensekit_fn, args, **measure))
    return reference_stats, sensekit_stats


def print_ratio(what: str, sensekit_stats: Sequence[dict[str, Any]], reference_stats: Sequence[dict[str, Any]],
                limit: float | None, *, ms_digits: int | None = 3) -> float:
    """Print the ``ratio`` JSON line (sensekit / reference of the median times; the times rounded to
    ``ms_digits``, or not with None) and return the ratio."""
    ours, theirs = median_ms(sensekit_stats), median_ms(reference_stats)
    ratio = ours / theirs
    print(json.dumps({"name": "ratio", "what": what,
                      "sensekit_ms": ours if ms_digits is None else round(ours, ms_digits),
                      "reference_ms": theirs if ms_digits is None else round(theirs, ms_digits),
                      "ratio": round(ratio, 3), "limit": limit}), flush=True)
    return ratio


def log_summary(benchutil: ModuleType, rows: Sequence[SummaryRow], *, width: int,
                unit: Callable[[str], tuple[str, float]] = lambda what: ("ms", 1.0)) -> bool:
    """Log the summary on stderr, a row a comparison (``unit(what)``: the unit and its factor
    from ms), and return whether every ratio is within its limit."""
    benchutil.log("summary (sensekit / reference, medians over alternating rounds):")
    ok = True
    for what, ours, theirs, ratio, limit in rows:
        verdict = "" if limit is None else ("  OK" if ratio <= limit else f"  OVER {limit}x")
        ok &= limit is None or ratio <= limit
        name, k = unit(what)
        benchutil.log(f"  {what:{width}s} {ours * k:9.3f} {name} vs {theirs * k:9.3f} {name}  "
                      f"ratio {ratio:5.2f}{verdict}")
    return ok
