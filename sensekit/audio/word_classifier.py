"""Command words learnt from recorded takes: a linear classifier on speech embeddings.

``WordClassifier.fit(embeddings, labels)`` learns the command words from takes of them said
by other people (``labels``: the word, or ``OTHER`` for any other speech: non-command words
said by the same people teach it what to refuse). ``probabilities(embedding)`` gives each
command's probability for one segment's ``SpeechEmbedder.embed`` output, and ``decide``
returns the most likely command when it reaches ``threshold``.

Method: the ``(7, 96)`` embeddings flattened, standardised, and a multinomial logistic
regression (``scikit-learn``, ``C`` = 0.05, fitted deterministically). Flattening and ``C`` were
picked in one exploratory ten-digit run over all three developer speakers (not nested); the
thresholds of ``benchmarks/voice_embed_eval.py`` are nested.

Scope, plainly: this helps only words that someone has recorded takes of (several speakers
for speaker independence; the developer set has three). It is not the general ``--words``
path, which takes any dictionary word and needs no takes (``sensekit.audio.words``). The
probabilities are overconfident on a speaker unlike the training ones; choose ``threshold``
on held-out speakers, as the benchmark does.

Cost: fitting ~1 s for 1,000 takes; a decision ~0.1 ms. Fails with ``ConfigError`` for
mismatched inputs, fewer than two classes, or no ``OTHER`` takes.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from sensekit.errors import ConfigError

__all__ = ["WordClassifier", "OTHER"]

OTHER = ""           # the label of takes that are not a command


class WordClassifier:
    """Command words from embeddings of recorded takes (see the module docstring)."""

    def __init__(self, *, c: float = 0.05) -> None:
        self.c = float(c)
        self.words: tuple[str, ...] = ()
        self._model: Any = None

    def fit(self, embeddings: Sequence[np.ndarray] | np.ndarray, labels: Sequence[str]) -> WordClassifier:
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        x = _matrix(embeddings)
        y = np.asarray([str(v) for v in labels])
        if len(y) != len(x):
            raise ConfigError(f"{len(x)} embeddings but {len(y)} labels")
        words = tuple(sorted(set(y.tolist()) - {OTHER}))
        if not words:
            raise ConfigError("no command takes to learn from (every label is OTHER)")
        if OTHER not in set(y.tolist()):
            raise ConfigError("no OTHER takes: the classifier needs other speech to learn what to refuse")
        self._model = make_pipeline(StandardScaler(), LogisticRegression(C=self.c, max_iter=5000))
        self._model.fit(x, y)
        self.words = words
        return self

    def probabilities(self, embedding: np.ndarray) -> dict[str, float]:
        """Each command word's probability for one segment (``OTHER`` left out)."""
        if self._model is None:
            raise ConfigError("the word classifier has not been fitted")
        p = self._model.predict_proba(_matrix([embedding]))[0]
        return {str(w): float(v) for w, v in zip(self._model.classes_, p) if w != OTHER}

    def probability_matrix(self, embeddings: Sequence[np.ndarray] | np.ndarray) -> np.ndarray:
        """Probabilities of ``self.words`` (columns) for many segments at once (rows)."""
        if self._model is None:
            raise ConfigError("the word classifier has not been fitted")
        p = self._model.predict_proba(_matrix(embeddings))
        cls = [str(v) for v in self._model.classes_]
        return np.asarray(p[:, [cls.index(w) for w in self.words]], dtype=np.float64)

    def decide(self, embedding: np.ndarray, *, threshold: float) -> tuple[str, float] | None:
        """The most likely command and its probability, if that reaches ``threshold``."""
        p = self.probabilities(embedding)
        word = max(p, key=lambda w: p[w])
        return (word, p[word]) if p[word] >= threshold else None


def _matrix(embeddings: Sequence[np.ndarray] | np.ndarray) -> np.ndarray:
    rows = [np.asarray(e, dtype=np.float64).reshape(-1) for e in embeddings]
    if not rows:
        raise ConfigError("no embeddings given")
    sizes = {len(r) for r in rows}
    if len(sizes) != 1:
        raise ConfigError(f"embeddings of different sizes: {sorted(sizes)}")
    x = np.stack(rows)
    if not np.all(np.isfinite(x)):
        raise ConfigError("embeddings contain NaN or Inf")
    return x
