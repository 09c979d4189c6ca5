"""Balloon: a sound blows the balloon up, it shrinks in silence, a clap pops it.
Run it: sensekit run examples/custom_app.py [--source mic|demo] [--headless --screenshot balloon.png]"""
import pygame
from sensekit.app import App
from sensekit.audio.clap import ClapDetector
from sensekit.audio.pipeline import AudioStage
from sensekit.events import Clap


class Balloon(App, main=__name__):   # main=__name__: `python examples/custom_app.py ARGS` runs `sensekit run`
    title, instructions, needs = "Balloon", "hum to blow it up - clap to pop it", frozenset({"audio"})

    def stages(self) -> list[AudioStage]:    # what to sense: the level, and claps
        return [AudioStage(clap=ClapDetector())]

    def setup(self) -> None:                 # the game's state, and the events it listens to
        self.radius, self.loud, self.pops = 20.0, False, 0
        self.on("level", lambda event: setattr(self, "loud", event.level > 30))
        self.on("clap", self.pop)

    def pop(self, event: Clap) -> None:      # a handler gets the event: here a Clap (t, strength)
        self.radius, self.pops = 20.0, self.pops + 1

    def update(self, dt: float) -> None:     # grow 80 px/s while it is loud, else shrink 20 px/s
        self.radius = min(max(self.radius + (80 if self.loud else -20) * dt, 20.0), 180.0)

    def draw(self, screen: pygame.Surface) -> None:
        screen.fill((25, 30, 50))
        pygame.draw.circle(screen, (230, 60, 80), screen.get_rect().center, int(self.radius))
        self.draw_frame(screen, f"pops {self.pops}")
