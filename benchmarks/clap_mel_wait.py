#!/usr/bin/env python3
"""The twenty-third pass (docs/claps_history.md): the close-call wait with a log-mel linear score.

The twenty-second pass's wait (``late_above_db`` + voicing, the ring's trees at today's threshold,
the margin nested under the cap from the latency) decides its close calls with the ring's trees.
Here a logistic regression on the log-mel of -0.25..+0.10 s around the peak and ``t - T``
(``sensekit.evaluation.audio.clap_mel_score``), fitted on the *other* sources' close calls
(``|t - T| < 1.5``, no ``sp0`` copy), is a second input, by one of two rules declared before looking:
``veto`` (the ring's trees accept and the score >= theta) or ``sum`` (the ring's log-odds over their
threshold plus the score >= theta). The rule and theta of a held-out source are chosen together on
the other sources' close calls (``clap_net_gate.pooled_f1``, each other source scored by its own
held-out fit; those fits had the held-out source among their training sources, as in the twentieth pass).

Burst level (default): per held-out source, claps found / false bursts over every copy but ``sp0``,
on the recordings and under one speaker at 0 dB, for today's trees, the wait and the wait with the
score. ``--stream``: each source's clips through ``clap_mel_stream.MelWaitDetector`` (held out,
512-sample blocks, route off), against today's (margin 0), the same tables as
``benchmarks/clap_ring_stream.py``. ``--cost``: ms per log-mel score, and the clap stage's rate on
the dense laughter clip looped to 20 s, today's detector against the wait with the score.

Usage: .venv/bin/python benchmarks/clap_mel_wait.py --cache /tmp/claps20/PATCH.npz
       --tree-folds /tmp/claps20/TREES.json --out DIR [--stream [--offsets 0,517] [--no-curve]] [--cost]
       [--rule veto|sum]
  DIR holds the twenty-second pass's files (SCORES_130_late_above_db.npz, RING_130_late_above_db.json,
  DELAYS_today_0_517.json) and the twentieth pass's MARGIN.npy and MELS.npz (clap_general_look.py's
  ``short`` window of every burst with |t - T| < 4); it keeps MEL_LR.json, MEL_SCORES.npy, MEL_CHOICE.json.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from _reference import SHARED_DATA

from sensekit.audio.clap import ClapDetector
from sensekit.audio.clap_wait import WaitModel
from sensekit.evaluation.audio import clap_folds as cf
from sensekit.evaluation.audio import clap_ring_wait as rw
from sensekit.evaluation.audio import clap_training as ct
from sensekit.evaluation.audio.clap_folds import TIE_F1
from sensekit.evaluation.audio.clap_mel_score import MEL_RULES, LinearScore, fit_linear, mel_decision
from sensekit.evaluation.audio.clap_net_gate import pooled_f1

TRAIN_MARGIN = 1.5                      # the close calls the score is fitted on
THETAS = np.round(np.arange(-4.0, 4.01, 0.25), 2)
RING = "late_above_db"


def load(args: argparse.Namespace) -> tuple[ct.Bursts, list[str], dict[str, np.ndarray], dict[str, np.ndarray],
                                            dict[str, float], dict[str, float]]:
    """The bursts, the sources, today's and the ring's fold scores, today's nested thresholds and the
    twenty-second pass's nested margins."""
    b = ct.collect_cached(SHARED_DATA, args.cache, patches=True)
    sources = sorted(json.loads(args.tree_folds.read_text())["models"])
    z = np.load(args.out / f"SCORES_130_{RING}.npz")
    so, sr = {s: z[f"o_{s}"] for s in sources}, {s: z[f"r_{s}"] for s in sources}
    T = cf.nested_thresholds(b, so)
    got = json.loads((args.out / "DELAYS_today_0_517.json").read_text())
    d = {s: np.asarray(v, np.float64) for s, v in got.items()}
    caps = rw.latency_caps(d, 1.0)
    w = rw.nested_waits(b, so, sr, T, ring_thresholds=dict(T), max_recorded=caps)
    return b, sources, so, sr, T, {s: w[s][0] for s in sources}


def mel_scores(args: argparse.Namespace, b: ct.Bursts, sources: list[str]) -> tuple[np.ndarray, dict[str, LinearScore]]:
    """Every burst of MELS.npz scored by the LR fitted without its source (NaN elsewhere), and the fits."""
    path, fits = args.out / "MEL_SCORES.npy", args.out / "MEL_LR.json"
    if path.is_file() and fits.is_file():
        got = json.loads(fits.read_text())
        return np.load(path), {s: LinearScore.from_json(got[s]) for s in sources}
    d = np.load(args.out / "MARGIN.npy")
    z = np.load(args.out / "MELS.npz")
    idx, M = z["idx"], z["short"]
    F = np.column_stack([M.reshape(len(M), -1).astype(np.float64), d[idx]])
    y, src, var = b.y[idx], b.source[idx], b.variant[idx]
    train = (np.abs(d[idx]) < TRAIN_MARGIN) & (y >= 0) & (var != ct.SPEECH0)
    out = np.full(len(b.y), np.nan)
    lr: dict[str, LinearScore] = {}
    for s in sources:
        t0 = time.perf_counter()
        lr[s] = fit_linear(F[train & (src != s)], y[train & (src != s)])
        out[idx[src == s]] = lr[s](F[src == s])
        print(f"# score without {s}: {int((train & (src != s)).sum())} close calls, {time.perf_counter() - t0:.0f} s",
              file=sys.stderr, flush=True)
    np.save(path, out)
    fits.write_text(json.dumps({s: v.to_json() for s, v in lr.items()}))
    return out, lr


class Shipped(ClapDetector):
    """The shipped ``ClapDetector`` (its own wait) with the fold's constants, recording its decisions."""

    def __init__(self, **kw: Any) -> None:
        self.decisions: list[tuple[float, float, bool]] = []
        self._close_p = (-1, False)
        super().__init__(**kw)

    def _first_look(self, p: int, gap_ok: bool) -> tuple[tuple[float, ...], bool, float, bool]:
        got = super()._first_look(p, gap_ok)
        self._close_p = (p, got[3])
        return got

    def _judge(self, p: int, onset: int) -> Any:
        clap = super()._judge(p, onset)
        if clap is not None:
            self.decisions.append((clap.t, (self._t0 or 0.0) + self._end / self._meter.rate,
                                   self._close_p == (p, True)))
        return clap


def decide(t: np.ndarray, r: np.ndarray, s: np.ndarray, T: float, margin: float, rule: str | None,
           theta: float) -> tuple[np.ndarray, np.ndarray]:
    """Which bursts are claps (and which are close calls): today's trees outside the margin; inside it
    the ring's trees (``rule`` None) or ``mel_decision``."""
    close = rw.waits(t, threshold=T, margin=margin)
    inner = r >= T if rule is None else mel_decision(rule, r - T, s, theta)
    return np.asarray(np.where(close, inner, t >= T)), close


def choose(b: ct.Bursts, so: dict[str, np.ndarray], sr: dict[str, np.ndarray], ms: np.ndarray,
           T: float, margin: float, others: list[str],
           only: str | None = None) -> tuple[str, float, float]:
    """The rule (``only``, if given) and theta with the best pooled criterion on ``others`` (ties within
    ``TIE_F1``: veto first, then theta nearest 0); and the criterion there."""
    rules = [(u, float(v)) for u in MEL_RULES for v in THETAS if only in (None, u)]

    def accepted(s: str, m: np.ndarray) -> list[np.ndarray]:
        t, r, x = so[s][m], sr[s][m], ms[m]
        close = rw.waits(t, threshold=T, margin=margin)
        if np.isnan(x[close]).any():
            raise SystemExit("a close call has no log-mel score: MELS.npz does not cover the margin")
        return [decide(t, r, x, T, margin, u, v)[0] for u, v in rules]

    crit = pooled_f1(b, others, accepted, len(rules))
    ok = [k for k in range(len(rules)) if crit[k] >= crit.max() - TIE_F1]
    k = min(ok, key=lambda k: (MEL_RULES.index(rules[k][0]), abs(rules[k][1])))
    return rules[k][0], rules[k][1], float(crit[k])


def burst_table(b: ct.Bursts, sources: list[str], so: dict[str, np.ndarray], sr: dict[str, np.ndarray],
                ms: np.ndarray, T: dict[str, float], margin: dict[str, float],
                pick: dict[str, tuple[str, float]]) -> None:
    y = b.y
    print("\n| held out | margin; rule, theta | claps found: today / wait / wait+mel (of) "
          "| false bursts: today / wait / wait+mel | recordings: claps / false, today / wait / wait+mel "
          "| sp0 claps today / wait / wait+mel (of) | close calls, claps among them: wait / wait+mel |")
    print("|---|---|---|---|---|---|---|")
    tot = np.zeros(17, int)
    for s in sources:
        m = (b.source == s) & (y >= 0) & (b.variant != ct.SPEECH0)
        org = m & (b.variant == "orig")
        sp = (b.source == s) & (b.variant == ct.SPEECH0) & (y == 1)
        t, r = so[s], sr[s]
        today = t >= T[s]
        wait, close = decide(t, r, ms, T[s], margin[s], None, 0.0)
        mel, _ = decide(t, r, np.nan_to_num(ms, nan=-99.0), T[s], margin[s], *pick[s])

        def c(x: np.ndarray, k: np.ndarray) -> int:
            return int(np.count_nonzero(x & k))
        row = [c(today, m & (y == 1)), c(wait, m & (y == 1)), c(mel, m & (y == 1)),
               c(today, m & (y == 0)), c(wait, m & (y == 0)), c(mel, m & (y == 0)),
               c(today, org & (y == 1)), c(today, org & (y == 0)), c(wait, org & (y == 1)), c(wait, org & (y == 0)),
               c(mel, org & (y == 1)), c(mel, org & (y == 0)), c(today, sp), c(wait, sp), c(mel, sp),
               c(close, m), c(close & mel, m & (y == 1))]
        tot += np.array(row)
        print(f"| {s} | {margin[s]:g}; {pick[s][0]}, {pick[s][1]:g} | {row[0]} / {row[1]} / {row[2]} ({c(m, y == 1)}) "
              f"| {row[3]} / {row[4]} / **{row[5]}** | {row[6]} / {row[7]}, {row[8]} / {row[9]}, {row[10]} / {row[11]} "
              f"| {row[12]} / {row[13]} / {row[14]} ({int(sp.sum())}) "
              f"| {row[15]}, {c(close & wait, m & (y == 1))} / {c(close & mel, m & (y == 1))} |", flush=True)
    print(f"| total | | {tot[0]} / {tot[1]} / {tot[2]} | {tot[3]} / {tot[4]} / {tot[5]} "
          f"| {tot[6]} / {tot[7]}, {tot[8]} / {tot[9]}, {tot[10]} / {tot[11]} | {tot[12]} / {tot[13]} / {tot[14]} "
          f"| {tot[15]} |")


def stream(args: argparse.Namespace, sources: list[str], T: dict[str, float], margin: dict[str, float],
           pick: dict[str, tuple[str, float]], lr: dict[str, LinearScore]) -> None:
    from clap_ring_stream import stream_tables

    from sensekit.evaluation.audio.clap_mel_stream import MelWaitDetector
    from sensekit.evaluation.audio.clap_ring_stream import RingWaitDetector

    trees = json.loads(args.tree_folds.read_text())["models"]
    ring = json.loads((args.out / f"RING_130_{RING}.json").read_text())

    def detector(mode: str, s: str) -> Any:
        kw = dict(model=trees[s], threshold=T[s], ring_model=ring[s], ring_threshold=T[s],
                  wait_ms=130.0, noise_route=False, ring=RING)
        if mode == "wait" and args.shipped_detector:   # (the sum rule: checked in main)
            wm = WaitModel(ring[s], T[s], margin[s], pick[s][1], lr[s].w, lr[s].b)
            return Shipped(model=trees[s], threshold=T[s], noise_route=False, wait_model=wm)
        if mode == "today":
            return RingWaitDetector(margin=0.0, **kw)
        return MelWaitDetector(margin=margin[s], mel_score=lr[s], rule=pick[s][0], theta=pick[s][1], **kw)

    made = stream_tables(args, sources, detector)
    n = sum(getattr(d, "mel_calls", 0) for d in made["wait"])
    print(f"log-mel scores computed (noise curve's detectors): {n}")


def cost(args: argparse.Namespace, sources: list[str], T: dict[str, float], margin: dict[str, float],
         pick: dict[str, tuple[str, float]], lr: dict[str, LinearScore]) -> None:
    """ms per log-mel score (median of 200, 48 kHz), and the clap stage's rate on the dense clip with
    one fold (``k``'s; which fold does not change the work): today's against the wait with the score."""
    from sensekit.audio.clap import ClapDetector
    from sensekit.evaluation.audio.clap_mel_score import log_mel, mel_features
    from sensekit.evaluation.audio.clap_mel_stream import MelWaitDetector
    from sensekit.evaluation.audio.evaluate import read_wav

    rng = np.random.default_rng(0)
    x = rng.normal(size=48000).astype(np.float32)
    f = lr["k"]
    ts = []
    for i in range(200):
        t0 = time.perf_counter()
        f(mel_features(log_mel(x, 48000, 20000 + i), 0.5))
        ts.append(time.perf_counter() - t0)
    print(f"log-mel score, one close call at 48 kHz: median {1e3 * float(np.median(ts)):.2f} ms, "
          f"p95 {1e3 * float(np.percentile(ts, 95)):.2f} ms")
    trees = json.loads(args.tree_folds.read_text())["models"]
    ring = json.loads((args.out / f"RING_130_{RING}.json").read_text())
    y, rate = read_wav(args.dense)
    y = np.tile(y, int(np.ceil(20.0 * rate / len(y))))[: int(20.0 * rate)]
    best = {"today": np.inf, "wait+mel": np.inf}
    calls = 0
    for _ in range(5):
        for mode in best:
            det = ClapDetector(model=trees["k"], threshold=T["k"], noise_route=False) if mode == "today" else \
                MelWaitDetector(model=trees["k"], threshold=T["k"], ring_model=ring["k"], ring_threshold=T["k"],
                                margin=margin["k"], wait_ms=130.0, noise_route=False, ring=RING,
                                mel_score=lr["k"], rule=pick["k"][0], theta=pick["k"][1])
            t0 = time.process_time()
            for k, i in enumerate(range(0, len(y), 512)):
                det.process(y[i:i + 512], i / rate, rate, index=k)
            best[mode] = min(best[mode], time.process_time() - t0)
            calls = getattr(det, "mel_calls", calls)
    print(f"clap stage on {args.dense.name} looped to 20 s (k's fold): today {20.0 / best['today']:.0f}x real time, "
          f"wait+mel {20.0 / best['wait+mel']:.0f}x (log-mel scores a pass: {calls})", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--tree-folds", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--stream", action="store_true")
    ap.add_argument("--cost", action="store_true")
    ap.add_argument("--dense", type=Path, default=SHARED_DATA / "audio" / "laugh_room-small_0.wav")
    ap.add_argument("--block", type=int, default=512)
    ap.add_argument("--offsets", default="0,517")
    ap.add_argument("--curve-offsets", default="0,517")
    ap.add_argument("--kinds", default="white,pink,babble,speech")
    ap.add_argument("--snrs", default="0,5,10")
    ap.add_argument("--no-curve", action="store_true")
    ap.add_argument("--shipped-detector", action="store_true",
                    help="with --stream: the wait through sensekit's ClapDetector (wait_model=the fold's constants)")
    ap.add_argument("--rule", choices=MEL_RULES, default=None,
                    help="only this rule (theta still nested); by default the rule is chosen nested too")
    args = ap.parse_args()
    if not (SHARED_DATA / "labels.csv").is_file():
        print(f"shared data not found at {SHARED_DATA}", file=sys.stderr)
        return 2
    b, sources, so, sr, T, margin = load(args)
    d = np.load(args.out / "MARGIN.npy")
    for s in sources:
        k = b.source == s
        if not np.allclose(np.nan_to_num(d[k]), np.nan_to_num(so[s][k] - T[s]), atol=1e-6):
            raise SystemExit("MARGIN.npy is not t - T of these folds and thresholds")
    ms, lr = mel_scores(args, b, sources)
    cpath = args.out / ("MEL_CHOICE.json" if args.rule is None else f"MEL_CHOICE_{args.rule}.json")
    if cpath.is_file():
        pick = {s: (str(u), float(v)) for s, (u, v) in json.loads(cpath.read_text()).items()}
    else:
        pick = {}
        for s in sources:
            u, v, c = choose(b, so, sr, ms, T[s], margin[s], [o for o in sources if o != s], args.rule)
            pick[s] = (u, v)
            print(f"# {s}: margin {margin[s]:g}, rule {u}, theta {v:g} (criterion {c:.4f})", file=sys.stderr,
                  flush=True)
        cpath.write_text(json.dumps(pick))
    print("per source: margin; rule, theta (nested): " + "; ".join(f"{s} {margin[s]:g}; {u} {v:g}"
                                                                    for s, (u, v) in pick.items()), flush=True)
    if args.shipped_detector and any(u != "sum" for u, _ in pick.values()):
        raise SystemExit("the shipped detector has the sum rule only")
    if args.cost:
        cost(args, sources, T, margin, pick, lr)
    elif args.stream:
        stream(args, sources, T, margin, pick, lr)
    else:
        burst_table(b, sources, so, sr, ms, T, margin, pick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
