#!/usr/bin/env python3
"""Where claps are lost in noise, held out: never proposed, stopped by a gate, or scored low.

Every annotated clap clip (``clap_onsets.csv``) is mixed with each noise kind at each SNR
exactly as the noise curve does (``clap_noise``: same seeds, same SNR definition) and
streamed (512-sample blocks, offset 0) through the detector of its source's
leave-one-source-out fold (``--folds``, written by ``train_clap.py --save-folds``), with
``keep_features`` so every burst it judges is kept. Each annotated clap is then:

- ``found``: a clap reported within 60 ms (as the curve counts it);
- ``none``: no burst peaks from 10 ms before to 60 ms after it (the candidate stage: the
  1 ms grid's 6 dB rise or the peak search never proposed it);
- ``gate``: bursts there, but none passes ``min_rise_db`` and ``min_level``;
- ``score``: one passes the gates but every such burst scores under the threshold (the
  classifier);
- ``other``: passed and scored, but merged, sustained or under the recent claps.

Also printed: false claps per minute. Cost: ~2 s per kind and SNR.

Usage: .venv/bin/python benchmarks/clap_misses.py --folds FOLDS.json
       [--kinds white,pink,babble,speech] [--snrs 0,5,10,20]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from _clap_clips import add_data_option, clap_clips


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(ap)
    ap.add_argument("--folds", type=Path, required=True)
    ap.add_argument("--kinds", default="white,pink,babble,speech")
    ap.add_argument("--snrs", default="0,5,10,20")
    args = ap.parse_args(argv)
    targets, speech, audio = clap_clips(args.data)
    from sensekit.audio.clap import ClapDetector
    from sensekit.audio.clap_loudness import clap_loudness
    from sensekit.evaluation.audio.clap_noise import mix_at, noise_unit, other_speech
    from sensekit.evaluation.audio.evaluate import match
    from sensekit.audio.level import level_to_db

    folds = json.loads(args.folds.read_text())
    thr = float(folds["threshold"])
    print(f"held out (folds {args.folds.name}, threshold {thr:g}): share of the "
          f"{sum(len(c.onsets) for c in targets)} annotated claps")
    for kind in args.kinds.split(","):
        for snr in [float(v) for v in args.snrs.split(",")]:
            cnt = dict.fromkeys(("found", "none", "gate", "score", "other"), 0)
            fp, seconds = 0, 0.0
            for c in targets:
                x, rate = audio[c.file]
                det = ClapDetector(model=folds["models"][c.source], threshold=thr, noise_route=False)
                det.keep_features = True
                min_db = level_to_db(det.min_level)
                loud = clap_loudness(x, rate, c.onsets)
                unit = noise_unit(kind, c.file, len(x), rate, other_speech(audio, speech, c.source, rate))
                y32 = mix_at(x, unit, loud, snr)
                found: list[float] = []
                for k, i in enumerate(range(0, len(y32), 512)):
                    found.extend(cl.t for cl in det.process(y32[i:i + 512], i / rate, rate, index=k))
                fp += match(found, c.onsets).fp
                seconds += len(x) / rate
                for o in c.onsets:
                    near = [f for f in det.features if -0.01 <= f.t_peak - o <= 0.06]
                    passed = [f for f in near if f.rise_db >= det.min_rise_db and f.peak_db >= min_db]
                    if any(abs(t - o) <= 0.06 for t in found):
                        cnt["found"] += 1
                    elif not near:
                        cnt["none"] += 1
                    elif not passed:
                        cnt["gate"] += 1
                    elif max(f.score for f in passed) < thr:
                        cnt["score"] += 1
                    else:
                        cnt["other"] += 1
            total = sum(cnt.values())
            print(f"{kind:7s} {snr:4g} dB  " + "  ".join(f"{k} {v / total:.2f}" for k, v in cnt.items())
                  + f"  false/min {60 * fp / seconds:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
