#!/usr/bin/env python3
"""The nineteenth pass's candidate streamed, held out: each source's clips through
``clap_ring_stream.RingWaitDetector`` with its fold's trees, its fold's ring trees and the margin
and thresholds chosen on the other sources (``clap_ring_wait.py``'s candidate: voicing 50-130 ms,
the ring trees' own nested threshold, the margin nested under ``--max-delayed``), against today's
trees of the same folds at their nested thresholds (the same detector with margin 0, which is
``ClapDetector`` exactly). Route off on both sides, as ``audio_eval.py`` scores folds.

Printed: per-clap F1 per source (``evaluate``), the noise curve's rows (``--kinds``, ``--snrs``),
and the detector's decision delay (the last sample in when a clap is emitted, less its onset):
p50 over all claps, p50 / p95 of the close calls (which waited for their ring) and of the others.

Usage: .venv/bin/python benchmarks/clap_ring_stream.py --cache /tmp/claps20/PATCH.npz
       --tree-folds /tmp/claps20/TREES.json --out /tmp/claps22 [--max-delayed 0.25]
       [--offsets 0,517] [--kinds white,pink,babble,speech] [--snrs 0,5,10] [--no-curve] [--shipped [--speed CLIP]]
       [--ring-input late_db|late_floor_db|late_above_db] [--ring-threshold alone|today] [--latency-slack 1]
  --out: the folder ``clap_ring_wait.py --voiced-ms 130 [--ring-input ...]`` filled (RING_130[_<input>].json,
  SCORES_130[_<input>].npz).
"""
from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from _clap_tables import add_stream_options, noise_curves, per_source_tables
from _reference import SHARED_DATA, data_refused


def _tag(args: argparse.Namespace) -> str:
    return "130" if args.ring_input == "late_db" else f"130_{args.ring_input}"


def today_delays(args: argparse.Namespace, sources: list[str], trees: dict[str, Any],
                 T: dict[str, float]) -> dict[str, np.ndarray]:
    """Per source: today's decision delays (ms) of the claps its fold's detector emits on its clips at
    ``--offsets`` (kept in ``--out``/DELAYS_today_<offsets>.json): the latency the nested cap is chosen on."""
    from sensekit.evaluation.audio.clap_ring_stream import RingWaitDetector
    from sensekit.evaluation.audio.evaluate import evaluate

    path = args.out / f"DELAYS_today_{args.offsets.replace(',', '_')}.json"
    if path.is_file():
        return {s: np.asarray(v, np.float64) for s, v in json.loads(path.read_text()).items()}
    out: dict[str, list[float]] = {}
    for s in sources:
        made: list[Any] = []

        def make(s: str = s) -> Any:
            det = RingWaitDetector(model=trees[s], threshold=T[s], ring_model=trees[s], ring_threshold=T[s],
                                   margin=0.0, noise_route=False)
            made.append(det)
            return det
        for off in [int(v) for v in args.offsets.split(",")]:
            evaluate(SHARED_DATA, block=args.block, offset=off, book=False, only_sources=[s], make=make)
        out[s] = [(e - t) * 1000.0 for det in made for t, e, _ in det.decisions]
    path.write_text(json.dumps(out))
    return {s: np.asarray(v, np.float64) for s, v in out.items()}


def choices(args: argparse.Namespace, sources: list[str],
            trees: dict[str, Any]) -> dict[str, tuple[float, float, float]]:
    """Per source: today's threshold, the ring's threshold and the margin, nested. With
    ``--latency-slack`` the cap on delayed claps is each source's ``clap_ring_wait.latency_caps``:
    from today's streamed delays of the other sources, on their recordings (not ``--max-delayed``)."""
    from sensekit.evaluation.audio import clap_folds as cf
    from sensekit.evaluation.audio import clap_ring_wait as rw
    from sensekit.evaluation.audio import clap_training as ct

    b = ct.collect_cached(SHARED_DATA, args.cache, patches=True)
    z = np.load(args.out / f"SCORES_{_tag(args)}.npz")
    so, sr = {s: z[f"o_{s}"] for s in sources}, {s: z[f"r_{s}"] for s in sources}
    T = cf.nested_thresholds(b, so)
    Tr = dict(T) if args.ring_threshold == "today" else cf.nested_thresholds(b, sr)
    caps = None
    if args.latency_slack is not None:
        d = today_delays(args, sources, trees, T)
        caps = rw.latency_caps(d, args.latency_slack)
        print("today's p50 decision delay of the other sources / nested cap on delayed claps (recordings): "
              + "; ".join(f"{s} {np.percentile(np.concatenate([d[o] for o in d if o != s]), 50):.1f} ms"
                          f" / {caps[s]:.3f}" for s in sources), flush=True)
    w = rw.nested_waits(b, so, sr, T, ring_thresholds=Tr,
                        max_delayed=1.0 if caps is not None else args.max_delayed, max_recorded=caps)
    return {s: (T[s], w[s][1], w[s][0]) for s in sources}


def shipped(args: argparse.Namespace, sources: list[str]) -> None:
    """The candidate as it would ship: today's shipped trees and threshold, the ring's trees fitted on
    every source (kept in ``--out``/RING_130_all.json), the ring's threshold and the margin chosen on
    every source's fold scores; every clip streamed (in-sample, as tests/audio/test_real_clips.py)."""
    from sensekit.audio.clap_model import MODEL, THRESHOLD
    from sensekit.evaluation.audio import clap_folds as cf
    from sensekit.evaluation.audio import clap_ring_wait as rw
    from sensekit.evaluation.audio import clap_training as ct
    from sensekit.evaluation.audio.clap_ring_stream import RingWaitDetector
    from sensekit.evaluation.audio.evaluate import evaluate, format_table

    b = ct.collect_cached(SHARED_DATA, args.cache, patches=True)
    z = np.load(args.out / f"SCORES_{_tag(args)}.npz")
    so, sr = {s: z[f"o_{s}"] for s in sources}, {s: z[f"r_{s}"] for s in sources}
    t_ring = THRESHOLD if args.ring_threshold == "today" else cf.choose_threshold(b, sr)
    cap = 1.0
    if args.latency_slack is not None:   # every source's delays (today's folds, streamed held out)
        path = args.out / f"DELAYS_today_{args.offsets.replace(',', '_')}.json"
        if not path.is_file():
            raise SystemExit(f"{path} is absent: run the held-out stream with --latency-slack first")
        cap = rw.latency_cap(np.concatenate([np.asarray(v, np.float64) for v in json.loads(path.read_text()).values()]),
                             args.latency_slack)
        print(f"cap on delayed claps (recordings, every source): {cap:.3f}")
    margin, _, _ = rw.choose_wait(b, so, sr, THRESHOLD, ring_thresholds=np.array([t_ring]),
                                  max_delayed=1.0 if cap < 1.0 else args.max_delayed, max_recorded=cap)
    path = args.out / f"RING_{_tag(args)}_all.json"
    if not path.is_file():
        from clap_ring_wait import ring_column
        E = np.load(args.out / "EXTRA.npz")["E"]
        v = np.load(args.out / "VOICED130.npz")["v"]
        train = b.variant != ct.SPEECH0
        Xn = np.column_stack([b.X, ring_column(E, args.ring_input), v])
        keep = ct.Bursts(Xn[train], b.y[train], b.source[train], b.background[train], b.variant[train],
                         b.clip[train], b.onsets, b.labels)
        path.write_text(json.dumps(ct.train(keep)))
    ring = json.loads(path.read_text())
    made: list[Any] = []

    def make() -> Any:
        det = RingWaitDetector(model=MODEL, threshold=THRESHOLD, ring_model=ring, ring_threshold=t_ring,
                               margin=margin, wait_ms=130.0, ring=args.ring_input)
        made.append(det)
        return det
    print(f"shipped trees at {THRESHOLD:g}; ring trees (every source) at {t_ring:g}; margin {margin:g}")
    ev = evaluate(SHARED_DATA, block=args.block, make=make)
    print(format_table(ev, clips=False))
    hits = {r.clip.file.split("/")[-1]: len(r.claps) for r in ev.results if r.clip.label != "clap" and r.claps}
    print(f"negative clips with claps (tests/audio/test_real_clips.py's known false claps): {hits}")
    print(f"decision delay: {delays(made)}", flush=True)
    if args.speed is not None:
        speed(args, ring, t_ring, margin)


def speed(args: argparse.Namespace, ring: Any, t_ring: float, margin: float) -> None:
    """CPU time of the clap stage alone on ``--speed``'s clip looped to 20 s (48 kHz blocks of 512 as
    read): today's shipped detector and the candidate, alternated five times; the fastest of each."""
    import time

    from sensekit.audio.clap import ClapDetector
    from sensekit.evaluation.audio.clap_ring_stream import RingWaitDetector
    from sensekit.evaluation.audio.evaluate import read_wav

    x, rate = read_wav(args.speed)
    x = np.tile(x, int(np.ceil(20.0 * rate / len(x))))[: int(20.0 * rate)]
    best = {"today": np.inf, "wait": np.inf}
    close = 0
    for _ in range(5):
        for mode in best:
            det = ClapDetector() if mode == "today" else RingWaitDetector(
                ring_model=ring, ring_threshold=t_ring, margin=margin, wait_ms=130.0, ring=args.ring_input)
            t0 = time.process_time()
            for k, i in enumerate(range(0, len(x), 512)):
                det.process(x[i:i + 512], i / rate, rate, index=k)
            best[mode] = min(best[mode], time.process_time() - t0)
            close = getattr(det, "close_calls", close)
    print(f"clap stage on {args.speed.name} looped to 20 s: today {20.0 / best['today']:.0f}x real time, "
          f"wait {20.0 / best['wait']:.0f}x (close calls a pass: {close})", flush=True)


def delays(dets: list[Any]) -> str:
    d = [(e - t) * 1000.0 for det in dets for t, e, _ in det.decisions]
    c = [(e - t) * 1000.0 for det in dets for t, e, close in det.decisions if close]
    o = [(e - t) * 1000.0 for det in dets for t, e, close in det.decisions if not close]

    def q(v: list[float], p: float) -> str:
        return f"{np.percentile(v, p):.0f}" if v else "-"
    return (f"claps {len(d)}: p50 {q(d, 50)} ms; close calls {len(c)}: p50 {q(c, 50)} / p95 {q(c, 95)} ms; "
            f"others {len(o)}: p50 {q(o, 50)} / p95 {q(o, 95)} ms")


def stream_tables(args: argparse.Namespace, sources: list[str],
                  detector: Callable[[str, str], Any]) -> dict[str, list[Any]]:
    """``per_source_tables`` and (unless ``--no-curve``) ``noise_curves`` (_clap_tables), each clip
    through a new ``detector(mode, source)`` (mode ``today`` or ``wait``); the detectors of the last
    table made, per mode."""
    made: dict[str, list[Any]] = {"today": [], "wait": []}

    def make_for(mode: str) -> Callable[[str], Callable[[], Any]]:
        def for_source(s: str) -> Callable[[], Any]:
            def make() -> Any:
                det = detector(mode, s)
                made[mode].append(det)
                return det
            return make
        return for_source

    per_source_tables(args, [int(v) for v in args.offsets.split(",")], ["today", "wait"], sources, make_for,
                      made, delays, title="{mode} off {off}", tag="{mode}, off {off}")
    if not args.no_curve:
        noise_curves(args, ["today", "wait"], sources, make_for, made, delays)
    return made


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--tree-folds", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--max-delayed", type=float, default=0.25)
    ap.add_argument("--latency-slack", type=float, default=None,
                    help="the cap on delayed claps nested from the latency: the largest share on the other "
                         "sources' recordings that keeps their p50 decision delay within this many ms of today's")
    add_stream_options(ap, offsets="0", curve_offsets="0")
    ap.add_argument("--ring-threshold", choices=("alone", "today"), default="alone",
                    help="the ring trees at their own nested threshold, or at today's trees' (held out)")
    ap.add_argument("--ring-input", choices=("late_db", "late_floor_db", "late_above_db"), default="late_db",
                    help="how the ring is measured (clap_ring_stream.RING_INPUTS)")
    ap.add_argument("--sources", default="")
    ap.add_argument("--speed", type=Path, default=None,
                    help="with --shipped: time the clap stage on this clip too (the dense laughter clip)")
    ap.add_argument("--shipped", action="store_true",
                    help="only the candidate as it would ship, every clip, in-sample (see shipped())")
    args = ap.parse_args(argv)
    if data_refused():
        return 2
    from sensekit.evaluation.audio.clap_ring_stream import RingWaitDetector

    trees = json.loads(args.tree_folds.read_text())["models"]
    if args.shipped:
        shipped(args, sorted(trees))
        return 0
    ring = json.loads((args.out / f"RING_{_tag(args)}.json").read_text())
    sources = sorted(trees) if not args.sources else args.sources.split(",")
    ch = choices(args, sorted(trees), trees)
    print("per source: today's threshold, the ring's threshold, the margin (nested): "
          + "; ".join(f"{s} {t:g}, {r:g}, {m:g}" for s, (t, r, m) in ch.items()), flush=True)
    def detector(mode: str, s: str) -> Any:
        t, r, m = ch[s]
        return RingWaitDetector(model=trees[s], threshold=t, ring_model=ring[s], ring_threshold=r,
                                margin=m if mode == "wait" else 0.0, wait_ms=130.0, noise_route=False,
                                ring=args.ring_input)

    stream_tables(args, sources, detector)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
