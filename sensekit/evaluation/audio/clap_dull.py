"""More training copies of the dull, reverberant claps, under babble and under one speaker.

The twelfth pass (docs/claps_history.md) found the claps lost over babble lost at the trees:
they are the duller, more reverberant claps already in the clean clips (a long fall, little
air), which babble pushes under the threshold. The trees saw each clap clip under babble
once (``n_babble``, at a random 0-30 dB). ``collect_dull`` aims more copies at those claps:

- a clap is **dull** when its burst in the clip as recorded falls 20 dB below its peak no
  sooner than ``DULL_FALL_MS`` (10 ms: a clap is over within ~10 ms, a longer fall is the
  room's tail; fixed from that, before any held-out score);
- every real clap clip holding a dull clap is copied ``COPIES`` times under babble of the
  *other* sources' speech (``clap_augment.with_noise``, as ``n_babble``) and ``COPIES`` times
  under one speaker of another source, looped, each copy at an SNR drawn from its own third
  of ``SNR_DB`` (the claps' loudest 5 ms RMS over the noise's RMS);
- in these copies the dull claps are claps (label 1), the other claps are ignored (-1), and
  every other burst (babble onsets, the speaker's plosives) is not a clap (0): the speech
  negatives come with the claps, in the same copies, so they stay in balance.

Source: the clip's; background: ``""`` for babble (as ``n_babble``), the speaker's source for
one speaker (so a fold that holds that source out drops the copy). Variants ``d_babble`` and
``d_speech``. Deterministic (seeds from the clip name). Cost: ~2 min of audio, ~20 s.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from sensekit.audio.clap_loudness import clap_loudness
from sensekit.evaluation.audio.clap_augment import with_noise
from sensekit.evaluation.audio.clap_training import (
    SYNTH,
    Bursts,
    _Clips,
    bursts_of_rows,
    judged_bursts,
    label_bursts,
    seed_of,
)
from sensekit.evaluation.audio.clap_words import joined
from sensekit.evaluation.audio.evaluate import recipe_onsets

DULL_FALL_MS = 10.0          # a clap whose fall to -20 dB takes this long or longer is dull
COPIES = 3                   # copies per clip and kind (babble, one speaker)
SNR_DB = (0.0, 15.0)         # the copies' SNR range, split in COPIES equal parts
VARIANTS = ("d_babble", "d_speech")


def dull_claps(x: np.ndarray, rate: int, onsets: list[float]) -> list[bool]:
    """For each clap time, whether its burst in ``x`` is dull (no burst: not dull)."""
    feats = judged_bursts(x, rate)
    labels = label_bursts(feats, onsets)
    claps = [f for f, lab in zip(feats, labels) if lab == 1]
    out = []
    for o in onsets:
        near = [f for f in claps if abs(f.t_onset - o) <= 0.030]
        out.append(bool(near) and near[0].fall20_ms >= DULL_FALL_MS)
    return out


def _one_speaker(x: np.ndarray, sx: np.ndarray, loud: float, snr_db: float,
                 rng: np.random.Generator) -> np.ndarray:
    unit = np.resize(np.roll(sx.astype(np.float64), int(rng.integers(len(sx)))), len(x))
    y = x.astype(np.float64) + unit / (np.sqrt(np.mean(unit ** 2)) + 1e-20) * loud * 10.0 ** (-snr_db / 20.0)
    peak = float(np.abs(y).max())
    return np.asarray(y * (0.95 / peak) if peak > 0.95 else y, np.float32)


def collect_dull(data: Path, *, progress: Callable[[str], None] | None = None) -> Bursts:
    """The judged bursts of the dull claps' babble and one-speaker copies (see the module)."""
    src = _Clips(Path(data), synth=())
    rows: list[tuple[np.ndarray, int, str, str, str, str]] = []
    counts: dict[str, int] = {}
    edges = np.linspace(SNR_DB[0], SNR_DB[1], COPIES + 1)
    for c in src.clips:
        if c.label != "clap" or c.source == SYNTH:
            continue
        x, rate = src.audio[c.file]
        onsets = c.onsets or recipe_onsets(x, rate)
        dull = dull_claps(x, rate, onsets)
        if not any(dull):
            continue
        counts[c.file] = len(onsets)
        keep = [o for o, d in zip(onsets, dull) if d]
        loud = clap_loudness(x, rate, onsets)
        speakers = [b for b in src.speech if b.source != c.source]
        babble = [src.at_rate(b.file, rate) for b in speakers]
        for variant in VARIANTS:
            for k in range(COPIES):
                rng = np.random.default_rng(seed_of(c.file, variant, str(k)))
                snr = float(rng.uniform(edges[k], edges[k + 1]))
                if variant == "d_babble":
                    y, bg = with_noise(x, rate, loud, snr, "babble", rng, babble), ""
                else:
                    one = speakers[int(rng.integers(len(speakers)))]
                    y, bg = _one_speaker(x, src.at_rate(one.file, rate), loud, snr, rng), one.source
                feats = judged_bursts(y, rate)
                labels = label_bursts(feats, onsets)
                mine = label_bursts(feats, keep)
                for f, lab, m in zip(feats, labels, mine):
                    rows.append((f.vector(), 1 if m == 1 else (-1 if lab != 0 else 0),
                                 c.source, bg, variant, c.file))
        if progress is not None:
            progress(f"{c.file}: {sum(dull)} of {len(onsets)} claps dull")
    return bursts_of_rows(rows, counts, {c.file: c.label for c in src.clips})


def with_dull(bursts: Bursts, data: Path, cache: Path | None = None,
              progress: Callable[[str], None] | None = None,
              variants: tuple[str, ...] = VARIANTS) -> Bursts:
    """``bursts`` joined with the copies ``variants`` of ``collect_dull(data)``, kept in
    ``cache`` (.npz, every variant) when given."""
    from sensekit.evaluation.audio.clap_training import collect_cached

    if cache is not None and Path(cache).is_file():
        return joined(bursts, _only(collect_cached(data, cache), variants))
    d = collect_dull(data, progress=progress)
    if cache is not None:
        np.savez_compressed(cache, X=d.X, y=d.y, source=d.source, background=d.background,
                            variant=d.variant, clip=d.clip, on_k=list(d.onsets),
                            on_v=list(d.onsets.values()), lab_k=list(d.labels),
                            lab_v=list(d.labels.values()))
    return joined(bursts, _only(d, variants))


def _only(b: Bursts, variants: tuple[str, ...]) -> Bursts:
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        raise ValueError(f"dull copies must be among {VARIANTS}, got {sorted(unknown)}")
    m = np.isin(b.variant, variants)
    return Bursts(b.X[m], b.y[m], b.source[m], b.background[m], b.variant[m], b.clip[m], b.onsets, b.labels)


__all__ = ["COPIES", "DULL_FALL_MS", "SNR_DB", "VARIANTS", "collect_dull", "dull_claps", "with_dull"]
