"""Gestures you teach by showing them: normalised hand landmarks and k nearest neighbours.

- ``hand_features(points)``: one hand's 21 landmarks ``(21, >=2)`` pixels -> 57 numbers: each
  point's (x, y) relative to the wrist (42), then the 15 distances between the wrist and the
  five fingertips, two by two (the shape of the hand whatever its turn: which fingers are
  spread, curled or touching), all in hand sizes (wrist to middle knuckle). The picture's
  orientation is kept by the first part (a thumbs up and a thumbs down differ), its position
  and scale are not. The distances were added after ``benchmarks/teach_eval.py``: on the four
  ASL signs of v04 the stage went from 0.82 to 0.85, on v02's pinches 0.92 either way.
- ``TaughtGestures.fit({name: [features, ...]})``: scikit-learn's ``KNeighborsClassifier``
  (k = 5, uniform votes) on the examples, at most ``MAX_EXAMPLES`` (60) per class, evenly
  spaced in time; ``predict(features) -> (name, confidence)``, the confidence being the
  share of the k neighbours that agree; below ``min_confidence`` (0.6) the answer is
  ``"none"``. ``to_dict()`` / ``from_dict()`` keep the model as plain numbers (JSON), so it
  can be saved and loaded exactly: the same frames give the same answers.

Cost: ~0.2 ms per prediction (at most a few hundred examples). Failure modes: a gesture
that is a movement rather than a shape (a wave) is seen only frame by frame; a class taught
with one hand and shown with the other is mirrored; an untaught shape is given the nearest
taught name when it happens to be close (the confidence says how sure).
Needs scikit-learn (in the ``hands`` extra).
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from sensekit.arg_types import checked
from sensekit.errors import ConfigError
from sensekit.installed import install_hint
from sensekit.safe_read import clip, stored_number

__all__ = ["hand_features", "TaughtGestures", "MAX_EXAMPLES", "FORMAT", "N_FEATURES"]

MAX_EXAMPLES = 60
FORMAT = "sensekit-taught-gestures-2"
FORMAT_1 = "sensekit-taught-gestures-1"     # positions only (42 numbers): read, distances added
FORMAT_PREFIX = "sensekit-taught-gestures-"
#: the wrist and the five fingertips, whose distances two by two describe the hand's shape
SHAPE_POINTS = (0, 4, 8, 12, 16, 20)
_PAIRS = np.array([(a, b) for i, a in enumerate(SHAPE_POINTS) for b in SHAPE_POINTS[i + 1:]])
N_FEATURES = 42 + len(_PAIRS)


def hand_features(points: np.ndarray) -> np.ndarray:
    """(21, >=2) hand landmarks in pixels -> (57,): wrist-relative positions, then the
    wrist-and-fingertip distances, in hand sizes."""
    pts = np.asarray(points, dtype=np.float64)
    if pts.ndim != 2 or pts.shape[0] != 21 or pts.shape[1] < 2:
        raise ConfigError(f"hand landmarks must be a (21, 3) array, got shape {pts.shape}")
    rel = pts[:, :2] - pts[0, :2]
    size = max(math.hypot(float(rel[9, 0]), float(rel[9, 1])), 1e-6)
    return _with_distances((rel / size).ravel())


def _with_distances(positions: np.ndarray) -> np.ndarray:
    """42 wrist-relative positions -> those and the shape distances (57)."""
    rel = positions.reshape(21, 2)
    gaps = np.linalg.norm(rel[_PAIRS[:, 0]] - rel[_PAIRS[:, 1]], axis=1)
    out: np.ndarray = np.concatenate([positions, gaps])
    return out


def _spaced(rows: Sequence[np.ndarray], n: int) -> list[np.ndarray]:
    if len(rows) <= n:
        return list(rows)
    idx = np.linspace(0, len(rows) - 1, n).round().astype(int)
    return [rows[i] for i in idx]


#: the longest gesture name (a card line, a JSON field, an OSC string)
MAX_NAME_CHARS = 64
#: what ``predict`` says for a hand close to no taught gesture: not a name to teach
NO_GESTURE = "none"


def check_gesture_name(name: object) -> str:
    """A taught gesture's name, stripped of the spaces around it: a letter, then letters, digits,
    ``_`` or ``-``, 64 characters at most, not ``"none"``; anything else is a one-line
    ``ConfigError`` naming the problem (the name quoted cut short, control characters escaped).
    Every door checks it: the panel's teach card, ``sensekit teach gesture --class``, ``fit``
    and a model read from a profile."""
    if not isinstance(name, str):
        raise ConfigError(f"a gesture name is text, got {type(name).__name__}")
    text = name.strip()
    if not text:
        raise ConfigError("a gesture name is empty")
    if len(text) > MAX_NAME_CHARS:
        raise ConfigError(f"a gesture name is at most {MAX_NAME_CHARS} characters, got {len(text):,} "
                          f"('{clip(text, 40)}')")
    odd = next((k for k, c in enumerate(text) if not c.isprintable()), None)
    if odd is not None:
        raise ConfigError(f"a gesture name is one line of printable characters; '{clip(text, 40)}' has "
                          f"{text[odd]!r} at character {odd + 1}")
    if not re.fullmatch(r"[^\W\d_][\w-]*", text):
        raise ConfigError(f"a gesture name is a letter, then letters, digits, _ or -, got '{clip(text, 40)}'")
    if text == NO_GESTURE:
        raise ConfigError(f"'{NO_GESTURE}' is what a hand like no taught gesture is called: choose another name")
    return text


class TaughtGestures:
    """A k-nearest-neighbours model of taught hand shapes."""

    @checked
    def __init__(self, *, k: int = 5, min_confidence: float = 0.6) -> None:
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise ConfigError(f"k must be a whole number >= 1, got {k!r}")
        if not 0.0 <= min_confidence <= 1.0:
            raise ConfigError(f"min_confidence must be 0..1, got {min_confidence!r}")
        self.k, self.min_confidence = k, float(min_confidence)
        self.classes: list[str] = []
        self._x = np.zeros((0, N_FEATURES))
        self._y = np.zeros(0, dtype=int)
        self._knn: Any = None

    def fit(self, examples: Mapping[str, Sequence[np.ndarray]]) -> TaughtGestures:
        """Learn from ``{name: [features, ...]}`` (at least one example per class, two classes)."""
        named = {check_gesture_name(name): list(rows) for name, rows in examples.items()}
        empty = [name for name, rows in named.items() if not rows]
        if empty:
            raise ConfigError(f"no examples for gesture {empty[0]!r} (no hand in its time range?)")
        if len(named) < 2:
            raise ConfigError(f"teaching needs at least two gestures, got {sorted(named)}")
        self.classes = sorted(named)
        xs, ys = [], []
        for label, name in enumerate(self.classes):
            for row in _spaced(named[name], MAX_EXAMPLES):
                xs.append(np.asarray(row, dtype=np.float64))
                ys.append(label)
        self._x, self._y = np.array(xs), np.array(ys, dtype=int)
        self._build()
        return self

    def _build(self) -> None:
        try:
            from sklearn.neighbors import KNeighborsClassifier
        except ImportError as exc:
            raise ConfigError(f"taught gestures need scikit-learn: {install_hint('hands')} ({exc})") from None
        self._knn = KNeighborsClassifier(n_neighbors=min(self.k, len(self._y)), weights="uniform",
                                         algorithm="brute")
        self._knn.fit(self._x, self._y)

    def predict(self, features: np.ndarray) -> tuple[str, float]:
        """(taught name or ``"none"``, share of the k neighbours that voted for it)."""
        if self._knn is None:
            raise ConfigError("the taught gestures model has not been fitted")
        proba = self._knn.predict_proba(np.asarray(features, dtype=np.float64).reshape(1, -1))[0]
        best = int(np.argmax(proba))
        confidence = float(proba[best])
        label = int(self._knn.classes_[best])
        return (self.classes[label] if confidence >= self.min_confidence else "none"), confidence

    def examples(self) -> dict[str, list[np.ndarray]]:
        """The examples kept per name (at most ``MAX_EXAMPLES`` each, as fitted)."""
        return {name: list(self._x[self._y == k]) for k, name in enumerate(self.classes)}

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "k": self.k, "min_confidence": self.min_confidence, "classes": self.classes,
                "labels": self._y.tolist(), "features": np.round(self._x, 6).tolist()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TaughtGestures:
        """The model ``to_dict`` wrote (format 1 or 2); ``ConfigError`` for another format or a
        damaged one (a missing key or a wrong type was a ``KeyError``/``ValueError`` traceback)."""
        fmt = data.get("format")
        if fmt not in (FORMAT, FORMAT_1):
            number = fmt.removeprefix(FORMAT_PREFIX) if isinstance(fmt, str) and fmt.startswith(FORMAT_PREFIX) else ""
            if number.isdigit() and int(number) > 2:
                raise ConfigError(f"the taught gestures are in format {fmt!r}, newer than this sensekit "
                                  f"reads ({FORMAT_1!r}, {FORMAT!r}): update sensekit, or teach them "
                                  f"again (sensekit teach gesture)")
            raise ConfigError(f"not a taught gestures model (format {clip(repr(fmt), 60)}, expected {FORMAT!r})")
        try:
            return cls._from_checked(data)
        except ConfigError:
            raise
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            why = f"no `{exc.args[0]}`" if isinstance(exc, KeyError) else clip(str(exc), 80)
            raise ConfigError(f"taught gestures model is damaged ({why}); teach it again "
                              f"(sensekit teach gesture)") from None

    @classmethod
    def _from_checked(cls, data: Mapping[str, Any]) -> TaughtGestures:
        try:                                  # as stored: checked, not converted (int("5"), float(True) were)
            model = cls(k=data["k"], min_confidence=stored_number(data["min_confidence"], "min_confidence"))
        except ConfigError as exc:
            raise ConfigError(f"taught gestures model is damaged ({exc}); teach it again "
                              f"(sensekit teach gesture)") from None
        try:
            model.classes = [check_gesture_name(c) for c in data["classes"]]
        except ConfigError as exc:
            raise ConfigError(f"taught gestures model: {exc}") from None
        width = 42 if data["format"] == FORMAT_1 else N_FEATURES     # an older model: positions only
        try:
            x = np.asarray(data["features"], dtype=np.float64)
        except (TypeError, ValueError):       # numpy's words ("an inhomogeneous shape") said nothing
            x = np.zeros((0, 0))
        if x.size == 0 or x.size % width:
            raise ConfigError(f"taught gestures model is damaged (`features` must be rows of {width} numbers)")
        if not np.all(np.isfinite(x)):        # scikit-learn's words: "Input X contains infinity"
            raise ConfigError("taught gestures model is damaged (a feature is not a finite number)")
        x = x.reshape(-1, width)
        model._x = np.array([_with_distances(row) for row in x]) if width != N_FEATURES else x
        y = np.asarray(data["labels"])
        if y.ndim != 1 or y.dtype.kind not in "iu" or len(y) != len(x) or not len(y) \
                or y.min() < 0 or y.max() >= len(model.classes):
            raise ConfigError("taught gestures model is damaged: features and labels do not match "
                              f"(a label is a whole number 0..{len(model.classes) - 1} for each row of features)")
        model._y = y.astype(int)
        model._build()
        return model
