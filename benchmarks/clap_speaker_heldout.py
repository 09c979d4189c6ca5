#!/usr/bin/env python3
"""Speech over claps with the speaker held out too (docs/claps.md, fifth pass).

The noise curve's one-speaker mixes (``clap_noise``: the same seeds and SNRs) are scored by
trees that heard neither the clip's source nor the source of the speech under it (a fold
without both, ``clap_training.train(leave_out=[source, speaker])``), at the clip source's
nested threshold from ``--folds``. With ``--words``, also each digit speaker of ``words/``
(60 of its takes, ``clap_words.stream``, looped from a point set by the clip) under every
annotated clip, scored by trees without the clip's source and that speaker (offset 0).
Prints recall and false claps per minute, the worse of the offsets.

The pair folds are fitted once and kept in ``--pairs`` (JSON, read when it holds them). With
``--words`` a fold without the developer ``fsdd`` source also leaves out ``fsdd_yweweler``
(the same speaker), as ``clap_words.leave_out`` does the other way round.

Usage: .venv/bin/python benchmarks/clap_speaker_heldout.py --cache BASE.npz [--words WORDS.npz]
       [--dull DULL.npz] --folds FOLDS.json --pairs PAIRS.json [--snrs 0,5,10] [--offsets 0,517]
Cost: ~15-40 s per pair fold (11 for the speech mixes, 18 more with --words); ~1 min streaming.
"""
from __future__ import annotations

import argparse
import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from _clap_clips import add_data_option, clap_clips


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_option(ap)
    ap.add_argument("--cache", type=Path, required=True, help="the clips' training bursts (.npz)")
    ap.add_argument("--words", type=Path, default=None, help="the digits' bursts (clap_words; .npz)")
    ap.add_argument("--dull-variants", default="d_babble,d_speech",
                    help="which of the dull copies (clap_dull.VARIANTS) to train on")
    ap.add_argument("--dull", type=Path, default=None,
                    help="the dull claps' copies' bursts (clap_dull, train_clap.py --dull; .npz)")
    ap.add_argument("--folds", type=Path, required=True, help="train_clap.py --save-folds (nested)")
    ap.add_argument("--pairs", type=Path, required=True, help="the pair folds, kept here (JSON)")
    ap.add_argument("--snrs", default="0,5,10")
    ap.add_argument("--offsets", default="0,517")
    args = ap.parse_args(argv)
    targets, speech, audio = clap_clips(args.data)
    pairs = Pairs(args)
    nested = json.loads(args.folds.read_text())["nested"]
    snrs = [float(v) for v in args.snrs.split(",")]
    offsets = [int(v) for v in args.offsets.split(",")]
    for snr in snrs:
        mixes = speech_mixes(targets, speech, audio, pairs.fold, snr)
        print(f"one speaker held out, {snr:g} dB: {score(mixes, offsets, nested)}", flush=True)
    if args.words is not None:
        for snr in snrs:
            mixes = digit_mixes(args.data, targets, audio, pairs.fold, snr)
            print(f"a digit speaker held out, {snr:g} dB: {score(mixes, [0], nested)}", flush=True)
    return 0


class Pairs:
    """The folds without a clip's source and a speaker's, fitted once and kept in ``--pairs``."""

    def __init__(self, args: argparse.Namespace) -> None:
        from sensekit.evaluation.audio import clap_training as ct
        from sensekit.evaluation.audio import clap_words as cw

        self.bursts = ct.collect_cached(args.data, args.cache)
        if args.words is not None:
            self.bursts = cw.joined(self.bursts, cw.collect_words_cached(args.data, args.words))
        self.words = args.words is not None
        self.gate_from: tuple[str, ...] | None = None
        if args.dull is not None:      # as train_clap.py --dull: the air gate without those copies
            from sensekit.evaluation.audio.clap_dull import with_dull
            self.bursts = with_dull(self.bursts, args.data, args.dull,
                                    variants=tuple(args.dull_variants.split(",")))
            self.gate_from = tuple(ct.AUGMENTATIONS)
        self.path: Path = args.pairs
        self.pairs: dict[str, Any] = json.loads(self.path.read_text()) if self.path.is_file() else {}

    def fold(self, source: str, speaker: str) -> Any:
        from sensekit.evaluation.audio import clap_training as ct
        from sensekit.evaluation.audio import clap_words as cw

        key = f"{source}+{speaker}"
        if key not in self.pairs:
            lo = [source, *cw.leave_out(speaker)]
            if self.words and speaker == "fsdd":
                lo.append(cw.SOURCE_PREFIX + "yweweler")
            print(f"# fit without {source} and {speaker}", flush=True)
            self.pairs[key] = ct.train(self.bursts, leave_out=lo, gate_from=self.gate_from)
            self.path.write_text(json.dumps(self.pairs))
        return self.pairs[key]


Mix = tuple[Any, str, np.ndarray, int, list[float]]   # trees, the clip's source, samples, rate, clap times


def score(mixes: list[Mix], offsets: list[int], nested: dict[str, float]) -> str:
    """Recall and false claps per minute over ``mixes``, the worse of ``offsets``."""
    from sensekit.audio.clap import ClapDetector
    from sensekit.evaluation.audio.evaluate import match, stream_claps

    worst = []
    for off in offsets:
        tp = fn = fp = 0
        seconds = 0.0
        for model, source, y, rate, onsets in mixes:
            make = functools.partial(ClapDetector, model=model, threshold=float(nested[source]), noise_route=False)
            m = match(stream_claps(y, rate, block=512, offset=off, make=make), onsets)
            tp, fn, fp, seconds = tp + m.tp, fn + m.fn, fp + m.fp, seconds + len(y) / rate
        worst.append((tp / (tp + fn), 60.0 * fp / seconds))
    return f"recall {min(r for r, _ in worst):.2f}, false claps/min {max(f for _, f in worst):.1f}"


def digit_mixes(data: Path, targets: list[Any], audio: dict[str, tuple[np.ndarray, int]],
                fold: Callable[[str, str], Any], snr: float) -> list[Mix]:
    """Each digit speaker (60 takes, looped) under every annotated clip at ``snr``, with the
    fold that heard neither the clip's source nor the speaker."""
    from sensekit.evaluation.audio import clap_training as ct
    from sensekit.evaluation.audio import clap_words as cw
    from sensekit.audio.clap_loudness import clap_loudness
    from sensekit.evaluation.audio.clap_noise import mix_at

    takes = cw.read_words(data)
    mixes = []
    for sp in sorted(takes):
        s8 = cw.stream([x for _, x in takes[sp]][::-1][:60], np.random.default_rng(ct.seed_of("curve", sp)))
        for c in targets:
            x, rate = audio[c.file]
            unit = np.resize(np.roll(ct.resample(s8, 8000, rate), ct.seed_of(c.file) % 10000), len(x))
            mixes.append((fold(c.source, cw.SOURCE_PREFIX + sp), c.source,
                          mix_at(x, unit, clap_loudness(x, rate, c.onsets), snr), rate, c.onsets))
    return mixes


def speech_mixes(targets: list[Any], speech: list[Any], audio: dict[str, tuple[np.ndarray, int]],
                 fold: Callable[[str, str], Any], snr: float) -> list[Mix]:
    """The noise curve's one-speaker mixes at ``snr``, each with the fold that heard neither
    the clip's source nor the speaker's."""
    from sensekit.audio.clap_loudness import clap_loudness
    from sensekit.evaluation.audio.clap_noise import mix_at, noise_unit, other_speech, speech_pick

    mixes = []
    for c in targets:
        x, rate = audio[c.file]
        mine = [sp for sp in speech if sp.source != c.source]
        speaker = mine[speech_pick(c.file, len(mine))].source
        unit = noise_unit("speech", c.file, len(x), rate, other_speech(audio, speech, c.source, rate))
        mixes.append((fold(c.source, speaker), c.source, mix_at(x, unit, clap_loudness(x, rate, c.onsets), snr),
                      rate, c.onsets))
    return mixes


if __name__ == "__main__":
    raise SystemExit(main())
