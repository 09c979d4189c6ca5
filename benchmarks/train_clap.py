#!/usr/bin/env python3
"""Train the clap model on the developer clips and write sensekit/audio/clap_model.py.

Deterministic: the same data give byte-identical output. Steps (``sensekit.evaluation.audio.clap_training``):
every clip and its augmented copies are streamed through ClapDetector, every judged burst
is labelled (clap_onsets.csv, or the data README's recipe for clap clips without times);
boosted trees are fitted on all of them, plus the air gate (a last tree that rejects
bursts with less energy above 4.5 kHz than any training clap); the decision threshold is the one with the best
pooled held-out per-clap F1 when each source is left out in turn (``clap_folds.choose_threshold``).
``--save-folds`` also keeps each source's nested threshold (chosen on the other sources' folds
only, ``clap_folds.nested_thresholds``) for ``benchmarks/audio_eval.py --loso nested --folds``.

Usage: .venv/bin/python benchmarks/train_clap.py [--data ../shared/data] [--check] [--out PATH]
       [--cache bursts.npz]
  --check  do not write; exit 1 if the shipped model differs from what the data give
Cost: ~1 min to collect the bursts, ~5 s per fit (12 fits).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from _reference import SHARED_DATA, data_refused

REPO = Path(__file__).resolve().parents[1]
MODEL_PY = REPO / "sensekit" / "audio" / "clap_model.py"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path,
                    default=SHARED_DATA)
    ap.add_argument("--out", type=Path, default=MODEL_PY)
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--family", choices=("booster", "hgb"), default=None,
                    help="model family (default clap_training.FAMILY): the hand-written booster "
                         "or scikit-learn's HistGradientBoostingClassifier, exported as arrays")
    ap.add_argument("--save-folds", type=Path, default=None,
                    help="write the single-source folds' models and the threshold here (JSON; "
                         "benchmarks/audio_eval.py --folds reads it)")
    ap.add_argument("--folds", type=Path, default=None,
                    help="reuse the fold models of an earlier --save-folds run (same bursts) "
                         "instead of fitting them again")
    ap.add_argument("--also", default="",
                    help="more augmented copies, comma-separated (e.g. clap_training.LOW_SNR: "
                         "lo_white,lo_pink,lo_babble,lo_speech; tried, not shipped)")
    ap.add_argument("--words", type=Path, default=None, metavar="CACHE",
                    help="also train on the spoken digits of words/, one source per speaker "
                         "(clap_words.collect_words; kept in this .npz; tried, not shipped)")
    ap.add_argument("--everyday", action="store_true",
                    help="also synthesise clap_augment.EVERYDAY_KINDS (typing, footsteps on gravel, "
                         "knocks through a phone) as hard negatives (the tenth pass; tried, not shipped)")
    ap.add_argument("--dull-variants", default="d_babble,d_speech",
                    help="which of the dull copies (clap_dull.VARIANTS) to train on")
    ap.add_argument("--dull", type=Path, default=None, metavar="CACHE",
                    help="also train on babble and one-speaker copies of the dull claps "
                         "(clap_dull.collect_dull; kept in this .npz; the thirteenth pass; tried, not shipped)")
    ap.add_argument("--cache", type=Path, default=None,
                    help="keep the collected bursts in this .npz (read it when it exists)")
    args = ap.parse_args(argv)
    if data_refused(args.data):
        return 2
    from sensekit.evaluation.audio import clap_folds as cf
    from sensekit.evaluation.audio import clap_training as ct
    from sensekit.evaluation.audio import clap_words as cw

    def say(message: str) -> None:
        print(f"# {message}", file=sys.stderr, flush=True)
    family = args.family or ct.FAMILY
    bursts, gate_from = training_set(args, say)
    say(f"{len(bursts.y)} bursts: {int((bursts.y == 1).sum())} claps, "
        f"{int((bursts.y == 0).sum())} others, {int((bursts.y == -1).sum())} ignored")
    folds, models = {}, {}
    if args.folds is not None:
        import json
        models = json.loads(args.folds.read_text())["models"]
    for s in sorted(set(bursts.source) - {ct.SYNTH}):
        say(f"fold without {s}")
        if s not in models:
            models[s] = ct.train(bursts, leave_out=cw.leave_out(s) if args.words else [s], family=family,
                                 gate_from=gate_from)
        folds[s] = ct.scores(bursts, models[s])
    threshold = cf.choose_threshold(bursts, folds)
    nested = cf.nested_thresholds(bursts, folds)
    if args.save_folds is not None:
        import json
        args.save_folds.write_text(json.dumps({"threshold": threshold, "nested": nested,
                                               "models": models}))
    say("held out, all sources pooled, by threshold: per-clap F1 on the clips (the threshold's "
        "figure) / on their noisy copies: " + ", ".join(
            f"{t:g}: {cf.pooled_f1(bursts, folds, float(t)):.4f} / "
            f"{cf.pooled_f1(bursts, folds, float(t), variants=ct.NOISY):.4f}" for t in cf.THRESHOLDS))
    for s, sc in folds.items():
        say(f"held out {s:16s} figure {cf.heldout(bursts, sc, threshold, s):.3f}; nested threshold "
            f"{nested[s]:g} (chosen on the other sources' folds): {cf.heldout(bursts, sc, nested[s], s):.3f}")
    say(f"threshold {threshold}")
    model = ct.train(bursts, family=family, gate_from=gate_from)
    text = ct.format_module(model, threshold, f"{ct.TREES} trees of depth {ct.DEPTH} ({family}), "
                            f"trained on {len(bursts.y)} bursts.")
    if args.check:
        same = args.out.is_file() and args.out.read_text() == text
        print("shipped model matches the data" if same else "shipped model DIFFERS from the data")
        return 0 if same else 1
    args.out.write_text(text)
    print(f"wrote {args.out} (threshold {threshold})")
    return 0


def training_set(args: argparse.Namespace, say: Any) -> tuple[Any, tuple[str, ...] | None]:
    """The collected bursts (with ``--also``, ``--everyday``, ``--words``, ``--dull``) and the
    copies the air gate is taken from (``None``: every copy)."""
    from sensekit.evaluation.audio import clap_training as ct
    from sensekit.evaluation.audio.clap_augment import EVERYDAY_KINDS, SYNTHETIC_KINDS

    also = tuple(v for v in args.also.split(",") if v)
    synth = SYNTHETIC_KINDS + (EVERYDAY_KINDS if args.everyday else ())
    bursts = ct.collect_cached(args.data, args.cache, augment=ct.AUGMENTATIONS + also, synth=synth)
    if args.words is not None:
        from sensekit.evaluation.audio import clap_words as cw
        bursts = cw.joined(bursts, cw.collect_words_cached(args.data, args.words))
    if args.dull is None:
        return bursts, None
    from sensekit.evaluation.audio import clap_dull as cd     # the air gate as without the dull
    return cd.with_dull(bursts, args.data, args.dull, progress=say,
                        variants=tuple(args.dull_variants.split(","))), tuple(ct.AUGMENTATIONS) + also


if __name__ == "__main__":
    raise SystemExit(main())
