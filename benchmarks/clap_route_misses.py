#!/usr/bin/env python3
"""Which expert of a routed clap model finds the claps of the noise curve (docs/claps.md, fourth pass).

Every annotated clap clip is mixed with noise ``--kind`` at ``--snr`` dB as the noise curve
mixes it (``clap_noise``: same seeds, offset 0, 512-sample blocks) and streamed with every
judged burst kept; each annotated clap's burst (the loudest within 60 ms) is scored by its
source's held-out clean fold (``--clean-folds``, at its nested threshold) and noise-expert
fold (``--below-folds``, at ``--below-threshold``), both whatever its rise. Prints, per band
of ``rise_db``, how many claps each expert would find; then how many the noise expert finds
at each threshold of ``--sweep``, and the median features of the claps the clean expert
finds and the noise expert loses, against those both find.

Usage: .venv/bin/python benchmarks/clap_route_misses.py --clean-folds SHIPPED.json
       --below-folds BELOW.json --below-threshold 0.75 [--kind pink] [--snr 10]
The folds must read the features this checkout measures (candidate B's 20-feature folds need
``git checkout d18285b -- sensekit/audio/clap_features.py`` first).
"""
from __future__ import annotations

import argparse
import itertools
import json

import numpy as np
from _clap_clips import add_data_option, add_expert_folds_options, clap_clips


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(ap)
    add_expert_folds_options(ap)
    ap.add_argument("--below-threshold", type=float, required=True)
    ap.add_argument("--kind", default="pink")
    ap.add_argument("--snr", type=float, default=10.0)
    ap.add_argument("--bands", default="0,26,38,41", help="rise_db band edges")
    ap.add_argument("--sweep", default="-0.5,0,0.25,0.5,0.75,1",
                    help="noise expert thresholds: claps it finds at each, whatever the rise")
    args = ap.parse_args(argv)
    from sensekit.audio.clap import ClapDetector
    from sensekit.audio.clap_loudness import clap_loudness
    from sensekit.audio.clap_features import FEATURES, TreeModel
    from sensekit.evaluation.audio.clap_noise import mix_at, noise_unit, other_speech

    targets, speech, audio = clap_clips(args.data)
    clean = json.loads(args.clean_folds.read_text())
    below = json.loads(args.below_folds.read_text())["models"]
    rows: list[tuple[float, float, float]] = []
    vecs: list[np.ndarray] = []
    for c in targets:
        x, rate = audio[c.file]
        unit = noise_unit(args.kind, c.file, len(x), rate, other_speech(audio, speech, c.source, rate))
        y = mix_at(x, unit, clap_loudness(x, rate, c.onsets), args.snr)
        det = ClapDetector(threshold=-99.0, model=clean["models"][c.source])
        det.keep_features = True
        for i in range(0, len(y), 512):
            det.process(y[i:i + 512], i / rate, rate)
        tc, tb = TreeModel(clean["models"][c.source]), TreeModel(below[c.source])
        for o in c.onsets:
            near = [f for f in det.features if abs(f.t_onset - o) <= 0.06]
            if not near:
                rows.append((np.nan, np.nan, np.nan))
                vecs.append(np.full(len(FEATURES), np.nan))
                continue
            f = max(near, key=lambda f: f.peak_db)
            v = f.vector()
            rows.append((f.rise_db, tc.score(v) - float(clean["nested"][c.source]),
                         tb.score(v) - args.below_threshold))
            vecs.append(v)
    r = np.array(rows, float)
    ok = ~np.isnan(r[:, 0])
    print(f"{args.kind} at {args.snr:g} dB: {len(r)} annotated claps, {int(ok.sum())} with a judged burst")
    edges = [float(v) for v in args.bands.split(",")]
    print(f"{'rise_db':>10s} {'claps':>6s} {'clean finds':>12s} {'noise expert finds':>19s} {'both':>5s}")
    for lo, hi in itertools.pairwise(edges):
        m = ok & (r[:, 0] >= lo) & (r[:, 0] < hi)
        c_ok, b_ok = r[m, 1] >= 0, r[m, 2] >= 0
        print(f"{lo:4g}..{hi:<4g} {int(m.sum()):6d} {int(c_ok.sum()):12d} {int(b_ok.sum()):19d} "
              f"{int((c_ok & b_ok).sum()):5d}")
    # the same claps, whatever their rise: the expert's threshold against its ranking, and
    # what the claps it loses (found by the clean expert) look like (sixth pass)
    sweep = [float(t) for t in args.sweep.split(",")]
    eb = r[ok, 2] + args.below_threshold
    print(f"clean expert finds {int((r[ok, 1] >= 0).sum())}; noise expert at "
          + " / ".join(f"{t:g}" for t in sweep) + ": "
          + " / ".join(str(int((eb >= t).sum())) for t in sweep))
    V = np.array(vecs)[ok]
    lost, both = (r[ok, 1] >= 0) & (r[ok, 2] < 0), (r[ok, 1] >= 0) & (r[ok, 2] >= 0)
    print(f"found by the clean expert: {int(lost.sum())} lost by the noise expert, {int(both.sum())} "
          "found by both; median features (lost / both):")
    for j, name in enumerate(FEATURES):
        if lost.any() and both.any():
            print(f"  {name:13s} {np.nanmedian(V[lost, j]):8.2f} {np.nanmedian(V[both, j]):8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
