#!/usr/bin/env python3
"""The thirty-first pass (docs/claps_history.md): the trees refit with the vetoes' features as inputs.

Declared in ``sensekit/evaluation/audio/clap_extra_inputs.py`` (which features, how they enter the
trees, the folds, the ship rule) before any held-out figure.

``--build --patch PATCH.npz``: every clip and its augmented copies made again (``clap_training.collect``,
``AUGMENTATIONS``), each burst's ``EXTRA`` measured on its copy at its peak sample; the bursts' rows are
checked equal to ``PATCH.npz``'s (the seventeenth pass's cache, less its ``sp0`` copies, which no fold
trains on), kept in ``--out/EXTRA.npz``. Then the 14 folds fitted on ``FEATURES + EXTRA``
(``clap_training.train(leave_out=[s])``, nothing else changed) and each held-out source's threshold
nested (``clap_folds.nested_thresholds`` on the other sources' folds), written as a folds folder
``--out/refit`` (``TREES.json``, ``WAIT_FOLDS.json`` with the refit ``T``; the ring's trees and log-mel
weights of ``--folds``). Controls: today's ``T`` nested the same way from ``--folds``' trees, and one
fold (``--control``) refit on ``FEATURES`` alone against ``--folds``' trees.

Default (stream): every source's clips through ``clap_false_claps.py``'s ``Recorder`` and ``stream_rows``
with the refit folds (``RefitDetector``: ``EXTRA`` measured on the detector's buffer when the trees
look), 512-sample blocks, route off; the per-source table, the delays, the bar and every false clap, at
each offset; then the noise curve. The untouched side is ``clap_false_claps.py --folds`` the same folds.

``--cost CLIP``: us per 512-sample block of the shipped ``ClapDetector`` and of a ``RefitDetector``
(fold ``--control``'s refit trees and wait; otherwise the shipped settings, the floor route on) on one
clip, interleaved in the same process (best of 5 each), and the ratio.

The thirty-second pass (``sensekit/evaluation/audio/clap_renest.py``, declared there): ``--renest DIR`` (DIR:
``clap_mel_wait.py``'s folder, ``SCORES_130_late_above_db.npz``, ``DELAYS_today_0_517.json``, ``MELS.npz``)
nests the close-call wait's margin, log-mel weights, rule and theta again for ``--folds``' (refit) trees, as
``clap_mel_wait.py`` did for today's, and writes the folds folder ``--out/renest`` (``--folds``' trees, ``T`` and
ring's trees; the new wait), which the default run then streams. ``--renest-control TODAY``: the same recipe on
today's folds (``TODAY``'s trees, their fold scores in ``SCORES_130``) must give ``TODAY``'s wait.

Usage: .venv/bin/python benchmarks/clap_refit_inputs.py --folds /tmp/claps30 --out /tmp/claps40 --build \\
           --patch /tmp/claps20/PATCH.npz
       .venv/bin/python benchmarks/clap_refit_inputs.py --folds /tmp/claps40/refit --out /tmp/claps40
       .venv/bin/python benchmarks/clap_refit_inputs.py --folds /tmp/claps40/refit --out /tmp/claps41 \\
           --renest /tmp/claps26 --extra /tmp/claps40/EXTRA.npz [--renest-control /tmp/claps30]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from _reference import SHARED_DATA, data_refused
from clap_false_claps import Folds, Recorder, bar_table, fold_parser, folds_and_sources, report, stream_rows
from clap_ring_stream import delays

from sensekit.audio.clap_wait import WaitModel
from sensekit.evaluation.audio.clap_mel_score import LinearScore
from sensekit.evaluation.audio import clap_training as ct
from sensekit.evaluation.audio.clap_extra_inputs import EXTRA, RefitDetector, extra_inputs
from sensekit.evaluation.audio.clap_folds import nested_thresholds
from sensekit.evaluation.audio.clap_renest import fill_missing, own_margin

KEYS = ("source", "background", "variant", "clip")


def say(m: str) -> None:
    print(f"# {time.strftime('%H:%M:%S')} {m}", file=sys.stderr, flush=True)


def collect_extra(out: Path, patch: Path) -> ct.Bursts:
    """The training bursts with ``EXTRA`` (``out/EXTRA.npz`` when there), checked against ``patch``."""
    z = np.load(patch, allow_pickle=False)
    keep = z["variant"] != ct.SPEECH0
    meta = {k: z[k].tolist() for k in ("on_k", "on_v", "lab_k", "lab_v")}
    b = ct.Bursts(z["X"][keep], z["y"][keep], z["source"][keep], z["background"][keep], z["variant"][keep],
                  z["clip"][keep], dict(zip(meta["on_k"], meta["on_v"])), dict(zip(meta["lab_k"], meta["lab_v"])))
    cache = out / "EXTRA.npz"
    if not cache.is_file():
        got = ct.collect(SHARED_DATA, extra=extra_inputs, progress=lambda f: None)
        assert got.E is not None
        same = (got.X.shape == b.X.shape and np.array_equal(got.X, b.X, equal_nan=True)
                and np.array_equal(got.y, b.y) and all(np.array_equal(getattr(got, k), getattr(b, k)) for k in KEYS))
        if not same:
            raise SystemExit(f"the bursts made again differ from {patch}'s: {got.X.shape} against {b.X.shape}")
        np.savez_compressed(cache, E=got.E)
        say(f"{len(got.y)} bursts made again, equal to {patch}'s rows; EXTRA kept in {cache}")
    b.E = np.load(cache)["E"]
    return b


def fold_scores(b: ct.Bursts, models: dict[str, Any]) -> dict[str, np.ndarray]:
    return {s: ct.scores(b, m) for s, m in models.items()}


def build(args: argparse.Namespace) -> int:
    b = collect_extra(args.out, args.patch)
    assert b.E is not None
    wide = ct.Bursts(np.hstack([b.X, b.E]), b.y, b.source, b.background, b.variant, b.clip, b.onsets, b.labels)
    old = json.loads((args.folds / "TREES.json").read_text())["models"]
    wait = json.loads((args.folds / "WAIT_FOLDS.json").read_text())
    sources = sorted(old)
    models = {}
    for s in sources:
        say(f"refit without {s}")
        models[s] = ct.train(wide, leave_out=[s])
    T = nested_thresholds(wide, fold_scores(wide, models))
    say("refit T nested: " + ", ".join(f"{s} {v:g}" for s, v in T.items()))
    d = args.out / "refit"
    d.mkdir(parents=True, exist_ok=True)
    (d / "TREES.json").write_text(json.dumps({"models": models, "extra": list(EXTRA)}))
    (d / "WAIT_FOLDS.json").write_text(json.dumps({s: {**wait[s], "T": T[s]} for s in sources}))
    for name in ("RING_130_late_above_db.json", "MEL_LR.json"):
        (d / name).unlink(missing_ok=True)
        (d / name).symlink_to((args.folds / name).resolve())
    control = ct.train(b, leave_out=[args.control])
    say(f"control: {args.control}'s fold refit on FEATURES equals --folds' trees: {control == old[args.control]}")
    today = nested_thresholds(b, fold_scores(b, old))
    was = ", ".join(f"{s} {wait[s]['T']:g}" for s in sources)
    say("control: today's T nested from --folds' trees: " + ", ".join(f"{s} {v:g}" for s, v in today.items())
        + f" (WAIT_FOLDS.json: {was})")
    return 0


def save_renested(d: Path, got: dict[str, dict[str, Any]], folds: Path) -> None:
    """``nest_wait``'s waits as a folds folder ``d`` (``WAIT_FOLDS.json``, ``MEL_LR.json``) beside links
    to ``folds``' trees and ring thresholds."""
    sources = sorted(got)
    d.mkdir(parents=True, exist_ok=True)
    (d / "WAIT_FOLDS.json").write_text(json.dumps({s: {k: v for k, v in got[s].items() if k != "lr"}
                                                   for s in sources}))
    (d / "MEL_LR.json").write_text(json.dumps({s: got[s]["lr"].to_json() for s in sources}))
    for name in ("TREES.json", "RING_130_late_above_db.json"):
        (d / name).unlink(missing_ok=True)
        (d / name).symlink_to((folds / name).resolve())
    say(f"renested folds in {d}")


def nest_wait(b: ct.Bursts, so: dict[str, np.ndarray], sr: dict[str, np.ndarray], T: dict[str, float],
              mel_dir: Path, delays: Path | None = None) -> dict[str, dict[str, Any]]:
    """Each source's wait nested on the other sources (``clap_renest``'s recipe): the fold's ``T``, margin,
    rule, theta and log-mel score (``"lr"``), for trees whose fold scores are ``so`` (NaN: not scored).
    ``delays``: the streamed decision delays the latency caps come from (default ``mel_dir``'s, today's
    trees'; the thirty-fifth pass passes the candidate trees' own)."""
    from clap_mel_wait import TRAIN_MARGIN, choose

    from sensekit.evaluation.audio import clap_ring_wait as rw
    from sensekit.evaluation.audio.clap_mel_score import fit_linear

    sources = sorted(so)
    got = json.loads((delays or mel_dir / "DELAYS_today_0_517.json").read_text())
    caps = rw.latency_caps({s: np.asarray(v, np.float64) for s, v in got.items()}, 1.0)
    w = rw.nested_waits(b, so, sr, T, ring_thresholds=dict(T), max_recorded=caps)
    say("latency caps: " + ", ".join(f"{s} {caps[s]:.3f}" for s in sources))
    say("margins nested: " + ", ".join(f"{s} {w[s][0]:g}" for s in sources))
    d = own_margin(b.source, so, T)
    z = np.load(mel_dir / "MELS.npz")
    idx, M = z["idx"], z["short"]
    have = np.zeros(len(b.y), bool)
    have[idx] = True
    every = (np.abs(np.nan_to_num(d, nan=np.inf)) < TRAIN_MARGIN) & (b.y >= 0) & (b.variant != ct.SPEECH0)
    say(f"close calls (|t - T| < {TRAIN_MARGIN:g}, own fold): {int(every.sum())}, without a log-mel "
        f"{int((every & ~have).sum())}")
    F = np.column_stack([M.reshape(len(M), -1).astype(np.float64), d[idx]])
    y, src = b.y[idx], b.source[idx]
    train = every[idx]
    ms = np.full(len(b.y), np.nan)
    out: dict[str, dict[str, Any]] = {}
    for s in sources:
        lr = fit_linear(F[train & (src != s)], y[train & (src != s)])
        ms[idx[src == s]] = lr(F[src == s])
        out[s] = {"T": T[s], "margin": w[s][0], "lr": lr}
    for s in sources:
        others = [o for o in sources if o != s]
        close = np.zeros(len(b.y), bool)
        for o in others:
            k = b.source == o
            close[k] = rw.waits(np.nan_to_num(so[o][k], nan=np.inf), threshold=T[s], margin=out[s]["margin"])
        filled, gap = fill_missing(ms, close & (b.y >= 0) & (b.variant != ct.SPEECH0))
        rule, theta, crit = choose(b, so, sr, filled, T[s], out[s]["margin"], others)
        if rule != "sum":
            say(f"{s} chose {rule} (theta {theta:g}, {crit:.4f}): the sum rule's best theta instead")
            rule, theta, crit = choose(b, so, sr, filled, T[s], out[s]["margin"], others, "sum")
        out[s].update(rule=rule, theta=theta)
        say(f"{s}: T {T[s]:g}, margin {out[s]['margin']:g}, {rule}, theta {theta:g} (criterion {crit:.4f}; "
            f"close calls of the others without a log-mel, scored 0: {gap} of {int(close.sum())})")
    return out


def renest(args: argparse.Namespace) -> int:
    """``--renest``: the wait nested again for ``--folds``' trees; the folds folder ``--out/renest``."""
    from clap_mel_wait import RING

    from sensekit.audio.clap_features import TreeModel

    b = ct.collect_cached(SHARED_DATA, args.patch)
    keep = b.variant != ct.SPEECH0
    wide = np.hstack([b.X[keep], np.load(args.extra)["E"]])
    trees = json.loads((args.folds / "TREES.json").read_text())["models"]
    folds = json.loads((args.folds / "WAIT_FOLDS.json").read_text())
    sources = sorted(trees)
    z = np.load(args.renest / f"SCORES_130_{RING}.npz")
    sr = {s: z[f"r_{s}"] for s in sources}
    if args.renest_control is not None:
        today = json.loads((args.renest_control / "WAIT_FOLDS.json").read_text())
        got = nest_wait(b, {s: z[f"o_{s}"] for s in sources}, sr, {s: float(today[s]["T"]) for s in sources},
                        args.renest)
        lr0 = json.loads((args.renest_control / "MEL_LR.json").read_text())
        for s in sources:
            same = all(got[s][k] == today[s][k] for k in ("T", "margin", "rule", "theta"))
            say(f"control {s}: margin {got[s]['margin']:g}, theta {got[s]['theta']:g}, equal to "
                f"{args.renest_control}'s wait: {same}; log-mel weights equal: "
                f"{np.allclose(got[s]['lr'].w, LinearScore.from_json(lr0[s]).w)}")
    so = {}
    for s in sources:
        tm = TreeModel(trees[s])
        so[s] = np.full(len(b.y), np.nan)
        so[s][keep] = [tm.score(v) for v in wide]
    T = {s: float(folds[s]["T"]) for s in sources}
    got = nest_wait(b, so, sr, T, args.renest)
    save_renested(args.out / "renest", got, args.folds)
    return 0


class RefitRecorder(Recorder, RefitDetector):
    """``Recorder`` (what decided each clap) on a ``RefitDetector`` (the trees see ``EXTRA``)."""


def maker(s: str, folds_: Folds, made: list[RefitRecorder]) -> Any:
    trees, folds, ring, lr = folds_
    f = folds[s]
    wm = WaitModel(ring[s], f["T"], f["margin"], f["theta"], lr[s].w, lr[s].b)

    def make() -> RefitRecorder:
        det = RefitRecorder(lr[s], None, model=trees[s], threshold=f["T"], noise_route=False, wait_model=wm)
        made.append(det)
        return det
    return make


def stream(args: argparse.Namespace, folds_: Folds, sources: list[str]) -> None:
    from sensekit.evaluation.audio.evaluate import format_sources

    for off in [int(v) for v in args.offsets.split(",")]:
        made: list[RefitRecorder] = []
        per, hits = stream_rows(args, sources, off, lambda s: maker(s, folds_, made), made)
        rows = [{**row, "t": t, "source": s, "clip": r.clip.file, "label": r.clip.label, "kind": kind, "true": true}
                for s, r, row, t, kind, true in hits]
        print(format_sources(per, title=f"refit off {off}"))
        print(f"decision delay (refit, off {off}): {delays(made)}", flush=True)
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / f"REFIT_{off}.json").write_text(json.dumps(rows))
        report(rows, off)
        bar_table(per, rows, off)
    if not args.no_curve:
        from sensekit.evaluation.audio.clap_noise import format_curve, noise_curve

        made_c: list[RefitRecorder] = []
        points = noise_curve(SHARED_DATA, offsets=[int(v) for v in args.offsets.split(",")], block=args.block,
                             make_for=lambda s: maker(s, folds_, made_c), only_sources=sources,
                             kinds=args.kinds.split(","), snrs_db=[float(v) for v in args.snrs.split(",")])
        print("noise curve: refit, leave-one-source-out (nested)")
        print(format_curve(points))
        print(f"decision delay (refit, noise curve): {delays(made_c)}", flush=True)


def cost(args: argparse.Namespace, folds_: Folds, clip: Path, rounds: int = 5) -> None:
    """us per block of the shipped detector and of a RefitDetector on ``clip``, interleaved."""
    from sensekit.audio.clap import ClapDetector
    from sensekit.audio.clap_model import MODEL
    from sensekit.audio.clap_wait import SHIPPED
    from sensekit.evaluation.audio.evaluate import read_wav

    x, rate = read_wav(clip)
    trees, folds, ring, lr = folds_
    f, n, s = folds[args.control], len(range(0, len(x), args.block)), args.control
    wm = WaitModel(ring[s], f["T"], f["margin"], f["theta"], lr[s].w, lr[s].b)

    looks = [0]

    def run(make: Any) -> float:
        det = make()
        t0 = time.perf_counter()
        for k, i in enumerate(range(0, len(x), args.block)):
            det.process(x[i:i + args.block], i / rate, rate, index=k)
        looks[0] = getattr(det, "measured", looks[0])
        return (time.perf_counter() - t0) / n * 1e6

    makers = {"shipped": ClapDetector,
              "inputs only": lambda: RefitDetector(model=MODEL, wait_model=SHIPPED),
              "refit": lambda: RefitDetector(model=trees[s], threshold=f["T"], wait_model=wm)}
    best = dict.fromkeys(makers, float("inf"))
    for _ in range(rounds):
        for name, make in makers.items():
            best[name] = min(best[name], run(make))
    print(f"{clip.name} ({len(x) / rate:.1f} s, {n} blocks of {args.block}), best of {rounds}, us/block: shipped "
          f"{best['shipped']:.1f}; the shipped trees and wait with the extra inputs measured (their cost alone) "
          f"{best['inputs only']:.1f}, ratio {best['inputs only'] / best['shipped']:.2f}; refit ({s}'s fold, its T "
          f"and wait) {best['refit']:.1f}, ratio {best['refit'] / best['shipped']:.2f}; the extra inputs measured on "
          f"{looks[0]} bursts")
    t0 = time.perf_counter()
    for k in range(200):
        extra_inputs(x, len(x) // 4 + 97 * k, rate)
    print(f"extra_inputs: {(time.perf_counter() - t0) / 200 * 1e6:.0f} us a call at {rate} Hz")


def main() -> int:
    ap = fold_parser(__doc__)
    ap.add_argument("--build", action="store_true")
    ap.add_argument("--patch", type=Path, default=Path("/tmp/claps20/PATCH.npz"))
    ap.add_argument("--control", default="km")
    ap.add_argument("--cost", type=Path, default=None)
    ap.add_argument("--renest", type=Path, default=None, help="clap_mel_wait.py's folder: nest the wait again")
    ap.add_argument("--renest-control", type=Path, default=None, help="today's folds: the recipe must give theirs")
    ap.add_argument("--extra", type=Path, default=Path("/tmp/claps40/EXTRA.npz"))
    args = ap.parse_args()
    if args.build:
        return build(args)
    if args.renest is not None:
        return 2 if data_refused() else renest(args)
    loaded = folds_and_sources(args)
    if loaded is None:
        return 2
    folds_, sources = loaded
    if args.cost is not None:
        cost(args, folds_, args.cost)
        return 0
    stream(args, folds_, sources)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
