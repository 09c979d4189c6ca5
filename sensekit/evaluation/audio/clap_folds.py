"""Leave-one-source-out folds of the clap model: each source's held-out figure, and the
decision threshold chosen without the source it is judged on.

Used by ``benchmarks/train_clap.py`` (the shipped threshold, the saved folds) and
``benchmarks/audio_eval.py`` (each source streamed through trees that never heard it).

A *fold* ``s`` is the trees trained on every source but ``s`` (``clap_training.train``),
scoring every burst. Thresholds are chosen by ``choose_threshold`` on held-out scores:

- the **shipped** threshold: on all the single-source folds together (each source scored
  by the trees that did not hear it);
- a held-out source's **nested** threshold (``nested_thresholds``): the same choice on the
  *other* sources' folds only, so the figure reported for ``s`` uses neither trees nor a
  threshold that looked at ``s``'s labels directly (its bursts did train the other
  folds' trees). No fit beyond the single-source ones;
- ``loso(..., inner="pairs")``: the strict inner loop, each other source scored by trees
  that saw neither it nor ``s`` (91 more fits for 14 sources; ~30 min on a busy machine).

Cost: a fold's scores ~1 s for 40,000 bursts; choosing a threshold ~0.5 s.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sensekit.audio.clap_features import FEATURES, Model
from sensekit.evaluation.audio.clap_training import FAMILY, SYNTH, Bursts, scores, train

def heldout(bursts: Bursts, score: np.ndarray, threshold: float, source: str) -> float:
    """A source's figure at ``threshold``, from its original clips' bursts: per-clap F1 on
    its clap clips, ``1 - share of negative clips with a false clap`` on its others; the
    mean of the two when it has both."""
    m = (bursts.source == source) & (bursts.variant == "orig") & (bursts.y >= 0)
    acc = m & (score >= threshold)
    clips = sorted(set(bursts.clip[m]))
    pos = [c for c in clips if bursts.labels[c] == "clap"]
    neg = [c for c in clips if bursts.labels[c] != "clap"]
    parts = []
    if pos:
        inpos = np.isin(bursts.clip, pos)
        tp = int(np.sum(acc & inpos & (bursts.y == 1)))
        fp = int(np.sum(acc & inpos & (bursts.y == 0)))
        fn = sum(bursts.onsets[c] for c in pos) - tp
        parts.append(2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0)
    if neg:
        hit = set(bursts.clip[acc & np.isin(bursts.clip, neg)])
        parts.append(1.0 - len(hit) / len(neg))
    return float(np.mean(parts))


THRESHOLDS = np.round(np.arange(-2.0, 6.01, 0.25), 2)
TIE_F1 = 0.002


def pooled_f1(bursts: Bursts, fold_scores: dict[str, np.ndarray], threshold: float, *,
              variants: tuple[str, ...] = ("orig",)) -> float:
    """Per-clap F1 over every original clip (or copy ``variants``) of the sources in
    ``fold_scores`` together, each source scored by its own fold: claps found and missed on the clap clips, every
    other burst judged a clap (negative clips included) a false one."""
    tp = fp = fn = 0
    for s, sc in fold_scores.items():
        for v in variants:
            m = (bursts.source == s) & (bursts.variant == v) & (bursts.y >= 0)
            acc = m & (sc >= threshold)
            t = int(np.sum(acc & (bursts.y == 1)))
            tp += t
            fp += int(np.sum(acc & (bursts.y == 0)))
            fn += sum(n for c, n in bursts.onsets.items()
                      if bursts.labels[c] == "clap" and c in set(bursts.clip[m])) - t
    return 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0


def choose_threshold(bursts: Bursts, fold_scores: dict[str, np.ndarray]) -> float:
    """The threshold for the held-out figures of the sources in ``fold_scores`` (each scored
    by the model that did not see it): the lowest one whose pooled per-clap F1
    (``pooled_f1``) is within ``TIE_F1`` of the best. The F1 is flat over a range of
    thresholds; inside it, the lower one misses fewer claps, which is what a person
    clapping notices first. (The mean of the per-source figures, ``heldout``, was tried:
    it chose 4.75, where held out j's claps fall to F1 0.42 and eldar's to 0. The mean of
    the F1 on the clips and on their noisy copies was tried too: it moves the shipped trees'
    threshold from 0 to -0.75, docs/claps.md.)"""
    f1 = [pooled_f1(bursts, fold_scores, float(t)) for t in THRESHOLDS]
    best = max(f1)
    return float(next(t for t, f in zip(THRESHOLDS, f1) if f >= best - TIE_F1))


def nested_thresholds(bursts: Bursts, fold_scores: dict[str, np.ndarray]) -> dict[str, float]:
    """For each source ``s`` of ``fold_scores``: ``choose_threshold`` on the other sources'
    folds only (the threshold ``s`` is reported with never saw ``s``'s held-out scores)."""
    return {s: choose_threshold(bursts, {o: sc for o, sc in fold_scores.items() if o != s})
            for s in fold_scores}


#: rise_db splits tried for a routed model (``choose_route``): below it, the noise expert
ROUTE_SPLITS = tuple(float(v) for v in np.arange(12.0, 38.01, 2.0))
ROUTE_FEATURE = "rise_db"


def routed(clean: Model, below: Model, *, split: float, t_clean: float, t_below: float,
           route: str = ROUTE_FEATURE, either: bool = False) -> Model:
    """One model of two experts (``TreeModel``): bursts whose ``route`` feature is under
    ``split`` are scored by ``below`` less ``t_below``, the others by ``clean`` less
    ``t_clean``; its decision threshold is 0. ``rise_db`` is capped at 40 dB and reads the
    cap at the start of a stream (digital silence before it), so a burst there always goes
    to ``clean`` while ``split`` is under 40. ``either``: under ``split``, a clap when
    either expert says so (the higher of both scores)."""
    out = {**clean, "base": clean["base"] - t_clean, "route": FEATURES.index(route),
           "split": float(split), "below": {**below, "base": below["base"] - t_below}}
    if either:
        out["either"] = True
    return out


def route_counts(bursts: Bursts, clean: np.ndarray, below: np.ndarray, sources: list[str],
                 variants: tuple[str, ...], splits: tuple[float, ...] = ROUTE_SPLITS,
                 thresholds: np.ndarray = THRESHOLDS, t_clean: float = 0.0,
                 route: str = ROUTE_FEATURE, either: bool = False,
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Held-out claps found and false claps, and annotated claps, of each (split, below
    threshold, source) on copies ``variants``: ``clean``/``below`` are the experts' scores of
    every burst, each source's by its own fold (as ``pooled_f1`` counts them). ``either``:
    under the split, a clap when either expert says so (``routed(..., either=True)``)."""
    tp = np.zeros((len(splits), len(thresholds), len(sources)))
    fp = np.zeros_like(tp)
    n = np.zeros(len(sources))
    r = bursts.X[:, FEATURES.index(route)]
    for i, s in enumerate(sources):
        m = (bursts.source == s) & np.isin(bursts.variant, variants) & (bursts.y >= 0)
        for v in variants:
            clips = set(bursts.clip[m & (bursts.variant == v)])
            n[i] += sum(k for c, k in bursts.onsets.items() if bursts.labels[c] == "clap" and c in clips)
        y, c_ok = bursts.y[m], clean[m] >= t_clean
        for a, sp in enumerate(splits):
            up = r[m] >= sp
            for k, t in enumerate(thresholds):
                b_ok = below[m] >= t
                acc = np.where(up, c_ok, (b_ok | c_ok) if either else b_ok)
                tp[a, k, i] = np.count_nonzero(acc & (y == 1))
                fp[a, k, i] = np.count_nonzero(acc & (y == 0))
    return tp, fp, n


def choose_route(counts: list[tuple[np.ndarray, np.ndarray, np.ndarray]], keep: list[int],
                 splits: tuple[float, ...] = ROUTE_SPLITS,
                 thresholds: np.ndarray = THRESHOLDS) -> tuple[float, float, float]:
    """(split, below threshold, figure) with the best mean of the pooled per-clap F1 of each
    group of ``counts`` (``route_counts`` on the clips, on their noisy copies), over the
    sources ``keep``; within ``TIE_F1`` of the best, the highest split, then the highest threshold.
    A burst rising less than the split goes to the noise expert (``route_counts``: ``below``), the
    rest stay with the clean trees, so the highest split is the one that sends the most bursts to
    the noise expert (the fewest left to the clean trees)."""
    f1s = []
    for tp, fp, n in counts:
        t, f, nn = tp[:, :, keep].sum(axis=2), fp[:, :, keep].sum(axis=2), n[keep].sum()
        f1s.append(2 * t / np.maximum(2 * t + f + (nn - t), 1))
    crit = np.mean(f1s, axis=0)
    best = float(crit.max())
    a, k = max(((a, k) for a in range(len(splits)) for k in range(len(thresholds))
                if crit[a, k] >= best - TIE_F1), key=lambda ak: (splits[ak[0]], thresholds[ak[1]]))
    return splits[a], float(thresholds[k]), float(crit[a, k])


def loso(bursts: Bursts, *, inner: str = "others", family: str = FAMILY,
         progress: Callable[[str], None] | None = None) -> dict[str, tuple[Model, float]]:
    """For every source: (trees trained without it, its threshold).

    ``inner``: "others" (``nested_thresholds``: on the other sources' single folds),
    "pairs" (on the other sources, each scored by trees that saw neither it nor ``s``) or
    "shared" (one threshold from all the single folds: the shipped choice, optimistic for
    the figures of the sources it was chosen on)."""
    if inner not in ("others", "pairs", "shared"):
        raise ValueError(f"inner must be 'others', 'pairs' or 'shared', got {inner!r}")
    sources = sorted(set(bursts.source) - {SYNTH})
    cache: dict[frozenset[str], np.ndarray] = {}
    models: dict[str, Model] = {}

    def fold(out: frozenset[str]) -> np.ndarray:
        if out not in cache:
            if progress is not None:
                progress("without " + "+".join(sorted(out)))
            model = train(bursts, leave_out=out, family=family)
            if len(out) == 1:
                models[next(iter(out))] = model
            cache[out] = scores(bursts, model)
        return cache[out]

    single = {s: fold(frozenset([s])) for s in sources}
    if inner == "shared":
        shared = choose_threshold(bursts, single)
        return {s: (models[s], shared) for s in sources}
    if inner == "others":
        thr = nested_thresholds(bursts, single)
        return {s: (models[s], thr[s]) for s in sources}
    return {s: (models[s], choose_threshold(
        bursts, {o: fold(frozenset([s, o])) for o in sources if o != s})) for s in sources}


__all__ = ["THRESHOLDS", "choose_route", "choose_threshold", "heldout", "loso", "nested_thresholds",
           "pooled_f1", "route_counts", "routed"]
