#!/usr/bin/env python3
"""The thirty-third pass (docs/claps_history.md): real sounds from Debian packages as training-only sources.

Declared in ``sensekit/evaluation/audio/clap_debian.py`` (which packages and files, how each becomes a
source, the fit, the ship rule) before any held-out figure.

``--cache DIR --fetch``: every package of ``clap_debian.SOURCES`` downloaded (``apt-get download``, no
root) and unpacked (``dpkg-deb -x``) into ``DIR/x/<package>``, with its version and licence lines.

``--build``: the developer bursts (``--patch``, the seventeenth pass's ``PATCH.npz`` less its ``sp0``
copies, as the shipped folds were fitted), the Debian bursts (``collect_debian``, kept in
``--out/DEB.npz``), the control (each fold refit on the developer bursts alone must equal ``--folds``'
trees; ``--control-folds`` limits it), the 14 folds refit with the Debian bursts in every fold's training
set, each held-out source's ``T`` nested on the other sources' developer bursts, written as the folds
folder ``--out/debian`` (``TREES.json``, ``WAIT_FOLDS.json`` with the new ``T``; the ring's trees and
log-mel weights of ``--folds``), which ``clap_false_claps.py --folds`` streams held out.

``--without deb_x,...``: ``--build`` without those Debian sources (the folder ``debian_no_deb_x``; a look
after the declared figures, not a shipping candidate).

``--by-source`` (the thirty-fourth pass, declared in ``sensekit/evaluation/audio/clap_source_weights.py``):
``--build`` with each Debian source's negatives weighing the mean developer negative source
(``by_source``; the control refits through it too); the folder ``debian_by_source``.
``--renest MELDIR --folds-in DIR``: the close-call wait nested again for ``DIR``'s trees
(``clap_refit_inputs.nest_wait``, the thirty-second pass's recipe; ``MELDIR`` is ``clap_mel_wait.py``'s
folder), written as the folds folder ``DIR_renest``; ``--renest-control`` runs it on ``--folds``' trees
first (it must give their wait).

``--judge --judge-folds DIR``: the Debian clips through each of ``DIR``'s fold detectors instead (offset 0).

``--judge``: the Debian clips (orig, at their rate) through the shipped ``ClapDetector`` (its defaults,
512-sample blocks) at each offset: per source, clips, bursts, claps emitted and clips with a clap; and
``GMRockKit/HandClap.wav`` alone (a clap sample, not a training positive).

Usage: .venv/bin/python benchmarks/clap_debian_sources.py --cache /tmp/claps42/deb --fetch
       .venv/bin/python benchmarks/clap_debian_sources.py --cache /tmp/claps42/deb --out /tmp/claps42 --build \\
           --folds /tmp/claps30 --patch /tmp/claps20/PATCH.npz
       .venv/bin/python benchmarks/clap_false_claps.py --folds /tmp/claps42/debian --out /tmp/claps42/stream
       .venv/bin/python benchmarks/clap_debian_sources.py --cache /tmp/claps42/deb --out /tmp/claps42 --judge
       .venv/bin/python benchmarks/clap_debian_sources.py --cache /tmp/claps42/deb --out /tmp/claps43 --build \
           --by-source --deb /tmp/claps42/DEB.npz
       .venv/bin/python benchmarks/clap_debian_sources.py --cache /tmp/claps42/deb --renest /tmp/claps26 \
           --folds-in /tmp/claps43/debian_by_source
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from _reference import SHARED_DATA, data_refused

from sensekit.evaluation.audio import clap_debian as cd
from sensekit.evaluation.audio import clap_training as ct
from sensekit.evaluation.audio.clap_folds import nested_thresholds
from sensekit.evaluation.audio.clap_source_weights import by_source
from sensekit.evaluation.audio.clap_words import joined


def say(m: str) -> None:
    print(f"# {time.strftime('%H:%M:%S')} {m}", file=sys.stderr, flush=True)


def fetch_all(cache: Path) -> int:
    for src in cd.SOURCES:
        root = cd.fetch(cache, src.package)
        deb = sorted(cache.glob(f"{src.package}_*.deb"))
        version = (subprocess.run(["dpkg-deb", "-f", str(deb[-1]), "Version"], capture_output=True, text=True)
                   .stdout.strip() if deb else "?")
        cr = root / "usr" / "share" / "doc" / src.package / "copyright"
        lic = sorted({ln.split(":", 1)[1].strip() for ln in cr.read_text(errors="replace").splitlines()
                      if ln.startswith("License:")}) if cr.is_file() else ["(no copyright file)"]
        files = cd.read_files(root, src)
        print(f"{src.name}: {src.package} {version}, licences {', '.join(lic)}; {len(files)} files, "
              f"{sum(len(x) / r for _, x, r in files):.0f} s, rates {sorted({r for _, _, r in files})}")
    return 0


def developer(patch: Path) -> ct.Bursts:
    z = np.load(patch, allow_pickle=False)
    keep = z["variant"] != ct.SPEECH0
    meta = {k: z[k].tolist() for k in ("on_k", "on_v", "lab_k", "lab_v")}
    return ct.Bursts(z["X"][keep], z["y"][keep], z["source"][keep], z["background"][keep], z["variant"][keep],
                     z["clip"][keep], dict(zip(meta["on_k"], meta["on_v"])), dict(zip(meta["lab_k"], meta["lab_v"])))


def debian_bursts(args: argparse.Namespace) -> ct.Bursts:
    f = args.deb if args.deb is not None else args.out / "DEB.npz"
    if not f.is_file():
        b = cd.collect_debian(SHARED_DATA, args.cache, progress=lambda c: None)
        np.savez_compressed(f, X=b.X, y=b.y, source=b.source, background=b.background, variant=b.variant,
                            clip=b.clip, lab_k=list(b.labels), lab_v=list(b.labels.values()))
    z = np.load(f, allow_pickle=False)
    labels = dict(zip(z["lab_k"].tolist(), z["lab_v"].tolist()))
    return ct.Bursts(z["X"], z["y"], z["source"], z["background"], z["variant"], z["clip"],
                     dict.fromkeys(labels, 0), labels)


def build(args: argparse.Namespace) -> int:
    b = developer(args.patch)
    d = debian_bursts(args)
    if args.without:
        k = ~np.isin(d.source, args.without.split(","))
        d = ct.Bursts(d.X[k], d.y[k], d.source[k], d.background[k], d.variant[k], d.clip[k], d.onsets, d.labels)
    for s in sorted(set(d.source.tolist())):
        k = d.source == s
        say(f"{s}: {len(set(d.clip[k].tolist()))} clips, {int((k & (d.variant == 'orig')).sum())} bursts orig, "
            f"{int(k.sum())} with the copies")
    say(f"developer bursts {len(b.y)}, Debian {len(d.y)}")
    old = json.loads((args.folds / "TREES.json").read_text())["models"]
    sources = sorted(old)
    weigh = by_source if args.by_source else None
    for s in (args.control_folds.split(",") if args.control_folds else sources):
        say(f"control: {s}'s fold refit without the Debian sources equals --folds' trees: "
            f"{ct.train(b, leave_out=[s], weigh=weigh) == old[s]}")
    both = joined(b, d)
    models: dict[str, Any] = {}
    for s in sources:
        models[s] = ct.train(both, leave_out=[s], weigh=weigh)
        if args.by_source:
            say(f"{s}'s fold: " + weights_seen(both, s))
        say(f"refit without {s}, with the Debian sources")
    out = args.out / ("debian" + "".join(f"_no_{w}" for w in args.without.split(",") if w)
                      + ("_by_source" if args.by_source else ""))
    out.mkdir(parents=True, exist_ok=True)
    (out / "TREES.json").write_text(json.dumps({"models": models}))
    T = nested_thresholds(b, {s: ct.scores(b, m) for s, m in models.items()})
    wait = json.loads((args.folds / "WAIT_FOLDS.json").read_text())
    say("T nested: " + ", ".join(f"{s} {v:g}" for s, v in T.items()) + " (today: "
        + ", ".join(f"{s} {wait[s]['T']:g}" for s in sources) + ")")
    today = nested_thresholds(b, {s: ct.scores(b, m) for s, m in old.items()})
    say("control: today's T nested from --folds' trees: " + ", ".join(f"{s} {v:g}" for s, v in today.items()))
    link_folds(out, args.folds, T)
    return 0


def link_folds(out: Path, folds: Path, T: dict[str, float]) -> None:
    """Make ``out`` (which holds new trees' ``TREES.json``) a folds folder ``clap_false_claps.py --folds``
    streams: ``folds``' close-call wait with the new trees' nested ``T`` (``WAIT_FOLDS.json``), its ring's
    trees and log-mel weights linked."""
    wait = json.loads((folds / "WAIT_FOLDS.json").read_text())
    (out / "WAIT_FOLDS.json").write_text(json.dumps({s: {**wait[s], "T": T[s]} for s in sorted(T)}))
    for name in ("RING_130_late_above_db.json", "MEL_LR.json"):
        (out / name).unlink(missing_ok=True)
        (out / name).symlink_to((folds / name).resolve())
    say(f"folds in {out}")


def weights_seen(b: ct.Bursts, s: str) -> str:
    """Each negative source's total weight in ``s``'s fold, by burst (the trainer's) and by source."""
    m = (b.y >= 0) & (b.source != s) & (b.background != s)
    y, src = b.y[m], b.source[m]
    w = ct.balanced_weights(y, src) * np.where(b.variant[m] == "orig", ct.ORIG_WEIGHT, 1.0)
    v = by_source(w, y, src)
    tot = {k: (float(w[(src == k) & (y == 0)].sum()), float(v[(src == k) & (y == 0)].sum()))
           for k in sorted(set(src[y == 0].tolist()))}
    own = [a for k, (a, _) in tot.items() if not k.startswith(cd.PREFIX)]
    return (f"mean developer negative source {np.mean(own):.0f}; " + ", ".join(
        f"{k} {a:.0f} -> {c:.0f}" for k, (a, c) in tot.items() if k.startswith(cd.PREFIX) or k == "ibm"))


def renest(args: argparse.Namespace) -> int:
    """``--renest``: the wait nested again for ``--folds-in``'s trees (the thirty-second pass's recipe)."""
    from clap_mel_wait import RING
    from clap_refit_inputs import nest_wait, save_renested

    from sensekit.audio.clap_features import TreeModel
    from sensekit.evaluation.audio.clap_mel_score import LinearScore

    b = ct.collect_cached(SHARED_DATA, args.patch)
    keep = b.variant != ct.SPEECH0
    z = np.load(args.renest / f"SCORES_130_{RING}.npz")
    if args.renest_control:
        today = json.loads((args.folds / "WAIT_FOLDS.json").read_text())
        srcs = sorted(today)
        got = nest_wait(b, {s: z[f"o_{s}"] for s in srcs}, {s: z[f"r_{s}"] for s in srcs},
                        {s: float(today[s]["T"]) for s in srcs}, args.renest)
        lr0 = json.loads((args.folds / "MEL_LR.json").read_text())
        for s in srcs:
            same = all(got[s][k] == today[s][k] for k in ("T", "margin", "rule", "theta"))
            say(f"control {s}: equal to {args.folds}'s wait: {same}; log-mel weights equal: "
                f"{np.allclose(got[s]['lr'].w, LinearScore.from_json(lr0[s]).w)}")
    trees = json.loads((args.folds_in / "TREES.json").read_text())["models"]
    folds = json.loads((args.folds_in / "WAIT_FOLDS.json").read_text())
    sources = sorted(trees)
    so = {}
    for s in sources:
        tm = TreeModel(trees[s])
        so[s] = np.full(len(b.y), np.nan)
        so[s][keep] = [tm.score(v) for v in b.X[keep]]
    T = {s: float(folds[s]["T"]) for s in sources}
    delays = own_delays(args, trees, T) if args.own_delays else None
    got = nest_wait(b, so, {s: z[f"r_{s}"] for s in sources}, T, args.renest, delays)
    save_renested(args.folds_in.with_name(args.folds_in.name + ("_renest_own" if args.own_delays else "_renest")),
                  got, args.folds_in)
    return 0


def own_delays(args: argparse.Namespace, trees: dict[str, Any], T: dict[str, float]) -> Path:
    """The thirty-fifth pass: the decision delays of ``--folds-in``'s own trees, streamed as today's were for
    the cap (``clap_ring_stream.today_delays``: each fold's trees alone, margin 0, at its ``T``, on its own
    source's clips, offsets 0 and 517, route off), kept in ``--folds-in``/OWN_DELAYS/; the file's path."""
    from clap_ring_stream import today_delays

    d: Path = args.folds_in / "OWN_DELAYS"
    d.mkdir(exist_ok=True)
    got = today_delays(argparse.Namespace(out=d, offsets="0,517", block=512), sorted(trees), trees, T)
    say("own trees' p50 decision delay on their recordings: " + ", ".join(
        f"{s} {np.percentile(v, 50):.1f} ms" for s, v in got.items() if len(v)))
    return d / "DELAYS_today_0_517.json"


def judge_folds(args: argparse.Namespace, clips: list[Any]) -> int:
    """``--judge-folds DIR``: the Debian clips through each of ``DIR``'s 14 fold detectors (route off, offset 0):
    per source, the claps each fold emits (min, median, max) and the clips with a clap by the median fold."""
    from clap_false_claps import Recorder, fold_maker, load_folds

    from sensekit.evaluation.audio.evaluate import stream_claps

    folds_ = load_folds(args.judge_folds)
    per: dict[str, list[tuple[int, int]]] = {src.name: [] for src in cd.SOURCES}
    for s in sorted(folds_[0]):
        made: list[Recorder] = []
        make = fold_maker(Recorder, s, folds_, made)
        for name in per:
            got = [stream_claps(x, r, make=make) for c, x, r in clips if c.source == name]
            per[name].append((sum(map(len, got)), sum(1 for g in got if g)))
        say(f"{s}'s fold: " + ", ".join(f"{n} {v[-1][0]}" for n, v in per.items()))
    print(f"| source | clips | claps by the 14 folds of {args.judge_folds}: min / median / max | "
          "clips with a clap (min / max) |")
    print("|---|---|---|---|")
    for name, v in per.items():
        n = np.array([a for a, _ in v])
        k = np.array([b for _, b in v])
        print(f"| {name} | {sum(1 for c, _, _ in clips if c.source == name)} | {n.min()} / {np.median(n):g} / "
              f"{n.max()} | {k.min()} / {k.max()} |", flush=True)
    return 0


def judge(args: argparse.Namespace) -> int:
    from sensekit.evaluation.audio.clap_training import judged_bursts
    from sensekit.evaluation.audio.evaluate import stream_claps

    clips = cd.debian_clips(args.cache)
    if args.judge_folds is not None:
        return judge_folds(args, clips)
    offsets = [int(v) for v in args.offsets.split(",")]
    print("| source | clips | bursts | " + " | ".join(f"claps, clips firing (offset {o})" for o in offsets) + " |")
    print("|---|---|---|" + "---|" * len(offsets))
    for s in [src.name for src in cd.SOURCES]:
        mine = [(c, x, r) for c, x, r in clips if c.source == s]
        bursts = sum(len(judged_bursts(x, r)) for _, x, r in mine)
        cells = []
        for o in offsets:
            got = [stream_claps(x, r, offset=o) for _, x, r in mine]
            cells.append(f"{sum(map(len, got))}, {sum(1 for g in got if g)}/{len(mine)}")
        print(f"| {s} | {len(mine)} | {bursts} | " + " | ".join(cells) + " |", flush=True)
    drums = next(src for src in cd.SOURCES if src.name == "deb_drums")
    hc = cd.unpacked(args.cache, drums.package) / drums.globs[0].replace("*.wav", "HandClap.wav")
    x, r = cd.decode(hc)
    pad = np.zeros(r // 2, np.float32)
    y = np.concatenate([pad, x, pad])
    print(f"HandClap.wav ({len(x) / r * 1000:.0f} ms at {r} Hz, half a second of silence either side): bursts "
          f"{len(judged_bursts(y, r))}; claps " + ", ".join(f"offset {o}: {len(stream_claps(y, r, offset=o))}"
                                                           for o in offsets))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--cache", type=Path, required=True, help="where the Debian packages are (or go)")
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--fetch", action="store_true")
    ap.add_argument("--build", action="store_true")
    ap.add_argument("--judge", action="store_true")
    ap.add_argument("--folds", type=Path, default=Path("/tmp/claps30"))
    ap.add_argument("--patch", type=Path, default=Path("/tmp/claps20/PATCH.npz"))
    ap.add_argument("--control-folds", default="", help="the folds the control refits (default: every one)")
    ap.add_argument("--offsets", default="0,517")
    ap.add_argument("--without", default="", help="Debian sources left out of --build (folder debian_no_<s>)")
    ap.add_argument("--by-source", action="store_true", help="--build weighing each Debian source as the mean "
                    "developer negative source (folder debian_by_source)")
    ap.add_argument("--deb", type=Path, default=None, help="the Debian bursts (default --out/DEB.npz)")
    ap.add_argument("--renest", type=Path, default=None, help="clap_mel_wait.py's folder: nest the wait again "
                    "for --folds-in's trees")
    ap.add_argument("--folds-in", type=Path, default=None)
    ap.add_argument("--judge-folds", type=Path, default=None, help="--judge by this folds folder's 14 fold "
                    "detectors instead of the shipped one")
    ap.add_argument("--renest-control", action="store_true", help="first the recipe on --folds' trees")
    ap.add_argument("--own-delays", action="store_true", help="--renest with the latency caps from --folds-in's "
                    "own trees' streamed delays, not today's (the thirty-fifth pass; folder DIR_renest_own)")
    args = ap.parse_args()
    try:
        if args.fetch:
            return fetch_all(args.cache)
        if args.judge:
            return judge(args)
        if args.renest is not None:
            if args.folds_in is None:
                ap.error("--renest needs --folds-in")
            return 2 if data_refused() else renest(args)
        if args.build:
            if args.out is None:
                ap.error("--build needs --out")
            if data_refused():
                return 2
            args.out.mkdir(parents=True, exist_ok=True)
            return build(args)
    except cd.DebianSourceError as e:
        print(f"clap_debian_sources: {e}", file=sys.stderr)
        return 2
    ap.error("one of --fetch, --build, --judge")
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
