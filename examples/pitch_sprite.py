"""Voice pitch moves a sprite: sing higher and the ball rises; in silence it sinks.
Run it: sensekit run examples/pitch_sprite.py [--source mic|demo] [--headless --frames 90]
"""
import pygame
from sensekit.app import App
from sensekit.audio.pipeline import AudioStage
from sensekit.audio.pitch import PitchTracker

LOW_HZ, HIGH_HZ = 100.0, 400.0                   # the notes at the bottom and at the top


class PitchSprite(App, main=__name__):   # `python examples/pitch_sprite.py ARGS`: as `sensekit run`
    title, instructions, needs = "Pitch sprite", "sing: higher notes lift the ball", frozenset({"audio"})

    def stages(self) -> list[AudioStage]:
        return [AudioStage(pitch=PitchTracker())]

    def setup(self) -> None:
        self.height = self.target = 0.0             # 0 = bottom, 1 = top; hz is 0 in silence
        self.on("pitch", lambda e: setattr(self, "target", min(max((e.hz - LOW_HZ) / (HIGH_HZ - LOW_HZ), 0), 1)))

    def update(self, dt: float) -> None:
        self.height += (self.target - self.height) * min(1.0, 6 * dt)     # glide to the note

    def draw(self, screen: pygame.Surface) -> None:
        screen.fill((20, 24, 40))
        area = screen.get_rect().inflate(0, -160)
        pygame.draw.circle(screen, (255, 200, 60), (area.centerx, int(area.bottom - self.height * area.h)), 26)
        self.draw_frame(screen, f"height {self.height:.2f}")
