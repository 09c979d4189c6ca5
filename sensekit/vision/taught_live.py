"""Teaching gestures while the piece runs: a few seconds of hands per class name, then learn.

``LiveTeaching`` is fed the ``hand`` events of the running hand stage (``add``), as
``sensekit teach gesture`` feeds the hands it finds in a class's time range: each hand is one
example, ``taught.hand_features`` of its landmarks. ``record(name, seconds)`` takes the hands
of the next ``seconds`` of source time (the time starts at the first hand seen after the call,
so nobody has to be in place before pressing the button); ``learn()`` fits the same
``TaughtGestures`` model the command fits. Recording a name again adds to its examples;
``forget(name)`` drops them.

Not thread-safe on its own: the panel calls every method on the run's thread (its command
queue). Cost: one feature vector per hand per frame while recording; nothing otherwise.
Failure modes (``ConfigError`` with a sentence): a bad name, seconds out of 0.2..60, learning
with fewer than two names or a name that saw no hand.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np

from sensekit.errors import ConfigError
from sensekit.vision.taught import TaughtGestures, check_gesture_name, hand_features

__all__ = ["LiveTeaching", "TakesTaught"]

MIN_SECONDS, MAX_SECONDS = 0.2, 60.0


class LiveTeaching:
    """Examples per gesture name, taken from the hand events of a running stage."""

    def __init__(self) -> None:
        self.examples: dict[str, list[np.ndarray]] = {}
        self.recording: str | None = None
        self._seconds = 0.0
        self._start: float | None = None       # source time of the first hand of this recording
        self._now = 0.0

    def record(self, name: str, seconds: float) -> None:
        """Take the hands of the next ``seconds`` as examples of ``name``."""
        name = check_gesture_name(name)
        if not isinstance(seconds, (int, float)) or not MIN_SECONDS <= float(seconds) <= MAX_SECONDS:
            raise ConfigError(f"seconds must be {MIN_SECONDS:g}..{MAX_SECONDS:g}, got {seconds!r}")
        self.recording, self._seconds, self._start = name, float(seconds), None
        self.examples.setdefault(name, [])

    def add(self, t: float, landmarks: Any) -> None:
        """One hand seen at source time ``t`` (its 21 landmarks in pixels)."""
        self._now = t
        if self.recording is None:
            return
        if self._start is None:
            self._start = t
        if t - self._start > self._seconds:
            self.recording = None
            return
        self.examples[self.recording].append(hand_features(np.asarray(landmarks)))

    def forget(self, name: str) -> None:
        self.examples.pop(check_gesture_name(name), None)
        if self.recording == name:
            self.recording = None

    def status(self) -> dict[str, Any]:
        """What the page shows: the name being recorded, the seconds left (``None`` while
        waiting for the first hand), and the examples per name."""
        left = None
        if self.recording is not None and self._start is not None:
            left = round(max(0.0, self._seconds - (self._now - self._start)), 2)
        return {"recording": self.recording, "left_s": left,
                "examples": {name: len(rows) for name, rows in sorted(self.examples.items())}}

    def learn(self) -> TaughtGestures:
        """The k-NN model of every recorded name (``TaughtGestures.fit``'s errors name a class
        with no hands, or fewer than two)."""
        return TaughtGestures().fit(self.examples)

    def load(self, model: Mapping[str, Any]) -> None:
        """Start from a saved model's examples (a ``[taught_gestures]`` table), so teaching one
        more name keeps the others."""
        self.examples = TaughtGestures.from_dict(model).examples()


@runtime_checkable
class TakesTaught(Protocol):
    """A stage that can name gestures with a taught model (``HandStage.use_taught``)."""

    def use_taught(self, taught: TaughtGestures | None) -> None: ...
