#!/usr/bin/env python3
"""Today's 14 held-out fold detectors made again from the clips, in one folder (docs/claps_history.md).

The passes since the twenty-sixth stream today's folds from a folder of four files (``clap_false_claps.py
--folds DIR``): the trees (``TREES.json``), the close-call wait (``WAIT_FOLDS.json``: ``T``, margin, rule,
theta), the ring's trees (``RING_130_late_above_db.json``) and the log-mel weights (``MEL_LR.json``); and the
re-nesting passes read the twenty-third pass's folder (``SCORES_130_late_above_db.npz``,
``DELAYS_today_0_517.json``, ``MELS.npz``). Those lived in /tmp/claps20, /tmp/claps26, /tmp/claps27 and
/tmp/claps30, built over eight passes by eight scripts (some through a look that needs torch). This makes
all of them in ``--out``, each stage skipped when its file is there, each timed:

1. ``PATCH.npz`` (``clap_training.collect_cached``, every copy and ``sp0``, with patches) and ``TREES.json``
   (``clap_training.train(leave_out=[s])`` on every burst but ``sp0``): the seventeenth pass's recipe.
2. ``MARGIN.npy``: each burst's ``t - T`` by its own source's fold (``clap_general_look.tree_margins``).
3. One more pass over every copy (``clap_ring_look.collect_checked``, checked equal to ``PATCH.npz``'s rows)
   measuring at once what three passes measured: ``EXTRA.npz`` (``clap_ring_look.burst_inputs``),
   ``VOICED130.npz`` (voicing 50-130 ms after the peak) and ``MELS.npz`` (the log-mel windows of every
   burst with ``|t - T| < 4``, as ``clap_general_look.mels``).
4. ``RING_130_late_above_db.json`` and ``SCORES_130_late_above_db.npz`` (``clap_ring_wait.fold_scores``).
5. ``DELAYS_today_0_517.json`` (``clap_ring_stream.today_delays``: each fold's trees streamed on its own
   clips at offsets 0 and 517, route off).
6. ``WAIT_FOLDS.json`` and ``MEL_LR.json``: the wait nested per held-out source on the others
   (``clap_refit_inputs.nest_wait``, the recipe whose control gave today's wait in the thirty-second pass).

Checked at the end against the folds the history reports: ``T`` 0 (sharwin 2), margin 1.5 (sharwin 1),
the sum rule, theta -0.75 or -1 (sharwin 0). On 28 Nov 2026 k's fold came out at margin 1 (its cap from
the delays streamed that day 0.140): then ``WAIT_FOLDS_recorded.json`` keeps the recorded margin of each
such fold with its rule and theta nested there again (k: theta -1, the recorded one). The held-out
control is ``clap_false_claps.py --folds`` on a folder linking ``TREES.json``, ``RING_130_late_above_db.json``,
``MEL_LR.json`` and that file as ``WAIT_FOLDS.json`` (18 negative clips, 73 false claps at offset 0).

Usage: .venv/bin/python benchmarks/clap_rebuild_folds.py --out DIR
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

# before numpy: the log-mel's product took 130 ms a burst with OpenBLAS's threads on a loaded machine, 0.3 ms
# without (the twentieth pass); the first try of this script spent over 15 minutes in stage 3 that way
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np
from _reference import SHARED_DATA, data_refused

MEL_WITHIN = 4.0      # the twentieth pass's widest margin: MELS.npz holds every burst with |t - T| < 4
RING = "late_above_db"


def say(m: str) -> None:
    print(f"# {m}", file=sys.stderr, flush=True)


class Stage:
    """Times a stage and says so."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __enter__(self) -> Stage:
        self.t0 = time.perf_counter()
        say(f"{self.name} ...")
        return self

    def __exit__(self, *exc: object) -> None:
        say(f"{self.name}: {time.perf_counter() - self.t0:.0f} s")


def patch_and_trees(out: Path) -> tuple[Any, dict[str, Any]]:
    from sensekit.evaluation.audio import clap_training as ct

    with Stage("1a PATCH.npz"):
        b = ct.collect_cached(SHARED_DATA, out / "PATCH.npz", augment=ct.AUGMENTATIONS + (ct.SPEECH0,),
                              patches=True)
    path = out / "TREES.json"
    if path.is_file():
        return b, json.loads(path.read_text())["models"]
    with Stage("1b TREES.json"):
        train = b.variant != ct.SPEECH0
        tb = ct.Bursts(b.X[train], b.y[train], b.source[train], b.background[train], b.variant[train],
                       b.clip[train], b.onsets, b.labels)
        models = {s: ct.train(tb, leave_out=[s]) for s in sorted(set(b.source) - {ct.SYNTH})}
        path.write_text(json.dumps({"models": models}))
    return b, models


def one_pass(out: Path, keep: np.ndarray) -> None:
    """EXTRA.npz, VOICED130.npz and MELS.npz (the log-mel of the bursts with ``keep``) from one pass over
    every copy."""
    from clap_general_look import WINDOWS
    from clap_ring_look import NAMES, burst_inputs, collect_checked

    from sensekit.audio.clap_wait import log_mel, voicing

    paths = [out / n for n in ("EXTRA.npz", "VOICED130.npz", "MELS.npz")]
    if all(p.is_file() for p in paths):
        return
    extra: list[tuple[float, ...]] = []
    voiced: list[float] = []
    mel: dict[str, list[np.ndarray]] = {k: [] for k in WINDOWS}
    idx: list[int] = []

    def seen(x: np.ndarray, rate: int, feats: list[Any]) -> None:
        y = np.asarray(x, np.float64)
        first = len(voiced)
        extra.extend(burst_inputs(y, rate, feats))
        for i, f in enumerate(feats, start=first):
            p = round(f.t_peak * rate)
            voiced.append(voicing(y, p + round(0.050 * rate), p + round(0.130 * rate), rate))
            if i < len(keep) and keep[i]:
                idx.append(i)
                for k, w in WINDOWS.items():
                    mel[k].append(log_mel(y, rate, p, w))

    with Stage("3 EXTRA.npz, VOICED130.npz, MELS.npz (one pass)"):
        collect_checked(out / "PATCH.npz", seen)
        np.savez(paths[0], E=np.array(extra), names=np.array(NAMES))
        np.savez(paths[1], v=np.array(voiced))
        arrays: dict[str, Any] = {"idx": np.array(idx), **{k: np.stack(v) for k, v in mel.items()}}
        np.savez(paths[2], **arrays)
        say(f"{len(voiced)} bursts; the log-mel of {len(idx)}")


def recorded_wait(out: Path, b: Any, so: dict[str, np.ndarray], sr: dict[str, np.ndarray],
                  wait: dict[str, dict[str, Any]], margins: dict[str, float]) -> list[str]:
    """``WAIT_FOLDS_recorded.json``: the rebuilt wait, but each fold whose margin is not the recorded one
    (``margins``) at that margin, with its rule and theta nested there again on its other sources
    (``clap_mel_wait.choose``, the log-mel scores of ``MEL_LR.json``). The folds changed."""
    from clap_mel_wait import choose

    from sensekit.evaluation.audio import clap_ring_wait as rw
    from sensekit.evaluation.audio import clap_training as ct
    from sensekit.evaluation.audio.clap_mel_score import LinearScore
    from sensekit.evaluation.audio.clap_renest import fill_missing, own_margin

    sources = sorted(wait)
    lr = {s: LinearScore.from_json(v) for s, v in json.loads((out / "MEL_LR.json").read_text()).items()}
    z = np.load(out / "MELS.npz")
    idx, M = z["idx"], z["short"]
    d = own_margin(b.source, so, {s: float(wait[s]["T"]) for s in sources})
    F = np.column_stack([M.reshape(len(M), -1).astype(np.float64), d[idx]])
    ms = np.full(len(b.y), np.nan)
    for s in sources:
        ms[idx[b.source[idx] == s]] = lr[s](F[b.source[idx] == s])
    got = {s: dict(v) for s, v in wait.items()}
    changed = [s for s in sources if wait[s]["margin"] != margins[s]]
    for s in changed:
        others = [o for o in sources if o != s]
        close = np.zeros(len(b.y), bool)
        for o in others:
            k = b.source == o
            close[k] = rw.waits(np.nan_to_num(so[o][k], nan=np.inf), threshold=wait[s]["T"], margin=margins[s])
        filled, _ = fill_missing(ms, close & (b.y >= 0) & (b.variant != ct.SPEECH0))
        rule, theta, _ = choose(b, so, sr, filled, wait[s]["T"], margins[s], others, "sum")
        got[s].update(margin=margins[s], rule=rule, theta=theta)
        say(f"{s} at the recorded margin {margins[s]:g}: {rule}, theta {theta:g} (rebuilt: margin "
            f"{wait[s]['margin']:g}, theta {wait[s]['theta']:g})")
    (out / "WAIT_FOLDS_recorded.json").write_text(json.dumps(got))
    return changed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--block", type=int, default=512)
    args = ap.parse_args(argv)
    if data_refused():
        return 2
    from clap_general_look import tree_margins
    from clap_ring_stream import today_delays
    from clap_ring_wait import fold_scores, ring_column

    from sensekit.evaluation.audio import clap_folds as cf

    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    t_all = time.perf_counter()
    b, trees = patch_and_trees(out)
    sources = sorted(trees)
    if (out / "MARGIN.npy").is_file():
        d = np.load(out / "MARGIN.npy")
    else:
        with Stage("2 MARGIN.npy"):
            d, _ = tree_margins(b, trees)
            np.save(out / "MARGIN.npy", d)
    # clap_general_look.mels kept every labelled burst of its widest margin
    one_pass(out, (np.abs(np.nan_to_num(d, nan=np.inf)) < MEL_WITHIN) & (b.y >= 0))
    E = np.load(out / "EXTRA.npz")["E"]
    v = np.load(out / "VOICED130.npz")["v"]
    with Stage("4 RING_130_late_above_db.json, SCORES_130_late_above_db.npz"):
        Xn = np.column_stack([b.X, ring_column(E, RING), v])
        so, sr = fold_scores(b, Xn, trees, sources, out, f"130_{RING}")
    T = cf.nested_thresholds(b, so)
    say("T nested: " + ", ".join(f"{s} {T[s]:g}" for s in sources))
    with Stage("5 DELAYS_today_0_517.json"):
        ns = argparse.Namespace(out=out, offsets="0,517", block=args.block)
        today_delays(ns, sources, trees, T)
    if not (out / "WAIT_FOLDS.json").is_file():
        from clap_refit_inputs import nest_wait
        with Stage("6 WAIT_FOLDS.json, MEL_LR.json"):
            got = nest_wait(b, so, sr, T, out)
            (out / "WAIT_FOLDS.json").write_text(json.dumps({s: {k: val for k, val in got[s].items() if k != "lr"}
                                                             for s in sources}))
            (out / "MEL_LR.json").write_text(json.dumps({s: got[s]["lr"].to_json() for s in sources}))
    wait = json.loads((out / "WAIT_FOLDS.json").read_text())
    want_T = {s: (2.0 if s == "sharwin" else 0.0) for s in sources}
    want_m = {s: (1.0 if s == "sharwin" else 1.5) for s in sources}
    ok = all(wait[s]["T"] == want_T[s] and wait[s]["margin"] == want_m[s] and wait[s]["rule"] == "sum"
             and wait[s]["theta"] in ((0.0,) if s == "sharwin" else (-0.75, -1.0)) for s in sources)
    for s in sources:
        say(f"{s}: T {wait[s]['T']:g}, margin {wait[s]['margin']:g}, {wait[s]['rule']}, theta {wait[s]['theta']:g}")
    say(f"the folds as the history reports them (T 0 / sharwin 2, margin 1.5 / sharwin 1, sum, theta -0.75..-1 / "
        f"sharwin 0): {ok}; all stages {time.perf_counter() - t_all:.0f} s")
    if not ok:
        changed = recorded_wait(out, b, so, sr, wait, want_m)
        say(f"WAIT_FOLDS_recorded.json: the recorded margins in {', '.join(changed) or 'no fold'}; link it as "
            "WAIT_FOLDS.json beside TREES.json, RING_130_late_above_db.json and MEL_LR.json for the control")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
