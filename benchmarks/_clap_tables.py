"""The clap stream benchmarks' two reports (clap_ring_stream, clap_shipped_curve): each mode's
per-source table at each offset, and each mode's noise curve, both with the decision delays of
the detectors the mode made.

``make_for(mode)(source)`` is the factory the evaluation calls for a fresh detector; it appends
each detector it makes to ``made[mode]``, which is cleared before each table or curve so the
delays speak of that one. ``delays`` summarises them (each benchmark has its own line).
"""
from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from _reference import SHARED_DATA

#: the noise curve's kinds and SNRs (dB) by default in the stream benchmarks
CURVE_KINDS, CURVE_SNRS = "white,pink,babble,speech", "0,5,10"


def add_stream_options(ap: argparse.ArgumentParser, *, offsets: str = "0,517", curve_offsets: str | None = "0,517",
                       kinds: str = CURVE_KINDS, snrs: str = CURVE_SNRS) -> None:
    """The options of a clap stream benchmark that ``per_source_tables`` and ``noise_curves`` read:
    ``--block``, ``--offsets`` (the per-source tables'), ``--curve-offsets`` (the curve's; None: no such
    option, the benchmark's curve takes ``--offsets``), ``--kinds``, ``--snrs`` and ``--no-curve``."""
    ap.add_argument("--block", type=int, default=512)
    ap.add_argument("--offsets", default=offsets)
    if curve_offsets is not None:
        ap.add_argument("--curve-offsets", default=curve_offsets)
    ap.add_argument("--kinds", default=kinds)
    ap.add_argument("--snrs", default=snrs)
    ap.add_argument("--no-curve", action="store_true")


def per_source_tables(args: argparse.Namespace, offsets: list[int], modes: list[str], sources: list[str],
                      make_for: Callable[[str], Any], made: dict[str, list[Any]],
                      delays: Callable[[list[Any]], str], title: str, tag: str) -> None:
    """Prints the per-source table of each mode at each offset and its decision delays. ``title``
    and ``tag`` are formats of ``mode`` and ``off``: the table's title, the delay line's tag."""
    from sensekit.evaluation.audio.evaluate import evaluate, format_sources

    for off in offsets:
        for mode in modes:
            made[mode].clear()
            per = {}
            for s in sources:
                e = evaluate(SHARED_DATA, block=args.block, offset=off, book=False, only_sources=[s],
                             make=make_for(mode)(s))
                if s in e.sources:
                    per[s] = e.sources[s]
            print(format_sources(per, title=title.format(mode=mode, off=off)))
            print(f"decision delay ({tag.format(mode=mode, off=off)}): {delays(made[mode])}\n", flush=True)


def noise_curves(args: argparse.Namespace, modes: list[str], sources: list[str],
                 make_for: Callable[[str], Any], made: dict[str, list[Any]],
                 delays: Callable[[list[Any]], str],
                 then: Callable[[str, Any], None] | None = None) -> None:
    """Prints each mode's noise curve (``--curve-offsets``, ``--kinds``, ``--snrs``, leave one
    source out) and its decision delays; ``then(mode, points)`` after each, if given."""
    from sensekit.evaluation.audio.clap_noise import format_curve, noise_curve

    offsets = [int(v) for v in args.curve_offsets.split(",")]
    for mode in modes:
        made[mode].clear()
        points = noise_curve(SHARED_DATA, offsets=offsets, block=args.block, make_for=make_for(mode),
                             only_sources=sources, kinds=args.kinds.split(","),
                             snrs_db=[float(v) for v in args.snrs.split(",")])
        print(f"noise curve: {mode}, leave-one-source-out (nested); offsets {offsets}")
        print(format_curve(points))
        print(f"decision delay ({mode}, noise curve): {delays(made[mode])}\n", flush=True)
        if then is not None:
            then(mode, points)
