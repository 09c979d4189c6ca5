"""Choosing the clap score's constants: augmented training bursts and leave-one-source-out.

Used by ``benchmarks/train_clap.py`` (writes ``clap_features.MODEL``) and
``benchmarks/audio_eval.py`` (reports every source with a model that never saw it).
Deterministic: every random choice comes from a seed derived from the clip name.

**Bursts.** Each clip (and each augmented copy) is streamed through ``ClapDetector`` with
``keep_features``: every burst it judges is one sample, labelled by the clip's clap times
(``clap_onsets.csv``; for the clap clips without times, the data README's annotation
recipe, ``evaluate.recipe_onsets``). The loudest burst within 30 ms of a clap time is a clap, other
bursts up to 75 ms after it are ignored (the detector merges them), every other burst is
not a clap. Negative clips give only non-claps.

**Augmented copies** (``AUGMENTATIONS``), so a few people and rooms stand for many:
resampled to 16 and 8 kHz; convolved with a synthetic room (exponentially decaying noise,
RT60 0.3-1.0 s, reverberant energy -6..+6 dB re the direct sound); driven 10-18 dB into
hard clipping; and (clap clips) mixed with speech, music or noise from *another* source at
0 and +6 dB (power over the whole clip); and (clap clips) the same claps re-timed 100-200 ms
apart, as people clap fast; and (clap clips) cut to start 2-45 ms before one of its claps, as
a stream that starts just before a clap. Then ``clap_augment``: 22.05 kHz, 10-30 dB quieter,
and one copy per noise kind at 0-30 dB SNR; plus synthetic hard negatives and claps.

**Model** (the fitting and the module it writes: ``clap_fit.py``). Boosted trees on
``FEATURES``, fitted by scikit-learn's HistGradientBoosting
(``clap_hgb.fit_hgb``, the score made to fall as the decay features grow) and exported as
arrays, or by the hand-written ``fit_trees`` (``FAMILY``); each source's weight grows with
the square root of its bursts and both classes weigh the same (``balanced_weights``).
``train(data, leave_out=s)`` uses only bursts whose clip and background both come from
other sources.

**Air gate.** Trees cannot judge sounds unlike any they were trained on: held out, a
source's knocks on wood (tonal, nothing above ~2 kHz) scored as claps. A clap is air
pushed out from between the palms and always has some energy above 4.5 kHz, so the
model ends with one more tree (``with_air_gate``): a burst whose ``air_db`` is below every
training clap's (the 0.1 % quantile minus a quarter of the interquartile range, ~-34 dB)
scores ``GATE_LEAF`` lower, i.e. is never a clap; NaN (8 kHz streams) passes.
``train(gate_from=CLEAN)`` takes that quantile over the claps of the copies with nothing
added only: claps under speech (``lo_speech``) drag it from ~-33 to ~-51 dB (docs/claps_history.md, sixth pass).

Cost: collecting the bursts streams ~30 min of audio (~1-2 min); a fit takes ~5-20 s.
"""
from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sensekit.audio.clap import ClapDetector
from sensekit.audio.clap_features import FEATURES, BurstFeatures, Model, TreeModel
from sensekit.audio.clap_loudness import clap_loudness
from sensekit.evaluation.audio.clap_augment import (
    NOISE_KINDS,
    SYNTHETIC_KINDS,
    synthetic_claps,
    synthetic_negatives,
    with_noise,
)
from sensekit.evaluation.audio.clap_fit import (
    DECREASING,
    DEPTH,
    GATE_FEATURE,
    GATE_IQR,
    GATE_LEAF,
    GATE_QUANTILE,
    L2,
    RATE,
    TREES,
    air_floor,
    balanced_weights,
    fit_trees,
    format_module,
    with_air_gate,
)
from sensekit.evaluation.audio.evaluate import Clip, read_clips, read_wav, recipe_onsets

NOISY = tuple(f"n_{k}" for k in NOISE_KINDS)
AUGMENTATIONS = ("orig", "16k", "8k", "22k", "reverb", "clipped", "eq", "eq_reverb", "quiet",
                 "fast", "cut", "mix0", "mix6", *NOISY)
#: more copies of the clap clips where held-out claps are lost (reverberant, 0-15 dB; one
#: speaker at 0-10 dB): tried, not in AUGMENTATIONS (held out they found more claps in
#: noise and fired more on other sources' sounds, docs/claps.md); train_clap.py --also
LOW_SNR = ("lo_white", "lo_pink", "lo_babble", "lo_speech")
#: one speaker of another source at exactly 0 dB (as ``lo_speech``): for held-out evaluation only
SPEECH0 = "sp0"
#: the copies with nothing added (no noise, no other source's sound): ``train(gate_from=CLEAN)``
CLEAN = ("orig", "16k", "8k", "22k", "reverb", "clipped", "eq", "eq_reverb", "quiet", "fast", "cut")
SNR_RANGE_DB = (0.0, 30.0)   # noisy copies: the claps' loudest 5 ms RMS over the noise RMS
LOW_SNR_DB = (0.0, 15.0)     # LOW_SNR copies: SNR of the reverberant noisy ones
SPEECH_SNR_DB = (0.0, 10.0)  # and of lo_speech (one speaker of another source)
QUIET_DB = (-30.0, -10.0)    # quiet copies: the whole clip this much lower
SYNTH = "synth"              # the source of the synthetic hard negatives (never held out)
SYNTH_CLIPS = 3              # clips per synthetic kind
BACKGROUND_LABELS = ("speech", "music", "room_noise", "footsteps", "keyboard_typing", "laugh",
                     "cough", "dog_bark")
MATCH_S = 0.030          # a burst this close to a clap time is that clap
MERGE_S = 0.075          # bursts this soon after a clap are ignored (the detector merges them)
FAMILY = "hgb"           # the model family (train's default): "hgb" (scikit-learn, monotone in
                         # DECREASING; shipped: as good or better than "booster", fit_trees,
                         # on the same leave-one-source-out folds, docs/claps.md)
ORIG_WEIGHT = 4.0        # a recording's own bursts weigh this many augmented copies


def seed_of(*parts: str) -> int:
    return zlib.crc32("/".join(parts).encode())


def resample(x: np.ndarray, rate: int, new_rate: int) -> np.ndarray:
    from math import gcd

    from scipy.signal import resample_poly

    g = gcd(rate, new_rate)
    y: np.ndarray = resample_poly(x.astype(np.float64), new_rate // g, rate // g)
    return y.astype(np.float32)


def reverberate(x: np.ndarray, rate: int, rng: np.random.Generator) -> np.ndarray:
    """Convolve with a synthetic room: a direct impulse plus decaying noise from 3 ms on."""
    from scipy.signal import fftconvolve

    rt60 = rng.uniform(0.3, 1.0)
    n = int(rate * min(1.2, rt60 * 1.2))
    t = np.arange(n) / rate
    tail = rng.normal(0.0, 1.0, n) * np.exp(-6.91 * t / rt60)
    tail[: int(0.003 * rate)] = 0.0
    ratio_db = rng.uniform(-6.0, 6.0)                       # reverberant / direct energy
    tail *= np.sqrt(10.0 ** (ratio_db / 10.0) / (np.sum(tail ** 2) + 1e-20))
    tail[0] = 1.0
    y = fftconvolve(x.astype(np.float64), tail)[: len(x)]
    return np.asarray(y * (np.abs(x).max() / (np.abs(y).max() + 1e-20)), np.float32)


def equalised(x: np.ndarray, rate: int, rng: np.random.Generator) -> np.ndarray:
    """Another microphone: a 2nd-order high-pass at 150-1200 Hz and a low-pass at 3.5-9 kHz."""
    from scipy.signal import butter, sosfilt

    y = sosfilt(butter(2, rng.uniform(150.0, 1200.0), "hp", fs=rate, output="sos"), x)
    top = min(rng.uniform(3500.0, 9000.0), 0.45 * rate)
    y = sosfilt(butter(2, top, "lp", fs=rate, output="sos"), y)
    return np.asarray(y * (np.abs(x).max() / (np.abs(y).max() + 1e-20)), np.float32)


def clipped(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    drive = 10.0 ** (rng.uniform(10.0, 18.0) / 20.0)
    return np.asarray(np.clip(x * (drive / (np.abs(x).max() + 1e-20)), -1.0, 1.0), np.float32)


def faster(x: np.ndarray, rate: int, onsets: list[float],
           rng: np.random.Generator) -> tuple[np.ndarray, list[float]]:
    """The same claps re-timed 100-200 ms apart (each cut from 10 ms before its onset up to
    the next one): fast clapping by the same person in the same room."""
    parts, times, t = [], [], 0.0
    for o in onsets:
        gap = rng.uniform(0.10, 0.20)
        a = max(0, int((o - 0.010) * rate))
        parts.append(x[a: a + int(gap * rate)])
        times.append(t + (o - a / rate))
        t += len(parts[-1]) / rate
    return np.concatenate(parts), times


def mixed(x: np.ndarray, bg: np.ndarray, snr_db: float) -> np.ndarray:
    reps = -(-len(x) // len(bg))
    b = np.tile(bg, reps)[: len(x)].astype(np.float64)
    px = float(np.mean(x.astype(np.float64) ** 2))
    pb = float(np.mean(b ** 2)) + 1e-20
    y = x + b * np.sqrt(px / pb / 10.0 ** (snr_db / 10.0))
    peak = np.abs(y).max()
    return np.asarray(y / peak * 0.9 if peak > 0.9 else y, np.float32)


@dataclass
class Bursts:
    """Every judged burst of the training set: features, label and where it came from."""
    X: np.ndarray            # (n, len(FEATURES))
    y: np.ndarray            # 1 clap, 0 not a clap, -1 ignored
    source: np.ndarray       # the clip's source
    background: np.ndarray   # the mixed-in background's source ("" if none)
    variant: np.ndarray
    clip: np.ndarray
    onsets: dict[str, int]   # clip -> number of clap times used for its labels
    labels: dict[str, str]   # clip -> label in labels.csv
    P: np.ndarray | None = None   # (n, bands, frames) ``clap_patch`` patches (``collect(patches=True)``)
    #: (n,) ``clap_floor.FloorRoute.floor_spread_db`` of each burst, NaN when its peak lacks the
    #: route's history (``collect(patches=True)``; the sixteenth pass's gate)
    S: np.ndarray | None = None
    #: (n, k) the ``collect(extra=...)`` measurements of each burst on its copy at its peak sample
    E: np.ndarray | None = None


_NEUTRAL = {"depth": 1, "base": 0.0, "feature": [[0]], "threshold": [[float("inf")]],
            "leaf": [[0.0, 0.0]]}          # scores every burst 0: collecting needs no model


def judged_bursts(x: np.ndarray, rate: int, *, block: int = 4096) -> list[BurstFeatures]:
    det = ClapDetector(threshold=-20.0, min_rise_db=10.0, model=_NEUTRAL)
    det.keep_features = True
    for k, i in enumerate(range(0, len(x), block)):
        det.process(x[i:i + block], i / rate, rate, index=k)
    return det.features


def label_bursts(feats: list[BurstFeatures], onsets: list[float]) -> list[int]:
    labels = [0] * len(feats)
    for o in onsets:
        near = [i for i, f in enumerate(feats) if abs(f.t_onset - o) <= MATCH_S]
        for i, f in enumerate(feats):
            if o - MATCH_S <= f.t_onset <= o + MERGE_S and labels[i] == 0:
                labels[i] = -1
        if near:
            best = max(near, key=lambda i: feats[i].peak_db)
            labels[best] = 1
    return labels


_PLAIN: dict[str, Callable[[np.ndarray, int, np.random.Generator], np.ndarray]] = {
    "orig": lambda x, rate, rng: x,
    "reverb": reverberate,
    "clipped": lambda x, rate, rng: clipped(x, rng),
    "eq": equalised,
    "eq_reverb": lambda x, rate, rng: reverberate(equalised(x, rate, rng), rate, rng),
    "quiet": lambda x, rate, rng: np.asarray(x * 10.0 ** (rng.uniform(*QUIET_DB) / 20.0), np.float32),
}   # the copies that change only the sound: same rate, same clap times
_RATES = {"16k": 16000, "8k": 8000, "22k": 22050}


class _Clips:
    """The clips (real and synthetic) with their audio, and other sources' speech and backgrounds."""

    def __init__(self, data: Path, synth: Iterable[str] = SYNTHETIC_KINDS) -> None:
        self.clips = read_clips(data)
        self.audio = {c.file: read_wav(data / c.file) for c in self.clips}
        for kind in synth:
            for i in range(SYNTH_CLIPS):
                name = f"synthetic/{kind}_{i}.wav"
                self.audio[name] = (synthetic_negatives(kind, 48000, np.random.default_rng(seed_of(name))), 48000)
                self.clips.append(Clip(name, kind, [], SYNTH))
        for i in range(SYNTH_CLIPS * 2):
            name = f"synthetic/clap_{i}.wav"
            sx, times = synthetic_claps(48000, np.random.default_rng(seed_of(name)))
            self.audio[name] = (sx, 48000)
            self.clips.append(Clip(name, "clap", times, SYNTH))
        self.backgrounds = [c for c in self.clips if c.label in BACKGROUND_LABELS]
        self.speech = [c for c in self.clips if c.label == "speech"]
        self._resampled: dict[tuple[str, int], np.ndarray] = {}

    def at_rate(self, file: str, rate: int) -> np.ndarray:
        if (file, rate) not in self._resampled:
            bx, brate = self.audio[file]
            self._resampled[file, rate] = bx if brate == rate else resample(bx, brate, rate)
        return self._resampled[file, rate]

    def variant(self, variant: str, c: Clip, onsets: list[float],
                rng: np.random.Generator) -> tuple[np.ndarray, int, list[float], str] | None:
        """Clip ``c`` as copy ``variant``: (samples, rate, clap times, background source), or
        ``None`` when the copy does not apply to it."""
        x, rate = self.audio[c.file]
        if variant in _PLAIN:
            return _PLAIN[variant](x, rate, rng), rate, onsets, ""
        if variant in _RATES:
            r = _RATES[variant]
            return None if rate <= r else (resample(x, rate, r), r, onsets, "")
        if variant.startswith("n_"):
            babble = [self.at_rate(b.file, rate) for b in self.speech if b.source != c.source]
            return with_noise(x, rate, clap_loudness(x, rate, onsets), rng.uniform(*SNR_RANGE_DB),
                              variant[2:], rng, babble), rate, onsets, ""
        if c.label != "clap":
            return None
        if variant == "fast":
            if len(onsets) < 2:
                return None
            y, times = faster(x, rate, onsets, rng)
            return y, rate, times, ""
        if variant in LOW_SNR or variant == SPEECH0:
            return self.low_snr(variant[3:] if variant in LOW_SNR else SPEECH0, c, x, rate, onsets, rng)
        if variant == "cut":                   # the stream starts 2-45 ms before a clap
            if not onsets:
                return None
            at = onsets[int(rng.integers(len(onsets)))] - rng.uniform(0.002, 0.045)
            a = max(0, round(at * rate))
            return x[a:], rate, [o - a / rate for o in onsets if o >= a / rate], ""
        others = [b for b in self.backgrounds if b.source != c.source]
        bg = others[int(rng.integers(len(others)))]
        return mixed(x, self.at_rate(bg.file, rate), 0.0 if variant == "mix0" else 6.0), rate, onsets, bg.source


    def low_snr(self, kind: str, c: Clip, x: np.ndarray, rate: int, onsets: list[float],
                rng: np.random.Generator) -> tuple[np.ndarray, int, list[float], str]:
        """A clap clip in a reverberant room under noise ``kind`` at 0-15 dB SNR, or under one
        speaker of another source at 0-10 dB (its plosives are the hard negatives), or
        (``SPEECH0``) at exactly 0 dB."""
        if kind in ("speech", SPEECH0):
            speech_db = (0.0, 0.0) if kind == SPEECH0 else SPEECH_SNR_DB
            sp = [b for b in self.speech if b.source != c.source]
            one = sp[int(rng.integers(len(sp)))]
            sx = self.at_rate(one.file, rate).astype(np.float64)
            unit = np.resize(np.roll(sx, int(rng.integers(len(sx)))), len(x))
            y = x.astype(np.float64) + unit / (np.sqrt(np.mean(unit ** 2)) + 1e-20) * (
                clap_loudness(x, rate, onsets) * 10.0 ** (-rng.uniform(*speech_db) / 20.0))
            peak = float(np.abs(y).max())
            return np.asarray(y * (0.95 / peak) if peak > 0.95 else y, np.float32), rate, onsets, one.source
        r = reverberate(x, rate, rng)
        babble = [self.at_rate(b.file, rate) for b in self.speech if b.source != c.source]
        return with_noise(r, rate, clap_loudness(r, rate, onsets), rng.uniform(*LOW_SNR_DB), kind,
                          rng, babble), rate, onsets, ""


def collect(data: Path, *, augment: Iterable[str] = AUGMENTATIONS,
            progress: Callable[[str], None] | None = None,
            synth: Iterable[str] = SYNTHETIC_KINDS, patches: bool = False,
            extra: Callable[[np.ndarray, int, int], Iterable[float]] | None = None,
            judge: Callable[[np.ndarray, int], list[BurstFeatures]] | None = None) -> Bursts:
    """Stream every clip and its augmented copies; return all judged bursts. ``synth``: the
    kinds of synthetic hard negatives (``SYNTH_CLIPS`` clips each, source ``SYNTH``).
    ``patches``: also each burst's ``clap_patch.BurstPatch`` (``Bursts.P``). ``extra(x, p, rate)``:
    also measurements of each burst on its copy ``x`` at its peak sample ``p`` (``Bursts.E``).
    ``judge(x, rate)``: the bursts of a copy (None: ``judged_bursts``; ``benchmarks/clap_ring_look.py``
    sees each stretch of audio with its bursts)."""
    from sensekit.audio.clap_floor import FloorRoute
    from sensekit.evaluation.audio.clap_patch import BurstPatch

    sources = _Clips(Path(data), synth)
    rows: list[tuple[Any, ...]] = []
    cut: list[np.ndarray] = []
    spread: list[float] = []
    more: list[list[float]] = []
    counts: dict[str, int] = {}
    for c in sources.clips:
        x, rate = sources.audio[c.file]
        onsets = c.onsets if c.onsets or c.label != "clap" else recipe_onsets(x, rate)
        counts[c.file] = len(onsets)
        for variant in augment:
            copy = sources.variant(variant, c, onsets, np.random.default_rng(seed_of(c.file, variant)))
            if copy is None:
                continue
            y, r, times, bg_source = copy
            feats = (judge or judged_bursts)(y, r)
            labels = label_bursts(feats, times) if c.label == "clap" else [0] * len(feats)
            rows.extend((f.vector(), lab, c.source, bg_source, variant, c.file) for f, lab in zip(feats, labels))
            if extra is not None:
                more.extend(list(extra(y, round(f.t_peak * r), r)) for f in feats)
            if patches:
                bp, fr = BurstPatch(r), FloorRoute(r)
                for f in feats:
                    p = round(f.t_peak * r)
                    cut.append(bp(y, p))
                    spread.append(fr.floor_spread_db(y, p) if p >= fr.pre else math.nan)
        if progress is not None:
            progress(c.file)
    return bursts_of_rows(rows, counts, {c.file: c.label for c in sources.clips},
                          P=np.array(cut) if patches else None, S=np.array(spread) if patches else None,
                          E=np.array(more) if extra is not None else None)


def bursts_of_rows(rows: Sequence[tuple[Any, ...]], onsets: dict[str, int], labels: dict[str, str],
                   **more: np.ndarray | None) -> Bursts:
    """``Bursts`` from one row a burst, ``(features, label, source, background, variant, clip)``, as the
    collectors gather them; ``more``: ``Bursts``' optional columns (``P``, ``S``, ``E``)."""
    def col(i: int) -> np.ndarray:
        return np.array([r[i] for r in rows])

    return Bursts(col(0), col(1).astype(int), col(2), col(3), col(4), col(5), onsets, labels, **more)


def collect_cached(data: Path, cache: Path | None, *, augment: Iterable[str] = AUGMENTATIONS,
                   progress: Callable[[str], None] | None = None,
                   synth: Iterable[str] = SYNTHETIC_KINDS, patches: bool = False) -> Bursts:
    """``collect(data)``, kept in ``cache`` (an .npz) when given: read from it when it
    exists, written to it otherwise. Delete the file after changing the features."""
    if cache is not None and Path(cache).is_file():
        z = np.load(cache, allow_pickle=False)
        meta = {k: z[k].tolist() for k in ("on_k", "on_v", "lab_k", "lab_v")}
        if patches and "P" not in z:
            raise ValueError(f"{cache} holds no patches: delete it or pass another --cache")
        return Bursts(z["X"], z["y"], z["source"], z["background"], z["variant"], z["clip"],
                      dict(zip(meta["on_k"], meta["on_v"])), dict(zip(meta["lab_k"], meta["lab_v"])),
                      z.get("P"), z.get("S"))
    b = collect(data, augment=augment, progress=progress, synth=synth, patches=patches)
    if cache is not None:
        arrays: dict[str, Any] = {"X": b.X, "y": b.y, "source": b.source, "background": b.background,
                  "variant": b.variant, "clip": b.clip, "on_k": np.array(list(b.onsets)),
                  "on_v": np.array(list(b.onsets.values())), "lab_k": np.array(list(b.labels)),
                  "lab_v": np.array(list(b.labels.values()))}
        if b.P is not None:
            arrays["P"] = b.P
        if b.S is not None:
            arrays["S"] = b.S
        np.savez_compressed(cache, **arrays)
    return b


def train(bursts: Bursts, *, leave_out: Iterable[str] = (), family: str = FAMILY,
          gate_from: tuple[str, ...] | None = None,
          weigh: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None = None) -> Model:
    """Trees from every burst whose clip and background come from other sources, and the
    air gate from those bursts' claps. A recording's own bursts (``orig``) weigh
    ``ORIG_WEIGHT`` times an augmented copy's: the copies stand in for rooms and noises
    nobody recorded, the recordings are what people and rooms really sound like.
    ``family``: "hgb" (scikit-learn, ``clap_hgb.fit_hgb``) or "booster" (``fit_trees``).
    ``gate_from``: fit the air gate on the claps of these copies only (``CLEAN``: no noise
    or other sound added, so claps under speech cannot lower it); default every copy.
    ``weigh``: the training rows' weights ``weigh(w, y, source)`` in place of ``w`` (the thirty-fourth
    pass's ``clap_source_weights.by_source``); default ``w`` as is."""
    m = bursts.y >= 0
    for s in leave_out:
        m &= (bursts.source != s) & (bursts.background != s)
    y = bursts.y[m]
    w = balanced_weights(y, bursts.source[m]) * np.where(bursts.variant[m] == "orig", ORIG_WEIGHT, 1.0)
    if weigh is not None:
        w = weigh(w, y, bursts.source[m])
    if family == "hgb":
        from sensekit.evaluation.audio.clap_hgb import fit_hgb
        trees = fit_hgb(bursts.X[m], y, w, depth=DEPTH, trees=TREES, rate=RATE, l2=L2,
                        decreasing=tuple(FEATURES.index(f) for f in DECREASING))
    elif family == "booster":
        trees = fit_trees(bursts.X[m], y, w)
    else:
        raise ValueError(f"model family must be 'hgb' or 'booster', got {family!r}")
    g = m & (bursts.y == 1)
    if gate_from is not None:
        g &= np.isin(bursts.variant, gate_from)
    return with_air_gate(trees, air_floor(bursts.X[g]))


def scores(bursts: Bursts, model: Model) -> np.ndarray:
    tm = TreeModel(model)
    return np.array([tm.score(v) for v in bursts.X])


__all__ = ["AUGMENTATIONS", "Bursts", "bursts_of_rows", "collect", "fit_trees", "format_module", "recipe_onsets",
           "scores", "train",
           # the fit's names, importable here as before (clap_fit.py)
           "DECREASING", "DEPTH", "GATE_FEATURE", "GATE_IQR", "GATE_LEAF", "GATE_QUANTILE", "L2", "RATE", "TREES",
           "air_floor", "balanced_weights", "with_air_gate"]
