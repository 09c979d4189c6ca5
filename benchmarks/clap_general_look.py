#!/usr/bin/env python3
"""The twentieth pass's look (docs/claps_history.md): a general sound model that ships inside
its wheel, asked about the trees' close calls, held out per source.

The only registry package found that carries a general (non-music, non-speech-only) sound model
inside it is ``aisfx`` 0.1.2 (PyPI): a 9-layer CNN trained on sound-effects libraries (UCS
categories), weights ``aisfx/models/checkpoint.pth`` (25 MB, CC BY 4.0), PyTorch. It gives a
512-d embedding (and nine heads of 3-81 unnamed classes). It has no named clap class, so each
held-out source's close calls are scored by a logistic regression on the embedding fitted on the
other sources' close calls.

For every judged burst of ``clap_training.collect`` (the same bursts in the same order as
``--cache``, checked) that is a close call at the widest margin, two log-mel windows around its
peak ``p`` (the package's own front end: 44.1 kHz, 2048 / 1024, 96 HTK mel bands, log10(1e4 P + 1);
the shipped ``clap_wait.log_mel``, whose resampler equals the SciPy one this pass used to 1e-15):
``short`` p-0.25..+0.10 s (16 frames, needs 0.12 s after the peak) and ``long`` p-0.5..+1.0 s
(65 frames, near the 2.3 s blocks it was trained on). Printed: the cost of one call, the AUC per
negative kind of held-out scores, and claps found / false bursts per source when the score
replaces, vetoes or boosts the trees' decision on the close calls, at a threshold chosen on the
other sources' held-out scores (``--rules``).

Usage: .venv/bin/python benchmarks/clap_general_look.py --cache BURSTS.npz --tree-folds T.json
       --aisfx DIR --torch-path DIR --out OUT [--margins 1,4] [--rules] [--long-within 1]
  BURSTS.npz, T.json: the seventeenth pass's cache and the trees' 14 folds (as clap_ring_look.py).
  DIR: the unpacked aisfx wheel (``pip download --no-deps aisfx``); --torch-path: a folder
  holding torch (appended to sys.path; torch is not a dependency of sensekit).
  OUT keeps MARGIN.npy, MELS.npz and EMB.npz between runs. Run it with OPENBLAS_NUM_THREADS=1 on a
  loaded machine: the 96-band mel product took 130 ms a burst with OpenBLAS's threads, 0.3 ms without.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from _reference import SHARED_DATA
from clap_ring_look import collect_checked, kinds_of
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sensekit.audio.clap_wait import HOP, NFFT, NMEL, SR, WINDOW, log_mel
from sensekit.evaluation.audio import clap_folds as cf
from sensekit.evaluation.audio import clap_training as ct

WINDOWS = {"short": WINDOW, "long": (-0.5, 1.0)}   # frame centres, s from the peak


def tree_margins(b: ct.Bursts, trees: dict[str, Any]) -> tuple[np.ndarray, list[str]]:
    """t - T for every burst: its own source's held-out trees against that source's nested threshold."""
    sources = sorted(trees)
    train = b.variant != ct.SPEECH0
    sc = {s: ct.scores(b, trees[s]) for s in sources}
    sub = ct.Bursts(b.X[train], b.y[train], b.source[train], b.background[train], b.variant[train],
                    b.clip[train], b.onsets, b.labels)
    nested = cf.nested_thresholds(sub, {s: v[train] for s, v in sc.items()})
    d = np.full(len(b.y), np.nan)
    for s in sources:
        m = b.source == s
        d[m] = sc[s][m] - nested[s]
    return d, sources


def mels(cache: Path, keep: np.ndarray, out: Path) -> dict[str, np.ndarray]:
    """The two windows of every burst with ``keep`` (kept in ``out``), bursts checked against ``cache``."""
    if out.is_file():
        z = np.load(out)
        return {k: np.asarray(z[k]) for k in z.files}
    got: dict[str, list[np.ndarray]] = {k: [] for k in WINDOWS}
    idx: list[int] = []
    count = [0]

    def seen(x: np.ndarray, rate: int, feats: list[Any]) -> None:
        y = np.asarray(x, np.float64)
        for f in feats:
            i = count[0]
            count[0] += 1
            if i < len(keep) and keep[i]:
                idx.append(i)
                for k, w in WINDOWS.items():
                    got[k].append(log_mel(y, rate, round(f.t_peak * rate), w))

    collect_checked(cache, seen)
    res: dict[str, Any] = {"idx": np.array(idx), **{k: np.stack(v) for k, v in got.items()}}
    np.savez(out, **res)
    return res


def load_net(aisfx: Path, torch_path: Path) -> Any:
    sys.path.append(str(torch_path))
    import torch  # type: ignore[import-not-found, unused-ignore]
    torch.set_num_threads(1)
    spec = importlib.util.spec_from_file_location("aisfx_cnn2d", aisfx / "aisfx/models/cnn2d.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    w, ds = torch.load(aisfx / "aisfx/models/checkpoint.pth", map_location="cpu", weights_only=False)
    net = mod.CrossNet(mod.EmbeddingNet("max", 3, 1, 64), ds, "cpu")
    net.load_state_dict(w)
    net.eval()
    return net


def embed(net: Any, M: np.ndarray, batch: int = 64) -> np.ndarray:
    import torch  # type: ignore[import-not-found, unused-ignore]
    out = []
    with torch.no_grad():
        for i in range(0, len(M), batch):
            out.append(net.get_embedding(torch.from_numpy(M[i:i + batch])).numpy())
    return np.concatenate(out)


def call_cost(net: Any) -> None:
    """ms per call, one window at a time (as a detector would call it), one thread."""
    import torch  # type: ignore[import-not-found, unused-ignore]
    print("\n| frames (s of audio) | ms per call, median of 30 |\n|---|---|")
    rng = np.random.default_rng(0)
    for n in (8, 16, 65):
        x = torch.from_numpy(rng.random((1, n, NMEL), dtype=np.float32))
        t = []
        with torch.no_grad():
            net.get_embedding(x)
            for _ in range(30):
                t0 = time.perf_counter()
                net.get_embedding(x)
                t.append(time.perf_counter() - t0)
        print(f"| {n} ({(n - 1) * HOP / SR + NFFT / SR:.2f}) | {1e3 * float(np.median(t)):.1f} |")


def _lr(C: float = 0.05) -> Any:
    return make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=3000, class_weight="balanced"))


def held_out(F: np.ndarray, y: np.ndarray, src: np.ndarray, close: np.ndarray, sources: list[str]) -> np.ndarray:
    """Each close call's score by the LR fitted on the other sources' close calls."""
    s = np.full(len(y), np.nan)
    for o in sources:
        te, tr = close & (src == o), close & (src != o)
        if te.any():
            s[te] = _lr().fit(F[tr], y[tr]).decision_function(F[te])
    return s


def auc_table(b: ct.Bursts, close: np.ndarray, scores: dict[str, np.ndarray]) -> None:
    kind = kinds_of(b, close)
    print("\n| negative kind (close calls) | n | " + " | ".join(scores) + " |")
    print("|---|---|" + "---|" * len(scores))
    for k in sorted(set(kind[close]) - {"clap"}, key=lambda k: -(kind == k).sum()):
        neg, src = kind == k, k.split(":")[0]
        if neg.sum() < 10:
            continue
        cp = close & (b.y == 1) & (b.source != src)
        cells = [f"{roc_auc_score(np.r_[np.ones(cp.sum()), np.zeros(neg.sum())], np.r_[v[cp], v[neg]]):.2f}"
                 for v in scores.values()]
        print(f"| {k} | {neg.sum()} | " + " | ".join(cells) + " |")
    cp, ng = close & (b.y == 1), close & (b.y == 0)
    cells = [f"{roc_auc_score(b.y[cp | ng], v[cp | ng]):.3f}" for v in scores.values()]
    print(f"| all close calls, pooled | {ng.sum()} (claps {cp.sum()}) | " + " | ".join(cells) + " |")


RULES = ("replace", "veto", "boost")


def decide(rule: str, trees: np.ndarray, s: np.ndarray, th: float) -> np.ndarray:
    g = s >= th
    return g if rule == "replace" else (trees & g) if rule == "veto" else (trees | g)


def _f1(tp: int, fp: int, fn: int) -> float:
    return 2 * tp / max(1, 2 * tp + fp + fn)


def choose(rule: str, y: np.ndarray, trees: np.ndarray, s: np.ndarray, fixed: tuple[int, int, int]) -> float:
    """The threshold with the best pooled burst F1 over the given bursts (close calls; ``fixed``:
    tp, fp, fn of the bursts outside the margin); the one nearest 0 within 0.002."""
    grid = np.arange(-4.0, 4.01, 0.25)
    f1 = []
    for th in grid:
        d = decide(rule, trees, s, th)
        f1.append(_f1(fixed[0] + int((d & (y == 1)).sum()), fixed[1] + int((d & (y == 0)).sum()),
                      fixed[2] + int((~d & (y == 1)).sum())))
    ok = np.flatnonzero(np.array(f1) >= max(f1) - 0.002)
    return float(grid[ok[np.argmin(np.abs(grid[ok]))]])


def rule_table(b: ct.Bursts, d: np.ndarray, close: np.ndarray, sources: list[str], outer: np.ndarray) -> None:
    """Claps found / false bursts per held-out source (all its copies), with the trees' decision
    outside the margin and the rule's inside. The threshold for ``s`` is chosen on the other
    sources' close calls, each scored by its own held-out LR (as in the earlier nested choices,
    those LRs were fitted with ``s`` among their sources; ``s``'s own scores are never used)."""
    y, src = b.y, b.source
    trees = d >= 0
    r = " / ".join(RULES)
    print(f"\n| held out | close-call AUC trees / score | claps (of) trees / {r} | false bursts trees / {r} "
          f"| sp0 claps trees / {r} | thresholds |")
    print("|---|---|---|---|---|---|")
    tot = np.zeros((2, 4), int)
    for s in sources:
        m = (src == s) & (y >= 0)
        others = np.isfinite(d) & (y >= 0) & (src != s)
        oc = others & ~close
        fixed = (int((trees & oc & (y == 1)).sum()), int((trees & oc & (y == 0)).sum()),
                 int((~trees & oc & (y == 1)).sum()))
        ic = others & close
        ths = [choose(r, y[ic], trees[ic], outer[ic], fixed) for r in RULES]
        dec = [trees] + [np.where(close, decide(r, trees, outer, th), trees) for r, th in zip(RULES, ths)]
        sp = (src == s) & (b.variant == ct.SPEECH0) & (y == 1)
        claps = [int((x & m & (y == 1)).sum()) for x in dec]
        false = [int((x & m & (y == 0)).sum()) for x in dec]
        tot += np.array([claps, false])
        cm = close & m
        auc = (f"{roc_auc_score(y[cm], d[cm]):.3f} / {roc_auc_score(y[cm], outer[cm]):.3f}"
               if 0 < (y[cm] == 1).sum() < cm.sum() else "-")
        print(f"| {s} | {auc} | {' / '.join(map(str, claps))} ({int((m & (y == 1)).sum())}) "
              f"| {' / '.join(map(str, false))} "
              f"| {' / '.join(str(int((x & sp).sum())) for x in dec)} ({int(sp.sum())}) "
              f"| {' / '.join(f'{t:g}' for t in ths)} |", flush=True)
    print(f"| total | | {' / '.join(map(str, tot[0]))} | {' / '.join(map(str, tot[1]))} | | |")


def embeddings(net: Any, Ms: dict[str, np.ndarray], d: np.ndarray, long_within: float | None,
               path: Path) -> dict[str, np.ndarray]:
    """Each window's embeddings (kept in ``path``); ``k_rows``: the rows of ``Ms`` embedded."""
    if not path.is_file():
        res: dict[str, Any] = {}
        for k in WINDOWS:
            rows = np.arange(len(Ms["idx"]))
            if k == "long" and long_within is not None:
                rows = np.flatnonzero(np.abs(d[Ms["idx"]]) < long_within)
            res[k], res[f"{k}_rows"] = embed(net, Ms[k][rows]), rows
        np.savez(path, **res)
    z = np.load(path)
    return {k: np.asarray(z[k]) for k in z.files}


def look(b: ct.Bursts, d: np.ndarray, Ms: dict[str, np.ndarray], E: dict[str, np.ndarray], M: float,
         sources: list[str], rules: bool) -> None:
    close = (np.abs(d) < M) & (b.y >= 0)
    print(f"\n# margin {M}: close calls {close.sum()}, claps {(close & (b.y == 1)).sum()}")
    scores: dict[str, np.ndarray] = {"trees t-T": d}
    R = np.zeros((len(b.y), 512))     # the control: what pooling 14 held-out fits gives a random embedding
    R[Ms["idx"]] = np.random.default_rng(0).normal(size=(len(Ms["idx"]), 512)).astype(np.float32)
    scores["random 512-d (control)"] = held_out(R, b.y, b.source, close, sources)
    for k in WINDOWS:
        at = Ms["idx"][E[f"{k}_rows"]]
        if not np.isin(np.flatnonzero(close), at).all():
            print(f"# {k} window: not embedded for every close call of margin {M}; left out")
            continue
        F = np.zeros((len(b.y), E[k].shape[1] + 1))
        F[at, :-1] = E[k]
        F[:, -1] = np.nan_to_num(d)
        scores[f"{k} emb"] = held_out(F[:, :-1], b.y, b.source, close, sources)
        scores[f"{k} emb + trees"] = held_out(F, b.y, b.source, close, sources)
        if k == "short":    # the control: the same window's log-mel, no net
            L = np.zeros((len(b.y), Ms[k][0].size + 1))
            L[Ms["idx"], :-1] = Ms[k].reshape(len(Ms[k]), -1)
            L[:, -1] = F[:, -1]
            scores["short log-mel + trees (no net)"] = held_out(L, b.y, b.source, close, sources)
    auc_table(b, close, scores)
    if rules:
        for k in (k for k in scores if k.endswith("trees") or k.endswith("(no net)")):
            print(f"\n## {k}, margin {M}")
            rule_table(b, d, close, sources, scores[k])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=Path, required=True)
    ap.add_argument("--tree-folds", type=Path, required=True)
    ap.add_argument("--aisfx", type=Path, required=True)
    ap.add_argument("--torch-path", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--margins", default="1,4")
    ap.add_argument("--rules", action="store_true", help="also the replace / veto / boost tables")
    ap.add_argument("--long-within", type=float, default=None,
                    help="embed the long window only for the close calls within this margin (~3x the short one's cost)")
    a = ap.parse_args()
    if not SHARED_DATA.is_dir():
        raise SystemExit(f"{SHARED_DATA} is absent: this look needs the real clips")
    a.out.mkdir(parents=True, exist_ok=True)
    margins = [float(v) for v in a.margins.split(",")]
    b = ct.collect_cached(SHARED_DATA, a.cache, patches=True)
    dpath = a.out / "MARGIN.npy"
    if dpath.is_file():
        d, sources = np.load(dpath), sorted(json.loads(a.tree_folds.read_text())["models"])
    else:
        d, sources = tree_margins(b, json.loads(a.tree_folds.read_text())["models"])
        np.save(dpath, d)
    widest = (np.abs(d) < max(margins)) & (b.y >= 0)
    Ms = mels(a.cache, widest, a.out / "MELS.npz")
    if not np.isin(np.flatnonzero(widest), Ms["idx"]).all():
        raise SystemExit("MELS.npz does not hold the close calls of these margins; delete it")
    net = load_net(a.aisfx, a.torch_path)
    call_cost(net)
    E = embeddings(net, Ms, d, a.long_within, a.out / "EMB.npz")
    for M in margins:
        look(b, d, Ms, E, M, sources, a.rules)


if __name__ == "__main__":
    main()
