"""Track what you click and print its position: click an object in the picture (its colours are learnt).
Run it: sensekit run examples/track_click.py [--source camera:0|demo] [--headless --pick 159,99]
"""
import pygame
from sensekit.app import App, draw
from sensekit.events import ColorTracked
from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.pipeline import VisionStage


def show(event: ColorTracked) -> None:
    print(f"{event.t:6.2f} s  x {event.cx:6.1f}  y {event.cy:6.1f}  ({event.nx:.2f}, {event.ny:.2f})", flush=True)


class TrackClick(App):
    title, instructions = "Track a clicked object", "click an object: its position is printed"
    camera_view: pygame.Rect                                        # set in setup()

    def stages(self) -> list[VisionStage]:   # starts on orange-red; a click (or --pick X,Y) picks another
        return [VisionStage(tracker=ColorTracker("#eb2d14"))]

    def setup(self) -> None:
        self.camera_view = draw.content_rect(self.host.screen)     # clicks here pick colours
        self.on("color_tracked", show)
        self.on("color_lost", lambda event: print(f"{event.t:6.2f} s  lost", flush=True))

    def draw(self, screen: pygame.Surface) -> None:
        self.draw_camera(screen, self.camera_view)
        self.draw_frame(screen)
