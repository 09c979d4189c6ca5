"""Words never taught must not fire: a segment unlike every take of its word is not that word.

The word classifier (``sensekit.audio.word_classifier``) picks the most likely of the words it
knows, so a word never said while teaching ("nine" when one, five and three other words were
taught) is heard as the taught word it is least unlike. ``NearTakes`` keeps the embeddings of
the takes each word was taught from and refuses the classifier's word when the segment's cosine
distance to that word's nearest take is over ``limit`` (0.15).

``teach_words`` keeps the takes when they sound like one voice (``sensekit.audio.take_voices``),
as it does for the parts of the takes. Measured by ``benchmarks/voice_open_set.py`` (one person,
5 takes in a row of each of 3 or 5 digits and 3 other words said once, heard on everything else;
the limit chosen leaving each developer speaker out). A limit scaled by the takes' own spread was
worse: takes said in a row lie closer together than the same word said later.

The takes go into the profile as ``[taught_words.near_takes]``: ``limit``, and one base64
little-endian float32 row per take with its word (~1.5 kB a take at 0.96 s). Cost: one dot
product per take of the heard word, microseconds. ``ConfigError`` naming the profile for a
damaged table.
"""
from __future__ import annotations

import base64
import math
from collections.abc import Mapping, Sequence

import numpy as np

from sensekit.errors import ConfigError
from sensekit.safe_read import clip, short, stored_number

__all__ = ["NearTakes", "LIMIT"]

LIMIT = 0.15         # chosen leaving each developer speaker out (benchmarks/voice_open_set.py): 0.15 for all


def _unit(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, np.float64).reshape(len(x), -1)
    return np.asarray(x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12), np.float64)


class NearTakes:
    """The taught takes of each word, unit-length (see the module docstring)."""

    def __init__(self, takes: Mapping[str, Sequence[np.ndarray] | np.ndarray], *, limit: float = LIMIT) -> None:
        if not (math.isfinite(limit) and 0 < limit <= 2):
            raise ConfigError(f"the near-takes limit must be a cosine distance over 0 and up to 2, got {limit!r}")
        self.limit = float(limit)
        for w, v in takes.items():
            if not len(v):
                raise ConfigError(f"the word {w!r} has no takes to tell what is unlike it")
        self.rows = {w: np.asarray(v, np.float32).reshape(len(v), -1) for w, v in takes.items()}
        self.takes = {w: _unit(v) for w, v in self.rows.items()}

    def distance(self, embedding: np.ndarray, word: str) -> float:
        """The segment's cosine distance to ``word``'s nearest take."""
        u = _unit(np.asarray(embedding).reshape(1, -1))[0]
        return float((1.0 - self.takes[word] @ u).min())

    def distances(self, embeddings: np.ndarray, words: Sequence[str]) -> np.ndarray:
        """``distance`` of each row to its word's takes."""
        return np.array([self.distance(e, str(w)) for e, w in zip(embeddings, words)], np.float64)

    def refuses(self, embedding: np.ndarray, word: str) -> bool:
        """Whether the segment is too far from every take of ``word`` to be it."""
        return word in self.takes and self.distance(embedding, word) > self.limit

    # -- plain arrays for the venue profile ------------------------------------------------
    def to_table(self) -> dict[str, object]:
        words = sorted(self.rows)
        return {"limit": self.limit, "words": [w for w in words for _ in self.rows[w]],
                "rows": [base64.b64encode(np.ascontiguousarray(r, "<f4").tobytes()).decode("ascii")
                         for w in words for r in self.rows[w]]}

    @classmethod
    def from_table(cls, table: Mapping[str, object], *, words: Sequence[str], features: int,
                   where: str = "profile") -> NearTakes:
        """The takes written by ``to_table``; ``ConfigError`` naming ``where`` when damaged. ``words``:
        the classifier's words (each must have its takes), ``features``: the embedding's size."""
        def bad(why: str) -> ConfigError:
            return ConfigError(f"{where}: the taught words' takes are damaged ({why}); teach them again")

        try:
            limit = stored_number(table["limit"], "limit")
            names = [str(w) for w in table["words"]]                          # type: ignore[attr-defined]
            rows = [np.frombuffer(base64.b64decode(str(t).encode("ascii"), validate=True), "<f4")
                    for t in table["rows"]]                                   # type: ignore[attr-defined]
        except (KeyError, TypeError, ValueError) as exc:
            raise bad(clip(str(exc))) from None
        if len(names) != len(rows):
            raise bad(f"{len(names)} words for {len(rows)} takes")
        if any(len(r) != features for r in rows):
            raise bad(f"a take of {min(len(r) for r in rows if len(r) != features)} numbers, the embedding "
                      f"gives {features}")
        if rows and not np.all(np.isfinite(np.concatenate(rows))):
            raise bad("a take holds NaN or Inf")
        unknown = sorted(set(names) - set(words))
        if unknown:
            raise bad(f"takes of {short(unknown[0])}, which the classifier does not know")
        missing = sorted(set(words) - set(names))
        if missing:
            raise bad(f"no takes of the word {short(missing[0])}")
        try:
            return cls({w: np.stack([r for n, r in zip(names, rows) if n == w]) for w in words}, limit=limit)
        except ConfigError as exc:
            raise bad(str(exc)) from None
