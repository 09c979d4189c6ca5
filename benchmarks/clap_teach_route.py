#!/usr/bin/env python3
"""Taught in steady noise, what does the second half give? The k clips, as the route test does eldar's.

For each of the five k clips with many claps (``clap_k_mixed15``, ``mixed18``, ``pairs8``,
``regular14``, ``steady13``; one person, room and microphone) and each noise (white, pink) and
SNR (``--snrs``, dB under the claps' loudness, ``clap_loudness.clap_loudness``): seeded noise of
twice the clip's length (``numpy.random.default_rng(7)``, as
``tests/audio/test_clap_noise_route.py``), the clip plus its first half, the room its second.
``clap_teach.teach`` learns the venue from the first halves of both; the second half of the
mix is then streamed (512-sample blocks) with the route off, with the untaught default (route
on) and with the lesson's settings, and matched against the annotated onsets (those 50 ms or
more into the half). Prints one line per case (the route decision, claps found of the annotated,
false claps) and the totals.

``--expert-from COMMIT``: the expert's trees from that commit's ``clap_noise_model.py`` (e.g.
``a6e71b6``, the eighth pass's expert), to compare with the shipped one. Exit status 0.

    .venv/bin/python benchmarks/clap_teach_route.py [--snrs 10,5] [--expert-from COMMIT]
"""
from __future__ import annotations

import argparse
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
from _reference import SHARED_DATA

from sensekit.audio import clap_floor
from sensekit.audio.clap import ClapDetector
from sensekit.audio.clap_features import TreeModel
from sensekit.audio.clap_loudness import clap_loudness
from sensekit.audio.clap_teach import lesson_problem, teach
from sensekit.evaluation.audio.clap_augment import noise
from sensekit.evaluation.audio.evaluate import Scores, match, read_clips, read_wav

CLIPS = ("clap_k_mixed15.wav", "clap_k_mixed18.wav", "clap_k_pairs8.wav", "clap_k_regular14.wav",
         "clap_k_steady13.wav")
KINDS = ("white", "pink")


def stream(x: np.ndarray, rate: int, detector: type[ClapDetector] = ClapDetector, **settings: Any) -> list[float]:
    det = detector(**settings)
    return [c.t for k, i in enumerate(range(0, len(x), 512))
            for c in det.process(x[i:i + 512], i / rate, rate, index=k)]


def old_expert(commit: str) -> TreeModel:
    """The expert's trees of ``clap_noise_model.py`` at ``commit``."""
    repo = Path(__file__).resolve().parents[1]
    src = subprocess.run(["git", "-C", str(repo), "show", f"{commit}:sensekit/audio/clap_noise_model.py"],
                         check=True, capture_output=True, text=True).stdout
    ns: dict[str, Any] = {}
    exec(compile(src, f"{commit}:clap_noise_model.py", "exec"), ns)
    return TreeModel(ns["MODEL"])


def with_expert(trees: TreeModel) -> type[ClapDetector]:
    """Detectors whose floor route scores with ``trees`` (the shipped ``clap_floor.expert()`` is
    left as it is): ``clap_variants.detector_class`` with a ``FloorRoute`` that holds them."""
    from sensekit.evaluation.audio.clap_variants import detector_class

    class OldExpert(clap_floor.FloorRoute):
        def __init__(self, rate: int) -> None:
            super().__init__(rate)
            self._expert = trees

    return detector_class(route=OldExpert)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--snrs", default="10,5", help="comma list of SNRs in dB (default 10,5)")
    ap.add_argument("--expert-from", default=None, metavar="COMMIT")
    args = ap.parse_args(argv)
    made: type[ClapDetector] = ClapDetector
    if args.expert_from:
        made = with_expert(old_expert(args.expert_from))
    clips = {c.file: c for c in read_clips(SHARED_DATA)}
    totals = {k: Scores() for k in ("off", "default", "taught")}
    print(f"expert: {args.expert_from or 'shipped'}")
    print(f"{'clip':10s} {'noise':12s} {'route':26s} {'off tp/n fp':>12s} {'default':>9s} {'taught':>9s}")
    for snr in (float(s) for s in args.snrs.split(",")):
        for name in CLIPS:
            c = clips[f"audio/{name}"]
            x, rate = read_wav(SHARED_DATA / c.file)
            x = x.astype(np.float64)
            loud = clap_loudness(x, rate, c.onsets)
            for kind in KINDS:
                nz = noise(kind, 2 * len(x), rate, np.random.default_rng(7)) * loud * 10.0 ** (-snr / 20.0)
                y = (x + nz[:len(x)]).astype(np.float32)
                room = nz[len(x):].astype(np.float32)
                half = len(x) // 2
                lesson = teach(y[:half], room[:half], rate, detector=made)
                settings = {k.split(".", 1)[1]: v for k, v in lesson.values.items()}
                truth = [t - half / rate for t in c.onsets if t >= half / rate + 0.05]
                got = {"off": match(stream(y[half:], rate, made, noise_route=False), truth),
                       "default": match(stream(y[half:], rate, made), truth),
                       "taught": match(stream(y[half:], rate, made, **settings), truth)}
                for k, m in got.items():
                    totals[k].tp += m.tp
                    totals[k].fn += m.fn
                    totals[k].fp += m.fp
                route = (f"{'on' if lesson.noise_route else 'off'} ({lesson.clap_snr_db:.0f} dB over "
                         f"{lesson.floor_spread_db:.1f})")
                bad = lesson_problem(lesson)
                print(f"{name[7:-4]:10s} {f'{kind} {snr:g} dB':12s} {route:26s} "
                      + " ".join(f"{m.tp:>3d}/{len(truth)} {m.fp:d}".rjust(9 if k != 'off' else 12)
                                 for k, m in got.items()) + (f"  refused: {bad}" if bad else ""))
    print("total (claps found / annotated, false claps): "
          + ", ".join(f"{k} {s.tp}/{s.tp + s.fn} {s.fp}" for k, s in totals.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
