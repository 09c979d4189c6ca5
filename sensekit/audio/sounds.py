"""Sounds you teach: MFCC templates compared by dynamic time warping (nearest example).

``SoundBook.teach(name, segments)`` keeps, for each example (a voiced ``Segment`` from
``sensekit.audio.vad``), its MFCCs (``python_speech_features``: 13 coefficients per 10 ms,
25 ms windows, 20 mel bands up to 4 kHz so 8 kHz and 48 kHz audio look alike, c0 replaced by
the log energy, each coefficient's mean removed so the microphone's colour and the level do
not count) and the sound's ``spread``: the mean DTW distance between its own examples.
``match(segment, t)`` finds the nearest example of all sounds (plain DTW distance); it reports
that sound when the distance is at most ``distance`` x that sound's spread (``VoiceStage``'s
``sound_distance``, 1.5), with ``confidence`` 1 at distance 0 and 0.5 at the limit. The band,
the energy term and nearest-example (rather than spread-scaled) choice were picked on two of
the three developer speakers (``benchmarks/voice_eval.py --teach``). Learning takes
milliseconds (no training, only features); the book is kept in the venue profile
(``[sounds.NAME]``, base64 float16 templates) and a replay gives the same events.

DTW: the classic symmetric recursion (steps (1,0), (0,1), (1,1)) on Euclidean frame
distances, each row computed at once with a running minimum, normalised by the two lengths.
Cost: ~0.1 ms per pair of 0.5 s sounds; ~5 ms per segment for 10 sounds of 5 examples.
Failure modes: examples that are not voiced (a click shorter than 120 ms, silence) give no
segment and are refused with a message naming the file; sounds that differ only in loudness
or pitch height are not told apart.
"""
from __future__ import annotations

import base64
import math
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import numpy as np

from sensekit.arg_types import checked
from sensekit.audio.vad import RATE, Segment, voiced_segments
from sensekit.errors import ConfigError
from sensekit.safe_read import clip, short, stored_number
from sensekit.events import Sound

__all__ = ["features", "dtw_distance", "SoundBook", "TaughtSound", "example_segment",
           "SOUNDS_TABLE", "check_taught_name", "is_taught_name"]

SOUNDS_TABLE = "sounds"
MAX_NAME_CHARS = 64
_NAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9_-]{{0,{MAX_NAME_CHARS - 1}}}")
N_COEFFS = 13
_MIN_SPREAD = 1.0            # a sound taught once (or identical examples) still accepts neighbours
_MAX_SPREAD = 1e6            # far beyond any DTW distance of MFCC frames: a bound for damaged tables
MAX_TAUGHT_EXAMPLES = 100    # a sound's examples in a profile (the command and the panel keep 2-20)


def features(segment: Segment) -> np.ndarray:
    """MFCCs (frames x 13, float32, mean removed) of the voiced part of ``segment``."""
    from python_speech_features import mfcc

    a = max(0, int(round((segment.start - segment.t0) * RATE)))
    b = min(len(segment.pcm), int(round((segment.end - segment.t0) * RATE)))
    x = segment.pcm[a:b].astype(np.float64)
    if len(x) < 400:
        x = segment.pcm.astype(np.float64)
    m: np.ndarray = mfcc(x, samplerate=RATE, numcep=N_COEFFS, nfilt=20, nfft=512, highfreq=4000, appendEnergy=True)
    m = m - m.mean(axis=0)
    return m.astype(np.float32)


def dtw_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Length-normalised DTW distance between two feature sequences (frames x coefficients)."""
    cost = np.sqrt(np.maximum(((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2), 0.0))
    n, m = cost.shape
    prev = np.cumsum(cost[0])
    for i in range(1, n):
        c = cost[i]
        diag = np.concatenate(([np.inf], prev[:-1]))
        best_in = np.minimum(prev, diag) + c          # from above or the diagonal
        # from the left: D[j] = min_k<=j (best_in[k] + sum c[k+1..j]) = S[j] + min_k (best_in[k] - S[k])
        s = np.cumsum(c)
        prev = s + np.minimum.accumulate(best_in - s)
    return float(prev[-1] / (n + m))


@dataclass
class TaughtSound:
    name: str
    examples: list[np.ndarray] = field(default_factory=list)
    spread: float = _MIN_SPREAD


class SoundBook:
    """The taught sounds of a venue (see the module docstring)."""

    @checked
    def __init__(self, sounds: Iterable[TaughtSound] = ()) -> None:
        self.sounds: dict[str, TaughtSound] = {s.name: s for s in sounds}

    def __len__(self) -> int:
        return len(self.sounds)

    def teach(self, name: str, examples: Iterable[Segment | np.ndarray]) -> TaughtSound:
        """Learn (or replace) ``name`` (``check_taught_name``) from voiced segments (or ready
        feature arrays)."""
        name = check_taught_name(name)
        feats = [e if isinstance(e, np.ndarray) else features(e) for e in examples]
        if not feats:
            raise ConfigError(f"sound {name!r} needs at least one example")
        dists = [dtw_distance(a, b) for i, a in enumerate(feats) for b in feats[i + 1:]]
        spread = max(_MIN_SPREAD, float(np.mean(dists))) if dists else _MIN_SPREAD
        sound = TaughtSound(name, feats, spread)
        self.sounds[name] = sound
        return sound

    def nearest(self, feats: np.ndarray) -> tuple[str, float]:
        """(name, distance / its spread) of the nearest example, or ("", inf) for an empty book."""
        best, name = math.inf, ""
        for s in self.sounds.values():
            d = min(dtw_distance(feats, e) for e in s.examples)
            if d < best:
                best, name = d, s.name
        return (name, best / self.sounds[name].spread) if name else ("", math.inf)

    def match(self, segment: Segment, t: float, *, distance: float = 1.0) -> Sound | None:
        """A ``Sound`` event when ``segment`` is near enough to a taught sound, else ``None``."""
        if not self.sounds:
            return None
        name, d = self.nearest(features(segment))
        if d > distance:
            return None
        confidence = 1.0 - 0.5 * d / distance
        return Sound(t=t, sound=name, start=segment.start, end=segment.end, confidence=confidence)

    # -- the profile's [sounds] table ---------------------------------------------------
    def to_tables(self) -> dict[str, dict[str, Any]]:
        """``{name: {"spread": x, "examples": [base64 ...]}}`` for the profile."""
        return {s.name: {"spread": round(s.spread, 6),
                         "examples": [_encode(e) for e in s.examples]} for s in self.sounds.values()}

    @classmethod
    def from_tables(cls, tables: Mapping[str, Any], *, where: str = "profile") -> SoundBook:
        """The book ``to_tables`` wrote; ``ConfigError`` naming ``where`` and the sound when a table is
        damaged, checked whole here (an empty ``examples`` list or an empty example failed with a
        traceback at the first sound heard, a NaN ``spread`` gave events of no confidence, an
        infinite one matched every sound)."""
        sounds = []
        for name, table in tables.items():
            if not isinstance(name, str) or not is_taught_name(name):
                raise ConfigError(f"{where}: a taught sound is named {short(name)}; a name is up to 64 "
                                  "letters, digits, _ and -")
            if not isinstance(table, Mapping) or not isinstance(table.get("examples"), list):
                raise ConfigError(f"{where}: [sounds.{name}] needs examples = [...] (written by "
                                  "sensekit teach sound)")
            try:
                examples = [_decode(text) for text in table["examples"]]
                spread = stored_number(table.get("spread", _MIN_SPREAD), "spread")
                if not 1 <= len(examples) <= MAX_TAUGHT_EXAMPLES:
                    raise ValueError(f"{len(examples)} examples, not 1..{MAX_TAUGHT_EXAMPLES}")
                if not _MIN_SPREAD <= spread <= _MAX_SPREAD:      # NaN too
                    raise ValueError(f"spread {spread:g}, not {_MIN_SPREAD:g}..{_MAX_SPREAD:g}")
            except (TypeError, ValueError) as exc:
                raise ConfigError(f"{where}: [sounds.{name}] is damaged ({clip(str(exc))}); teach it again") from None
            sounds.append(TaughtSound(str(name), examples, spread))
        return cls(sounds)


def is_taught_name(text: str) -> bool:
    """Whether ``text`` is a taught sound's or word's name: one word of up to 64 ASCII letters,
    digits, ``_`` and ``-``, not starting with ``_`` or ``-``."""
    return _NAME.fullmatch(text) is not None


def check_taught_name(name: object, what: str = "sound") -> str:
    """A taught sound's (or word's, ``what="word"``) name, stripped of the spaces around it; a
    one-line ``ConfigError`` naming what is wrong otherwise (the name quoted cut short). Every
    door checks it: ``teach sound``/``teach words`` (files or ``--from``), the panel's sound
    card, ``SoundBook.teach`` and ``teach_words``."""
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"a {what} needs a name (letters, digits, _ and -)")
    text = name.strip()
    if len(text) > MAX_NAME_CHARS:
        raise ConfigError(f"a {what} name is at most {MAX_NAME_CHARS} characters (one word of up to "
                          f"{MAX_NAME_CHARS} letters, digits, _ and -), got {len(text):,} ('{clip(text, 40)}')")
    if not is_taught_name(text):
        raise ConfigError(f"a {what} name is one word of up to {MAX_NAME_CHARS} letters, digits, _ and -, "
                          f"got '{clip(text, 40)}'")
    return text


def example_segment(samples: np.ndarray, rate: int, *, what: str = "the example",
                    transients: bool = False) -> Segment:
    """The longest voiced segment of a taught example (float samples at ``rate``), found as the
    voice stage finds sounds (``vad.voiced_segments``; ``transients`` for a taught sound: onsets
    open segments too), so teaching and hearing cut alike."""
    found = voiced_segments(samples, rate, what=what, transients=transients)
    if not found:
        if transients:
            raise ConfigError(f"{what}: no sound found (it must rise 20 dB over the background, or "
                              "last over 120 ms and stand 12 dB over it)")
        raise ConfigError(f"{what}: no sound found (it must last over 120 ms and stand 12 dB over "
                          "the background)")
    return max(found, key=lambda s: s.end - s.start)


def _encode(m: np.ndarray) -> str:
    return base64.b64encode(np.ascontiguousarray(m, dtype="<f2").tobytes()).decode("ascii")


def _decode(text: Any) -> np.ndarray:
    if not isinstance(text, str):
        raise ValueError(f"an example must be a base64 string, got {type(text).__name__}")
    raw = base64.b64decode(text.encode("ascii"), validate=True)
    if len(raw) % (2 * N_COEFFS):
        raise ValueError("an example's length is not a whole number of frames")
    m = np.frombuffer(raw, dtype="<f2").reshape(-1, N_COEFFS).astype(np.float32)
    if len(m) == 0 or not np.all(np.isfinite(m)):
        raise ValueError("an example must hold frames of finite numbers")
    return m
