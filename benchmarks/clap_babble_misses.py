#!/usr/bin/env python3
"""Where claps over babble and one speaker are lost, held out, and what the lost ones look like.

``clap_misses.py`` with each source's nested threshold (the folds' ``nested``, as
``audio_eval.py --loso nested``) and the detector as ``audio_eval.py`` makes it (the
default settings, the floor route on). Every annotated clap of the noise curve's mixes
(``clap_noise``: same seeds and SNR, offset 0, 512-sample blocks) is counted as

- ``found``: a clap reported within 60 ms;
- ``none``: no burst peaks from 10 ms before to 60 ms after it (the candidate stage);
- ``gate``: bursts there, none passes ``min_rise_db`` and the level gate;
- ``score``: one passes the gates, every such burst scores under the threshold (the trees);
- ``gap`` / ``below``: one scores over the threshold but comes within ``min_gap_ms`` of a
  reported clap / is ``below_claps_db`` under the recent claps (or the room rule).

Then, for the claps ``found`` and those lost at ``score``, the median of each feature of the
clap's best burst (the highest-scoring one that passes the gates), the same clap's burst in
the clean clip, and the floor route's ``floor_spread_db`` at the burst (babble against steady
noise: the route takes < 2 dB).

``--sweep``: what a lower threshold (by ``drop``) for bursts rising under 24 dB over a floor
spreading from 2 to ``S`` dB (babble-like) would give on these mixes and on the speech clips
alone: claps found, and bursts that are no clap newly over the threshold (an upper bound
of the new false claps: ``min_gap_ms`` merges are not counted). Not nested: a look at the
room the lever has, before any choice.

Usage: .venv/bin/python benchmarks/clap_babble_misses.py --folds SHIPPED.json
       [--kinds babble,speech] [--snrs 5,10] [--sweep]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
from _clap_clips import add_data_option, clap_clips

SHOW = ("score", "peak_db", "rise_db", "attack_db", "contrast_db", "steep_db", "fall10_ms",
        "fall20_ms", "decay_db", "tail_db", "body_db", "low_db", "tilt_db", "air_db",
        "flatness", "zcr_khz", "centroid_oct", "spread_db")
WHATS = ("found", "none", "gate", "score", "gap", "below")
SPREADS = (6.0, 10.0, 14.0, 18.0, 25.0)
DROPS = (0.5, 1.0, 2.0, 3.0)


def stream(det: Any, y: np.ndarray, rate: int) -> list[float]:
    found: list[float] = []
    for k, i in enumerate(range(0, len(y), 512)):
        found.extend(cl.t for cl in det.process(y[i:i + 512], i / rate, rate, index=k))
    return found


def passing(det: Any) -> list[Any]:
    from sensekit.audio.level import level_to_db
    min_db = level_to_db(det.min_level)
    return [f for f in det.features if f.rise_db >= det.min_rise_db and f.peak_db >= min_db]


def near(fs: list[Any], o: float) -> list[Any]:
    return [f for f in fs if -0.01 <= f.t_peak - o <= 0.06]


def classify(det: Any, o: float, found: list[float]) -> tuple[str, Any]:
    """What became of the clap at ``o`` and its best burst passing the gates."""
    passed = near(passing(det), o)
    top = max(passed, key=lambda f: f.score) if passed else None
    if any(abs(t - o) <= 0.06 for t in found):
        return "found", top
    if not near(det.features, o):
        return "none", None
    if top is None:
        return "gate", None
    if top.score < det.threshold:
        return "score", top
    if any(0 < top.t_onset - t < det.min_gap_ms / 1000 for t in found):
        return "gap", top
    return "below", top


def spread_at(route: Any, y: np.ndarray, f: Any, rate: int) -> float:
    p = round(f.t_peak * rate)
    return float(route.floor_spread_db(y, p)) if p >= route.pre else float("nan")


def run_mix(det: Any, y32: np.ndarray, rate: int, onsets: list[float],
            acc: dict[str, Any]) -> None:
    """Stream one mix; add its claps' fates and its other bursts to ``acc``."""
    from sensekit.audio.clap_floor import FloorRoute
    from sensekit.evaluation.audio.evaluate import match
    route = FloorRoute(rate)
    found = stream(det, y32, rate)
    fp = match(found, onsets).fp
    acc["fp"] += fp
    acc["mixes"] += 1
    acc["firing"] += int(fp > 0)
    acc["seconds"] += len(y32) / rate
    y64 = y32.astype(np.float64)
    for o in onsets:
        what, top = classify(det, o, found)
        acc["count"][what] += 1
        spread = spread_at(route, y64, top, rate) if top is not None else float("nan")
        acc["claps"].append((what, top, spread, det.threshold))
    for f in passing(det):
        if not any(-0.06 <= f.t_peak - o <= 0.1 for o in onsets) and f.score < det.threshold:
            acc["others"].append((f.score - det.threshold, f.rise_db, spread_at(route, y64, f, rate)))


def fold_detector(folds: dict[str, Any], source: str, detector: type | None = None,
                  noise_route: bool = False) -> Any:
    """The held-out detector of ``source`` (its fold's trees at its nested threshold, else the
    folds' one), keeping its bursts' features; the noise route off (its expert heard every source).
    ``detector``: the class (a ``clap_variants.detector_class``; None: ``ClapDetector``);
    ``noise_route``: on only for a class whose route is a benchmark's own (``clap_babble_band``'s
    lever, which never asks the expert), since a detector with the route off makes none."""
    from sensekit.audio.clap import ClapDetector

    det = (detector or ClapDetector)(model=folds["models"][source], noise_route=noise_route,
                       threshold=float(folds.get("nested", {}).get(source, folds["threshold"])))
    det.keep_features = True
    return det


def new_acc() -> dict[str, Any]:
    return {"fp": 0, "mixes": 0, "firing": 0, "seconds": 0.0, "count": dict.fromkeys(WHATS, 0),
            "claps": [], "others": []}


def in_band(rise: float, spread: float, top: float) -> bool:
    return rise < 24.0 and 2.0 <= spread < top


def print_sweep(acc: dict[str, Any]) -> None:
    n = len(acc["claps"])
    minutes = acc["seconds"] / 60
    print(f"  sweep (claps found of {n}; no-clap bursts newly over, a minute):")
    for s in SPREADS:
        cells = []
        for d in DROPS:
            got = sum(1 for w, t, sp, thr in acc["claps"] if w == "found" or (
                w == "score" and in_band(t.rise_db, sp, s) and t.score >= thr - d))
            new = sum(1 for m, r, sp in acc["others"] if m >= -d and in_band(r, sp, s))
            cells.append(f"-{d:g}: {got / n:.2f} / {new / minutes:.1f}" if n else
                         f"-{d:g}: {new / minutes:.1f}")
        print(f"    spread 2-{s:g} dB  " + "   ".join(cells))


def print_features(acc: dict[str, Any], clean: dict[int, Any]) -> None:
    rows = {w: [(t, clean.get(i), sp) for i, (ww, t, sp, _) in enumerate(acc["claps"])
                if ww == w and t is not None] for w in ("found", "score")}
    print(f"  {'median':13s} {'found':>8s} {'(clean)':>8s} {'lost':>8s} {'(clean)':>8s}")
    for name in SHOW:
        cells = []
        for what in ("found", "score"):
            noisy = [getattr(t, name) for t, _, _ in rows[what]]
            cl = [getattr(q, name) for _, q, _ in rows[what] if q is not None]
            cells += [np.nanmedian(noisy) if noisy else np.nan, np.nanmedian(cl) if cl else np.nan]
        print(f"  {name:13s} " + " ".join(f"{v:8.2f}" for v in cells))
    for what in ("found", "score"):
        s = np.array([r[2] for r in rows[what]])
        s = s[np.isfinite(s)]
        if len(s):
            q = np.percentile(s, [10, 50, 90])
            print(f"  floor_spread_db {what}: n {len(s)}, 10/50/90 % {q[0]:.1f} / {q[1]:.1f} / "
                  f"{q[2]:.1f}, under 2 dB {np.mean(s < 2):.2f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(ap)
    ap.add_argument("--folds", type=Path, required=True)
    ap.add_argument("--kinds", default="babble,speech")
    ap.add_argument("--snrs", default="5,10")
    ap.add_argument("--sweep", action="store_true")
    args = ap.parse_args(argv)
    targets, speech, audio = clap_clips(args.data)
    from sensekit.audio.clap_loudness import clap_loudness
    from sensekit.evaluation.audio.clap_noise import mix_at, noise_unit, other_speech

    folds = json.loads(args.folds.read_text())

    def detector(source: str) -> Any:
        return fold_detector(folds, source)

    base = new_acc()
    for c in targets:
        x, rate = audio[c.file]
        run_mix(detector(c.source), x.astype(np.float32), rate, c.onsets, base)
    clean = {i: t for i, (_, t, _, _) in enumerate(base["claps"])}
    print(f"held out (folds {args.folds.name}, nested thresholds): {len(clean)} annotated claps")
    for kind in args.kinds.split(","):
        for snr in [float(v) for v in args.snrs.split(",")]:
            acc = new_acc()
            for c in targets:
                x, rate = audio[c.file]
                unit = noise_unit(kind, c.file, len(x), rate,
                                  other_speech(audio, speech, c.source, rate))
                run_mix(detector(c.source), mix_at(x, unit, clap_loudness(x, rate, c.onsets), snr),
                        rate, c.onsets, acc)
            total = sum(acc["count"].values())
            print(f"\n{kind} {snr:g} dB: " + "  ".join(f"{k} {v / total:.2f}" for k, v in acc["count"].items())
                  + f"  ({total} claps; false claps a minute {60 * acc['fp'] / acc['seconds']:.1f})")
            print_features(acc, clean)
            if args.sweep:
                print_sweep(acc)
    if args.sweep:
        acc = new_acc()
        for c in speech:
            x, rate = audio[c.file]
            run_mix(detector(c.source), x.astype(np.float32), rate, [], acc)
        print(f"\nspeech clips alone ({acc['seconds'] / 60:.1f} min, {60 * acc['fp'] / acc['seconds']:.1f} "
              "false claps a minute now):")
        print_sweep(acc)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
