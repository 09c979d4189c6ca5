"""Track what you click and print its position. Box wrong? The wheel or +/- resizes it; click again for another.
Run it: sensekit run examples/track_click.py [--source camera:0|demo] [--headless --pick 159,99]
"""
import pygame
from sensekit.app import App, draw
from sensekit.app.picking import TrackerPicking
from sensekit.events import ColorTracked
from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.pipeline import VisionStage


def show(event: ColorTracked) -> None:
    print(f"{event.t:6.2f} s  x {event.cx:6.1f}  y {event.cy:6.1f}  ({event.nx:.2f}, {event.ny:.2f})", flush=True)

class TrackClick(TrackerPicking, App, main=__name__):   # TrackerPicking: a click or drag picks, draw_picked outlines it
    title, instructions = "Track a clicked object", "click an object: its position is printed; wheel: box size"

    def stages(self) -> list[VisionStage]:   # starts on orange-red; a click (or --pick X,Y) picks another
        self.vision = VisionStage(tracker=ColorTracker("#eb2d14"))
        return [self.vision]

    def setup(self) -> None:
        self.camera_view = draw.content_rect(self.host.screen)     # clicks here pick colours
        self.on("color_tracked", show)
        self.on("color_lost", lambda event: print(f"{event.t:6.2f} s  lost", flush=True))

    def draw(self, screen: pygame.Surface) -> None:
        self.draw_camera(screen, draw.content_rect(screen))
        self.draw_picked(screen)
        self.draw_frame(screen)
