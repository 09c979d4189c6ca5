"""Spoken digits as clap-training speech: more voices, more plosives, one source per speaker.

``../shared/data/words`` holds 1,500 spoken digits (the Free Spoken Digit Dataset: three
speakers, 50 takes of each digit, 8 kHz, ``words/labels.csv``). ``collect_words`` streams
them through the detector like ``clap_training.collect`` does the clips, each speaker a
source of its own (``fsdd_<speaker>``), so leave-one-source-out holds a whole voice out:

- ``orig``: every take alone (a recording, like the clips' own bursts);
- ``w_stream``: the speaker's takes concatenated with 50-350 ms pauses into ~12 s of
  continuous speech, at 8, 16 or 48 kHz (resampled as the augmentation does);
- ``w_babble``: four such streams of the same speaker on top of each other;
- ``w_mix``: every clap clip (and synthetic clap clip) with one speaker's stream under it at
  0 to +6 dB SNR (the claps' loudest 5 ms RMS over the speech RMS), one copy per speaker:
  the speaker's plosives become hard negatives next to real claps. Source: the clip's;
  background: the speaker.

A take that is also a developer clip (``audio/neg_speech_fsdd_*``) is skipped.
Cost: ~20 min of audio, ~1-2 min.
"""
from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from sensekit.audio.clap_loudness import clap_loudness
from sensekit.evaluation.audio.clap_training import (
    Bursts,
    _Clips,
    judged_bursts,
    label_bursts,
    resample,
    seed_of,
)
from sensekit.evaluation.audio.evaluate import read_wav, recipe_onsets

WORDS = "words"
SOURCE_PREFIX = "fsdd_"
GAP_S = (0.05, 0.35)          # pause between two takes of a stream
STREAM_TAKES = 25             # takes per continuous stream
STREAM_RATES = (8000, 16000, 48000)
BABBLE_VOICES = 4
BABBLES = 8                   # babble clips per speaker
MIX_SNR_DB = (0.0, 6.0)


def read_words(data: Path) -> dict[str, list[tuple[str, np.ndarray]]]:
    """Each speaker's takes (file, 8 kHz samples), in ``labels.csv`` order, without the takes
    that are also developer clips."""
    data = Path(data)
    known = {p.name.removeprefix("neg_speech_fsdd_").removeprefix("speech_fsdd_")
             for p in (data / "audio").glob("*fsdd_*.wav")}
    takes: dict[str, list[tuple[str, np.ndarray]]] = {}
    with open(data / WORDS / "labels.csv", newline="") as f:
        for row in csv.DictReader(f):
            name = Path(row["file"]).name
            if name in known:
                continue
            speaker = name[:-4].split("_")[1]
            x, rate = read_wav(data / row["file"])
            if rate != 8000:
                x = resample(x, rate, 8000)
            takes.setdefault(speaker, []).append((row["file"], x))
    return takes


def stream(takes: list[np.ndarray], rng: np.random.Generator, rate: int = 8000) -> np.ndarray:
    """``takes`` (8 kHz) one after another with a random pause before each, at ``rate``."""
    parts: list[np.ndarray] = []
    for t in takes:
        parts.append(np.zeros(round(rng.uniform(*GAP_S) * 8000), np.float32))
        parts.append(t)
    x = np.concatenate(parts)
    return x if rate == 8000 else resample(x, 8000, rate)


def babble(streams: list[np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """The streams on top of each other (each rolled by a random amount), at 0.9 peak."""
    n = max(len(s) for s in streams)
    y = np.zeros(n)
    for s in streams:
        y += np.roll(np.resize(s.astype(np.float64), n), int(rng.integers(n)))
    return np.asarray(y * (0.9 / (np.abs(y).max() + 1e-20)), np.float32)


def under_speech(x: np.ndarray, rate: int, onsets: list[float], speech: np.ndarray,
                 snr_db: float, rng: np.random.Generator) -> np.ndarray:
    """Clap clip ``x`` with ``speech`` (at ``rate``, looped from a random point) under it at
    ``snr_db``: the claps' loudest 5 ms RMS over the speech RMS."""
    unit = np.resize(np.roll(speech.astype(np.float64), int(rng.integers(len(speech)))), len(x))
    y = x.astype(np.float64) + unit / (np.sqrt(np.mean(unit ** 2)) + 1e-20) * (
        clap_loudness(x, rate, onsets) * 10.0 ** (-snr_db / 20.0))
    peak = float(np.abs(y).max())
    return np.asarray(y * (0.95 / peak) if peak > 0.95 else y, np.float32)


class _Rows:
    """Bursts being collected, with each clip's clap count and label."""

    def __init__(self) -> None:
        self.rows: list[tuple[Any, ...]] = []
        self.counts: dict[str, int] = {}
        self.labels: dict[str, str] = {}

    def add(self, x: np.ndarray, rate: int, times: list[float], source: str, bg: str,
            variant: str, clip: str, label: str = "speech") -> None:
        feats = judged_bursts(x, rate)
        lab = label_bursts(feats, times) if times else [0] * len(feats)
        self.rows.extend((f.vector(), v, source, bg, variant, clip) for f, v in zip(feats, lab))
        self.counts[clip], self.labels[clip] = len(times), label

    def bursts(self) -> Bursts:
        def col(i: int) -> np.ndarray:
            return np.array([r[i] for r in self.rows])

        return Bursts(np.array([r[0] for r in self.rows]), col(1).astype(int), col(2), col(3),
                      col(4), col(5), self.counts, self.labels)


def _speaker(rows: _Rows, speaker: str, tk: list[tuple[str, np.ndarray]]) -> list[np.ndarray]:
    """One speaker's takes, streams and babble into ``rows``; the streams (8 kHz)."""
    src = SOURCE_PREFIX + speaker
    for file, x in tk:
        rows.add(x, 8000, [], src, "", "orig", file)
    order = np.random.default_rng(seed_of(src, "order")).permutation(len(tk))
    streams = []
    for i in range(0, len(order), STREAM_TAKES):
        name = f"{WORDS}/{src}_stream_{i // STREAM_TAKES}"
        r = STREAM_RATES[(i // STREAM_TAKES) % len(STREAM_RATES)]
        s8 = stream([tk[j][1] for j in order[i:i + STREAM_TAKES]], np.random.default_rng(seed_of(name)))
        streams.append(s8)
        rows.add(s8 if r == 8000 else resample(s8, 8000, r), r, [], src, "", "w_stream", name)
    for b in range(BABBLES):
        name = f"{WORDS}/{src}_babble_{b}"
        brng = np.random.default_rng(seed_of(name))
        pick = brng.choice(len(streams), BABBLE_VOICES, replace=False)
        y8 = babble([streams[int(j)] for j in pick], brng)
        r = STREAM_RATES[b % len(STREAM_RATES)]
        rows.add(y8 if r == 8000 else resample(y8, 8000, r), r, [], src, "", "w_babble", name)
    return streams


def collect_words(data: Path, *, progress: Callable[[str], None] | None = None) -> Bursts:
    """The bursts of the four copies above (every speaker), labelled as ``collect`` does."""
    data = Path(data)
    rows = _Rows()
    streams = {}
    for speaker, tk in sorted(read_words(data).items()):
        streams[speaker] = _speaker(rows, speaker, tk)
        if progress is not None:
            progress(speaker)
    clips = _Clips(data)
    for c in (c for c in clips.clips if c.label == "clap"):
        x, rate = clips.audio[c.file]
        onsets = c.onsets if c.onsets else recipe_onsets(x, rate)
        for speaker, ss in sorted(streams.items()):
            rng = np.random.default_rng(seed_of(c.file, "w_mix", speaker))
            sp = resample(ss[int(rng.integers(len(ss)))], 8000, rate)
            y = under_speech(x, rate, onsets, sp, float(rng.uniform(*MIX_SNR_DB)), rng)
            rows.add(y, rate, onsets, c.source, SOURCE_PREFIX + speaker, "w_mix", c.file, c.label)
    return rows.bursts()


def joined(a: Bursts, b: Bursts) -> Bursts:
    """Two burst sets as one (``b``'s clip counts and labels added to ``a``'s)."""
    return Bursts(np.vstack([a.X, b.X]), np.concatenate([a.y, b.y]),
                  np.concatenate([a.source, b.source]), np.concatenate([a.background, b.background]),
                  np.concatenate([a.variant, b.variant]), np.concatenate([a.clip, b.clip]),
                  {**b.onsets, **a.onsets}, {**b.labels, **a.labels})


def collect_words_cached(data: Path, cache: Path) -> Bursts:
    """``collect_words(data)``, kept in ``cache`` (an .npz; read when it exists)."""
    from sensekit.evaluation.audio.clap_training import collect_cached

    if not Path(cache).is_file():
        b = collect_words(data)
        np.savez_compressed(cache, X=b.X, y=b.y, source=b.source, background=b.background,
                            variant=b.variant, clip=b.clip, on_k=list(b.onsets),
                            on_v=list(b.onsets.values()), lab_k=list(b.labels),
                            lab_v=list(b.labels.values()))
    return collect_cached(data, cache)


def leave_out(source: str) -> list[str]:
    """The sources a fold without ``source`` leaves out: a speaker also takes the developer
    clips' ``fsdd`` source with it when that holds one of the speaker's takes (yweweler)."""
    return [source, "fsdd"] if source == SOURCE_PREFIX + "yweweler" else [source]
