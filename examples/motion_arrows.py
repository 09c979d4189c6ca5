"""Motion zones as arrow keys: wave in the lower left or right of the picture to hold <- or ->.

    python examples/motion_arrows.py [SOURCE]     # demo, camera:0, a video file, ...
The picture is mirrored, like a mirror. To press the keys in another program, call
pynput's keyboard.Controller().press(Key.left) / .release(...) where this prints.
"""
from sensekit.capture.spec import open_source
from sensekit.cli.example_args import example_args
from sensekit.events import Dispatcher, Event
from sensekit.runner import Runner
from sensekit.vision.motion import MotionDetector
from sensekit.vision.pipeline import VisionStage

MIN_MOVING, held, dispatcher = 0.01, set[str](), Dispatcher()      # the fraction of a zone that must move


def arrows(event: Event) -> None:                             # "motion" and "still" events
    down = {k for k in ("left", "right") if getattr(event, "zones", {}).get(k + "_arrow", 0) >= MIN_MOVING}
    for key in sorted(down ^ held):
        print(f"{event.t:6.2f} s  {key.upper()} {'down' if key in down else 'up'}", flush=True)
    held.symmetric_difference_update(down ^ held)           # the keys held now: down


with open_source(example_args(__doc__).source) as source:
    w, h = source.frame_size or (640, 480)                    # zones: the lower 40 % of each half
    top = h * 6 // 10
    zones = {"left_arrow": (0, top, w // 2, h - top), "right_arrow": (w // 2, top, w - w // 2, h - top)}
    dispatcher.on("motion", arrows), dispatcher.on("still", arrows)
    Runner(source, [VisionStage(mirror=True, blur_px=5, motion=MotionDetector(zones_px=zones))], dispatcher).run()
