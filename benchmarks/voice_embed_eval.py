"""Command words learnt from other speakers' takes (speech embeddings), leave one speaker out.

    python benchmarks/voice_embed_eval.py [--takes N] [--triples 1,5,9 0,2,7 ...] [--fa 0.03] [--speaker-norm]

Every take of ../shared/data/words is cut by the real ``VoiceStage`` chain (8 kHz -> soxr
16 kHz -> WebRTC VAD), as ``benchmarks/voice_eval.py`` does, and its longest segment embedded
(``sensekit.audio.speech_embedding``). For each triple of command digits and each held-out
speaker, a ``WordClassifier`` is fitted on the two other speakers' takes (the three commands,
and the seven other digits as ``OTHER``). Its threshold is nested: for each of the two training
speakers, a classifier fitted on the other one alone scores that speaker's non-target takes,
the threshold allowing ``--fa`` false accepts there is taken, and the higher of the two is used.
Recall counts the right command on the held-out speaker's command takes; false accepts count
any command on its non-target takes. Also printed: the embedding's cost per segment.

``--speaker-norm``: each speaker's embeddings standardised with that speaker's own mean and
spread over all of their takes (no labels), the held-out speaker's included. This asks what
adapting to a user's voice from unlabelled speech could buy; it is optimistic, since the
statistics come from a balanced mix of all ten digits, which a real session would not have.

This is not the general ``--words`` path: the classifier knows only words with recorded takes.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.voice_eval import DIGITS, blocks, load_digits, stream_of
from sensekit.audio.speech_embedding import SpeechEmbedder
from sensekit.audio.voice import VoiceStage
from sensekit.audio.word_classifier import OTHER, WordClassifier

TRIPLES = ("1,5,9", "0,2,7", "3,6,8", "2,4,6", "0,5,8")


def take_segments(digits) -> list:
    """The longest voiced ``Segment`` the stage cuts from each take (None if none)."""
    rate = digits[0][3]
    x, spans = stream_of([c[2] for c in digits], rate)
    stage = VoiceStage({"words": ("one",)})
    segs: list = []
    stage.recognise = lambda s, t: segs.append(s) or []
    for b in blocks(x, rate):
        stage.process(b)
    stage.finish()
    out = []
    for a, b in spans:
        mine = [s for s in segs if s.end > a and s.start < b]
        out.append(max(mine, key=lambda s: len(s.pcm)) if mine else None)
    return out


def threshold_at(negatives: np.ndarray, fa: float) -> float:
    """The lowest threshold that accepts at most ``fa`` of ``negatives`` (best probabilities)."""
    neg = np.sort(negatives)[::-1]
    return float(neg[int(np.floor(fa * len(neg)))]) + 1e-9


def loso(emb: np.ndarray, labels: np.ndarray, speakers: np.ndarray, triple: tuple[int, ...],
         fa: float) -> list[dict]:
    words = [DIGITS[d] for d in triple]
    target = np.isin(labels, triple)
    names = np.array([DIGITS[d] if t else OTHER for d, t in zip(labels, target)])

    def best(train: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        clf = WordClassifier().fit(emb[train], names[train].tolist())
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
        acc = p >= thr
        right = word == names[test]
        tg = target[test]
        rows.append({"commands": ",".join(words), "held_out": held, "threshold": thr,
                     "recall": float((acc & right)[tg].mean()), "false_accepts": float(acc[~tg].mean()),
                     "wrong_word": int((acc & ~right)[tg].sum()), "targets": int(tg.sum()),
                     "non_targets": int((~tg).sum())})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--takes", type=int, default=50, help="takes per digit and speaker (50: all)")
    ap.add_argument("--triples", nargs="*", default=list(TRIPLES))
    ap.add_argument("--fa", type=float, default=0.03, help="false accepts allowed on each training speaker")
    ap.add_argument("--speaker-norm", action="store_true", help="standardise each speaker's embeddings (unlabelled)")
    args = ap.parse_args()
    digits = load_digits(args.takes)
    segs = take_segments(digits)
    keep = [i for i, s in enumerate(segs) if s is not None]
    print(f"{len(digits)} takes, {len(digits) - len(keep)} without a segment (left out)")
    embedder = SpeechEmbedder()
    t0 = time.perf_counter()
    emb = np.stack([embedder.embed(segs[i]) for i in keep])
    cost_ms = (time.perf_counter() - t0) / len(keep) * 1000
    labels = np.array([digits[i][0] for i in keep])
    speakers = np.array([digits[i][1] for i in keep])
    if args.speaker_norm:
        for who in set(speakers.tolist()):
            mine = speakers == who
            emb[mine] = (emb[mine] - emb[mine].mean(axis=0)) / (emb[mine].std(axis=0) + 1e-6)
    print(f"embedding: {cost_ms:.1f} ms per segment (load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores)")
    print("\ncommands learnt from the other two speakers, leave one speaker out")
    print("commands            held out   threshold  recall  false accepts  wrong word")
    rows = []
    for text in args.triples:
        triple = tuple(int(v) for v in text.split(","))
        for r in loso(emb, labels, speakers, triple, args.fa):
            rows.append(r)
            print(f"{r['commands']:<19} {r['held_out']:<10} {r['threshold']:9.3f}  {r['recall']:6.3f}"
                  f"  {r['false_accepts']:13.3f}  {r['wrong_word']:10d}")
    rec = np.array([r["recall"] for r in rows])
    fas = np.array([r["false_accepts"] for r in rows])
    print(f"mean recall {rec.mean():.3f}, mean false accepts {fas.mean():.3f} over {len(rows)} folds; "
          f"folds with recall >= 0.85 and false accepts <= 0.05: {int(((rec >= 0.85) & (fas <= 0.05)).sum())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
