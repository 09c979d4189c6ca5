#!/usr/bin/env python3
"""The thirty-sixth pass (docs/claps_history.md): the Model M's key strokes only under the claps.

Declared in ``sensekit/evaluation/audio/clap_keyboard.py`` (the copies, the fit, the ship rule) before
any held-out figure.

``--build``: the developer bursts (``--patch``, ``PATCH.npz`` less its ``sp0`` copies), the keyboard
mixes (``clap_keyboard.keyboard_mixes`` over the thirty-third pass's keyboard clips from ``--cache``,
kept in ``--out/KB.npz``), the control (each ``--control-folds`` fold refit without the copies must equal
``--folds``' trees), the 14 folds refit with the copies, each held-out source's ``T`` nested on the other
sources' developer bursts (kept in ``--out/KB_FOLDS.json``), written as the folds folder
``--out/keyboard_mix`` (``TREES.json``, ``WAIT_FOLDS.json`` with the new ``T``; the ring's trees and
log-mel weights of ``--folds``), which ``clap_false_claps.py --folds`` streams held out.
``--today-t``: the same trees at ``--folds``' ``T`` (folder ``keyboard_mix_today_t``; a step, not a
candidate). ``--folders``: only the folders, from ``KB_FOLDS.json`` (when ``--folds``' wait was not
there yet at ``--build``).

``--judge-folds DIR``: the keyboard clips through each of ``DIR``'s 14 fold detectors (route off, offset
0): claps on its key bursts, min / median / max over the folds.

Usage: .venv/bin/python benchmarks/clap_keyboard_background.py --cache /tmp/s45/claps44/deb \\
           --out /tmp/s45/claps45 --build --folds /tmp/s45/claps44/c20 --patch /tmp/s45/claps45/PATCH.npz
       .venv/bin/python benchmarks/clap_false_claps.py --folds /tmp/s45/claps45/keyboard_mix \\
           --out /tmp/s45/claps45/stream
       .venv/bin/python benchmarks/clap_keyboard_background.py --cache /tmp/s45/claps44/deb \\
           --judge-folds /tmp/s45/claps45/keyboard_mix
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
from clap_debian_sources import developer, link_folds

from sensekit.evaluation.audio import clap_keyboard as ck
from sensekit.evaluation.audio import clap_training as ct
from sensekit.evaluation.audio.clap_debian import DebianSourceError
from sensekit.evaluation.audio.clap_folds import nested_thresholds
from sensekit.evaluation.audio.clap_words import joined


def say(m: str) -> None:
    print(f"# {time.strftime('%H:%M:%S')} {m}", file=sys.stderr, flush=True)


def keyboard_bursts(cache: Path, out: Path) -> ct.Bursts:
    """The keyboard mixes, kept in ``out/KB.npz`` (read when it exists)."""
    f = out / "KB.npz"
    if not f.is_file():
        b = ck.keyboard_mixes(SHARED_DATA, ck.keyboard_clips(cache))
        np.savez_compressed(f, X=b.X, y=b.y, source=b.source, background=b.background, variant=b.variant,
                            clip=b.clip, on_k=list(b.onsets), on_v=list(b.onsets.values()),
                            lab_k=list(b.labels), lab_v=list(b.labels.values()))
    z = np.load(f, allow_pickle=False)
    return ct.Bursts(z["X"], z["y"], z["source"], z["background"], z["variant"], z["clip"],
                     dict(zip(z["on_k"].tolist(), z["on_v"].tolist())),
                     dict(zip(z["lab_k"].tolist(), z["lab_v"].tolist())))


def write_folds(out: Path, folds: Path, models: dict[str, Any], T: dict[str, float]) -> None:
    """The folds folder ``out`` of ``models`` at ``T``, with ``folds``' wait, ring and log-mel weights."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "TREES.json").write_text(json.dumps({"models": models}))
    link_folds(out, folds, {s: T[s] for s in sorted(models)})


def build(args: argparse.Namespace) -> int:
    b = developer(args.patch)
    k = keyboard_bursts(args.cache, args.out)
    for v in ck.COPIES:
        m = k.variant == v
        say(f"{v}: {len(set(k.clip[m].tolist()))} clap clips, {int((m & (k.y == 1)).sum())} claps, "
            f"{int((m & (k.y == 0)).sum())} other bursts (key strokes), {int((m & (k.y < 0)).sum())} ignored")
    say(f"developer bursts {len(b.y)}, keyboard mixes {len(k.y)}")
    old = json.loads((args.folds / "TREES.json").read_text())["models"]
    sources = sorted(old)
    for s in (args.control_folds.split(",") if args.control_folds else sources):
        say(f"control: {s}'s fold refit without the keyboard mixes equals --folds' trees: "
            f"{ct.train(b, leave_out=[s]) == old[s]}")
    both = joined(b, k)
    models: dict[str, Any] = {}
    for s in sources:
        models[s] = ct.train(both, leave_out=[s])
        say(f"refit without {s}, with the keyboard mixes")
    T = nested_thresholds(b, {s: ct.scores(b, m) for s, m in models.items()})
    say("T nested: " + ", ".join(f"{s} {v:g}" for s, v in T.items()))
    (args.out / "KB_FOLDS.json").write_text(json.dumps({"models": models, "T": T}))
    return folders(args)


def folders(args: argparse.Namespace) -> int:
    """The folds folders from ``--out/KB_FOLDS.json`` and ``--folds``' wait (once that folder is complete)."""
    got = json.loads((args.out / "KB_FOLDS.json").read_text())
    if not (args.folds / "WAIT_FOLDS.json").is_file():
        say(f"{args.folds} has no WAIT_FOLDS.json yet: run --folders when it has")
        return 1
    today = {s: float(v["T"]) for s, v in json.loads((args.folds / "WAIT_FOLDS.json").read_text()).items()}
    say("today's T: " + ", ".join(f"{s} {v:g}" for s, v in sorted(today.items())))
    write_folds(args.out / "keyboard_mix", args.folds, got["models"], got["T"])
    if args.today_t:
        write_folds(args.out / "keyboard_mix_today_t", args.folds, got["models"], today)
    return 0


def judge_folds(args: argparse.Namespace) -> int:
    """The keyboard clips through each of ``--judge-folds``' 14 fold detectors (route off, offset 0)."""
    from clap_false_claps import Recorder, fold_maker, load_folds

    from sensekit.evaluation.audio.evaluate import stream_claps

    clips = ck.keyboard_clips(args.cache)
    bursts = sum(len(ct.judged_bursts(x, r)) for x, r in clips)
    folds_ = load_folds(args.judge_folds)
    per: list[tuple[int, int]] = []
    for s in sorted(folds_[0]):
        made: list[Recorder] = []
        make = fold_maker(Recorder, s, folds_, made)
        got = [stream_claps(x, r, make=make) for x, r in clips]
        per.append((sum(map(len, got)), sum(1 for g in got if g)))
        say(f"{s}'s fold: {per[-1][0]} claps, {per[-1][1]}/{len(clips)} clips")
    n = np.array([a for a, _ in per])
    c = np.array([b for _, b in per])
    print(f"{ck.KEYBOARD} ({len(clips)} clips, {bursts} bursts) through the 14 folds of {args.judge_folds}: "
          f"claps {n.min()} / {np.median(n):g} / {n.max()} (min / median / max), clips with a clap "
          f"{c.min()}-{c.max()} of {len(clips)}", flush=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--cache", type=Path, required=True, help="the Debian packages' cache (clap_debian_sources "
                    "--fetch)")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--build", action="store_true")
    ap.add_argument("--folds", type=Path, default=Path("/tmp/claps30"), help="today's folds folder")
    ap.add_argument("--patch", type=Path, default=Path("/tmp/claps20/PATCH.npz"))
    ap.add_argument("--control-folds", default="eldar,sharwin", help="the folds the control refits")
    ap.add_argument("--today-t", action="store_true", help="also the new trees at --folds' T")
    ap.add_argument("--judge-folds", type=Path, default=None)
    ap.add_argument("--folders", action="store_true", help="only the folds folders from --out/KB_FOLDS.json")
    args = ap.parse_args()
    try:
        if args.judge_folds is not None:
            return judge_folds(args)
        if args.folders and args.out is not None:
            return folders(args)
        if args.build:
            if args.out is None:
                ap.error("--build needs --out")
            if data_refused():
                return 2
            args.out.mkdir(parents=True, exist_ok=True)
            return build(args)
    except DebianSourceError as e:
        print(f"clap_keyboard_background: {e}", file=sys.stderr)
        return 2
    ap.error("one of --build, --judge-folds")
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
