"""Command words learnt from other speakers' takes (speech embeddings), leave one speaker out.

    python benchmarks/voice_embed_eval.py [--takes N] [--triples 1,5,9 0,2,7 ...] [--fa 0.03] [--fixed T ...]
                                          [--speaker-norm] [--sounds] [--personal] [--window 0.96]

Every take of ../shared/data/words is cut by the real ``VoiceStage`` chain (8 kHz -> soxr
16 kHz -> WebRTC VAD), as ``benchmarks/voice_eval.py`` does, and its longest segment embedded
(``sensekit.audio.speech_embedding``). For each triple of command digits and each held-out
speaker, a ``WordClassifier`` is fitted on the two other speakers' takes (the three commands,
and the seven other digits as ``OTHER``). Its threshold is nested: for each of the two training
speakers, a classifier fitted on the other one alone scores that speaker's non-target takes,
the threshold allowing ``--fa`` false accepts there is taken, and the higher of the two is used.
Recall counts the right command on the held-out speaker's command takes; false accepts count
any command on its non-target takes. Also printed: the embedding's cost per segment.

``--fixed T ...``: the same folds with one threshold for all of them, as a user gets with
``voice.taught_threshold`` (0.2 by default); and, for each speaker, the median of the nested
thresholds of the folds that hold out someone else (a default chosen without that speaker).

``--speaker-norm``: each speaker's embeddings standardised with that speaker's own mean and
spread over all of their takes (no labels), the held-out speaker's included. This asks what
adapting to a user's voice from unlabelled speech could buy; it is optimistic, since the
statistics come from a balanced mix of all ten digits, which a real session would not have.

``--parts``: the first and last 40 % of every command take of the training speakers are taught
as other speech too, as ``sensekit teach words --refuse-parts`` does.

``--window S``: the embedding window in seconds (0.96, the default, gives 3 sets of 96 numbers;
1.28 gives 7).

``--personal``: words taught by one person for that person, as ``sensekit teach words`` with
takes of a single speaker: for each speaker and triple, the classifier is fitted on that
speaker's first 5 takes of every digit (the commands, and the other seven digits as other
speech) and tested on the speaker's other 45 takes of each digit, at the threshold 0.2.

``--sounds``: taught sounds on embeddings instead of DTW on MFCCs, as ``benchmarks/voice_eval.py``
measures them: each speaker teaches the ten digits from its first 3 (then 5) takes (in the
order of labels.csv) and every other take of that speaker is given the digit of its nearest
taught example (Euclidean and cosine distance between flattened embeddings).

Words one person teaches from a few takes, and their false accepts on that person's other
words, are measured by ``benchmarks/voice_few_takes.py``.

This is not the general ``--words`` path: the classifier knows only words with recorded takes.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from voice_eval import DIGITS, load_digits, take_segments
from sensekit.audio.speech_embedding import SpeechEmbedder
from sensekit.audio.vad import Segment
from sensekit.audio.word_classifier import OTHER, WordClassifier

TRIPLES = ("1,5,9", "0,2,7", "3,6,8", "2,4,6", "0,5,8")


def threshold_at(negatives: np.ndarray, fa: float) -> float:
    """The lowest threshold that accepts at most ``fa`` of ``negatives`` (best probabilities)."""
    neg = np.sort(negatives)[::-1]
    return float(neg[int(np.floor(fa * len(neg)))]) + 1e-9


def loso(emb: np.ndarray, labels: np.ndarray, speakers: np.ndarray, triple: tuple[int, ...],
         fa: float, fixed: tuple[float, ...] = (), parts: np.ndarray | None = None) -> list[dict[str, Any]]:
    words = [DIGITS[d] for d in triple]
    target = np.isin(labels, triple)
    names = np.array([DIGITS[d] if t else OTHER for d, t in zip(labels, target)])

    def best(train: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x, y = emb[train], names[train].tolist()
        if parts is not None:                    # --parts: the command takes' parts as OTHER
            mine = parts[:, train & target].reshape(-1, *emb.shape[1:])
            x, y = np.concatenate([x, mine]), y + [OTHER] * len(mine)
        clf = WordClassifier().fit(x, y)
        p = clf.probability_matrix(emb[test])
        return np.array(clf.words)[p.argmax(axis=1)], p.max(axis=1)

    rows = []
    for held in sorted(set(speakers)):
        train, test = speakers != held, speakers == held
        inner = []
        for other in sorted(set(speakers[train])):
            fit_on, score_on = train & (speakers != other), speakers == other
            _, p = best(fit_on, score_on)
            inner.append(threshold_at(p[~target[score_on]], fa))
        thr = max(inner)
        word, p = best(train, test)
        right = word == names[test]
        tg = target[test]
        for t in (thr, *fixed):
            acc = p >= t
            if t is thr:
                scored = {"p": p, "right": right, "tg": tg}
            rows.append({"commands": ",".join(words), "held_out": held, "threshold": t,
                         "fixed": t is not thr,
                         "recall": float((acc & right)[tg].mean()), "false_accepts": float(acc[~tg].mean()),
                         "wrong_word": int((acc & ~right)[tg].sum()), "targets": int(tg.sum()),
                         "non_targets": int((~tg).sum()), **(scored if t is thr else {})})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--takes", type=int, default=50, help="takes per digit and speaker (50: all)")
    ap.add_argument("--triples", nargs="*", default=list(TRIPLES))
    ap.add_argument("--fa", type=float, default=0.03, help="false accepts allowed on each training speaker")
    ap.add_argument("--fixed", type=float, nargs="*", default=[],
                    help="also report these fixed thresholds (voice.taught_threshold), the same for every fold")
    ap.add_argument("--window", type=float, default=0.96, help="embedding window in seconds")
    ap.add_argument("--personal", action="store_true", help="words taught by one speaker, tested on that speaker")
    ap.add_argument("--sounds", action="store_true", help="taught sounds by nearest embedding (3 and 5 examples)")
    ap.add_argument("--parts", action="store_true",
                    help="teach the first and last 40%% of every command take as other speech too "
                         "(teach words --refuse-parts)")
    ap.add_argument("--speaker-norm", action="store_true", help="standardise each speaker's embeddings (unlabelled)")
    args = ap.parse_args()
    digits = load_digits(args.takes)
    segs = take_segments(digits)
    keep = [i for i, s in enumerate(segs) if s is not None]
    found = [s for s in segs if s is not None]          # segs[i] for i in keep
    print(f"{len(digits)} takes, {len(digits) - len(keep)} without a segment (left out)")
    embedder = SpeechEmbedder(window_s=args.window)
    t0 = time.perf_counter()
    emb = np.stack([embedder.embed(s) for s in found])
    cost_ms = (time.perf_counter() - t0) / len(keep) * 1000
    parts = part_embeddings(embedder, found) if args.parts else None
    labels = np.array([digits[i][0] for i in keep])
    speakers = np.array([digits[i][1] for i in keep])
    if args.speaker_norm:
        for who in set(speakers.tolist()):
            mine = speakers == who
            emb[mine] = (emb[mine] - emb[mine].mean(axis=0)) / (emb[mine].std(axis=0) + 1e-6)
    print(f"embedding: {cost_ms:.1f} ms per segment (load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores)")
    if args.sounds:
        sound_accuracy(emb, labels, speakers)
    if args.personal:
        personal(emb, labels, speakers, [tuple(int(v) for v in t.split(",")) for t in args.triples])
    print("\ncommands learnt from the other two speakers, leave one speaker out")
    print("commands            held out   threshold  recall  false accepts  wrong word")
    rows = []
    for text in args.triples:
        triple = tuple(int(v) for v in text.split(","))
        for r in loso(emb, labels, speakers, triple, args.fa, tuple(args.fixed), parts):
            rows.append(r)
            if not r["fixed"]:
                print(f"{r['commands']:<19} {r['held_out']:<10} {r['threshold']:9.3f}  {r['recall']:6.3f}"
                      f"  {r['false_accepts']:13.3f}  {r['wrong_word']:10d}")
    summary([r for r in rows if not r["fixed"]], "nested thresholds")
    for t in args.fixed:
        print(f"\nfixed threshold {t:g} (every fold)")
        print("commands            held out   recall  false accepts")
        mine = [r for r in rows if r["fixed"] and r["threshold"] == t]
        for r in mine:
            print(f"{r['commands']:<19} {r['held_out']:<10} {r['recall']:6.3f}  {r['false_accepts']:13.3f}")
        summary(mine, f"fixed {t:g}")
    held_out_default([r for r in rows if not r["fixed"]], speakers)
    return 0


def part_embeddings(embedder: SpeechEmbedder, segments: list[Segment]) -> np.ndarray:
    """``(2, takes, ...)``: the embeddings of the first and of the last 40 % of every take."""
    from sensekit.audio.taught_words import word_parts

    cut = [word_parts(s) for s in segments]
    return np.stack([[embedder.embed(c[j]) for c in cut] for j in (0, 1)])


def held_out_default(nested: list[dict[str, Any]], speakers: np.ndarray) -> None:
    print("\none default per held-out speaker: the median nested threshold of the folds that hold out "
          "someone else")
    held_rows: list[dict[str, float]] = []
    for who in sorted(set(speakers.tolist())):
        t = float(np.median([r["threshold"] for r in nested if r["held_out"] != who]))
        for r in (r for r in nested if r["held_out"] == who):
            acc, tg = r["p"] >= t, r["tg"]
            held_rows.append({"recall": float((acc & r["right"])[tg].mean()), "false_accepts": float(acc[~tg].mean())})
            print(f"{r['commands']:<19} {who:<10} {t:9.3f}  {held_rows[-1]['recall']:6.3f}"
                  f"  {held_rows[-1]['false_accepts']:13.3f}")
    summary(held_rows, "held-out default")


def personal(emb: np.ndarray, labels: np.ndarray, speakers: np.ndarray, triples: list[tuple[int, ...]],
             k: int = 5, threshold: float = 0.2) -> None:
    print(f"\nwords taught by one speaker ({k} takes of every digit), tested on that speaker's other takes")
    print("commands            speaker    recall  false accepts")
    rows = []
    for triple in triples:
        for who in sorted(set(speakers.tolist())):
            mine = np.nonzero(speakers == who)[0]
            taught = np.concatenate([mine[labels[mine] == d][:k] for d in range(10)])
            tests = np.setdiff1d(mine, taught)
            names = np.array([DIGITS[d] if d in triple else OTHER for d in labels])
            clf = WordClassifier().fit(emb[taught], names[taught].tolist())
            p = clf.probability_matrix(emb[tests])
            word, best = np.array(clf.words)[p.argmax(axis=1)], p.max(axis=1)
            acc, tg = best >= threshold, np.isin(labels[tests], triple)
            rows.append({"recall": float((acc & (word == names[tests]))[tg].mean()),
                         "false_accepts": float(acc[~tg].mean())})
            print(f"{','.join(DIGITS[d] for d in triple):<19} {who:<10} {rows[-1]['recall']:6.3f}"
                  f"  {rows[-1]['false_accepts']:13.3f}")
    summary(rows, f"one speaker, {k} takes")


def sound_accuracy(emb: np.ndarray, labels: np.ndarray, speakers: np.ndarray) -> None:
    flat = emb.reshape(len(emb), -1).astype(np.float64)
    unit = flat / np.linalg.norm(flat, axis=1, keepdims=True)
    print("\ntaught sounds by nearest embedding: the ten digits taught by one speaker (first k takes)")
    print("k  speaker    tests  euclidean  cosine")
    for k in (3, 5):
        for who in sorted(set(speakers.tolist())):
            mine = np.nonzero(speakers == who)[0]
            taught = np.concatenate([mine[labels[mine] == d][:k] for d in range(10)])
            tests = np.setdiff1d(mine, taught)
            d_e = ((flat[tests, None, :] - flat[None, taught, :]) ** 2).sum(axis=2)
            d_c = -unit[tests] @ unit[taught].T
            right = [float(np.mean(labels[taught][d.argmin(axis=1)] == labels[tests])) for d in (d_e, d_c)]
            print(f"{k}  {who:<10} {len(tests):5d}  {right[0]:9.3f}  {right[1]:6.3f}")


def summary(rows: list[dict[str, Any]], what: str) -> None:
    rec = np.array([r["recall"] for r in rows])
    fas = np.array([r["false_accepts"] for r in rows])
    print(f"{what}: mean recall {rec.mean():.3f}, mean false accepts {fas.mean():.3f} over {len(rows)} folds; "
          f"folds with recall >= 0.85 and false accepts <= 0.05: {int(((rec >= 0.85) & (fas <= 0.05)).sum())}")


if __name__ == "__main__":
    raise SystemExit(main())
