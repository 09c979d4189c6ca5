"""Command words learnt from recorded takes: a linear classifier on speech embeddings.

``WordClassifier.fit(embeddings, labels)`` learns the command words from takes of them said
by other people (``labels``: the word, or ``OTHER`` for any other speech: non-command words
said by the same people teach it what to refuse). ``probabilities(embedding)`` gives each
command's probability for one segment's ``SpeechEmbedder.embed`` output, and ``decide``
returns the most likely command when it reaches ``threshold``.

Method: the ``(n, 96)`` embeddings flattened, standardised, and a multinomial logistic
regression (``scikit-learn``, ``C`` = 0.05, fitted deterministically). After fitting, the
standardisation is folded into the weights: the model is then plain arrays (``classes``,
``weights``, ``bias``), applied with NumPy (a softmax), written to and read from a venue
profile by ``to_table``/``from_table`` (base64 little-endian float64 rows; no pickle), so
hearing needs neither scikit-learn nor the training takes. Flattening and ``C`` were
picked in one exploratory ten-digit run over all three developer speakers (not nested); the
thresholds of ``benchmarks/voice_embed_eval.py`` are nested.

Scope, plainly: this helps only words that someone has recorded takes of (several speakers
for speaker independence; the developer set has three). It is not the general ``--words``
path, which takes any dictionary word and needs no takes (``sensekit.audio.words``). The
probabilities are overconfident on a speaker unlike the training ones; choose ``threshold``
on held-out speakers, as the benchmark does.

Cost: fitting ~1 s for 1,000 takes; a decision ~0.1 ms. Fails with ``ConfigError`` for
mismatched inputs, fewer than two classes, no ``OTHER`` takes, or a damaged table.
"""
from __future__ import annotations

import base64
import math

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from sensekit.arg_types import checked
from sensekit.audio.sounds import is_taught_name
from sensekit.errors import ConfigError
from sensekit.safe_read import clip, short, stored_number

__all__ = ["WordClassifier", "OTHER"]

OTHER = ""           # the label of takes that are not a command
FORMAT = 1           # the layout of ``to_table``; a table without ``format`` is this one
MAX_ABS = 1e6        # a fitted weight or bias is far smaller (C = 0.05 on standardised inputs)


class WordClassifier:
    """Command words from embeddings of recorded takes (see the module docstring)."""

    @checked
    def __init__(self, *, c: float = 0.05) -> None:
        self.c = float(c)
        self.words: tuple[str, ...] = ()          # the commands, sorted (OTHER left out)
        self.classes: tuple[str, ...] = ()        # every class, OTHER included: the rows below
        self.weights = np.zeros((0, 0))           # (classes, features), standardisation folded in
        self.bias = np.zeros(0)
        self.takes: dict[str, int] = {}           # takes per class it learnt from

    def fit(self, embeddings: Sequence[np.ndarray] | np.ndarray, labels: Sequence[str]) -> WordClassifier:
        from sklearn.linear_model import LogisticRegression
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
        scaler = StandardScaler().fit(x)
        model = LogisticRegression(C=self.c, max_iter=5000).fit(scaler.transform(x), y)
        w = np.asarray(model.coef_, np.float64)
        b = np.asarray(model.intercept_, np.float64)
        if len(model.classes_) == 2:              # binary: p(second) = sigmoid(w.x + b)
            w = np.vstack([np.zeros_like(w[0]), w[0]])
            b = np.array([0.0, b[0]])
        scale = np.asarray(scaler.scale_, np.float64)
        self.weights = w / scale
        self.bias = b - self.weights @ np.asarray(scaler.mean_, np.float64)
        self.classes = tuple(str(v) for v in model.classes_)
        self.words = words
        self.takes = {c: int(np.sum(y == c)) for c in self.classes}
        return self

    def _check_fitted(self) -> None:
        if not self.classes:
            raise ConfigError("the word classifier has not been fitted")

    def probability_matrix(self, embeddings: Sequence[np.ndarray] | np.ndarray) -> np.ndarray:
        """Probabilities of ``self.words`` (columns) for many segments at once (rows)."""
        self._check_fitted()
        x = _matrix(embeddings)
        if x.shape[1] != self.weights.shape[1]:
            raise ConfigError(f"embeddings of {x.shape[1]} numbers, the classifier expects {self.weights.shape[1]}")
        z = x @ self.weights.T + self.bias
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        return np.asarray(p[:, [self.classes.index(w) for w in self.words]], dtype=np.float64)

    def probabilities(self, embedding: np.ndarray) -> dict[str, float]:
        """Each command word's probability for one segment (``OTHER`` left out)."""
        p = self.probability_matrix([embedding])[0]
        return {w: float(v) for w, v in zip(self.words, p)}

    def decide(self, embedding: np.ndarray, *, threshold: float,
               among: tuple[str, ...] | None = None) -> tuple[str, float] | None:
        """The most likely command and its probability, if that reaches ``threshold`` and the
        word is one of ``among`` (default: all): a segment most like a command that is not
        listed gives nothing, rather than the listed word that comes second."""
        p = self.probabilities(embedding)
        word = max(p, key=lambda w: p[w])
        if among is not None and word not in among:
            return None
        return (word, p[word]) if p[word] >= threshold else None

    # -- plain arrays for the venue profile ------------------------------------------------
    def to_table(self) -> dict[str, object]:
        """The fitted model as TOML-ready values: ``classes`` (``""`` is OTHER), ``takes``,
        ``bias`` and one base64 float64 row of ``weights`` per class."""
        self._check_fitted()
        return {"format": FORMAT,
                "classes": list(self.classes), "takes": [self.takes.get(c, 0) for c in self.classes],
                "c": self.c, "bias": [float(v) for v in self.bias],
                "weights": [base64.b64encode(np.ascontiguousarray(r, "<f8").tobytes()).decode("ascii")
                            for r in self.weights]}

    @classmethod
    def from_table(cls, table: Mapping[str, object], *, where: str = "profile",
                   features: int | None = None) -> WordClassifier:
        """The model written by ``to_table``; ``ConfigError`` naming ``where`` when damaged
        (checked whole here, so a damaged table is refused when the profile loads, never at the
        first word heard). ``features``: the numbers a weight row must hold (the embedding's size)."""
        def bad(why: str) -> ConfigError:
            return ConfigError(f"{where}: the taught words are damaged ({why}); teach them again")

        fmt = table.get("format", FORMAT)
        if fmt != FORMAT or isinstance(fmt, bool):
            raise ConfigError(f"{where}: the taught words are in format {short(fmt)}, this sensekit "
                              f"reads format {FORMAT}; teach them again")
        try:
            classes = list(table["classes"])                         # type: ignore[call-overload]
            rows = [np.frombuffer(base64.b64decode(str(t).encode("ascii"), validate=True), "<f8")
                    for t in table["weights"]]                       # type: ignore[attr-defined]
            bias = np.asarray([stored_number(v, "bias") for v in table["bias"]],  # type: ignore[attr-defined]
                              np.float64)
            takes = list(table.get("takes", [0] * len(classes)))    # type: ignore[call-overload]
            c = stored_number(table.get("c", 0.05), "c")
        except (KeyError, TypeError, ValueError) as exc:
            raise bad(clip(str(exc))) from None
        _check_classes(classes, bad)
        sizes = {len(r) for r in rows}
        if len(rows) != len(classes) or len(bias) != len(classes) or len(sizes) != 1:
            raise bad("classes, weights and bias do not match")
        size = sizes.pop()
        if size == 0 or (features is not None and size != features):
            raise bad(f"weight rows of {size} numbers, the embedding gives {features}")
        for what, v in (("a weight", np.concatenate(rows)), ("a bias", bias)):
            if not np.all(np.isfinite(v)) or np.abs(v).max() > MAX_ABS:
                worst = v[~np.isfinite(v)][0] if not np.all(np.isfinite(v)) else v[np.abs(v).argmax()]
                raise bad(f"{what} of {worst:g}: not a finite number within +-{MAX_ABS:g}")
        if len(takes) != len(classes) or not all(isinstance(n, int) and not isinstance(n, bool)
                                                 and 0 <= n <= 10**9 for n in takes):
            raise bad("`takes` must be one count of 0 or more per class")
        if not (math.isfinite(c) and 0 < c <= MAX_ABS):
            raise bad(f"`c` of {c:g} is more than {MAX_ABS:g}" if math.isfinite(c) and c > MAX_ABS
                      else f"`c` must be a positive number, got {c:g}")
        out = cls(c=c)
        out.classes = tuple(classes)
        out.words = tuple(sorted(set(classes) - {OTHER}))
        out.weights = np.stack(rows).astype(np.float64)
        out.bias = bias
        out.takes = dict(zip(classes, takes))
        return out


def _check_classes(classes: list[object], bad: Callable[[str], ConfigError]) -> None:
    """Classes are unique strings: ``OTHER`` and at least one word name (as ``teach words`` writes)."""
    if OTHER not in classes or len(classes) < 2:
        raise bad("classes, weights and bias do not match")
    for name in classes:
        if not isinstance(name, str) or (name != OTHER and not (is_taught_name(name) and name == name.lower())):
            raise bad(f"a word is named {short(name)}: up to 64 lower-case letters, digits, _ and -")
    twice = sorted({str(n) for n in classes if classes.count(n) > 1})
    if twice:
        raise bad(f"the word {short(twice[0])} is there twice")


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
