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

The twenty-fifth pass: ``--losses`` counts, for each row of ``--loss-rows`` (kind:snr, or clean:0), where each
missed clap was lost in the shipped detector with its fold's constants (``clap_losses``; ``--route`` with the
noise route on, its expert in-sample); ``--wide low|all`` chooses, per held-out source on the others, the W of
its candidates (bursts in [T - W, T), rising < 24 dB or all, wait too) at burst level, then with ``--stream
--shipped-detector``, ``--losses`` or ``--cost`` runs them.

Usage: .venv/bin/python benchmarks/clap_mel_wait.py --cache /tmp/claps20/PATCH.npz
       --tree-folds /tmp/claps20/TREES.json --out DIR [--stream [--offsets 0,517] [--no-curve]] [--cost]
       [--rule veto|sum] [--losses [--loss-rows pink:10,...] [--route]] [--wide low|all]
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
from _clap_tables import add_stream_options
from _reference import SHARED_DATA, data_refused

from sensekit.audio.clap_noise_model import RISE_SPLIT_DB
from sensekit.audio.clap_wait import SHIPPED, WaitModel
from sensekit.evaluation.audio import clap_folds as cf
from sensekit.evaluation.audio import clap_ring_wait as rw
from sensekit.evaluation.audio import clap_training as ct
from sensekit.evaluation.audio.clap_folds import TIE_F1
from sensekit.evaluation.audio.clap_losses import LossDetector
from sensekit.evaluation.audio.clap_mel_score import MEL_RULES, LinearScore, fit_linear, mel_decision
from sensekit.evaluation.audio.clap_net_gate import pooled_f1

TRAIN_MARGIN = 1.5                      # the close calls the score is fitted on
THETAS = np.round(np.arange(-4.0, 4.01, 0.25), 2)
RING = "late_above_db"
WIDE = (1.5, 2.0, 2.5, 3.0, 3.5, 4.0)   # the twenty-fifth pass's W: close calls down to T - W


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


class Shipped(LossDetector):
    """The shipped ``ClapDetector`` (its own wait) with the fold's constants, recording its decisions (and,
    as ``clap_losses.LossDetector``, which gives ``ClapDetector``'s claps, each burst's path). ``wide``:
    the twenty-fifth pass's candidates, bursts in [T - W, T) (rising < 24 dB when ``low``) wait too."""

    def __init__(self, wide: float | None = None, low: bool = True, **kw: Any) -> None:
        self.decisions: list[tuple[float, float, bool]] = []
        self._close_p = (-1, False)
        self._wide, self._low = wide, low
        super().__init__(**kw)

    def _first_look(self, p: int, gap_ok: bool) -> tuple[tuple[float, ...], bool, float, bool]:
        vals, ok, score, close = super()._first_look(p, gap_ok)
        if self._wide is not None and self._hold_n and ok and gap_ok and self._route is None:
            T = (self.wait_model or SHIPPED).threshold     # the twenty-fifth pass: [T - W, T) wait too
            close = close or (T - self._wide <= score < T and (not self._low or vals[1] < RISE_SPLIT_DB))
        self._close_p = (p, close)
        self._fl = (p, vals, ok, score, close)
        self.close_calls = getattr(self, "close_calls", 0) + int(close)
        return vals, ok, score, close

    def _judge(self, p: int, onset: int) -> Any:
        clap = super()._judge(p, onset)
        if clap is not None:
            self.decisions.append((clap.t, (self._t0 or 0.0) + self._end / self._meter.rate,
                                   self._close_p == (p, True)))
        return clap


def decide(t: np.ndarray, r: np.ndarray, s: np.ndarray, T: float, margin: float, rule: str | None,
           theta: float, wide: tuple[float, np.ndarray | None] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Which bursts are claps (and which are close calls): today's trees outside the margin; inside it
    the ring's trees (``rule`` None) or ``mel_decision``. ``wide`` (W, the bursts' rise_db or None): the
    twenty-fifth pass's candidates, bursts in [T - W, T) (rising < 24 dB if given) are close calls too."""
    close = rw.waits(t, threshold=T, margin=margin)
    if wide is not None:
        low = (t >= T - wide[0]) & (t < T)
        close = close | (low if wide[1] is None else low & (wide[1] < RISE_SPLIT_DB))
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


def choose_wide(b: ct.Bursts, so: dict[str, np.ndarray], sr: dict[str, np.ndarray], ms: np.ndarray,
                T: float, margin: float, theta: float, others: list[str], low: bool) -> tuple[float, np.ndarray]:
    """The twenty-fifth pass's W (``WIDE``) with the best pooled criterion on ``others`` (ties within
    ``TIE_F1`` to the smaller), the sum rule at ``theta``; and the criterion at every W."""
    def accepted(s: str, m: np.ndarray) -> list[np.ndarray]:
        t, r, x = so[s][m], sr[s][m], np.nan_to_num(ms[m], nan=-99.0)
        rise = b.X[m, 0] if low else None
        return [decide(t, r, x, T, margin, "sum", theta, (w, rise))[0] for w in WIDE]

    crit = pooled_f1(b, others, accepted, len(WIDE))
    k = min(k for k in range(len(WIDE)) if crit[k] >= crit.max() - TIE_F1)
    return float(WIDE[k]), crit


def wide_table(b: ct.Bursts, sources: list[str], so: dict[str, np.ndarray], sr: dict[str, np.ndarray],
               ms: np.ndarray, T: dict[str, float], margin: dict[str, float], pick: dict[str, tuple[str, float]],
               low: bool) -> dict[str, float]:
    """Each source's W chosen on the others, and its bursts (every copy but ``sp0``) with the shipped wait
    and with the wide wait: claps found, false bursts, close calls."""
    got: dict[str, float] = {}
    print(f"\n| held out | W ({'low-rise' if low else 'every burst'}) | criterion on the others at W = "
          + " / ".join(f"{w:g}" for w in WIDE) + " | claps: wait / wide (of) | false bursts: wait / wide "
          "| recordings: claps / false, wait / wide | sp0 claps: wait / wide (of) |")
    print("|---|---|---|---|---|---|---|")
    tot = np.zeros(10, int)
    for s in sources:
        w, crit = choose_wide(b, so, sr, ms, T[s], margin[s], pick[s][1], [o for o in sources if o != s], low)
        got[s] = w
        y = b.y
        m = (b.source == s) & (y >= 0) & (b.variant != ct.SPEECH0)
        org = m & (b.variant == "orig")
        sp = (b.source == s) & (b.variant == ct.SPEECH0) & (y == 1)
        x = np.nan_to_num(ms, nan=-99.0)
        base, _ = decide(so[s], sr[s], x, T[s], margin[s], "sum", pick[s][1])
        wide, _ = decide(so[s], sr[s], x, T[s], margin[s], "sum", pick[s][1], (w, b.X[:, 0] if low else None))

        def c(a: np.ndarray, k: np.ndarray) -> int:
            return int(np.count_nonzero(a & k))
        row = [c(base, m & (y == 1)), c(wide, m & (y == 1)), c(base, m & (y == 0)), c(wide, m & (y == 0)),
               c(base, org & (y == 1)), c(base, org & (y == 0)), c(wide, org & (y == 1)), c(wide, org & (y == 0)),
               c(base, sp), c(wide, sp)]
        tot += np.array(row)
        print(f"| {s} | {w:g} | " + " / ".join(f"{v:.4f}" for v in crit)
              + f" | {row[0]} / {row[1]} ({c(m, y == 1)}) | {row[2]} / {row[3]} "
              f"| {row[4]} / {row[5]}, {row[6]} / {row[7]} | {row[8]} / {row[9]} ({int(sp.sum())}) |", flush=True)
    print(f"| total | | | {tot[0]} / {tot[1]} | {tot[2]} / {tot[3]} | {tot[4]} / {tot[5]}, {tot[6]} / {tot[7]} "
          f"| {tot[8]} / {tot[9]} |")
    return got


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
            return Shipped(model=trees[s], threshold=T[s], noise_route=False, wait_model=wm,
                           wide=None if args.wide_w is None else args.wide_w[s], low=args.wide == "low")
        if mode == "today":
            return RingWaitDetector(margin=0.0, **kw)
        return MelWaitDetector(margin=margin[s], mel_score=lr[s], rule=pick[s][0], theta=pick[s][1], **kw)

    made = stream_tables(args, sources, detector)
    n = sum(getattr(d, "mel_calls", 0) for d in made["wait"])
    print(f"log-mel scores computed (noise curve's detectors): {n}")


def losses(args: argparse.Namespace, sources: list[str], T: dict[str, float], margin: dict[str, float],
           pick: dict[str, tuple[str, float]], lr: dict[str, LinearScore]) -> None:
    """``--losses``: each annotated clap of ``--loss-rows``'s mixes (the noise curve's: same seeds, 512-sample
    blocks, each offset of ``--curve-offsets``) streamed through the shipped ``ClapDetector`` with its fold's
    constants (``clap_losses.LossDetector``), each missed clap counted by where it was lost."""
    from _clap_clips import clap_clips

    from sensekit.audio.clap_loudness import clap_loudness
    from sensekit.evaluation.audio.clap_losses import KINDS, best_near, loss_of, unmatched
    from sensekit.evaluation.audio.clap_noise import mix_at, noise_unit, other_speech

    trees = json.loads(args.tree_folds.read_text())["models"]
    ring = json.loads((args.out / f"RING_130_{RING}.json").read_text())
    targets, speech, audio = clap_clips(SHARED_DATA)
    rows = [(k, float(v)) for k, v in (r.split(":") for r in args.loss_rows.split(","))]
    print("\n| mix, offset | claps | found | " + " | ".join(KINDS) + " |")
    print("|---|---|---|" + "---|" * len(KINDS))
    for kind, snr in rows:
        for off in [int(v) for v in args.curve_offsets.split(",")]:
            count = dict.fromkeys(KINDS, 0)
            n = found = 0
            under: list[float] = []
            rises: list[float] = []
            for c in targets:
                if c.source not in sources:
                    continue
                x, rate = audio[c.file]
                y = x.astype(np.float32) if kind == "clean" else mix_at(
                    x, noise_unit(kind, c.file, len(x), rate, other_speech(audio, speech, c.source, rate)),
                    clap_loudness(x, rate, c.onsets), snr)
                s = c.source
                wm = WaitModel(ring[s], T[s], margin[s], pick[s][1], lr[s].w, lr[s].b)
                det = Shipped(model=trees[s], threshold=T[s], noise_route=args.route, wait_model=wm,
                              wide=None if args.wide_w is None else args.wide_w[s], low=args.wide == "low")
                y = np.concatenate([np.zeros(off, np.float32), y]) if off else y
                for k, i in enumerate(range(0, len(y), args.block)):
                    det.process(y[i:i + args.block], i / rate, rate, index=k)
                off_s = off / rate
                missed, matched = unmatched([t - off_s for t in det.claps], list(c.onsets))
                n += len(c.onsets)
                found += len(c.onsets) - len(missed)
                for o in missed:
                    why = loss_of(det, o, matched, off_s)
                    count[why] += 1
                    j = best_near(det, o, off_s)
                    if why in ("trees", "close low") and j is not None:
                        under.append(j.trees - T[s])
                        rises.append(j.rise_db)
            print(f"| {kind} {snr:g} dB, {off} | {n} | {found} ({found / n:.2f}) | "
                  + " | ".join(str(count[k]) for k in KINDS) + " |", flush=True)
            if under:
                q = np.percentile(under, [10, 50, 90])
                print(f"  (lost at the trees: t - T 10/50/90 % {q[0]:.1f} / {q[1]:.1f} / {q[2]:.1f}, within 3: "
                      f"{int(np.sum(np.asarray(under) >= -3.0))} of {len(under)}; rise_db p50 "
                      f"{np.median(rises):.0f}, under 24 dB {int(np.sum(np.asarray(rises) < 24.0))})", file=sys.stderr,
                      flush=True)


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
    wm = WaitModel(ring["k"], T["k"], margin["k"], pick["k"][1], lr["k"].w, lr["k"].b)
    for _ in range(5):
        for mode in best:
            if args.wide_w is not None:    # the twenty-fifth pass: the shipped wait against the wide one
                det: Any = Shipped(model=trees["k"], threshold=T["k"], noise_route=False, wait_model=wm,
                                   wide=None if mode == "today" else args.wide_w["k"], low=args.wide == "low")
            elif mode == "today":
                det = ClapDetector(model=trees["k"], threshold=T["k"], noise_route=False)
            else:
                det = MelWaitDetector(model=trees["k"], threshold=T["k"], ring_model=ring["k"],
                                      ring_threshold=T["k"], margin=margin["k"], wait_ms=130.0, noise_route=False,
                                      ring=RING, mel_score=lr["k"], rule=pick["k"][0], theta=pick["k"][1])
            t0 = time.process_time()
            for k, i in enumerate(range(0, len(y), 512)):
                det.process(y[i:i + 512], i / rate, rate, index=k)
            best[mode] = min(best[mode], time.process_time() - t0)
            calls = getattr(det, "mel_calls", 0) or getattr(det, "close_calls", 0)
    names = ("the shipped wait", f"the wide wait ({args.wide}, W {args.wide_w['k']:g})") if args.wide_w else \
        ("today", "wait+mel")
    print(f"clap stage on {args.dense.name} looped to 20 s (k's fold): {names[0]} {20.0 / best['today']:.0f}x "
          f"real time, {names[1]} {20.0 / best['wait+mel']:.0f}x (close calls a pass: {calls})", flush=True)


def picks(args: argparse.Namespace, b: ct.Bursts, sources: list[str], so: dict[str, np.ndarray],
          sr: dict[str, np.ndarray], ms: np.ndarray, T: dict[str, float],
          margin: dict[str, float]) -> dict[str, tuple[str, float]]:
    """Each source's rule and theta, nested (kept in MEL_CHOICE[_rule].json)."""
    cpath = args.out / ("MEL_CHOICE.json" if args.rule is None else f"MEL_CHOICE_{args.rule}.json")
    if cpath.is_file():
        return {s: (str(u), float(v)) for s, (u, v) in json.loads(cpath.read_text()).items()}
    pick = {}
    for s in sources:
        u, v, c = choose(b, so, sr, ms, T[s], margin[s], [o for o in sources if o != s], args.rule)
        pick[s] = (u, v)
        print(f"# {s}: margin {margin[s]:g}, rule {u}, theta {v:g} (criterion {c:.4f})", file=sys.stderr,
              flush=True)
    cpath.write_text(json.dumps(pick))
    return pick


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--tree-folds", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--stream", action="store_true")
    ap.add_argument("--cost", action="store_true")
    ap.add_argument("--dense", type=Path, default=SHARED_DATA / "audio" / "laugh_room-small_0.wav")
    add_stream_options(ap)
    ap.add_argument("--losses", action="store_true",
                    help="where the missed claps of --loss-rows are lost (clap_losses; the shipped detector)")
    ap.add_argument("--loss-rows", default="clean:0,pink:10,pink:5,babble:10,speech:0")
    ap.add_argument("--wide", choices=("low", "all"), default=None,
                    help="the twenty-fifth pass's candidates: close calls down to T - W (W nested), bursts rising "
                         "< 24 dB only (low) or every burst (all); burst level, or streamed with --stream")
    ap.add_argument("--route", action="store_true", help="with --losses: the noise route on (the shipped one)")
    ap.add_argument("--shipped-detector", action="store_true",
                    help="with --stream: the wait through sensekit's ClapDetector (wait_model=the fold's constants)")
    ap.add_argument("--rule", choices=MEL_RULES, default=None,
                    help="only this rule (theta still nested); by default the rule is chosen nested too")
    args = ap.parse_args()
    if data_refused():
        return 2
    b, sources, so, sr, T, margin = load(args)
    d = np.load(args.out / "MARGIN.npy")
    for s in sources:
        k = b.source == s
        if not np.allclose(np.nan_to_num(d[k]), np.nan_to_num(so[s][k] - T[s]), atol=1e-6):
            raise SystemExit("MARGIN.npy is not t - T of these folds and thresholds")
    ms, lr = mel_scores(args, b, sources)
    pick = picks(args, b, sources, so, sr, ms, T, margin)
    print("per source: margin; rule, theta (nested): " + "; ".join(f"{s} {margin[s]:g}; {u} {v:g}"
                                                                    for s, (u, v) in pick.items()), flush=True)
    if args.shipped_detector and any(u != "sum" for u, _ in pick.values()):
        raise SystemExit("the shipped detector has the sum rule only")
    args.wide_w = None
    if args.wide is not None:
        path = args.out / f"WIDE_{args.wide}.json"
        if not (path.is_file() and (args.stream or args.losses or args.cost)):
            path.write_text(json.dumps(wide_table(b, sources, so, sr, ms, T, margin, pick, args.wide == "low")))
            return 0
        args.wide_w = {s: float(v) for s, v in json.loads(path.read_text()).items()}
    if args.losses:
        losses(args, sources, T, margin, pick, lr)
    elif args.cost:
        cost(args, sources, T, margin, pick, lr)
    elif args.stream:
        stream(args, sources, T, margin, pick, lr)
    else:
        burst_table(b, sources, so, sr, ms, T, margin, pick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
