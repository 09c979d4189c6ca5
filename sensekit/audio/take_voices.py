"""Whether the takes of taught words come from one voice: decides ``teach words``' parts by default.

Words one person teaches from a few takes fire on that person's other words and on pieces of
words unless the first and last 40 % of every take are taught as other speech
(``teach_words(parts_as_other=True)``); words taught from several people's takes lose recall
with that. ``voice_spread(takes, others)`` tells the two apart from the takes themselves:

- each take (its voiced part) becomes the mean of its MFCCs c1..c19 (26 mel bands up to 4 kHz,
  as ``sensekit.audio.sounds`` uses the band, so 8 kHz and 48 kHz audio look alike); the mean
  over a take keeps the voice and the microphone, and little of the timing;
- for every word with 2 takes or more: the upper quartile of the distances between its takes
  (a pair of takes by two people is far apart even when most pairs are by one), and the mean
  distance from its takes to every other take (other words, ``others``);
- the spread is the mean of the first over the mean of the second. Takes of a word by one
  person lie close together compared with other words; said by several people, they do not.

``one_voice(spread, most_takes)`` is ``spread < ONE_VOICE_BELOW``, and no word with more than
``MAX_ONE_VOICE_TAKES`` (20) takes: the most ``teach words --from`` asks one person for; a word
with more takes comes from a collection, which is several people's (the limit is a design choice,
not fitted: the benchmark's one person has 4-5 takes, its collections 100). The spread limit,
0.70, is the lowest spread of any word set the benchmark taught from two people's takes; chosen
leaving each developer speaker out in turn it was higher (``benchmarks/voice_one_voice.py``,
docs/voice.md). The spread needs no model and costs ~1 ms per take. A word with one take gives
no within-word distance; with no word of 2 takes the spread is ``nan`` and the takes count as
several voices (nothing more is refused).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from sensekit.audio.live_examples import MAX_EXAMPLES
from sensekit.audio.vad import RATE, Segment

__all__ = ["voice_vector", "voice_spread", "spread_of", "one_voice", "ONE_VOICE_BELOW", "MAX_ONE_VOICE_TAKES"]

ONE_VOICE_BELOW = 0.70      # the lowest spread of two people's takes (benchmarks/voice_one_voice.py)
MAX_ONE_VOICE_TAKES = MAX_EXAMPLES    # 20: more takes of a word than one person is asked for
_CEPS = 20                  # c0..c19; c0 (the level) is left out


def voice_vector(segment: Segment) -> np.ndarray:
    """The mean MFCCs c1..c19 of the voiced part of ``segment`` (19 numbers)."""
    from python_speech_features import mfcc

    a = max(0, int(round((segment.start - segment.t0) * RATE)))
    b = min(len(segment.pcm), int(round((segment.end - segment.t0) * RATE)))
    x = segment.pcm[a:b].astype(np.float64)
    if len(x) < 400:                                   # shorter than one 25 ms frame
        x = segment.pcm.astype(np.float64)
    m: np.ndarray = mfcc(x, samplerate=RATE, numcep=_CEPS, nfilt=26, nfft=512, highfreq=4000)
    return np.asarray(m[:, 1:].mean(axis=0), dtype=np.float64)


def spread_of(vectors: Mapping[str, np.ndarray], others: np.ndarray) -> float:
    """``voice_spread`` on voice vectors: ``{word: (takes, 19)}`` and ``(n, 19)`` others."""
    within, between = [], []
    for word, v in vectors.items():
        if len(v) < 2:
            continue
        d = np.sqrt(((v[:, None] - v[None]) ** 2).sum(axis=-1))
        within.append(float(np.percentile(d[np.triu_indices(len(v), 1)], 75)))
        rest = np.concatenate([others.reshape(-1, v.shape[1]), *(u for w, u in vectors.items() if w != word)])
        if not len(rest):
            return float("nan")
        between.append(float(np.sqrt(((v[:, None] - rest[None]) ** 2).sum(axis=-1)).mean()))
    if not within or sum(between) <= 0.0:
        return float("nan")
    return float(np.mean(within) / np.mean(between))


def voice_spread(takes: Mapping[str, Sequence[Segment]], others: Sequence[Segment]) -> float:
    """How far apart the takes of each word are, against their distance to the other takes
    (see the module docstring); ``nan`` when no word has 2 takes."""
    vectors = {w: np.array([voice_vector(s) for s in segs]).reshape(len(segs), _CEPS - 1)
               for w, segs in takes.items()}
    rest = np.array([voice_vector(s) for s in others]).reshape(len(others), _CEPS - 1)
    return spread_of(vectors, rest)


def one_voice(spread: float, most_takes: int) -> bool:
    """Whether a ``voice_spread`` and the most takes of any word mean takes of one voice."""
    return bool(spread < ONE_VOICE_BELOW) and most_takes <= MAX_ONE_VOICE_TAKES     # nan: several
