#!/usr/bin/env python3
"""The nineteenth pass (docs/claps_history.md): wait for the ring only on the close calls, burst level.

Today's trees (``--tree-folds``, the seventeenth pass's 14 folds) decide every burst outside a
margin of their threshold; a close call waits for its ring and is decided by the trees refit with
``late_db`` (power 30-80 ms after the peak against the 1 ms peak) and ``voiced_after`` (voicing
50-200 ms after the peak, or 50-130 ms with ``--voiced-ms 130``) appended
(``sensekit.evaluation.audio.clap_ring_wait``). Margin and both thresholds of a held-out source
are chosen on the other sources only. Printed per held-out source: what it chose, claps found
and false bursts of today's trees, the refit trees alone and the two-stage decision, over every
copy but ``sp0``, on the recordings, and under one speaker at 0 dB (``sp0``).

Usage: .venv/bin/python benchmarks/clap_ring_wait.py --cache BURSTS.npz --tree-folds T.json
       --out DIR [--voiced-ms 200|130] [--margins 0,0.5,1,...] [--ring-threshold nested|alone|today]
       [--max-delayed 0.5] [--ring-input late_db|late_floor_db|late_above_db]
       [--latency-slack 1 --delays DIR/DELAYS_today_0_517.json]
  BURSTS.npz, T.json: the seventeenth pass's cache and folds (/tmp/claps20/PATCH.npz, TREES.json).
  DIR keeps EXTRA.npz (``clap_ring_look.py``'s eight inputs; copied there to skip ~70 s),
  VOICED130.npz, the refit folds RING_<ms>[_<input>].json and the scores SCORES_<ms>[_<input>].npz
  between runs. --ring-input (the twenty-first pass): the ring measured against the peak (late_db,
  the nineteenth pass's), against the floor before the burst, or its excess over that floor.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from _reference import SHARED_DATA
from clap_ring_look import collect_checked, extra_inputs, subset

from sensekit.audio.clap_wait import RING_INPUTS, ring_level, voicing
from sensekit.evaluation.audio import clap_folds as cf
from sensekit.evaluation.audio import clap_ring_wait as rw
from sensekit.evaluation.audio import clap_training as ct

WAIT_MS = {200: 200, 130: 130}   # the signal a close call needs after its peak


def ring_tag(voiced_ms: int, ring: str) -> str:
    """The suffix of the refit folds and scores of a voicing span and ring input."""
    return str(voiced_ms) if ring == "late_db" else f"{voiced_ms}_{ring}"


def ring_column(E: np.ndarray, ring: str) -> np.ndarray:
    """The ring input ``ring`` of every burst, from ``EXTRA.npz``'s ``late_db`` and ``late_floor_db``."""
    return np.array([ring_level(float(a), float(b), ring) for a, b in E[:, :2]])


def voiced_130(cache: Path, out: Path) -> np.ndarray:
    """Voicing 50-130 ms after the peak of every burst of ``collect`` (kept in ``out``)."""
    if out.is_file():
        return np.asarray(np.load(out)["v"])
    got: list[float] = []

    def seen(x: np.ndarray, rate: int, feats: list[Any]) -> None:
        y = np.asarray(x, np.float64)
        for f in feats:
            p = round(f.t_peak * rate)
            got.append(voicing(y, p + round(0.050 * rate), p + round(0.130 * rate), rate))

    collect_checked(cache, seen)
    v = np.array(got)
    np.savez(out, v=v)
    return v


def fold_scores(b: ct.Bursts, Xn: np.ndarray, old: dict[str, Any], sources: list[str], out: Path,
                tag: str) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Every burst scored by every source's fold: today's trees and the refit ones (trained here)."""
    folds, sc = out / f"RING_{tag}.json", out / f"SCORES_{tag}.npz"
    if sc.is_file():
        z = np.load(sc)
        return {s: z[f"o_{s}"] for s in sources}, {s: z[f"r_{s}"] for s in sources}
    train = b.variant != ct.SPEECH0
    got = json.loads(folds.read_text()) if folds.is_file() else {}
    for s in sources:
        if s not in got:
            print(f"trees without {s}", file=sys.stderr, flush=True)
            got[s] = ct.train(subset(b, Xn, train), leave_out=[s])
            folds.write_text(json.dumps(got))
    every = np.ones(len(b.y), bool)
    so = {s: ct.scores(b, old[s]) for s in sources}
    sr = {s: ct.scores(subset(b, Xn, every), got[s]) for s in sources}
    arrays: dict[str, Any] = {**{f"o_{s}": v for s, v in so.items()}, **{f"r_{s}": v for s, v in sr.items()}}
    np.savez(sc, **arrays)
    return so, sr


def f1(tp: int, fp: int, n: int) -> str:
    return f"{2 * tp / max(2 * tp + fp + (n - tp), 1):.3f}"


def table(b: ct.Bursts, so: dict[str, np.ndarray], sr: dict[str, np.ndarray], sources: list[str],
          margins: tuple[float, ...], *, ring_threshold: str, max_delayed: float,
          max_recorded: dict[str, float] | None = None) -> None:
    T = cf.nested_thresholds(b, so)
    Tr = dict(T) if ring_threshold == "today" else cf.nested_thresholds(b, sr)
    wait = rw.nested_waits(b, so, sr, T, margins=margins,
                           ring_thresholds=None if ring_threshold == "nested" else Tr,
                           max_delayed=max_delayed, max_recorded=max_recorded)
    y = b.y
    print("\n| held out | T / T_ring alone / margin, T_ring | close calls (of bursts) "
          "| claps found: today / ring alone / wait (of) | false bursts: today / ring alone / wait "
          "| recordings: claps / false, today -> wait "
          "| per-clap F1 today -> wait: every copy, recordings | sp0 claps today / wait (of) "
          "| claps delayed: copies, recordings |")
    print("|---|---|---|---|---|---|---|---|---|")
    tot = np.zeros(14, int)
    for s in sources:
        u, v = wait[s]
        m = (b.source == s) & (y >= 0) & (b.variant != ct.SPEECH0)
        org = m & (b.variant == "orig")
        sp = (b.source == s) & (b.variant == ct.SPEECH0) & (y == 1)
        today, alone = so[s] >= T[s], sr[s] >= Tr[s]
        two = rw.wait_decision(so[s], sr[s], threshold=T[s], ring_threshold=v, margin=u)
        close = rw.waits(so[s], threshold=T[s], margin=u)
        n_org = sum(k for c, k in b.onsets.items() if b.labels[c] == "clap" and c in set(b.clip[org]))

        def c(d: np.ndarray, w: np.ndarray) -> int:
            return int(np.count_nonzero(d & w))
        row = [c(today, m & (y == 1)), c(alone, m & (y == 1)), c(two, m & (y == 1)),
               c(today, m & (y == 0)), c(alone, m & (y == 0)), c(two, m & (y == 0)),
               c(today, org & (y == 1)), c(today, org & (y == 0)), c(two, org & (y == 1)), c(two, org & (y == 0)),
               c(today, sp), c(two, sp), c(two & close, m & (y == 1)), c(two & close, org & (y == 1))]
        tot += np.array(row)
        n_all = c(m, y == 1)
        f_old = f1(row[0], row[3], n_all) + ", " + f1(row[6], row[7], n_org) if n_org else "-"
        f_new = f1(row[2], row[5], n_all) + ", " + f1(row[8], row[9], n_org) if n_org else "-"
        print(f"| {s} | {T[s]:.2f} / {Tr[s]:.2f} / {u:g}, {v:.2f} | {c(close, m)} ({int(m.sum())}) "
              f"| {row[0]} / {row[1]} / {row[2]} ({c(m, y == 1)}) | {row[3]} / {row[4]} / {row[5]} "
              f"| {row[6]} / {row[7]} -> {row[8]} / {row[9]} | {f_old} -> {f_new} "
              f"| {row[10]} / {row[11]} ({int(sp.sum())}) | {row[12]} of {row[2]}, {row[13]} of {row[8]} |",
              flush=True)
    print(f"| total | | | {tot[0]} / {tot[1]} / {tot[2]} | {tot[3]} / {tot[4]} / {tot[5]} "
          f"| {tot[6]} / {tot[7]} -> {tot[8]} / {tot[9]} | | {tot[10]} / {tot[11]} "
          f"| {tot[12]} of {tot[2]} ({tot[12] / max(tot[2], 1):.0%}), {tot[13]} of {tot[8]} "
          f"({tot[13] / max(tot[8], 1):.0%}) |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--tree-folds", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--voiced-ms", type=int, choices=sorted(WAIT_MS), default=200)
    ap.add_argument("--margins", default=",".join(f"{u:g}" for u in rw.MARGINS))
    ap.add_argument("--ring-threshold", choices=("nested", "alone", "today"), default="nested",
                    help="nested: chosen with the margin; alone: the ring trees' own nested threshold; "
                         "today: today's trees' nested threshold")
    ap.add_argument("--ring-input", choices=RING_INPUTS, default="late_db")
    ap.add_argument("--max-delayed", type=float, default=1.0,
                    help="margins delaying more of the other sources' found claps are not considered")
    ap.add_argument("--latency-slack", type=float, default=None,
                    help="the twenty-second pass: the cap on delayed claps of each held-out source nested from "
                         "today's streamed decision delays of the other sources (--delays) on their recordings")
    ap.add_argument("--delays", type=Path, default=None,
                    help="today's decision delays per source, ms (clap_ring_stream.py's DELAYS_today_*.json)")
    a = ap.parse_args()
    if not SHARED_DATA.is_dir():
        raise SystemExit(f"{SHARED_DATA} is absent: this pass needs the real clips")
    a.out.mkdir(parents=True, exist_ok=True)
    E = extra_inputs(a.cache, a.out / "EXTRA.npz")
    voiced = E[:, 3] if a.voiced_ms == 200 else voiced_130(a.cache, a.out / "VOICED130.npz")
    b = ct.collect_cached(SHARED_DATA, a.cache, patches=True)
    old = json.loads(a.tree_folds.read_text())["models"]
    sources = sorted(old)
    Xn = np.column_stack([b.X, ring_column(E, a.ring_input), voiced])
    so, sr = fold_scores(b, Xn, old, sources, a.out, ring_tag(a.voiced_ms, a.ring_input))
    margins = tuple(float(v) for v in a.margins.split(","))
    print(f"# voicing 50-{a.voiced_ms} ms after the peak (a close call waits {WAIT_MS[a.voiced_ms]} ms "
          f"after it); ring input {a.ring_input}; margins {margins}; ring threshold {a.ring_threshold}; "
          f"max delayed {a.max_delayed}")
    caps = None
    if a.latency_slack is not None:
        if a.delays is None or not a.delays.is_file():
            raise SystemExit("--latency-slack needs --delays, today's streamed decision delays "
                             "(benchmarks/clap_ring_stream.py --latency-slack writes them)")
        d = {s: np.asarray(v, np.float64) for s, v in json.loads(a.delays.read_text()).items()}
        caps = rw.latency_caps(d, a.latency_slack)
        print("# nested caps on delayed claps (recordings): " + "; ".join(f"{s} {caps[s]:.3f}" for s in sources))
    table(b, so, sr, sources, margins, ring_threshold=a.ring_threshold,
          max_delayed=1.0 if caps is not None else a.max_delayed, max_recorded=caps)


if __name__ == "__main__":
    main()
