#!/usr/bin/env python3
"""What a gap in the stream does to the claps just before it (``sensekit/audio/clap_gap.py``).

As ``benchmarks/clap_end.py`` cuts a stream's end, this cuts a gap into it: every developer clip is
streamed in 512-sample blocks from 11 s before a cut to the cut, then the blocks of the next ``--gap``
seconds are missing (a consumer that stalled, a device lost and reopened: ``MicrophoneSource`` stamps
the next block by its sample clock), then 1 s more of the clip at its own ``t``. A cut is made
``cut`` ms after each labelled clap's onset (found = a clap within 15 ms of it) and after each of the
first 30 bursts of every clip without claps (a clap within 60 ms before the cut that the uncut stream
does not report is one the gap made). ``before``: the bridge as it was (up to 1 s of silence decided
everything owed, as at the end before harden22's rules); ``now``: ``bridge`` (the end's rules at the
gap: ``clap_end.judge_owed``). No constant is fitted here.

Usage: .venv/bin/python benchmarks/clap_gap_cuts.py [--data ../shared/data] [--cuts 5,10,20] [--gap 2]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

from sensekit.audio import clap_gap
from sensekit.audio.clap import ClapDetector
from sensekit.events import Clap
from sensekit.evaluation.audio.clap_variants import detector_class
from sensekit.evaluation.audio.evaluate import read_clips, read_wav

BLOCK = 512
HISTORY_S = 11.0
AFTER_S = 1.0


def old_bridge(det: Any, gap: int, samples: np.ndarray, t: float, rate: int, index: int) -> list[Clap]:
    """``clap_gap.bridge`` before harden24: the silence alone decided what was owed (fed as any block,
    instead of ``judge_owed``); the rest of the gap skipped as now (``clap_gap.skip``)."""
    pad = min(gap, int(clap_gap.PAD_S * rate))
    found = list(det.process(np.zeros(pad, np.float32), t - gap / rate, rate, index=index))
    clap_gap.skip(det, gap, pad, rate)
    return found + list(det.process(samples, t, rate, index=index))


def gapped(x: np.ndarray, rate: int, cut: int, gap_s: float, bridge: Callable[..., list[Clap]]) -> list[float]:
    """Clap times of the stream from ``HISTORY_S`` before ``cut``, a gap of ``gap_s`` there, then
    ``AFTER_S`` more, the gap bridged by ``bridge`` (the version measured: a detector made with it,
    ``clap_variants.detector_class``)."""
    det = detector_class(bridge=bridge)()
    s0 = max(0, cut - round(HISTORY_S * rate))
    g = round(gap_s * rate)
    stop = min(len(x), cut + g + round(AFTER_S * rate))
    starts = list(range(s0, cut, BLOCK)) + list(range(cut + g, stop, BLOCK))
    out: list[float] = []
    for k, i in enumerate(starts):
        j = min(i + BLOCK, cut) if i < cut else min(i + BLOCK, stop)
        out += [e.t for e in det.process(x[i:j], i / rate, rate, index=k)]
    return out + [e.t for e in det.finish()]


def stream_all(x: np.ndarray, rate: int) -> tuple[list[float], list[float]]:
    det = ClapDetector()
    det.keep_features = True
    ts = [e.t for i in range(0, len(x), BLOCK) for e in det.process(x[i:i + BLOCK], i / rate, rate)]
    ts += [e.t for e in det.finish()]
    return ts, [f.t_peak for f in det.features]


def tally_clip(tally: dict[int, list[int]], clip: Any, a: argparse.Namespace) -> None:
    """Add one clip's cuts to ``tally`` (see ``main``)."""
    x, rate = read_wav(a.data / clip.file)
    if clip.onsets:
        cuts = [(on, ms, round((on + ms / 1000) * rate)) for on in clip.onsets for ms in tally]
        for on, ms, c in (v for v in cuts if v[2] < len(x)):
            tally[ms][2] += 1
            for k, br in ((0, old_bridge), (1, clap_gap.bridge)):
                tally[ms][k] += any(abs(t - on) <= 0.015 for t in gapped(x, rate, c, a.gap, br))
    elif clip.label != "clap":
        full, peaks = stream_all(x, rate)
        cuts = [(p, ms, round((p + ms / 1000) * rate)) for p in peaks[:a.max_bursts] for ms in tally]
        for _p, ms, c in (v for v in cuts if v[2] < len(x)):
            tally[ms][5] += 1
            for k, br in ((3, old_bridge), (4, clap_gap.bridge)):
                tally[ms][k] += sum(c / rate - 0.06 < t <= c / rate and not any(abs(t - f) < 0.002 for f in full)
                                    for t in gapped(x, rate, c, a.gap, br))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    ap.add_argument("--cuts", default="5,10,20", help="ms after the onset / peak")
    ap.add_argument("--gap", type=float, default=2.0, help="seconds of blocks missing")
    ap.add_argument("--max-bursts", type=int, default=30, help="bursts cut after, per negative clip")
    a = ap.parse_args(argv)
    cuts_ms = [int(v) for v in a.cuts.split(",")]
    # per cut ms: [found before, found now, labelled cuts, false before, false now, burst cuts]
    tally = {ms: [0, 0, 0, 0, 0, 0] for ms in cuts_ms}
    for clip in read_clips(a.data):
        tally_clip(tally, clip, a)
        print(f"  {clip.file}", file=sys.stderr, flush=True)
    print(f"gap of {a.gap:g} s after the cut | labelled claps found, before -> now | "
          "false claps the gap made, before -> now")
    for ms, (fb, fn, nc, xb, xn, nb) in tally.items():
        print(f"cut {ms:2d} ms | {fb} -> {fn} of {nc} | {xb} -> {xn} of {nb}")
    tot = [sum(v[i] for v in tally.values()) for i in range(6)]
    print(f"all       | {tot[0]} -> {tot[1]} of {tot[2]} | {tot[3]} -> {tot[4]} of {tot[5]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
