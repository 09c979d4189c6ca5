"""The panel's teach card: show a gesture for a few seconds per name, learn, keep it in the venue.

``TeachControl`` listens to the run's ``hand`` events (``sensekit events --hands --panel``) and
hands them to a ``vision.taught_live.LiveTeaching``; the page asks, through the server's
``/api/teach`` and the run's command queue (so everything happens on the run's thread):

- ``record`` NAME SECONDS: the hands of the next SECONDS (from the first hand seen) are
  examples of NAME;
- ``forget`` NAME: drop its examples;
- ``learn``: fit the model (``TaughtGestures``, as ``sensekit teach gesture`` does) and name
  the gestures with it from the next frame on; then ``save()`` (the server runs it on one of
  its own threads: writing a profile with tomlkit takes a second or two, which the run must
  not wait for) writes it to the venue profile's ``[taught_gestures]`` table
  (``profile.save_taught_gestures``, the command's own writer);
- ``status``: what is being recorded, seconds left, examples per name.

A run started with a profile that already holds taught gestures starts from their examples, so
teaching one more name keeps the others. Failure modes: ``ConfigError`` with a sentence (no
hand stage in the run, a bad name or duration, learning with fewer than two names, a name that
saw no hand, a profile that cannot be written).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from sensekit.errors import ConfigError
from sensekit.events import Dispatcher, Event, Hand
from sensekit.profile import save_taught_gestures
from sensekit.vision.taught import TaughtGestures
from sensekit.vision.taught_live import LiveTeaching, TakesTaught

__all__ = ["TeachControl", "ACTIONS"]

ACTIONS = ("status", "record", "forget", "learn")
NO_HAND_STAGE = "nothing to teach with: this run has no hand stage (start it with --hands)"


class TeachControl:
    """Recording, learning and saving taught gestures for one running piece."""

    def __init__(self, stages: Callable[[], Sequence[Any]], dispatcher: Dispatcher, profile_path: Path, *,
                 model: Mapping[str, Any] | None = None) -> None:
        self._stages = stages
        self.profile_path = Path(profile_path)
        self.teaching = LiveTeaching()
        self.learned: TaughtGestures | None = None
        if model is not None:
            self.teaching.load(model)
        dispatcher.on("hand", self._on_hand)

    def _on_hand(self, event: Event) -> None:
        if isinstance(event, Hand):
            self.teaching.add(event.t, event.landmarks)

    def _hand_stage(self) -> TakesTaught:
        for stage in self._stages():
            if isinstance(stage, TakesTaught):
                return stage
        raise ConfigError(NO_HAND_STAGE)

    def status(self) -> dict[str, Any]:
        return {**self.teaching.status(), "profile": str(self.profile_path)}

    def act(self, action: str, name: Any = None, seconds: Any = None) -> dict[str, Any]:
        """One request of the page (see the module docstring); returns the new status, with a
        ``message`` for the page."""
        stage = self._hand_stage()
        message = ""
        if action == "record":
            self.teaching.record(name, seconds)
            message = f"recording {name.strip()} for {float(seconds):g} s from the first hand seen"
        elif action == "forget":
            self.teaching.forget(name)
            message = f"forgot {name.strip()}"
        elif action == "learn":
            model = self.teaching.learn()
            stage.use_taught(model)
            self.learned = model
            counts = ", ".join(f"{n} {len(rows)}" for n, rows in sorted(self.teaching.examples.items()))
            message = f"taught {len(model.classes)} gestures ({counts} hand frames)"
        elif action != "status":
            raise ConfigError(f"`action` must be one of {', '.join(ACTIONS)}, got {action!r}")
        return {**self.status(), "message": message}

    def save(self) -> Path:
        """Write the last learned model to the venue profile (any thread: the model is not
        changed once learned)."""
        if self.learned is None:
            raise ConfigError("nothing learned yet: record two gestures or more, then learn")
        return save_taught_gestures(self.profile_path, self.learned.to_dict())
