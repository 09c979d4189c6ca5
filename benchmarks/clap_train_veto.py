#!/usr/bin/env python3
"""The twenty-eighth pass (docs/claps_history.md): the train veto, declared in
``sensekit/evaluation/audio/clap_train.py``, held out through the shipped detector.

Every source's clips are streamed as ``clap_false_claps.py`` streams them (the shipped ``ClapDetector``
with the source's own fold, 512-sample blocks, route off); every clap emitted is recorded with its train
(the bursts that count, ``clap_train``'s rule, in the 4 s up to its peak: time before the peak, level).

``--collect`` (no veto, at each of ``--offsets``): the per-source table, ``TRAIN_<offset>.json`` in
``--out`` and at offset 0 the train statistics of the true, recipe and false claps. Then (default) the
nested choice of the veto per held-out source from ``TRAIN_0.json`` (the other sources' claps only),
streamed with it at each offset (the per-source table, the bar, the decision delay) and on the noise
curve (``--no-curve``: not).

Usage: .venv/bin/python benchmarks/clap_train_veto.py --folds DIR --out DIR [--collect] [--offsets 0,517]
  --folds DIR: as clap_false_claps.py's (/tmp/claps30).
"""
from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np
from clap_false_claps import (Folds, Recorder, bar_table, fold_maker, fold_parser, folds_and_sources, offsets_of,
                              print_curve, stream_rows)
from clap_ring_stream import delays

from sensekit.evaluation.audio.clap_mel_score import LinearScore
from sensekit.evaluation.audio.clap_train import GRID, Train, TrainVeto, train_stats


class TrainRecorder(Recorder):
    """``clap_false_claps.Recorder`` (no attack veto) with the train: each row keeps ``train``
    ([seconds before the peak, peak_db] of the bursts that count in the 4 s up to it), and a clap is
    dropped when ``veto`` says so (``clap_train.TrainDetector``'s rule, the same hooks)."""

    def __init__(self, lr: LinearScore, veto: TrainVeto | None, **kw: Any) -> None:
        self.train_veto = veto
        self._train = Train()
        self.vetoed = 0
        super().__init__(lr, None, **kw)

    def reset(self) -> None:
        self._train = Train()
        super().reset()

    def _first_look(self, p: int, gap_ok: bool) -> tuple[tuple[float, ...], bool, float, bool]:
        got = super()._first_look(p, gap_ok)
        vals, ok, score, _ = got
        wm = self.wait_model
        assert wm is not None
        if ok and gap_ok and score >= self.threshold - wm.margin:
            self._train.add(p, vals[0], self._meter.rate)
        return got

    def _judge(self, p: int, onset: int) -> Any:
        mark = self._mark()
        clap = super()._judge(p, onset)
        if clap is None:
            return None
        rate = self._meter.rate
        v = self.train_veto
        if v is not None and v.vetoes(self._train.stats(p, v.w_s, rate)):
            self._undo(mark)
            self.vetoed += 1
            return None
        self.rows[-1]["train"] = [[(p - a) / rate, lv] for a, lv in self._train._q if p - a <= 4.0 * rate]
        return clap


def run(args: argparse.Namespace, sources: list[str], off: int, vetoes: dict[str, TrainVeto | None],
        folds_: Folds) -> tuple[dict[str, Any], list[dict[str, Any]], list[TrainRecorder]]:
    made: list[TrainRecorder] = []
    per, hits = stream_rows(args, sources, off, lambda s: fold_maker(TrainRecorder, s, folds_, made, vetoes.get(s)),
                            made)
    rows = [{"t": t, "train": row["train"], "t_minus_T": row["t_minus_T"], "close": row["close"], "source": s,
             "clip": r.clip.file, "kind": kind, "true": true} for s, r, row, t, kind, true in hits]
    return per, rows, made


def stats_of(row: dict[str, Any], w_s: float) -> tuple[int, float, float]:
    got: list[tuple[float, float]] = sorted((-float(a), float(lv)) for a, lv in row["train"] if a <= w_s)
    return train_stats(np.array([a for a, _ in got]), np.array([lv for _, lv in got]))


def choose(rows: list[dict[str, Any]], held: str) -> tuple[TrainVeto | None, int]:
    """The declared nested choice for held-out source ``held``: the grid point that drops no true clap
    and no recipe clip's clap of the other sources, and of those the most of their false claps; ties
    to the larger S, the larger C, the shorter W. (None, 0) when none drops a false clap."""
    other = [r for r in rows if r["source"] != held]
    best: tuple[tuple[int, float, float, float], TrainVeto] | None = None
    for v in GRID:
        st = [v.vetoes(stats_of(r, v.w_s)) for r in other]
        if any(d and (r["true"] or r["kind"] == "recipe") for d, r in zip(st, other)):
            continue
        gain = sum(d and r["kind"] == "negative" for d, r in zip(st, other))
        key = (gain, v.spread_db, v.cv, -v.w_s)
        if gain and (best is None or key > best[0]):
            best = (key, v)
    return (None, 0) if best is None else (best[1], best[0][0])


def describe(rows: list[dict[str, Any]]) -> None:
    """Median n / cv / spread at W = 2 and 4 s of the true claps, the recipe claps and each source's
    false claps (n >= 4 only for cv and spread)."""
    groups: dict[str, list[dict[str, Any]]] = {"true (labelled)": [r for r in rows if r["true"]]}
    for s in sorted({r["source"] for r in rows if r["kind"] == "recipe"}):
        groups[f"recipe {s}"] = [r for r in rows if r["kind"] == "recipe" and r["source"] == s]
    for s in sorted({r["source"] for r in rows if r["kind"] == "negative"}):
        groups[f"false {s}"] = [r for r in rows if r["kind"] == "negative" and r["source"] == s]
    print("\ntrain statistics of the claps emitted, offset 0 (median; cv and spread over trains of >= 4)")
    print("| claps | count | W | n>=4 | n | cv | spread dB |")
    print("|---|---|---|---|---|---|---|")
    for name, g in groups.items():
        for w in (2.0, 4.0):
            st = [stats_of(r, w) for r in g]
            big = [x for x in st if x[0] >= 4]

            def med(i: int, v: list[tuple[int, float, float]]) -> str:
                return f"{np.median([x[i] for x in v]):.2f}" if v else "-"
            print(f"| {name} | {len(g)} | {w:g} | {len(big)} | {med(0, st)} | {med(1, big)} | {med(2, big)} |")


def main() -> int:
    from sensekit.evaluation.audio.evaluate import format_sources

    ap = fold_parser(__doc__)
    ap.add_argument("--collect", action="store_true")
    args = ap.parse_args()
    loaded = folds_and_sources(args)
    if loaded is None:
        return 2
    folds_, sources = loaded
    args.out.mkdir(parents=True, exist_ok=True)
    if args.collect:
        for off in offsets_of(args):
            per, rows, made = run(args, sources, off, {}, folds_)
            print(format_sources(per, title=f"untouched off {off}"))
            print(f"decision delay (untouched, off {off}): {delays(list(made))}", flush=True)
            (args.out / f"TRAIN_{off}.json").write_text(json.dumps(rows))
            bar_table(per, rows, off)
            if off == 0:
                describe(rows)
        return 0
    rows0 = json.loads((args.out / "TRAIN_0.json").read_text())
    vetoes: dict[str, TrainVeto | None] = {}
    for s in sources:
        vetoes[s], gain = choose(rows0, s)
        print(f"nested veto for {s}: {vetoes[s]} (drops {gain} false claps of the other sources)", flush=True)
    for off in offsets_of(args):
        per, rows, made = run(args, sources, off, vetoes, folds_)
        print(format_sources(per, title=f"train veto off {off}"))
        print(f"decision delay (train veto, off {off}): {delays(list(made))}; vetoed {sum(d.vetoed for d in made)}",
              flush=True)
        bar_table(per, rows, off)
    if not args.no_curve:
        made_c: list[TrainRecorder] = []
        print_curve(args, sources, lambda s: fold_maker(TrainRecorder, s, folds_, made_c, vetoes.get(s)), "train veto")
        print(f"decision delay (train veto, noise curve): {delays(list(made_c))}; "
              f"vetoed {sum(d.vetoed for d in made_c)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
