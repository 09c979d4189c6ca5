#!/usr/bin/env python3
"""What the end of a stream does to the claps in its last ~32 ms (``sensekit/audio/clap_end.py``).

Every developer clip is cut in memory just after each labelled clap (``clap_onsets.csv``: ``cut`` ms
after the onset, 2..30 ms) and streamed in 512-sample blocks to ``finish()``; a labelled clap is found
when a clap comes within 15 ms of its onset (the eldar labels have two decimals). Every clip without
claps (the negatives of ``labels.csv``) is cut just after each burst the detector measures (its peak +
``cut`` ms) and a clap there that the uncut stream does not report is a false clap the cut made.
``before``: ``finish()`` as it was (only the bursts whose 31.5 ms look-ahead is in);
``now``: ``judge_end`` (digital silence after the last sample, and its three conditions). Per source
(``source_of``), so a source can be held out; ``--tails`` tries a further least onset-to-end span,
chosen on one half of the sources and reported on the other.

Each cut is streamed from 11 s before it (the recent-claps rule looks back 10 s).
Usage: .venv/bin/python benchmarks/clap_end.py [--data ../shared/data] [--cuts 2,5,10,15,20,25,30]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from sensekit.audio.clap import ClapDetector
from sensekit.events import Clap
from sensekit.evaluation.audio.evaluate import read_clips, read_wav

BLOCK = 512
HISTORY_S = 11.0


def old_finish(det: ClapDetector) -> list[Clap]:
    """``finish()`` before clap_end: only what the samples already complete."""
    if det._t0 is None:
        return []
    det._ended = True
    out = det._judge_ready()
    det.reset()
    return out


def cut_claps(x: np.ndarray, rate: int, cuts: list[int]) -> dict[int, tuple[list[float], list[float]]]:
    """For each cut (a sample index): the claps of ``x[:cut]`` with the old and the new finish, streamed
    from ``HISTORY_S`` before the cut (the recent-claps rule looks back 10 s)."""
    out: dict[int, tuple[list[float], list[float]]] = {}
    for c in sorted(set(cuts)):
        s0 = max(0, c - round(HISTORY_S * rate))
        got: list[list[float]] = []
        for fin in (old_finish, ClapDetector.finish):
            det = ClapDetector()
            ts = [e.t for i in range(s0, c, BLOCK)
                  for e in det.process(x[i:min(i + BLOCK, c)], i / rate, rate, index=(i - s0) // BLOCK)]
            got.append(ts + [e.t for e in fin(det)])
        out[c] = (got[0], got[1])
    return out


def stream_all(x: np.ndarray, rate: int) -> list[float]:
    det = ClapDetector()
    ts = [e.t for i in range(0, len(x), BLOCK) for e in det.process(x[i:i + BLOCK], i / rate, rate)]
    return ts + [e.t for e in det.finish()]


def burst_peaks(x: np.ndarray, rate: int) -> list[float]:
    det = ClapDetector()
    det.keep_features = True
    for i in range(0, len(x), BLOCK):
        det.process(x[i:i + BLOCK], i / rate, rate)
    det.finish()
    return [f.t_peak for f in det.features]


def collect(data: Path, cuts_ms: list[int], max_bursts: int) -> list[dict[str, Any]]:
    """One record per cut: source, kind ("clap": after a labelled onset, "burst": after a negative
    clip's burst), ms, the cut's time, the onset, and the claps of the last 60 ms before and now
    (those of a negative clip's uncut stream taken off)."""
    out: list[dict[str, Any]] = []
    for clip in read_clips(data):
        x, rate = read_wav(data / clip.file)
        if clip.onsets:
            where = {round((on + ms / 1000) * rate): (on, ms) for on in clip.onsets for ms in cuts_ms
                     if (on + ms / 1000) * rate < len(x)}
            for c, (before, now) in cut_claps(x, rate, list(where)).items():
                on, ms = where[c]
                out.append({"source": clip.source, "kind": "clap", "ms": ms, "end": c / rate, "onset": on,
                            "onsets": clip.onsets, "before": [t for t in before if t > c / rate - 0.06],
                            "now": [t for t in now if t > c / rate - 0.06]})
        elif clip.label != "clap":
            full = stream_all(x, rate)
            peaks = burst_peaks(x, rate)[:max_bursts]
            where2 = {round((p + ms / 1000) * rate): ms for p in peaks for ms in cuts_ms
                      if (p + ms / 1000) * rate < len(x)}
            for c, (before, now) in cut_claps(x, rate, list(where2)).items():
                def new(ts: list[float]) -> list[float]:
                    return [t for t in ts if t > c / rate - 0.06 and not any(abs(t - f) < 0.002 for f in full)]
                out.append({"source": clip.source, "kind": "burst", "ms": where2[c], "end": c / rate,
                            "before": new(before), "now": new(now)})
        print(f"  {clip.file}", file=sys.stderr, flush=True)
    return out


def kept(ts: list[float], end: float, min_tail_ms: float) -> list[float]:
    """The claps a finish() that refuses onsets within ``min_tail_ms`` of the end would give."""
    return [t for t in ts if t <= end - min_tail_ms / 1000]


def score(recs: list[dict[str, Any]], min_tail_ms: float | None) -> tuple[int, int, int, int]:
    """(labelled claps found, of cuts, false claps made, of cuts) with ``min_tail_ms`` (None: before)."""
    found = n_c = false = n_b = 0
    for r in recs:
        ts = r["before"] if min_tail_ms is None else kept(r["now"], r["end"], min_tail_ms)
        if r["kind"] == "clap":
            n_c += 1
            found += any(abs(t - r["onset"]) <= 0.015 for t in ts)
            false += sum(not any(abs(t - o) <= 0.015 for o in r["onsets"]) for t in ts)
        else:
            n_b += 1
            false += len(ts)
    return found, n_c, false, n_b


def balanced(s: tuple[int, int, int, int]) -> float:
    """The share of labelled claps found minus the share of burst cuts that made a false clap."""
    return s[0] / max(1, s[1]) - s[2] / max(1, s[3])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    ap.add_argument("--cuts", default="2,5,10,15,20,25,30", help="ms after the onset / peak")
    ap.add_argument("--max-bursts", type=int, default=30, help="bursts cut after, per negative clip")
    ap.add_argument("--tails", default="0,2,4,6,8,10,12,15,20", help="min_tail_ms candidates")
    ap.add_argument("--save", type=Path, help="write the records (JSON) here")
    ap.add_argument("--load", type=Path, help="read the records from here instead of streaming")
    a = ap.parse_args(argv)
    cuts_ms = [int(v) for v in a.cuts.split(",")]
    if a.load:
        recs = json.loads(a.load.read_text())
    else:
        recs = collect(a.data, cuts_ms, a.max_bursts)
        if a.save:
            a.save.write_text(json.dumps(recs))
    tails = [float(v) for v in a.tails.split(",")]
    sources = sorted({r["source"] for r in recs})
    halves = (sources[0::2], sources[1::2])
    print(f"{len(recs)} cuts; sources {sources}")
    print("min_tail_ms | labelled claps found | false claps made   (all sources; before: "
          "{}/{} | {}/{})".format(*score(recs, None)))
    for tail in tails:
        f, nc, fa, nb = score(recs, tail)
        print(f"{tail:5.1f} | {f}/{nc} | {fa}/{nb}")
    print("held out by source: choose the tail maximising found/cuts - false/burst cuts (each kind of cut "
          "weighs the same, whatever the clips hold) on one half, report on the other")
    for fit, held in (halves, halves[::-1]):
        fit_recs = [r for r in recs if r["source"] in fit]
        held_recs = [r for r in recs if r["source"] in held]
        best = max(tails, key=lambda t: (balanced(score(fit_recs, t)), t))
        f, nc, fa, nb = score(held_recs, best)
        f0, _, fa0, _ = score(held_recs, None)
        print(f"fit on {fit}: min_tail_ms {best:g}; held out {held}: found {f0} -> {f} of {nc}, "
              f"false {fa0} -> {fa} (of {nb} burst cuts)")
    for ms in cuts_ms:
        sub = [r for r in recs if r["ms"] == ms]
        print(f"cut {ms:2d} ms: " + ", ".join(f"tail {t:g}: {score(sub, t)[0]}/{score(sub, t)[1]} found, "
                                             f"{score(sub, t)[2]} false" for t in tails[::3]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
