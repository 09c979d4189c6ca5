"""The panel's sound card: make a sound 3-5 times per name, save, and the run hears it at once.

``SoundTeachControl`` hooks the run's ``VoiceStage`` (``segment_hooks``): every voiced segment
the stage cuts while a name is being recorded is one example of it, cut exactly as the sounds
the stage will later match. The page asks, through the server's ``/api/teach-sound`` and the
run's command queue (so everything happens on the run's thread):

- ``record`` NAME: the next voiced segments are examples of NAME, up to ``MAX_EXAMPLES`` (then
  recording stops by itself); recording another name stops this one;
- ``stop``: stop recording; ``forget`` NAME: drop its examples (a name with none is an error);
- ``learn``: teach every name with ``MIN_EXAMPLES`` or more (``SoundBook.teach``, as
  ``sensekit teach sound`` does) into the stage's book, so ``sound`` events come from the next
  segment on; then ``save()`` (on one of the server's threads: tomlkit takes a while) writes
  the book to the venue profile's ``[sounds.NAME]`` tables (``profile.save.save_table``, the
  command's own writer);
- ``status``: the name being recorded and the examples per name (each with its length).

Names are one word of up to 64 letters, digits, ``_`` and ``-`` (``sounds.check_taught_name``,
the command's own rule); at most ``MAX_SOUNDS`` (32) names are recorded at once and known to the
run. Failure modes: ``ConfigError`` with a sentence (no voice stage in the run, a bad name,
learning with no name recorded 2 times, a profile that cannot be written).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from sensekit.audio.sounds import check_taught_name
from sensekit.audio.vad import Segment
from sensekit.errors import ConfigError
from sensekit.safe_read import short

__all__ = ["SoundTeachControl", "SOUND_ACTIONS"]

SOUND_ACTIONS = ("status", "record", "stop", "forget", "learn")
MIN_EXAMPLES = 2
MAX_EXAMPLES = 5
NO_VOICE_STAGE = ("nothing to teach with: this run has no voice stage (start it with --sounds "
                  "--profile FILE or --words ...)")
#: names being recorded, and sounds in the stage's book: every request answers with the whole
#: status, so 20,000 names made each one cost ~20 ms on the run's thread (197 s for the 20,000)
MAX_SOUNDS = 32


class SoundTeachControl:
    """Recording, learning and saving taught sounds for one running voice stage."""

    def __init__(self, stages: Callable[[], Sequence[Any]], profile_path: Path) -> None:
        self._stages = stages
        self.profile_path = Path(profile_path)
        self.examples: dict[str, list[Segment]] = {}
        self.recording: str | None = None
        self._hooked: Any = None

    def _voice(self) -> Any:
        from sensekit.audio.voice import VoiceStage

        for stage in self._stages():
            if isinstance(stage, VoiceStage):
                if self._hooked is not stage:
                    stage.segment_hooks.append(self._on_segment)
                    self._hooked = stage
                return stage
        raise ConfigError(NO_VOICE_STAGE)

    def _on_segment(self, segment: Segment) -> None:
        if self.recording is None:
            return
        takes = self.examples.setdefault(self.recording, [])
        takes.append(segment)
        if len(takes) >= MAX_EXAMPLES:
            self.recording = None

    def status(self) -> dict[str, Any]:
        return {"recording": self.recording, "profile": str(self.profile_path),
                "examples": {n: [round(s.end - s.start, 2) for s in segs] for n, segs in self.examples.items()},
                "taught": sorted(getattr(self._voice().sounds, "sounds", {}) or {})}

    def act(self, action: str, name: Any = None) -> dict[str, Any]:
        """One request of the page (see the module docstring); the new status with a ``message``."""
        stage = self._voice()
        message = ""
        if action == "record":
            self.recording = self._new_name(check_taught_name(name))
            self.examples[self.recording] = []
            message = f"make {self.recording} {MIN_EXAMPLES + 1}-{MAX_EXAMPLES} times, with a pause between"
        elif action == "stop":
            self.recording = None
        elif action == "forget":
            forget = check_taught_name(name)
            if forget not in self.examples:
                raise ConfigError(f"nothing recorded for {forget!r} to forget")
            del self.examples[forget]
            self.recording = None if self.recording == forget else self.recording
            message = f"forgot {forget}"
        elif action == "learn":
            message = self._learn(stage)
        elif action != "status":
            raise ConfigError(f"`action` must be one of {', '.join(SOUND_ACTIONS)}, got {short(action)}")
        return {**self.status(), "message": message}

    def _new_name(self, name: str) -> str:
        if name not in self.examples and len(self.examples) >= MAX_SOUNDS:
            raise ConfigError(f"at most {MAX_SOUNDS} sounds are recorded at once; forget one first")
        return name

    def _learn(self, stage: Any) -> str:
        from sensekit.audio.sounds import SoundBook

        ready = {n: segs for n, segs in self.examples.items() if len(segs) >= MIN_EXAMPLES}
        if not ready:
            raise ConfigError(f"nothing to learn: record a sound {MIN_EXAMPLES} times or more first")
        self.recording = None
        book = SoundBook(stage.sounds.sounds.values() if stage.sounds is not None else ())
        if len(set(book.sounds) | set(ready)) > MAX_SOUNDS:
            raise ConfigError(f"the run would know more than {MAX_SOUNDS} sounds; teach fewer")
        for name, segs in ready.items():
            book.teach(name, segs)
        stage.sounds = book                      # heard from the next segment on
        stage.emits = stage.emits | {"sound"}
        return "taught " + ", ".join(f"{n} ({len(s)} examples)" for n, s in sorted(ready.items()))

    def save(self) -> Path:
        """Write the stage's taught sounds to the venue profile (any thread: the book is replaced,
        never changed, once learned)."""
        from sensekit.audio.sounds import SOUNDS_TABLE
        from sensekit.profile.save import save_table

        book = self._voice().sounds
        if book is None or not len(book):
            raise ConfigError("nothing learned yet: record a sound, then learn")
        return save_table(self.profile_path, SOUNDS_TABLE, book.to_tables())
