#!/usr/bin/env python3
"""Do band rises over a moving floor tell the claps lost over babble and speech from what fires?

The fourteenth pass's fifteen-minute look (lever b), held out: every annotated clap clip mixed
with babble and one speaker (``clap_noise``: the noise curve's own mixes, offset 0) and every
negative clip alone, each streamed through its source's fold (``train_clap.py --save-folds``)
at its nested threshold, the noise route off (``clap_babble_misses.fold_detector``). Two groups
of bursts that pass the gates:

- **lost**: an annotated clap's best burst, scored under the threshold (lost at the trees);
- **firing**: a burst that is no clap (in a mix, or in a negative clip) scoring within
  ``--margin`` of the threshold or over it: plosives, babble onsets, footsteps, knocks.

For each, the candidate features (``band_rises``): the power of the burst's 12 ms Hann window
from 4 ms before the peak (the window ``clap_features`` already takes) in the bands 50-500 Hz,
0.5-1, 1-2, 2-4 kHz and 4.5 kHz-up, over the same bands of the floor: the mean of the same
window's spectra every 6 ms over the 0.3 s ending 10 ms before the peak (``mean``), or their
per-bin median (``median``). Then, per feature, the area under the ROC curve for "lost clap"
against "firing" (0.5 = no separation; shown as max(AUC, 1 - AUC)), for the existing 16 and the
candidates; and a leave-one-source-out check: gradient-boosted trees on these two groups, 16
features against 16 + candidates, the held-out AUC pooled over sources.

Not nested with respect to the feature choice: a look before any is added, on the held-out
mixes only.

Usage: .venv/bin/python benchmarks/clap_floor_bands.py --folds SHIPPED.json
       [--mixes babble:10,babble:5,speech:0] [--margin 2]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
from _clap_clips import add_data_option, clap_clips
from clap_babble_misses import classify, fold_detector, passing, stream

BANDS = (("lo", 50.0, 500.0), ("o1", 500.0, 1000.0), ("o2", 1000.0, 2000.0),
         ("o3", 2000.0, 4000.0), ("air", 4500.0, 16000.0))
FLOOR_S, GAP_MS, HOP_MS, WIN_MS = 0.3, 10.0, 6.0, 12.0


def band_rises(y: np.ndarray, p: int, rate: int, *, how: str = "mean") -> dict[str, float]:
    """The candidate features of the burst peaking at ``y[p]`` (see the module docstring)."""
    n = round(rate * WIN_MS / 1000)
    win = np.hanning(n)
    f = np.fft.rfftfreq(n, 1.0 / rate)
    top = min(16000.0, 0.45 * rate)
    idx = [(int(np.searchsorted(f, lo)), int(np.searchsorted(f, min(hi, top)))) for _, lo, hi in BANDS]
    pad = round(rate * (FLOOR_S + 0.05))
    z = np.concatenate([np.zeros(pad), y.astype(np.float64)])
    q = p + pad
    o = q - round(rate * 0.004)
    burst = np.abs(np.fft.rfft(z[o:o + n] * win)) ** 2
    end = q - round(rate * GAP_MS / 1000) - n
    hop = round(rate * HOP_MS / 1000)
    starts = np.arange(end - round(rate * FLOOR_S) + n, end + 1, hop)
    frames = np.stack([z[s:s + n] * win for s in starts])
    fl = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    floor = fl.mean(axis=0) if how == "mean" else np.median(fl, axis=0)
    out: dict[str, float] = {}
    for (name, _, _), (a, b) in zip(BANDS, idx):
        if b <= a:
            out[name] = float("nan")
            continue
        r = 10 * np.log10((burst[a:b].sum() + 1e-20) / (floor[a:b].sum() + 1e-20))
        out[name] = float(np.clip(r, -20.0, 60.0))
    octs = [out["o1"], out["o2"], out["o3"]]
    out["min_oct"] = min(octs)
    out["flat_oct"] = min(octs) - max(octs)
    out["lo_over_oct"] = out["lo"] - float(np.mean(octs))
    out["air_over_oct"] = out["air"] - float(np.mean(octs))
    return {f"{how}_{k}": v for k, v in out.items()}


def candidates(y: np.ndarray, p: int, rate: int) -> dict[str, float]:
    return {**band_rises(y, p, rate, how="mean"), **band_rises(y, p, rate, how="median")}


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """P(a positive's value > a negative's), ties half; NaN rows dropped."""
    pos, neg = pos[np.isfinite(pos)], neg[np.isfinite(neg)]
    if not len(pos) or not len(neg):
        return float("nan")
    allv = np.concatenate([pos, neg])
    from scipy.stats import rankdata
    r = rankdata(allv)
    return float((r[:len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def rows_of(det: Any, y: np.ndarray, rate: int, onsets: list[float], found: list[float],
            source: str, margin: float) -> list[tuple[int, str, dict[str, float]]]:
    """(1 lost clap | 0 firing, source, features) for one streamed clip or mix."""
    from sensekit.audio.clap_features import FEATURES
    out = []
    y64 = y.astype(np.float64)

    def feats(f: Any) -> dict[str, float]:
        return {**{k: float(getattr(f, k)) for k in FEATURES},
                **candidates(y64, round(f.t_peak * rate), rate)}
    for o in onsets:
        what, top = classify(det, o, found)
        if what == "score":
            out.append((1, source, feats(top)))
    for f in passing(det):
        if any(-0.06 <= f.t_peak - o <= 0.1 for o in onsets):
            continue
        if f.score >= det.threshold - margin:
            out.append((0, source, feats(f)))
    return out


def loso_auc(X: np.ndarray, y: np.ndarray, groups: np.ndarray) -> float:
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.metrics import roc_auc_score
    pred = np.full(len(y), np.nan)
    for g in np.unique(groups):
        te = groups == g
        if len(np.unique(y[~te])) < 2:
            continue
        m = HistGradientBoostingClassifier(max_iter=100, max_depth=3, learning_rate=0.1,
                                           random_state=0).fit(X[~te], y[~te])
        pred[te] = m.predict_proba(X[te])[:, 1]
    ok = np.isfinite(pred)
    return float(roc_auc_score(y[ok], pred[ok]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(ap)
    ap.add_argument("--folds", type=Path, required=True)
    ap.add_argument("--mixes", default="babble:10,babble:5,speech:0")
    ap.add_argument("--margin", type=float, default=2.0)
    args = ap.parse_args(argv)
    targets, speech, audio = clap_clips(args.data)
    from sensekit.audio.clap_loudness import clap_loudness
    from sensekit.audio.clap_features import FEATURES
    from sensekit.evaluation.audio.clap_noise import mix_at, noise_unit, other_speech
    from sensekit.evaluation.audio.evaluate import read_clips, read_wav

    folds = json.loads(args.folds.read_text())
    rows: list[tuple[int, str, dict[str, float]]] = []
    for spec in args.mixes.split(","):
        kind, snr = spec.split(":")
        for c in targets:
            x, rate = audio[c.file]
            unit = noise_unit(kind, c.file, len(x), rate, other_speech(audio, speech, c.source, rate))
            y = mix_at(x, unit, clap_loudness(x, rate, c.onsets), float(snr))
            det = fold_detector(folds, c.source)
            found = stream(det, y, rate)
            rows += rows_of(det, y, rate, c.onsets, found, c.source, args.margin)
    mixed = len(rows)
    negatives = [c for c in read_clips(args.data) if c.label != "clap"]
    for c in negatives:
        if c.source not in folds["models"]:
            continue
        x, rate = read_wav(args.data / c.file)
        det = fold_detector(folds, c.source)
        found = stream(det, x.astype(np.float32), rate)
        rows += rows_of(det, x.astype(np.float32), rate, [], found, c.source, args.margin)
    lab = np.array([r[0] for r in rows])
    src = np.array([r[1] for r in rows])
    names = list(rows[0][2]) if rows else []
    X = np.array([[r[2][k] for k in names] for r in rows])
    print(f"held out ({args.folds.name}; mixes {args.mixes}; margin {args.margin:g}): "
          f"{int(lab.sum())} lost claps, {int((lab[:mixed] == 0).sum())} firing bursts in the mixes, "
          f"{int((lab[mixed:] == 0).sum())} in the negative clips "
          f"({', '.join(f'{s} {int(((src == s) & (lab == 0)).sum())}' for s in sorted(set(src[lab == 0])))})")
    print(f"\n{'feature':22s} {'AUC':>6s} {'lost med':>9s} {'firing med':>11s}")
    for j, k in enumerate(names):
        a = auc(X[lab == 1, j], X[lab == 0, j])
        print(f"{k:22s} {max(a, 1 - a):6.3f} {np.nanmedian(X[lab == 1, j]):9.2f} "
              f"{np.nanmedian(X[lab == 0, j]):11.2f}" + ("   *" if k not in FEATURES else ""))
    base = [names.index(k) for k in FEATURES]
    for how in ("mean", "median"):
        extra = [j for j, k in enumerate(names) if k.startswith(how + "_")]
        print(f"\nleave-one-source-out trees, lost vs firing, pooled AUC: 16 features "
              f"{loso_auc(X[:, base], lab, src):.3f}; 16 + {how} band rises "
              f"{loso_auc(X[:, base + extra], lab, src):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
