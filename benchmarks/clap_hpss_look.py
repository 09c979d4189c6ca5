#!/usr/bin/env python3
"""The twenty-seventh pass (docs/claps_history.md): do claps under speech stand out as percussive?

Every burst the shipped ``ClapDetector`` judges (``clap_losses.LossDetector`` with each source's fold:
the trees of ``TREES.json`` and the wait's ``WaitModel``, as ``clap_false_claps.py``; route off;
512-sample blocks, offset 0) on the noise curve's mixes (``--rows``, default one speaker 0 dB, babble
10 dB, pink 10 dB: the same seeds) and on the negative clips (clean), each clip with its own source's
fold (held out). A burst that passed the level and rise gates is a *clap burst* when its peak lies 10 ms
before to 60 ms after an annotated onset, otherwise a *noise burst* (speech, babble, a negative clip's
sound). For each, ``clap_hpss.percussive_share`` (three windows of the harmonic estimate) is measured
on the mix at the peak, with no sample later than 31.5 ms after it (what the detector holds when it
judges a burst; ``c130``: up to 130 ms, what a close call's wait holds).

Prints, per band of the trees' score ``t - T`` (near misses [-3, 0), the close calls |t - T| < 1.5, ...),
the AUC of each share for the clap bursts over the noise bursts of each kind (0.5: no separation), with
the medians, and the claps the detector missed. Keeps ``HPSS_BURSTS.json`` in ``--out``.

Usage: .venv/bin/python benchmarks/clap_hpss_look.py --folds /tmp/claps30 --out DIR [--rows speech:0,babble:10]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from _reference import SHARED_DATA, data_refused
from clap_false_claps import auc, load_folds
from clap_mel_wait import Shipped

from sensekit.audio.clap_wait import WaitModel
from sensekit.evaluation.audio.clap_hpss import AFTER_MS, NAMES, percussive_rise_db, percussive_share
from sensekit.evaluation.audio.clap_losses import NEAR_S, unmatched

#: the harmonic estimate's windows: (name, before_ms, causal, after_ms); c130 waits the close call's 130 ms
VARIANTS = (("c20", 20.0, False, AFTER_MS), ("c64", 64.0, False, AFTER_MS), ("causal64", 64.0, True, AFTER_MS),
            ("c130", 64.0, False, 130.0))
BANDS = (("near miss [-3, 0)", -3.0, 0.0), ("trees' loss [-4, -1.5)", -4.0, -1.5),
         ("close |t-T| < 1.5", -1.5, 1.5), ("[-3, +1.5)", -3.0, 1.5), ("every burst", -np.inf, np.inf))


def stream(y: np.ndarray, rate: int, s: str, folds_: tuple[Any, ...], block: int) -> Shipped:
    trees, folds, ring, lr = folds_
    f = folds[s]
    wm = WaitModel(ring[s], f["T"], f["margin"], f["theta"], lr[s].w, lr[s].b)
    det = Shipped(model=trees[s], threshold=f["T"], noise_route=False, wait_model=wm)
    for k, i in enumerate(range(0, len(y), block)):
        det.process(y[i:i + block], i / rate, rate, index=k)
    det.finish()
    return det


def bursts_of(det: Shipped, y: np.ndarray, rate: int, onsets: list[float], T: float, where: str,
              source: str, clip: str) -> list[dict[str, Any]]:
    missed, _ = unmatched(det.claps, onsets)
    out = []
    for j in det.judged:
        if not (j.level_ok and j.rise_ok and j.gap_ok):
            continue
        near = [o for o in onsets if o + NEAR_S[0] <= j.t_peak <= o + NEAR_S[1]]
        p = int(round(j.t_peak * rate))
        row: dict[str, Any] = {"where": where, "source": source, "clip": clip, "t": j.t_peak,
                               "t_minus_T": j.trees - T, "close": j.close, "clap_emitted": j.clap,
                               "rise_db": j.rise_db, "is_clap": bool(near),
                               "missed": bool(near) and any(o in missed for o in near)}
        for name, before, causal, after in VARIANTS:
            v = percussive_share(y, p, rate, causal=causal, before_ms=before, after_ms=after)
            row.update({f"{name}_{n}": float(x) for n, x in zip(NAMES, v)})
        for name, causal in (("causal", True), ("c64", False)):
            pr, mr = percussive_rise_db(y, p, rate, causal=causal)
            row.update({f"{name}_perc_rise_db": pr, "mix_rise_db": mr, f"{name}_perc_over_mix_db": pr - mr})
        out.append(row)
    return out


def collect(args: argparse.Namespace, folds_: tuple[Any, ...]) -> list[dict[str, Any]]:
    from _clap_clips import clap_clips

    from sensekit.audio.clap_loudness import clap_loudness
    from sensekit.evaluation.audio.clap_noise import mix_at, noise_unit, other_speech
    from sensekit.evaluation.audio.evaluate import read_clips, read_wav

    folds = folds_[1]
    targets, speech, audio = clap_clips(SHARED_DATA)
    rows: list[dict[str, Any]] = []
    for r in args.rows.split(","):
        kind, snr = r.split(":")
        for c in targets:
            x, rate = audio[c.file]
            y = mix_at(x, noise_unit(kind, c.file, len(x), rate, other_speech(audio, speech, c.source, rate)),
                       clap_loudness(x, rate, c.onsets), float(snr))
            det = stream(y, rate, c.source, folds_, args.block)
            rows += bursts_of(det, y, rate, list(c.onsets), folds[c.source]["T"], f"{kind} {snr}", c.source, c.file)
        print(f"{kind} {snr} dB: {len(rows)} bursts so far", file=sys.stderr, flush=True)
    for c in read_clips(SHARED_DATA):
        if c.onsets or c.label == "clap" or c.source not in folds:
            continue
        x, rate = read_wav(SHARED_DATA / c.file)
        y = np.asarray(x, np.float32)
        det = stream(y, rate, c.source, folds_, args.block)
        rows += bursts_of(det, y, rate, [], folds[c.source]["T"], "negative", c.source, c.file)
    print(f"negatives: {len(rows)} bursts", file=sys.stderr, flush=True)
    return rows


def table(rows: list[dict[str, Any]]) -> None:
    wheres = sorted({r["where"] for r in rows if r["where"] != "negative"}) + ["negative"]
    feats = [f"{v[0]}_{n}" for v in VARIANTS for n in NAMES] + [
        "causal_perc_rise_db", "c64_perc_rise_db", "mix_rise_db", "causal_perc_over_mix_db", "c64_perc_over_mix_db",
        "rise_db"]
    for title, lo, hi in BANDS:
        sel = [r for r in rows if lo <= r["t_minus_T"] < hi]
        pos = [r for r in sel if r["is_clap"]]
        npos = {w: sum(r["where"] == w for r in pos) for w in wheres}
        nneg = {w: sum(r["where"] == w and not r["is_clap"] for r in sel) for w in wheres}
        miss = sum(r["missed"] for r in pos)
        print(f"\n### t - T in {title}: clap bursts {len(pos)} (of them missed {miss}; "
              + ", ".join(f"{w} {npos[w]}" for w in wheres[:-1]) + "); noise bursts "
              + ", ".join(f"{w} {nneg[w]}" for w in wheres))
        print("| share | claps p50 | " + " | ".join(f"{w}: p50, AUC" for w in wheres)
              + " | all noise AUC | missed claps vs all noise AUC |")
        print("|---|---|" + "---|" * (len(wheres) + 2))
        for fn in feats:
            pv = np.array([r[fn] for r in pos], np.float64)
            cells = []
            allneg = np.array([r[fn] for r in sel if not r["is_clap"]], np.float64)
            for w in wheres:
                nv = np.array([r[fn] for r in sel if r["where"] == w and not r["is_clap"]], np.float64)
                med = f"{np.nanmedian(nv):.2f}" if np.isfinite(nv).any() else "-"
                cells.append(f"{med}, {auc(pv, nv):.2f}")
            mv = np.array([r[fn] for r in pos if r["missed"]], np.float64)
            pm = f"{np.nanmedian(pv):.2f}" if np.isfinite(pv).any() else "-"
            print(f"| {fn} | {pm} | " + " | ".join(cells) + f" | {auc(pv, allneg):.2f} | {auc(mv, allneg):.2f} |")


def nested(rows: list[dict[str, Any]], feature: str, lo: float = -3.0, hi: float = 0.0) -> None:
    """The rule at burst level, nested: a burst not emitted with ``lo <= t - T < hi`` is a clap when
    ``feature`` >= L; L per held-out source maximises (clap bursts lifted - noise bursts lifted) over the
    *other* sources' bursts in the band (mixes and negatives), ties to the higher L. Counts what the
    held-out sources' own bursts would gain: missed claps found and noise bursts let through."""
    band = [r for r in rows if lo <= r["t_minus_T"] < hi and not r["clap_emitted"]]
    levels = sorted({r[feature] for r in band if np.isfinite(r[feature])}) + [np.inf]
    found: dict[str, int] = {}
    let: dict[str, int] = {}
    picks = {}
    for s in sorted({r["source"] for r in band}):
        other = [r for r in band if r["source"] != s]
        best = max(levels, key=lambda L: (sum(r["is_clap"] for r in other if r[feature] >= L)
                                          - sum(not r["is_clap"] for r in other if r[feature] >= L), L))
        picks[s] = best
        for r in band:
            if r["source"] == s and r[feature] >= best:
                d = found if r["is_clap"] and r["missed"] else let
                if r["is_clap"] and not r["missed"]:
                    continue
                d[r["where"]] = d.get(r["where"], 0) + 1
    print(f"\nnested rule on {feature}, t - T in [{lo:g}, {hi:g}): L per held-out source "
          + ", ".join(f"{s} {v:.3f}" for s, v in picks.items()))
    print("  missed claps found: " + (", ".join(f"{w} {n}" for w, n in sorted(found.items())) or "none")
          + "; noise bursts let through: " + (", ".join(f"{w} {n}" for w, n in sorted(let.items())) or "none"))


def operating(rows: list[dict[str, Any]], feature: str, lo: float = -3.0, hi: float = 0.0) -> None:
    """In sample, for the picture: at the level the 90 / 95 / 100 % quantile of the noise bursts in the band,
    the missed claps over it and the noise bursts over it, per mix."""
    band = [r for r in rows if lo <= r["t_minus_T"] < hi]
    neg = np.array([r[feature] for r in band if not r["is_clap"]], np.float64)
    for q in (0.90, 0.95, 1.0):
        cut = float(np.nanquantile(neg, q))
        up: dict[str, int] = {}
        over: dict[str, int] = {}
        for r in band:
            if r[feature] > cut and (r["missed"] or not r["is_clap"]):
                d = up if r["is_clap"] else over
                d[r["where"]] = d.get(r["where"], 0) + 1
        print(f"  {feature} over {cut:.3f} (noise q{q:.2f}), t - T in [{lo:g}, {hi:g}): missed claps "
              + (", ".join(f"{w} {n}" for w, n in sorted(up.items())) or "none") + "; noise bursts "
              + (", ".join(f"{w} {n}" for w, n in sorted(over.items())) or "none"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--folds", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--block", type=int, default=512)
    ap.add_argument("--rows", default="speech:0,babble:10,pink:10")
    ap.add_argument("--reuse", action="store_true", help="read HPSS_BURSTS.json instead of streaming")
    args = ap.parse_args()
    if data_refused(SHARED_DATA):
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "HPSS_BURSTS.json"
    if args.reuse:
        rows = json.loads(path.read_text())
    else:
        rows = collect(args, load_folds(args.folds))
        path.write_text(json.dumps(rows))
    table(rows)
    for fn in ("c20_perc_mid", "c20_perc_share", "c64_perc_mid", "causal_perc_over_mix_db", "c130_perc_share",
               "c130_perc_mid"):
        nested(rows, fn)
        nested(rows, fn, -1.5, 0.0)
        operating(rows, fn)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
