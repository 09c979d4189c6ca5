"""Words taught by one person from a few takes, heard on that person's other words (false accepts).

    python benchmarks/voice_few_takes.py [--seeds 4] [--takes-per-word 4 5] [--cache FILE]

What a user does with ``sensekit teach words --from mic``: 2-3 command words, 4-5 takes each,
and as many other words (one take each of different words, as the prompts ask). For each
developer speaker, word set and seed, the takes are drawn (seeded) from that speaker's 50 takes
of each digit of ../shared/data/words; the classifier is taught on them (``teach_words``'s
fit) and tested on every other take of that speaker:

- recall: a taught digit's take heard as that word;
- false accepts: a non-target digit's take heard as any taught word, split into the digits
  that were among the other words taught ("seen") and those never said while teaching ("unseen":
  "nine" when one, five and 2, 3, 4, 6 were taught);
- fragments: the other voiced parts the stage cuts from a take (a breath or the noise after a
  word), heard as any word;
- the confusion: which non-target digit was heard as which taught word, summed.

Every take is cut by the real ``VoiceStage`` chain (as ``voice_eval.py``) and embedded once
(``--cache`` keeps the embeddings between runs). A lever with a constant is reported leave one
speaker out: its constant is chosen on the other two speakers' folds (the value with the highest
mean recall minus false accepts there) and applied to the third.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypedDict

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from voice_eval import DIGITS, all_segments, load_digits
from sensekit.audio.taught_words import word_parts

SWEEP = (0.1, 0.2, 0.3, 0.5, 0.7)


class Taught(TypedDict):
    """Rows taught and rows tested (what ``fold_scores`` and ``measure`` read)."""
    speaker: str
    words: tuple[int, ...]
    taught: dict[int, np.ndarray]     # digit -> its taught rows
    other: np.ndarray                 # rows taught as other speech
    seen: set[int]                    # the non-target digits among them
    test: np.ndarray


class Fold(Taught):
    """One (speaker, word set, takes per word, seed): the rows taught and the rows tested."""
    k: int
    seed: int


#: (lever, "take" / "head" / "tail") -> each test row's best word, its probability, its distance
Scores = dict[tuple[str, str], tuple[np.ndarray, np.ndarray, np.ndarray]]
SETS = ("1,5,9", "1,9", "1,5", "0,2,7", "3,6,8", "2,4,6", "0,5,8", "4,7", "6,8", "2,3")


def embed_all(cache: Path | None) -> dict[str, np.ndarray]:
    if cache is not None and cache.is_file():
        return dict(np.load(cache))
    from sensekit.audio.speech_embedding import SpeechEmbedder

    digits = load_digits(50)
    per_take = all_segments(digits)
    emb = SpeechEmbedder()
    keep = [i for i, s in enumerate(per_take) if s]
    out = {"emb": np.stack([emb.embed(per_take[i][0]).reshape(-1) for i in keep]),
           "digit": np.array([digits[i][0] for i in keep]),
           "speaker": np.array([digits[i][1] for i in keep]),
           "take": np.arange(len(digits))[keep]}
    parts = [word_parts(per_take[i][0]) for i in keep]
    for j, name in enumerate(("head", "tail")):
        out[name] = np.stack([emb.embed(p[j]).reshape(-1) for p in parts])
    if cache is not None:
        arrays: dict[str, Any] = out        # numpy's stub: savez(**kwds) meets allow_pickle: bool
        np.savez(cache, **arrays)
    return out


def _unit(x: np.ndarray) -> np.ndarray:
    out: np.ndarray = x / np.linalg.norm(x, axis=-1, keepdims=True)
    return out


def folds(data: dict[str, np.ndarray], sets: list[tuple[int, ...]], ks: list[int], seeds: int) -> Iterator[Fold]:
    """Every (speaker, word set, takes per word, seed): the taught rows and the test rows."""
    digit, speaker = data["digit"], data["speaker"]
    for who in sorted(set(speaker.tolist())):
        mine = np.nonzero(speaker == who)[0]
        for words in sets:
            for k in ks:
                for seed in range(seeds):
                    rng = np.random.default_rng([seed, k, *words, sum(map(ord, who))])
                    taught = {d: rng.choice(mine[digit[mine] == d], k, replace=False) for d in words}
                    rest = [d for d in range(10) if d not in words]
                    said = rng.choice(rest, max(3, k), replace=False)
                    other = np.array([rng.choice(mine[digit[mine] == d]) for d in said])
                    used = np.concatenate([*taught.values(), other])
                    yield {"speaker": who, "words": words, "k": k, "seed": seed, "taught": taught,
                           "other": other, "seen": set(int(d) for d in said),
                           "test": np.setdiff1d(mine, used)}


def fold_scores(data: dict[str, np.ndarray], f: Taught) -> Scores:
    """One fold taught plainly and with the parts of the takes as other speech (as
    ``teach_words(..., parts_as_other=...)``): each test row's best word, its probability, and its
    cosine distance to that word's nearest take over the takes' own spread (the distance lever)."""
    from sensekit.audio.word_classifier import OTHER, WordClassifier

    e, unit = data["emb"], _unit(data["emb"])
    words = f["words"]
    x = [e[i] for w in words for i in f["taught"][w]] + [e[i] for i in f["other"]]
    y = [DIGITS[w] for w in words for _ in f["taught"][w]] + [OTHER] * len(f["other"])
    pieces = [data[part][i] for w in words for i in f["taught"][w] for part in ("head", "tail")]
    test = {"take": e[f["test"]], "head": data["head"][f["test"]], "tail": data["tail"][f["test"]]}
    spread: dict[str, float] = {}
    for w in words:
        near = 1 - unit[f["taught"][w]] @ unit[f["taught"][w]].T
        np.fill_diagonal(near, np.inf)
        spread[DIGITS[w]] = float(near.min(axis=1).mean())
    out: Scores = {}
    for lever, (xx, yy) in (("plain", (x, y)), ("parts", (x + pieces, y + [OTHER] * len(pieces)))):
        clf = WordClassifier().fit(xx, yy)
        for name, rows in test.items():
            p = clf.probability_matrix(rows)
            best = np.array(clf.words)[p.argmax(axis=1)]
            u = _unit(rows)
            dist = np.array([float((1 - u[j] @ unit[f["taught"][DIGITS.index(w)]].T).min()) / spread[w]
                             for j, w in enumerate(best)])
            out[lever, name] = (best, p.max(axis=1), dist)
    return out


def measure(data: dict[str, np.ndarray], f: Taught, scores: Scores, lever: str, threshold: float,
            factor: float = np.inf) -> dict[str, Any]:
    """Recall, false accepts (all, seen, unseen non-target digits), parts heard, and the confusion."""
    digit = data["digit"][f["test"]]
    truth = np.array([DIGITS[d] for d in digit])
    best, p, dist = scores[lever, "take"]
    acc = (p >= threshold) & (dist <= factor)
    target = np.isin(digit, f["words"])
    seen = np.isin(digit, sorted(f["seen"])) & ~target
    unseen = ~target & ~seen
    parts = [(scores[lever, n][1] >= threshold) & (scores[lever, n][2] <= factor) for n in ("head", "tail")]
    return {"recall": float((acc & (best == truth))[target].mean()), "fa": float(acc[~target].mean()),
            "seen": float(acc[seen].mean()), "unseen": float(acc[unseen].mean()),
            "parts": float(np.concatenate(parts).mean()),
            "confusion": Counter((str(t), str(w)) for t, w, a in zip(truth[~target], best[~target], acc[~target]) if a)}


def _mean(rows: list[dict[str, Any]], key: str) -> float:
    return float(np.mean([r[key] for r in rows]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", nargs="*", default=list(SETS), help="taught digit sets")
    ap.add_argument("--takes-per-word", type=int, nargs="*", default=[4, 5])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--threshold", type=float, default=0.2, help="voice.taught_threshold")
    ap.add_argument("--cache", type=Path, help="keep the embeddings in this .npz between runs")
    args = ap.parse_args()
    data = embed_all(args.cache)
    sets = [tuple(int(v) for v in s.split(",")) for s in args.sets]
    runs = [(f, fold_scores(data, f)) for f in folds(data, sets, args.takes_per_word, args.seeds)]
    speakers = sorted({f["speaker"] for f, _ in runs})
    chosen = {who: choose_factor(data, [r for r in runs if r[0]["speaker"] != who], args.threshold)
              for who in speakers}
    levers: dict[str, Callable[[Fold, Scores], dict[str, Any]]] = {
              "taught plainly": lambda f, s: measure(data, f, s, "plain", args.threshold),
              "parts as other": lambda f, s: measure(data, f, s, "parts", args.threshold),
              "nearest take": lambda f, s: measure(data, f, s, "plain", args.threshold, chosen[f["speaker"]])}
    print(f"{len(runs)} folds: {len(speakers)} speakers x {len(sets)} word sets x takes {args.takes_per_word} "
          f"x {args.seeds} seeds; threshold {args.threshold:g}; nearest-take factor chosen on the other "
          f"two speakers: " + ", ".join(f"{w} {chosen[w]:g}" for w in speakers))
    print("lever             speaker    recall  false accepts  (seen  unseen)  parts heard")
    results = {name: [fn(f, s) for f, s in runs] for name, fn in levers.items()}
    for name, rows in results.items():
        for who in [*speakers, "all"]:
            mine = [r for r, (f, _) in zip(rows, runs) if who in ("all", f["speaker"])]
            print(f"{name:<17} {who:<10} {_mean(mine, 'recall'):6.3f}  {_mean(mine, 'fa'):13.3f}  "
                  f"({_mean(mine, 'seen'):.3f}  {_mean(mine, 'unseen'):.3f})  {_mean(mine, 'parts'):11.3f}")
    paired(results)
    sweep(data, runs)
    confusion(results, runs)
    return 0


def choose_factor(data: dict[str, np.ndarray], runs: list[tuple[Fold, Scores]], threshold: float) -> float:
    """The nearest-take lever's factor with the highest mean recall minus false accepts on ``runs``
    (the other two speakers' folds)."""
    def gain(c: float) -> float:
        m = [measure(data, f, s, "plain", threshold, c) for f, s in runs]
        return _mean(m, "recall") - _mean(m, "fa")
    return max((2.0, 3.0, 4.0, 5.0, 6.0, 8.0, np.inf), key=gain)


def paired(results: dict[str, list[dict[str, Any]]]) -> None:
    base = results["taught plainly"]
    for name, rows in results.items():
        if name == "taught plainly":
            continue
        dr = np.array([r["recall"] - b["recall"] for r, b in zip(rows, base)])
        df = np.array([r["fa"] - b["fa"] for r, b in zip(rows, base)])
        print(f"{name} against taught plainly, paired over {len(dr)} folds: recall {dr.mean():+.3f} "
              f"(worse in {int((dr < 0).sum())}, better in {int((dr > 0).sum())}), false accepts {df.mean():+.3f} "
              f"(worse in {int((df > 0).sum())}, better in {int((df < 0).sum())})")


def sweep(data: dict[str, np.ndarray], runs: list[tuple[Fold, Scores]]) -> None:
    print("\nthe same folds at other thresholds (all speakers): recall, false accepts, parts heard")
    for lever in ("plain", "parts"):
        cells = []
        for t in SWEEP:
            m = [measure(data, f, s, lever, t) for f, s in runs]
            cells.append(f"{t:g}: {_mean(m, 'recall'):.3f} {_mean(m, 'fa'):.3f} {_mean(m, 'parts'):.3f}")
        print(f"{'taught plainly' if lever == 'plain' else 'parts as other':<15} " + " | ".join(cells))


def confusion(results: dict[str, list[dict[str, Any]]], runs: list[tuple[Fold, Scores]]) -> None:
    for name in ("taught plainly", "parts as other"):
        total: Counter[tuple[str, str]] = Counter()
        for r in results[name]:
            total.update(r["confusion"])
        said = sum(len(f["test"]) for f, _ in runs)
        print(f"most heard non-target -> taught word ({name}, of {said} test takes): "
              + ", ".join(f"{t}->{w} {n}" for (t, w), n in total.most_common(8)))


if __name__ == "__main__":
    raise SystemExit(main())
