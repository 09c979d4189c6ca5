#!/usr/bin/env python3
"""The twenty-sixth pass (docs/claps_history.md): what still fires, held out, through the shipped detector.

Every source's clips are streamed through sensekit's ``ClapDetector`` with its own fold's constants
(the trees of ``TREES.json``, the wait's ``WaitModel`` from ``WAIT_FOLDS.json``,
``RING_130_late_above_db.json`` and ``MEL_LR.json``: what ``clap_mel_wait.py --stream
--shipped-detector`` passes), 512-sample blocks, route off. Every clap emitted is recorded with what
decided it: the trees' score ``t`` and ``t - T``, whether it was a close call, and for a close call the
ring's trees' log-odds over ``T``, the log-mel score, the sum less theta, ``late_above_db`` and
``voiced_after``; plus its 16 features and ``clap_attack.attack_peak_db``.

Default: the per-source table (``evaluate.format_sources``), every false clap on a negative clip, the
clips-with-a-clap per negative source against the bar (at most 1 in 10), and per feature how far the
false claps of each negative source sit from the true claps of the clap sources' recordings (AUC).
Keeps ``CLAPS_<offset>.json`` in ``--out``.
Then the noise curve (``--no-curve``: not). ``--veto``: the declared fix, a clap dropped when
``attack_peak_db`` exceeds a cut nested from the *other* clap sources' true claps at offset 0
(``CLAPS_0.json``), streamed at each offset and on the noise curve.

Usage: .venv/bin/python benchmarks/clap_false_claps.py --folds DIR --out DIR [--offsets 0,517] [--veto]
  --folds DIR holds TREES.json, WAIT_FOLDS.json, RING_130_late_above_db.json, MEL_LR.json
  (/tmp/claps20, /tmp/claps27 and /tmp/claps26's).
"""
from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence, TypeVar

import numpy as np
from _clap_tables import add_stream_options
from _reference import SHARED_DATA, data_refused
from clap_mel_wait import Shipped
from clap_ring_stream import delays

from sensekit.audio.clap_features import FEATURES, clap_score
from sensekit.audio.clap_wait import WaitModel, log_mel, ring_inputs
from sensekit.evaluation.audio.clap_attack import attack_peak_db
from sensekit.evaluation.audio.clap_mel_score import LinearScore

TOL_S = 0.06
BAR = 0.1


#: a detector's record of claps at one moment: the last clap's peak, how many recent claps,
#: decisions and rows it holds (``Recorder._mark``)
Mark = tuple[int, int, int, int]


class Recorder(Shipped):
    """The shipped detector with a fold's constants; records every clap it emits with what decided it,
    and drops it when ``attack_peak_db`` exceeds ``veto`` (None: never)."""

    def __init__(self, lr: LinearScore, veto: float | None = None, **kw: Any) -> None:
        self.rows: list[dict[str, Any]] = []
        self._lr, self._veto = lr, veto
        self._seen: tuple[int, tuple[float, ...], float, bool] = (-1, (), 0.0, False)
        super().__init__(**kw)

    def _first_look(self, p: int, gap_ok: bool) -> tuple[tuple[float, ...], bool, float, bool]:
        got = super()._first_look(p, gap_ok)
        self._seen = (p, got[0], got[2], got[3])
        return got

    def _mark(self) -> Mark:
        """Where the detector's record of claps stands now, for ``_undo``."""
        return self._last_clap, len(self._recent), len(self.decisions), len(self.rows)

    def _undo(self, mark: Mark) -> None:
        """Back to ``mark``: as if the burst judged since had not been a clap."""
        last, n_recent, n_dec, n_rows = mark
        self._last_clap = last
        while len(self._recent) > n_recent:
            self._recent.pop()
        del self.decisions[n_dec:]
        del self.rows[n_rows:]

    def _judge(self, p: int, onset: int) -> Any:
        mark = self._mark()
        clap = super()._judge(p, onset)
        if clap is None:
            return None
        b0, rate = self._b0, self._meter.rate
        x = self._buf[: self._end - b0]
        attack = attack_peak_db(x, p - b0, rate)
        if self._veto is not None and attack > self._veto:
            self._undo(mark)
            return None
        sp, vals, t, close = self._seen
        wm = self.wait_model
        assert sp == p and wm is not None
        row: dict[str, Any] = {"t": clap.t, "trees": t, "t_minus_T": t - wm.threshold, "close": close,
                               "attack_peak_db": attack, "attack5_peak_db": attack_peak_db(x, p - b0, rate, 5.0),
                               "peak_t": (self._t0 or 0.0) + p / rate, **dict(zip(("peak_db", *FEATURES), vals))}
        if close:
            level, voiced = ring_inputs(x, p - b0, rate)
            ring = clap_score(np.asarray((*vals[1:], level, voiced)), wm.ring_model)
            f = np.append(np.asarray(log_mel(x, rate, p - b0), np.float64).ravel(), t - wm.threshold)
            mel = float(f @ wm.mel_w + wm.mel_b)
            row.update(ring_over_T=ring - wm.threshold, mel=mel, sum_minus_theta=ring + mel - wm.theta,
                       late_above_db=level, voiced_after=voiced)
        self.rows.append(row)
        if self._drops(row, x, p - b0, rate):
            self._undo(mark)
            return None
        return clap

    def _drops(self, row: dict[str, Any], x: np.ndarray, p: int, rate: int) -> bool:
        """A subclass's feature window: adds its features of the clap peaking at ``x[p]`` to ``row``
        (just recorded) and says whether its veto drops the clap (then undone as if never judged one).
        Here: nothing added, never."""
        return False


Folds = tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, LinearScore]]


def fold_parser(doc: str | None) -> argparse.ArgumentParser:
    """The options every held-out false-claps benchmark takes: the folds, the output folder, the
    stream options (its curve takes ``--offsets``) and ``--sources`` (default: every fold's)."""
    ap = argparse.ArgumentParser(description=(doc or "").split("\n")[0])
    ap.add_argument("--folds", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    add_stream_options(ap, curve_offsets=None)
    ap.add_argument("--sources", default="")
    return ap


def folds_and_sources(args: argparse.Namespace) -> tuple[Folds, list[str]] | None:
    """The folds of ``--folds`` and the sources to run, or None once the missing shared data is said."""
    if data_refused():
        return None
    folds_ = load_folds(args.folds)
    return folds_, (args.sources.split(",") if args.sources else sorted(folds_[0]))


def load_folds(d: Path) -> Folds:
    trees = json.loads((d / "TREES.json").read_text())["models"]
    folds = json.loads((d / "WAIT_FOLDS.json").read_text())
    ring = json.loads((d / "RING_130_late_above_db.json").read_text())
    lr = {s: LinearScore.from_json(v) for s, v in json.loads((d / "MEL_LR.json").read_text()).items()}
    if any(f["rule"] != "sum" for f in folds.values()):
        raise SystemExit("the shipped detector has the sum rule only")
    return trees, folds, ring, lr


R = TypeVar("R", bound=Recorder)


def fold_maker(cls: Callable[..., R], s: str, folds_: Folds, made: list[R], *extra: Any) -> Callable[[], R]:
    """``make`` for held-out source ``s``: each call a ``cls(lr, *extra, ...)`` with ``s``'s fold (its
    trees, threshold, wait and log-mel score; route off), appended to ``made``."""
    trees, folds, ring, lr = folds_
    f = folds[s]
    wm = WaitModel(ring[s], f["T"], f["margin"], f["theta"], lr[s].w, lr[s].b)

    def make() -> R:
        det = cls(lr[s], *extra, model=trees[s], threshold=f["T"], noise_route=False, wait_model=wm)
        made.append(det)
        return det
    return make


def offsets_of(args: argparse.Namespace) -> list[int]:
    """``--offsets`` as numbers."""
    return [int(v) for v in args.offsets.split(",")]


def print_curve(args: argparse.Namespace, sources: list[str], make_for: Callable[[str], Callable[[], Any]],
                name: str) -> None:
    """The noise curve (``--offsets``, ``--kinds``, ``--snrs``; leave one source out) of the detectors
    ``make_for(source)`` makes, printed under ``name``; the caller prints their decision delays."""
    from sensekit.evaluation.audio.clap_noise import format_curve, noise_curve

    points = noise_curve(SHARED_DATA, offsets=offsets_of(args), block=args.block, make_for=make_for,
                         only_sources=sources, kinds=args.kinds.split(","),
                         snrs_db=[float(v) for v in args.snrs.split(",")])
    print(f"noise curve: {name}, leave-one-source-out (nested)")
    print(format_curve(points))


#: one row a detector recorded, where it was: (source, the clip's result, the row, its time in the
#: clip in s, the clip's kind: "onsets" / "recipe" / "negative", whether it matches a labelled onset)
Hit = tuple[str, Any, dict[str, Any], float, str, bool]


def stream_rows(args: argparse.Namespace, sources: list[str], off: int,
                make_for: Callable[[str], Callable[[], Recorder]], made: Sequence[Recorder]
                ) -> tuple[dict[str, Any], list[Hit]]:
    """Each source's clips streamed through the detectors ``make_for(source)`` makes (appending
    each to ``made``), at offset ``off``: the per-source evaluation and every recorded row."""
    from sensekit.evaluation.audio.evaluate import evaluate

    per: dict[str, Any] = {}
    hits: list[Hit] = []
    for s in sources:
        first = len(made)
        e = evaluate(SHARED_DATA, block=args.block, offset=off, book=False, only_sources=[s], make=make_for(s))
        if s not in e.sources:
            continue
        per[s] = e.sources[s]
        for r, det in zip(e.results, made[first:]):
            kind = "onsets" if r.clip.onsets else ("recipe" if r.clip.label == "clap" else "negative")
            for row in det.rows:
                t = row["t"] - off / (det._meter.rate or 1)
                hits.append((s, r, row, t, kind, kind == "onsets" and any(abs(t - o) <= TOL_S for o in r.clip.onsets)))
    return per, hits


def hit_rows(hits: list[Hit], *, recipe: bool = False) -> list[dict[str, Any]]:
    """``stream_rows``' hits as the rows a benchmark keeps: each recorded row with its time in the clip,
    source, clip, label, kind and whether it is a true clap; ``recipe``: also ``recipe_true``, whether it
    is within ``TOL_S`` of one of a recipe clip's clap times."""
    rows = []
    for s, r, row, t, kind, true in hits:
        out = {**row, "t": t, "source": s, "clip": r.clip.file, "label": r.clip.label, "kind": kind, "true": true}
        if recipe:
            out["recipe_true"] = kind == "recipe" and any(abs(t - o) <= TOL_S for o in r.recipe)
        rows.append(out)
    return rows


def auc(a: np.ndarray, b: np.ndarray) -> float:
    """P(a > b) + P(a == b) / 2 over every pair."""
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if not len(a) or not len(b):
        return float("nan")
    return float((a[:, None] > b[None, :]).mean() + 0.5 * (a[:, None] == b[None, :]).mean())


def report(rows: list[dict[str, Any]], off: int) -> None:
    neg = [r for r in rows if r["kind"] == "negative"]
    print(f"\nevery false clap on a negative clip, offset {off} (t - T; close call: ring over T, "
          "mel, sum - theta, late_above_db, voiced; attack_peak_db):")
    for r in neg:
        c = (f"close: ring {r['ring_over_T']:+.2f} mel {r['mel']:+.2f} sum-theta {r['sum_minus_theta']:+.2f} "
             f"late {r['late_above_db']:.1f} voiced {r['voiced_after']:.2f}" if r["close"] else "far")
        print(f"  {r['source']:8s} {r['clip'].split('/', 1)[-1][:44]:44s} {r['t']:7.3f}s t-T {r['t_minus_T']:+.2f} "
              f"{c}; attack {r['attack_peak_db']:.1f} dB")


def bar_table(per: dict[str, Any], rows: list[dict[str, Any]], off: int) -> None:
    print(f"\nnegative sources against the bar (at most 1 clip in 10 gives a clap), offset {off}:")
    print("| held out | clips with a clap / clips | false claps | of which close calls (t < T: let through by the "
          "wait) | bar |")
    print("|---|---|---|---|---|")
    for s, sc in per.items():
        if not sc.negative_clips:
            continue
        mine = [r for r in rows if r["source"] == s and r["kind"] == "negative"]
        close = sum(r["close"] for r in mine)
        through = sum(r["close"] and r["t_minus_T"] < 0 for r in mine)
        ok = sc.negative_clips_hit <= BAR * sc.negative_clips
        print(f"| {s} | {sc.negative_clips_hit}/{sc.negative_clips} | {sc.false_claps} | {close} ({through}) | "
              f"{'met' if ok else 'missed'} |")


def feature_table(rows: list[dict[str, Any]]) -> None:
    true = [r for r in rows if r["true"]]
    negs = sorted({r["source"] for r in rows if r["kind"] == "negative"})
    names = ["t_minus_T", "attack_peak_db", "attack5_peak_db", *FEATURES, "late_above_db", "voiced_after", "mel"]
    print(f"\nper feature: median of the true claps (recordings, {len(true)}) and, per negative source, the median of "
          "its false claps and AUC(false > true) (0.5: no difference; close-call inputs over close calls only)")
    print("| feature | true | " + " | ".join(f"{s} ({sum(r['source'] == s and r['kind'] == 'negative' for r in rows)})"
                                             for s in negs) + " |")
    print("|---|---|" + "---|" * len(negs))
    for n in names:
        tv = np.array([r.get(n, np.nan) for r in true], np.float64)
        cells = []
        for s in negs:
            fv = np.array([r.get(n, np.nan) for r in rows if r["source"] == s and r["kind"] == "negative"],
                          np.float64)
            med = np.nanmedian(fv) if np.isfinite(fv).any() else np.nan
            cells.append(f"{med:.2f}, {auc(fv, tv):.2f}")
        tm = np.nanmedian(tv) if np.isfinite(tv).any() else np.nan
        print(f"| {n} | {tm:.2f} | " + " | ".join(cells) + " |")


def nested_cuts(rows: list[dict[str, Any]], sources: list[str], feature: str, *,
                in_scope: Callable[[dict[str, Any]], bool] = lambda r: True, recipe: bool = False,
                smallest: bool = False) -> dict[str, float]:
    """Per held-out source: the largest ``feature`` (``smallest``: the smallest) over the rows in
    ``in_scope`` of the *other* sources' true claps and, with ``recipe``, sharwin's recipe claps
    (``recipe_true``; not when sharwin is the one held out)."""
    out = {}
    for s in sources:
        pool = [r[feature] for r in rows if r["source"] != s and in_scope(r)
                and (r["true"] or (recipe and r["source"] == "sharwin" and r["recipe_true"]))]
        out[s] = float(min(pool) if smallest else max(pool))
    return out


@dataclass(frozen=True)
class VetoBench:
    """What a held-out veto benchmark gives ``veto_main`` (``--veto`` below: its value, False/None for
    the measure run).

    ``rows_file``: the measure run keeps ``<rows_file>_<offset>.json`` in ``--out``, ``--veto`` nests its
    cuts from ``<rows_file>_0.json``; ``measure``: the measure run's name in the tables; ``veto_option``:
    ``--veto``'s ``add_argument`` keywords; ``cuts(rows, sources, veto)``: the nested cut per held-out
    source; ``cut_label(veto)`` (ending in a space, or empty), ``cut_digits``: the line printing them;
    ``make(source, folds, made, veto, cut)``: ``make_for`` of the source's detectors; ``report(veto, per,
    rows, off)``: what is printed at an offset after the delay line; ``recipe``: the rows carry
    ``recipe_true``."""

    rows_file: str
    measure: str
    veto_option: dict[str, Any]
    cuts: Callable[[list[dict[str, Any]], list[str], Any], dict[str, float]]
    cut_label: Callable[[Any], str]
    make: Callable[[str, Folds, list[Any], Any, float | None], Callable[[], Recorder]]
    report: Callable[[Any, dict[str, Any], list[dict[str, Any]], int], None]
    cut_digits: int = 2
    recipe: bool = True


def veto_main(bench: VetoBench, doc: str | None) -> int:
    """The ``main`` of a held-out veto benchmark: measure (keeps the rows) or ``--veto`` (the cuts
    nested from offset 0's rows) at each of ``--offsets``: the per-source table, the decision delay
    and ``bench.report``; then the noise curve (``--no-curve``: not). 2: the shared data missing."""
    from sensekit.evaluation.audio.evaluate import format_sources

    ap = fold_parser(doc)
    ap.add_argument("--veto", **bench.veto_option)
    args = ap.parse_args()
    loaded = folds_and_sources(args)
    if loaded is None:
        return 2
    folds_, sources = loaded
    veto = args.veto
    cuts = None
    if veto:
        cuts = bench.cuts(json.loads((args.out / f"{bench.rows_file}_0.json").read_text()), sources, veto)
        print(f"{bench.cut_label(veto)}cut per held-out source (nested): "
              + ", ".join(f"{s} {v:.{bench.cut_digits}f}" for s, v in cuts.items()), flush=True)
    name = (f"veto {veto}" if isinstance(veto, str) else "veto") if veto else bench.measure

    def make_for(made: list[Any]) -> Callable[[str], Callable[[], Recorder]]:
        return lambda s: bench.make(s, folds_, made, veto, None if cuts is None else cuts[s])

    for off in offsets_of(args):
        made: list[Any] = []
        per, hits = stream_rows(args, sources, off, make_for(made), made)
        rows = hit_rows(hits, recipe=bench.recipe)
        print(format_sources(per, title=f"{name} off {off}"))
        print(f"decision delay ({name}, off {off}): {delays(made)}", flush=True)
        if not veto:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / f"{bench.rows_file}_{off}.json").write_text(json.dumps(rows))
        bench.report(veto, per, rows, off)
    if not args.no_curve:
        made_c: list[Any] = []
        print_curve(args, sources, make_for(made_c), name)
        print(f"decision delay ({name}, noise curve): {delays(made_c)}", flush=True)
    return 0


def _report(veto: bool, per: dict[str, Any], rows: list[dict[str, Any]], off: int) -> None:
    report(rows, off)
    bar_table(per, rows, off)
    if not veto and off == 0:
        feature_table(rows)


ATTACK = VetoBench(
    rows_file="CLAPS", measure="shipped wait", veto_option={"action": "store_true"},
    cuts=lambda rows, sources, _veto: nested_cuts(rows, sources, "attack_peak_db"),
    cut_label=lambda _veto: "attack_peak_db ", cut_digits=1,
    make=lambda s, folds_, made, _veto, cut: fold_maker(Recorder, s, folds_, made, cut),
    report=_report, recipe=False)


def main() -> int:
    return veto_main(ATTACK, __doc__)


if __name__ == "__main__":
    raise SystemExit(main())
